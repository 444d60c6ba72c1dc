// Times packing and unpacking one conversation as the worker does it: Pyodide's zlib (this
// build's runtime and widget wheel) and static/codec.js, in Node's V8.
//   node bench/codec_timing.mjs conversation.json   → {"pack": ms, "unpack": ms, ...}
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { pack, unpack } from "../static/codec.js";

const runtime = resolve(dirname(fileURLToPath(import.meta.url)), "../static/runtime");
const { loadPyodide } = await import(join(runtime, "pyodide/pyodide.mjs"));
const pyodide = await loadPyodide({
  indexURL: join(runtime, "pyodide/"),
  stdLibURL: join(runtime, "pyodide/python_stdlib.zip"),
});
const site = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
pyodide.unpackArchive(new Uint8Array(readFileSync(join(runtime, "../../build/widget.whl"))), "wheel", { extractDir: site });
const zlib = pyodide.pyimport("widget.compression");
const viaPython = (run) => (bytes) => {
  const result = run(bytes);
  try { return result.toJs(); } finally { result.destroy(); }
};
const compression = { deflate: viaPython(zlib.deflate), inflate: viaPython(zlib.inflate) };

const text = readFileSync(process.argv[2], "utf8");
const median = async (action) => {
  const times = [];
  for (let i = 0; i < 9; i++) {
    const start = performance.now();
    await action();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[4];
};
const packed = await pack(text, compression);
if ((await unpack(packed, compression)) !== text) throw new Error("round trip failed");
console.log(JSON.stringify({
  pack: await median(() => pack(text, compression)),
  unpack: await median(() => unpack(packed, compression)),
  plain: text.length,
  stored: packed.length,
}));
process.exit(0);
