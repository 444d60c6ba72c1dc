// The element's scripts as browsers get them: each file minified on its own (esbuild, no
// bundling, so every module keeps its name and relative imports; the workers alone are bundled),
// with a linked source map; and the whole element once more as one file, bundle.js, which the
// entry loads instead of the thirty-odd modules (server/build.py).
// Written to static/runtime/min/; the server serves a copy only while it is newer than its
// source (server/build.py), so an edited source is served as is until the next `make setup`.
//
// Usage: node tools/minify.mjs <static folder> <out folder>

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";

const [staticDir, outDir] = process.argv.slice(2);
const esbuild = createRequire(join(process.cwd(), staticDir, "package.json"))("esbuild");

/** The element's and the workers' sources: every .js beside it and in i18n/, no tooling. */
function sources(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return entry.name === "i18n" ? sources(join(folder, entry.name)) : [];
    return entry.name.endsWith(".js") && !entry.name.endsWith(".d.ts") ? [join(folder, entry.name)] : [];
  });
}

const OPTIONS = { format: "esm", minify: true, target: "es2022", legalComments: "none" };
/**
 * Each worker is one file with its imports (a realm of its own: nothing is shared with the page),
 * so it starts after one fetch instead of two rounds.
 */
const BUNDLED = new Set(["worker.js", "snapshot-maker.js", "pdf-worker.js"]);

let before = 0;
let after = 0;
for (const source of sources(staticDir)) {
  const name = relative(staticDir, source);
  const code = readFileSync(source, "utf8");
  const out = join(outDir, name);
  // The map names the plain source, …/static/<name>, as seen from …/static/v/<digest>/<name>.
  const sourcefile = "../".repeat(name.split("/").length + 1) + name;
  mkdirSync(dirname(out), { recursive: true });
  before += code.length;
  if (BUNDLED.has(name)) {
    esbuild.buildSync({ ...OPTIONS, entryPoints: [source], bundle: true, outfile: out, sourcemap: "linked" });
  } else {
    const result = esbuild.transformSync(code, { ...OPTIONS, sourcemap: "external", sourcefile });
    writeFileSync(out, `${result.code}//# sourceMappingURL=${out.split("/").pop()}.map\n`);
    writeFileSync(`${out}.map`, result.map);
  }
  after += readFileSync(out, "utf8").length;
}
// The element in one file, worker-start.js's code first, so it still starts the worker before
// the rest runs. One request instead of thirty-odd: over HTTP/1.1's six connections those took
// 120-170 ms on a first visit, and the worker waited for them. Synced history's panel imports
// nothing and is fetched only when used: it stays a module of its own.
esbuild.buildSync({
  ...OPTIONS,
  stdin: {
    contents: 'import "./worker-start.js";\nexport { ChatWidget } from "./chat-widget.js";\n',
    resolveDir: staticDir,
    sourcefile: "bundle.js",
  },
  bundle: true,
  external: ["./sync-panel.js"],
  outfile: join(outDir, "bundle.js"),
  sourcemap: "linked",
});

console.log(`minified: ${before} → ${after} bytes`);
