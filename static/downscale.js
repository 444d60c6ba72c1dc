// Images attached to a message, made no larger than a model needs: at most 2048 px on the
// long side, before they count against the attachment budget. Decoding and resizing happen in
// createImageBitmap (off the page's main thread where the browser allows), encoding in
// OffscreenCanvas.convertToBlob (likewise), so a 12-megapixel photo does not freeze the page.

export const LONGEST_SIDE = 2048;
/** Formats kept as they are (PNG for its transparency); any other image becomes a JPEG. */
const KEPT_FORMATS = new Set(["image/png", "image/jpeg", "image/webp"]);

/**
 * `file`, or a smaller copy of it when it is an image larger than `longest` px on a side.
 * Anything the browser cannot decode is returned as it is (the budget and the model decide).
 * @param {File} file
 */
export async function downscaled(file, longest = LONGEST_SIDE) {
  if (!file.type.startsWith("image/") || file.type === "image/svg+xml" || typeof createImageBitmap !== "function") return file;
  let full;
  try {
    full = await createImageBitmap(file);
  } catch {
    return file;
  }
  const scale = longest / Math.max(full.width, full.height);
  if (scale >= 1) {
    full.close();
    return file;
  }
  const width = Math.max(1, Math.round(full.width * scale));
  const height = Math.max(1, Math.round(full.height * scale));
  full.close();
  // Decoded again, resized as it is decoded, from the file itself: the browser does that off
  // the page's main thread, where resizing the decoded bitmap would happen on it.
  const small = await createImageBitmap(file, { resizeWidth: width, resizeHeight: height, resizeQuality: "high" });
  const type = KEPT_FORMATS.has(file.type) ? file.type : "image/jpeg";
  const blob = await encode(small, type);
  small.close();
  const name = type === file.type ? file.name : file.name.replace(/\.[^.]*$/, "") + ".jpg";
  return new File([blob], name, { type, lastModified: file.lastModified });
}

/** @param {ImageBitmap} bitmap @param {string} type @returns {Promise<Blob>} */
function encode(bitmap, type) {
  if (typeof OffscreenCanvas === "function") {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext("2d")).drawImage(bitmap, 0, 0);
    return canvas.convertToBlob({ type, quality: 0.9 });
  }
  // No OffscreenCanvas (Safari before 16.4): a canvas of the page's document.
  const canvas = /** @type {any} */ (globalThis).document.createElement("canvas");
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  canvas.getContext("2d").drawImage(bitmap, 0, 0);
  return new Promise((resolve, reject) => canvas.toBlob((/** @type {Blob | null} */ blob) => (blob ? resolve(blob) : reject(new Error("not encoded"))), type, 0.9));
}
