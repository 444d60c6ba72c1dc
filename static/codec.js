// Stored conversations, compressed: raw deflate, then packed 15 bits to a UTF-16 unit, so a browser's 5,242,880 characters of localStorage hold about five
// times as much conversation as plain JSON would. Base64 would waste a third; 15 bits keep
// every unit between U+0800 and U+87FF, never a surrogate or a control character.
//
//   "~z1~<byte count>~<packed>"      anything else is read as it is (plain JSON, older entries)

const PREFIX = "~z1~";
const OFFSET = 0x0800;
/** The most a stored value may inflate to: the snapshot size limit (widget/compression.py). */
export const MAX_INFLATED_BYTES = 100 * 1024 * 1024;

/**
 * @typedef {(bytes: Uint8Array) => Uint8Array | Promise<Uint8Array>} Deflater
 * @typedef {{deflate: Deflater, inflate: Deflater}} Compression  raw deflate, both ways
 */

/**
 * The browser's own raw deflate. The worker passes Python's zlib instead, several times
 * faster for one conversation; both write and read the same format.
 * @type {Compression}
 */
export const streams = {
  deflate: (bytes) => transform(bytes, new CompressionStream("deflate-raw")),
  inflate: (bytes) => transform(bytes, new DecompressionStream("deflate-raw"), MAX_INFLATED_BYTES),
};

/** @param {string} text @param {Compression} compression @returns {Promise<string>} */
export async function pack(text, compression = streams) {
  const bytes = await compression.deflate(new TextEncoder().encode(text));
  return `${PREFIX}${bytes.length}~${toUnits(bytes)}`;
}

/**
 * The text `pack` was given, or `value` itself when it is not packed. A packed value that is
 * damaged comes back as it is too: the reader then finds it unreadable and leaves it alone.
 * @param {string | null} value @param {Compression} compression @returns {Promise<string | null>}
 */
export async function unpack(value, compression = streams) {
  if (value === null || !value.startsWith(PREFIX)) return value;
  const end = value.indexOf("~", PREFIX.length);
  const length = Number(value.slice(PREFIX.length, end));
  try {
    if (end < 0 || !Number.isSafeInteger(length) || length < 0) throw new Error("no length");
    const bytes = fromUnits(value.slice(end + 1), length);
    return new TextDecoder("utf-8", { fatal: true }).decode(await compression.inflate(bytes));
  } catch {
    return value;
  }
}

/** @param {Uint8Array} bytes */
function toUnits(bytes) {
  const units = new Uint16Array(Math.ceil((bytes.length * 8) / 15));
  let buffer = 0;
  let bits = 0;
  let out = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    if (bits >= 15) {
      bits -= 15;
      units[out++] = ((buffer >>> bits) & 0x7fff) + OFFSET;
      buffer &= (1 << bits) - 1;
    }
  }
  if (bits > 0) units[out++] = ((buffer << (15 - bits)) & 0x7fff) + OFFSET;
  let text = "";
  for (let i = 0; i < out; i += 8192) text += String.fromCharCode(...units.subarray(i, Math.min(out, i + 8192)));
  return text;
}

/** @param {string} text @param {number} length */
function fromUnits(text, length) {
  const bytes = new Uint8Array(length);
  let buffer = 0;
  let bits = 0;
  let out = 0;
  for (let i = 0; i < text.length && out < length; i++) {
    const unit = text.charCodeAt(i) - OFFSET;
    if (unit < 0 || unit > 0x7fff) throw new Error("not a packed unit");
    buffer = (buffer << 15) | unit;
    bits += 15;
    while (bits >= 8 && out < length) {
      bits -= 8;
      bytes[out++] = (buffer >>> bits) & 0xff;
    }
    buffer &= (1 << bits) - 1;
  }
  if (out < length) throw new Error("too short");
  return bytes;
}

/**
 * The bytes through a compression stream, read chunk by chunk so that output past `limit`
 * stops it (a hostile stored value can inflate a thousandfold).
 * @param {Uint8Array} bytes @param {TransformStream} stream @param {number} [limit]
 * @returns {Promise<Uint8Array>}
 */
async function transform(bytes, stream, limit = Infinity) {
  const reader = new Blob([/** @type {BlobPart} */ (bytes)]).stream().pipeThrough(stream).getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`inflates to more than ${limit} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
