// A PDF attached to a message, as its text: pypdf reads it here in the worker
// (widget/pdf_text.py). pypdf and the standard-library modules it needs beyond the widget's
// (runtime/pdf/, tools/stdlib_subset.mjs) are fetched the first time a person attaches a PDF:
// a visit that never does loads none of it.

import { ReplyError } from "./rpc.js";

/** @type {Promise<void> | null} pypdf in place (once; again after a failure) */
let loading = null;
let attached = 0;

/**
 * The text of `file`, or a ReplyError the page says in its language (locked, only pictures,
 * not a PDF).
 * @param {any} pyodide
 * @param {File} file
 * @param {URL} runtime  the runtime folder's URL
 * @returns {Promise<{text: string}>}
 */
export async function pdfText(pyodide, file, runtime) {
  loading ??= loadPypdf(pyodide, runtime).catch((error) => {
    loading = null;
    throw error;
  });
  const [bytes] = await Promise.all([file.arrayBuffer(), loading]);
  const path = `/tmp/attached-${++attached}.pdf`;
  pyodide.FS.writeFile(path, new Uint8Array(bytes));
  const reader = pyodide.pyimport("widget.pdf_text");
  try {
    const reply = JSON.parse(reader.read_pdf(path, file.name));
    if (reply.error) throw new ReplyError(reply.error.message, undefined, reply.error.code, reply.error.params);
    return { text: reply.text };
  } finally {
    reader.destroy();
    pyodide.FS.unlink(path);
  }
}

/** pypdf's wheel and its standard-library modules, unpacked beside the widget. */
async function loadPypdf(/** @type {any} */ pyodide, /** @type {URL} */ runtime) {
  const [wheel, stdlib] = await Promise.all(["pdf/pypdf.whl", "pdf/pdf_stdlib.zip"].map(async (name) => {
    const response = await fetch(new URL(name, runtime));
    if (!response.ok) throw new Error(`Reading PDFs needs ${name}, which the server does not have (${response.status}): rebuild with "make serve".`);
    return new Uint8Array(await response.arrayBuffer());
  }));
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
