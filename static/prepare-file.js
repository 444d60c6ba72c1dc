// A file made ready to go with a message: an image at most 2048 px a side (in the chat's
// worker once Python runs, so the page's main thread never decodes it; in the page before),
// a PDF as its text (read in a worker of its own, static/pdf-reader.js), anything else as it is.

import { downscaled } from "./downscale.js";
import { readPdf } from "./pdf-reader.js";
import { KIND } from "./protocol.js";

/** @param {File} file */
export function isPdf(file) {
  return file.type === "application/pdf" || /\.pdf$/i.test(file.name);
}

/**
 * @param {File} file
 * @param {import("./client.js").WidgetClient | null} client  the chat's, once connected
 * @param {number} [pdfSeconds]  how long reading a PDF may take
 * @returns {Promise<File>} rejects, for a PDF without text, with why (`code`, `params`)
 */
export async function prepareFile(file, client, pdfSeconds) {
  if (client && isPdf(file)) {
    const { text } = await readPdf(file, pdfSeconds);
    return new File([text], file.name, { type: "text/plain" });
  }
  if (!client?.isReady || !file.type.startsWith("image/")) return downscaled(file);
  return client.ask(KIND.downscale, { file }).catch(() => downscaled(file));
}
