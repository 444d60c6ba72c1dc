"""A PDF's text for the model (widget/pdf_text.py): pages in order, and a clear reason, naming
the file, when there is none to give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sample_pdf import locked_pdf, sample_pdf

from widget.pdf_text import MAX_PAGES, PdfUnreadable, pdf_text, read_pdf


def test_pages_in_order_blank_ones_left_out() -> None:
    data = sample_pdf("First (page)", "", "Third page")
    assert pdf_text(data, "a.pdf") == "First (page)\n\nThird page"


def test_uncompressed_pages_read_too() -> None:
    assert pdf_text(sample_pdf("Plain", compress=False), "a.pdf") == "Plain"


def test_empty_password_opens_a_pdf_locked_only_against_printing() -> None:
    assert pdf_text(locked_pdf("Secret plans", ""), "a.pdf") == "Secret plans"


@pytest.mark.parametrize(
    ("data", "code", "said"),
    [
        (sample_pdf(""), "pdf_no_text", "“scan.pdf” has no text to read"),
        (sample_pdf(), "pdf_no_text", "“scan.pdf” has no text to read"),
        (
            locked_pdf("Secret plans", "hunter2"),
            "pdf_locked",
            "“scan.pdf” is locked with a password",
        ),
        (b"", "pdf_unreadable", "“scan.pdf” could not be read as a PDF."),
        (b"%PDF-1.7\n" + b"\x00" * 500, "pdf_unreadable", "could not be read as a PDF"),
        (sample_pdf("cut short")[:120], "pdf_unreadable", "could not be read as a PDF"),
        (b"<script>alert(1)</script>", "pdf_unreadable", "could not be read as a PDF"),
    ],
)
def test_a_pdf_without_text_says_why_naming_it(data: bytes, code: str, said: str) -> None:
    with pytest.raises(PdfUnreadable) as caught:
        pdf_text(data, "scan.pdf")
    assert caught.value.code == code
    assert caught.value.params == {"file": "scan.pdf"}
    assert said in str(caught.value)


def test_a_long_pdf_gives_its_first_pages_only() -> None:
    data = sample_pdf(*(f"Page {n}" for n in range(MAX_PAGES + 3)))
    text = pdf_text(data, "long.pdf")
    assert text.startswith("Page 0\n\nPage 1") and text.endswith(f"Page {MAX_PAGES - 1}")


def test_the_worker_gets_json_either_way(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(sample_pdf("Plain text"))
    (tmp_path / "b.pdf").write_bytes(b"nope")
    assert json.loads(read_pdf(str(tmp_path / "a.pdf"), "a.pdf")) == {"text": "Plain text"}
    error = json.loads(read_pdf(str(tmp_path / "b.pdf"), "b.pdf"))["error"]
    assert error["code"] == "pdf_unreadable" and error["params"] == {"file": "b.pdf"}
    assert error["message"] == "“b.pdf” could not be read as a PDF."
