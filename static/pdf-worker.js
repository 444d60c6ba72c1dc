// A worker of its own for reading one PDF (static/pdf-reader.js starts it and ends it): pypdf
// in the chat's worker held the whole chat while it read, and a small hostile PDF (80 KB that
// inflate to millions of drawing operations) held it for minutes. Here Python starts as the
// chat's does (./python-runtime.js), with pypdf and the standard-library modules it needs
// beyond the widget's (runtime/pdf/, tools/stdlib_subset.mjs); the page stops it past its time.

import { RUNTIME, importLoader, loadRuntime, requireWebAssembly, useRuntimeFromPage } from "./python-runtime.js";

self.onmessage = async ({ data: { module, file } }) => {
  self.onmessage = null;
  try {
    const loader = importLoader();
    requireWebAssembly();
    useRuntimeFromPage(Promise.resolve(module instanceof WebAssembly.Module ? module : null));
    const [pyodide, bytes, packages] = await Promise.all([
      loadRuntime(loader), file.arrayBuffer(), fetchPypdf(),
    ]);
    unpackPypdf(pyodide, packages);
    pyodide.FS.writeFile("/tmp/attached.pdf", new Uint8Array(bytes));
    self.postMessage(JSON.parse(pyodide.pyimport("widget.pdf_text").read_pdf("/tmp/attached.pdf", file.name)));
  } catch (error) {
    self.postMessage({ failed: error instanceof Error ? error.message : String(error) });
  }
};

/** pypdf's wheel and its standard-library modules, fetched as Python starts. */
function fetchPypdf() {
  return Promise.all(["pdf/pypdf.whl", "pdf/pdf_stdlib.zip"].map(async (name) => {
    const response = await fetch(new URL(name, RUNTIME));
    if (!response.ok) throw new Error(`Reading PDFs needs ${name}, which the server does not have (${response.status}): rebuild with "make serve".`);
    return new Uint8Array(await response.arrayBuffer());
  }));
}

/** Both unpacked beside the widget. @param {any} pyodide @param {Uint8Array[]} packages */
function unpackPypdf(pyodide, [wheel, stdlib]) {
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
  pyodide.unpackArchive(stdlib, "zip", { extractDir: sitePackages });
  pyodide.runPython(WIDEN_PACKAGES);
}

// A package already imported from the standard library's zip (`encodings`) looks only there
// for its modules: the ones just unpacked beside it are added to its path.
const WIDEN_PACKAGES = `
import os, sys, sysconfig
site = sysconfig.get_path("purelib")
for name, module in list(sys.modules.items()):
    folder = os.path.join(site, *name.split("."))
    paths = getattr(module, "__path__", None)
    if paths is not None and folder not in paths and os.path.isdir(folder):
        paths.append(folder)
sys.path_importer_cache.clear()
`;
