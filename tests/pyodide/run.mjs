// Runs the widget's own pytest suite inside Pyodide (Node), against the built wheel, so the
// session logic is proven in the runtime it ships to. Usage: node tests/pyodide/run.mjs [pytest args]

import { existsSync, readFileSync, readdirSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// The public corpora, when present (never part of the repository): tests skip without them.
const CORPUS = process.env.CHATKEEP_CORPUS ?? resolve(ROOT, "../shared/corpus");
const PYODIDE_DIR = join(ROOT, "static/node_modules/pyodide");
const WHEEL = join(ROOT, "build/widget.whl");
// pypdf as the browser gets it (widget/pdf_text.py reads attached PDFs with it)
const PYPDF = join(ROOT, "static/runtime/pdf/pypdf.whl");
const TEST_WHEELS = join(ROOT, "build/test-wheels");

for (const [path, fix] of [[PYODIDE_DIR, "npm ci --prefix static"], [WHEEL, "make setup"], [PYPDF, "make setup"], [TEST_WHEELS, "make test"]]) {
  if (!existsSync(path)) {
    console.error(`${path} is missing: run "${fix}" first.`);
    process.exit(2);
  }
}

const { loadPyodide } = await import(join(PYODIDE_DIR, "pyodide.mjs"));
const pyodide = await loadPyodide({
  indexURL: `${PYODIDE_DIR}/`,
  stdLibURL: join(ROOT, "static/runtime/pyodide/python_stdlib.zip"),
});
// Raw writes, so pytest's progress dots stay on one line.
pyodide.setStdout({ write: (bytes) => (process.stdout.write(bytes), bytes.length) });
pyodide.setStderr({ write: (bytes) => (process.stderr.write(bytes), bytes.length) });

const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
const install = (path) =>
  pyodide.unpackArchive(new Uint8Array(readFileSync(path)), "wheel", { extractDir: sitePackages });
for (const name of readdirSync(TEST_WHEELS).filter((n) => n.endsWith(".whl"))) install(join(TEST_WHEELS, name));
install(WHEEL);
install(PYPDF);

const { FS } = pyodide;
FS.mkdirTree("/repo");
FS.mount(FS.filesystems.NODEFS, { root: ROOT }, "/repo");
const corpusMounted = existsSync(CORPUS);
if (corpusMounted) {
  FS.mkdirTree("/corpus");
  FS.mount(FS.filesystems.NODEFS, { root: realpathSync(CORPUS) }, "/corpus"); // NODEFS needs a real folder
}

// Not mounted: the host path, which Pyodide cannot see, so the skip message names it.
pyodide.globals.set("corpus_path", corpusMounted ? "/corpus" : CORPUS);
pyodide.globals.set("in_ci", Boolean(process.env.CI));
pyodide.globals.set("pytest_args", pyodide.toPy(process.argv.slice(2)));
const exitCode = await pyodide.runPythonAsync(`
import importlib, os, sys
importlib.invalidate_caches()  # site-packages changed after start-up
os.environ["CHATKEEP_CORPUS"] = corpus_path
if in_ci: os.environ["CI"] = "true"
os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = "/tmp/hypothesis"
os.chdir("/tmp")
import widget
# The wheel, not the source tree, is what is under test.
assert "site-packages" in widget.__file__, widget.__file__
print(f"Pyodide {sys.version.split()[0]} on {sys.platform}: testing {widget.__file__}")
import pytest
int(pytest.main(["/repo/tests/widget", "-c", "/repo/pyproject.toml", "--rootdir", "/repo",
                 "-p", "no:cacheprovider", "-q", "-rs", *pytest_args]))
`);
process.exit(exitCode);
