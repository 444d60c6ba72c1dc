// Makes the Pyodide memory snapshot the widget boots from: Python started, the widget and the
// standard modules it needs already imported. It only loads into the identical Pyodide build,
// which is why it is made at build time, beside the runtime it belongs to; the worker boots
// plainly whenever the snapshot is missing or fails to load.
//
//   node tools/make_snapshot.mjs static/runtime

import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const runtime = resolve(process.argv[2] ?? "static/runtime");
const pyodideDir = join(runtime, "pyodide");
const { loadPyodide } = await import(join(pyodideDir, "pyodide.mjs"));
const pyodide = await loadPyodide({
  indexURL: `${pyodideDir}/`,
  stdLibURL: join(pyodideDir, "python_stdlib.zip"),
  _makeSnapshot: true,
});
const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
pyodide.unpackArchive(new Uint8Array(readFileSync(join(runtime, "widget.whl"))), "wheel", { extractDir: sitePackages });
// Everything the bridge imports, so that booting from the snapshot imports nothing.
pyodide.runPython("import widget.bridge, widget.compression");
const snapshot = pyodide.makeMemorySnapshot();
writeFileSync(join(pyodideDir, "snapshot.bin"), snapshot);
console.log(`snapshot.bin: ${(snapshot.length / 2 ** 20).toFixed(1)} MiB`);
