"""Small, valid PDFs with real text, written by hand: for the tests, and for the build step
that finds which standard-library modules reading a PDF needs (tools/stdlib_subset.mjs).

    python tools/sample_pdf.py out.pdf "First page" "Second page"
"""

from __future__ import annotations

import sys
import zlib


def sample_pdf(*pages: str, compress: bool = True) -> bytes:
    """A PDF of one page per text (Helvetica, one line each; ASCII only), its page contents
    deflated as most PDFs have them."""
    contents = []
    for text in pages:
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        contents.append(f"BT /F1 18 Tf 72 720 Td ({escaped}) Tj ET".encode("ascii"))
    return _pdf(contents, compress)


def slow_pdf(operations: int = 3_000_000) -> bytes:
    """A PDF of about 80 KB whose one page inflates to `operations` text-drawing operations:
    reading its text takes pypdf minutes (the attack a time cap on reading stops)."""
    return _pdf([b"BT /F1 18 Tf " + b"(a) Tj 1 0 Td " * operations + b"ET"], compress=True)


def _pdf(contents: list[bytes], compress: bool) -> bytes:
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, once the pages' numbers are known
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    kids = []
    for content in contents:
        if compress:
            content = zlib.compress(content, 9)
        filters = b" /Filter /FlateDecode" if compress else b""
        objects.append(
            b"<< /Length %d%s >>\nstream\n%s\nendstream" % (len(content), filters, content)
        )
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % len(objects)
        )
        kids.append(b"%d 0 R" % len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        table,
    )
    return bytes(out)


def locked_pdf(text: str, password: str) -> bytes:
    """A one-page PDF locked with `password` (RC4, which pypdf opens without `cryptography`);
    the empty password makes one locked only against printing, as many "protected" PDFs are."""
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(sample_pdf(text))))
    writer.encrypt(password, owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


if __name__ == "__main__":
    with open(sys.argv[1], "wb") as file:
        file.write(sample_pdf(*sys.argv[2:]))
