"""Raw deflate for stored transcripts, which the worker packs into localStorage text.

The worker's JavaScript packs and unpacks (`static/codec.js`); the deflating itself is done
here because Pyodide's zlib is several times faster than the browser's `CompressionStream`
for one conversation. Raw deflate (no header), so either side can read the other's.
"""

from __future__ import annotations

import zlib

LEVEL = 3  # about 6x smaller than plain text for chat JSON, and quick: see `make bench`
#: the most a stored value may inflate to: the snapshot size limit (`snapshots.py`), and the
#: same number in `static/codec.js`
MAX_INFLATED_BYTES = 100 * 1024 * 1024


def deflate(data: object) -> bytes:
    """Compress bytes (or a JavaScript `Uint8Array`, as the worker passes them)."""
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(_bytes(data)) + compressor.flush()


def inflate(data: object, limit: int = MAX_INFLATED_BYTES) -> bytes:
    """Decompress; `ValueError` for data that is not raw deflate, is cut short, or would come
    to more than `limit` bytes (a stored value is hostile input too: 163 k characters of
    localStorage inflated to 314 MB)."""
    decompressor = zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        out = decompressor.decompress(_bytes(data), limit + 1)
        if len(out) <= limit and not decompressor.unconsumed_tail:
            out += decompressor.flush()
    except zlib.error as exc:
        raise ValueError(f"not a deflate stream: {exc}") from exc
    if len(out) > limit or decompressor.unconsumed_tail:
        raise ValueError(f"the deflate stream inflates to more than {limit:,} bytes")
    if not decompressor.eof:
        raise ValueError("the deflate stream is cut short")
    return out


def _bytes(data: object) -> bytes:
    to_bytes = getattr(data, "to_bytes", None)  # a JsProxy of a Uint8Array, in the worker
    if callable(to_bytes) and not isinstance(data, int):
        return bytes(to_bytes())
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"expected bytes, not {type(data).__name__}")
