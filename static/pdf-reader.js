// A PDF attached to a message, as its text, read by pypdf (widget/pdf_text.py) in a worker of
// its own (./pdf-worker.js), never in the chat's: a person can send, stop and read while a PDF
// is read. A PDF over `MAX_PDF_BYTES` is refused before anything reads it, and a reading that
// takes longer than the element's `pdf-timeout` (seconds, 30 by default) is stopped. pypdf is
// fetched the first time a person attaches a PDF: a visit that never does loads none of it.

import { compiledPyodide } from "./worker-start.js";
import { postModule, startModuleWorker } from "./module-worker.js";
import { ReplyError } from "./rpc.js";

/** The largest PDF read (bytes): past it the text would not fit a message anyway. */
export const MAX_PDF_BYTES = 20 * 1024 * 1024;
export const PDF_SECONDS = 30;
const WORKER_URL = new URL("./pdf-worker.js", import.meta.url);

/** What the page says, in English (static/i18n/errors.js under `error.<code>`). */
const SAID = {
  pdf_too_large: "“{file}” is larger than the {limit} MB a PDF may be, so it was not read.",
  pdf_too_slow: "“{file}” took longer than {seconds} s to read, so reading it was stopped.",
};

/**
 * The text of `file`, or a ReplyError the page says in its language (too large, too slow,
 * locked, only pictures, not a PDF).
 * @param {File} file @param {number} [seconds]  how long reading it may take
 * @returns {Promise<{text: string}>}
 */
export async function readPdf(file, seconds = PDF_SECONDS) {
  if (file.size > MAX_PDF_BYTES) {
    throw said("pdf_too_large", { file: file.name, limit: String(MAX_PDF_BYTES / 1024 / 1024) });
  }
  const worker = startModuleWorker(WORKER_URL);
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  try {
    const reply = await new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(said("pdf_too_slow", { file: file.name, seconds: String(seconds) })), seconds * 1000);
      worker.onmessage = ({ data }) => resolve(data);
      worker.onerror = (event) => reject(new Error(event.message || "The PDF reader did not start."));
      compiledPyodide().then((module) => postModule(worker, { module, file }));
    });
    if (reply.failed) throw new Error(reply.failed);
    if (reply.error) throw new ReplyError(reply.error.message, undefined, reply.error.code, reply.error.params);
    return { text: reply.text };
  } finally {
    clearTimeout(timer);
    worker.terminate(); // done, or past its time: its Python goes with it
  }
}

/** @param {keyof SAID} code @param {Record<string, string>} params */
function said(code, params) {
  const message = SAID[code].replace(/\{(\w+)\}/g, (_, name) => params[name] ?? "");
  return new ReplyError(message, undefined, code, params);
}
