"""A PDF attached to a message becomes its text: read with pypdf (pure Python, well kept) in a
worker of its own, started when a person attaches a PDF and stopped past its time
(static/pdf-reader.js, static/pdf-worker.js), so the chat is never held. The model gets the
text under the file's name, and the conversation keeps the text, never the PDF. What cannot
be read is said, naming the file."""

from __future__ import annotations

import io
import json
import logging

from .errors import WidgetError

#: Pages read at most: past this the text would not fit a message anyway.
MAX_PAGES = 500


class PdfUnreadable(WidgetError):
    """This PDF gives no text: locked, only pictures, or not a PDF at all."""


def pdf_text(data: bytes, name: str) -> str:
    """The text of the PDF `data`, its pages apart by a blank line."""
    from pypdf import PdfReader  # only now: most visits never attach a PDF

    # What pypdf notes about a damaged file is for its developers, not the page's console.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        # Many "protected" PDFs only restrict printing: the empty password opens them.
        if reader.is_encrypted and not reader.decrypt(""):
            raise PdfUnreadable.said("pdf_locked", file=name)
        pages = [page.extract_text() or "" for page in reader.pages[:MAX_PAGES]]
    except PdfUnreadable:
        raise
    except Exception as exc:  # a damaged or hostile file fails in many ways inside pypdf
        if "password" in str(exc).lower() or "decrypt" in str(exc).lower():
            raise PdfUnreadable.said("pdf_locked", file=name) from exc
        raise PdfUnreadable.said("pdf_unreadable", file=name) from exc
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    if not text:
        raise PdfUnreadable.said("pdf_no_text", file=name)
    return text


def read_pdf(path: str, name: str) -> str:
    """For the worker: the PDF at `path` (its file system) as JSON, `{"text"}` or `{"error":
    {message, code, params}}` (the page says it in its language)."""
    try:
        with open(path, "rb") as file:
            return json.dumps({"text": pdf_text(file.read(), name)}, ensure_ascii=False)
    except PdfUnreadable as exc:
        return json.dumps({"error": exc.notice()}, ensure_ascii=False)
