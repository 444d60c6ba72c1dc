"""A PDF attached to a message reaches the model as its text, under the file's name, read in
the chat's worker by pypdf, which is fetched only then; a PDF without text is said, naming it."""

from __future__ import annotations

import base64
from pathlib import Path

from pages import chat_request_bodies, host_page, widget
from playwright.sync_api import Page, expect
from sample_pdf import locked_pdf, sample_pdf, slow_pdf

# Attaches [name, base64 bytes] as if dropped on the chat.
DROP = """([name, data]) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const files = new DataTransfer();
  files.items.add(new File([bytes], name, { type: 'application/pdf' }));
  const chat = document.querySelector('chat-widget').shadowRoot.querySelector('.chat');
  const how = { dataTransfer: files, bubbles: true, cancelable: true, composed: true };
  chat.dispatchEvent(new DragEvent('dragover', how));
  chat.dispatchEvent(new DragEvent('drop', how));
}"""


def encoded(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_a_pdf_s_text_reaches_the_model_with_its_name(page: Page) -> None:
    fetched: list[str] = []
    page.context.on("request", lambda request: fetched.append(request.url))
    bodies = chat_request_bodies(page)
    host_page(page, 'history="memory"')
    widget(page).wait_ready()
    assert not [url for url in fetched if "/pdf/" in url]  # nothing of pypdf before a PDF
    page.evaluate(DROP, ["report.pdf", encoded(sample_pdf("Revenue grew 12%", "Costs fell"))])
    expect(page.locator("chat-widget .files li")).to_have_text(["📎 report.pdf×"])
    assert [url for url in fetched if url.endswith("/pdf/pypdf.whl")]
    widget(page).send("Summarize the report")
    parts = bodies[-1]["messages"][-1]["content"]
    assert {"type": "text", "text": "File report.pdf:\n\nRevenue grew 12%\n\nCosts fell"} in parts
    assert not [part for part in parts if part["type"] != "text"]  # no PDF bytes go out


def test_a_pdf_without_text_is_said_naming_it_and_nothing_attaches(page: Page) -> None:
    host_page(page, 'history="memory"')
    widget(page).wait_ready()
    files = page.locator("chat-widget .files li")
    for name, data, said in [
        ("scan.pdf", sample_pdf(""), "“scan.pdf” has no text to read: its pages are pictures"),
        (
            "locked.pdf",
            locked_pdf("Secret plans", "hunter2"),
            "“locked.pdf” is locked with a password",
        ),
        ("broken.pdf", b"%PDF-1.4 not really", "“broken.pdf” could not be read as a PDF."),
    ]:
        page.evaluate(DROP, [name, encoded(data)])
        expect(page.get_by_role("alert")).to_contain_text(said)
        expect(files).to_have_count(0)
    # A PDF locked only against printing opens with the empty password.
    page.evaluate(DROP, ["open.pdf", encoded(locked_pdf("Secret plans", ""))])
    expect(files).to_have_text(["📎 open.pdf×"])


def test_the_message_reads_in_the_page_s_language(page: Page) -> None:
    host_page(page, 'history="memory" lang="de"')
    widget(page).wait_ready()
    page.evaluate(DROP, ["scan.pdf", encoded(sample_pdf(""))])
    expect(page.get_by_role("alert")).to_have_text(
        "„scan.pdf“ enthält keinen lesbaren Text: Seine Seiten sind Bilder (vielleicht ein Scan)."
    )


def test_a_visit_that_started_from_the_snapshot_reads_pdfs_too(page: Page) -> None:
    bodies = chat_request_bodies(page)
    host_page(page, 'history="memory"')
    assert page.evaluate("document.querySelector('chat-widget').session.snapshotKept()") is True
    page.reload()
    widget(page).wait_ready()
    assert page.evaluate("document.querySelector('chat-widget').session.startedFromSnapshot")
    page.evaluate(DROP, ["notes.pdf", encoded(sample_pdf("Buy milk"))])
    expect(page.locator("chat-widget .files li")).to_have_text(["📎 notes.pdf×"])
    widget(page).send("What do I buy?")
    assert {"type": "text", "text": "File notes.pdf:\n\nBuy milk"} in bodies[-1]["messages"][-1][
        "content"
    ]


def test_the_picker_offers_pdfs_and_attaches_their_text(page: Page, tmp_path: Path) -> None:
    bodies = chat_request_bodies(page)
    host_page(page, 'history="memory"')
    picker = page.locator("chat-widget .file-input")
    assert "application/pdf" in (picker.get_attribute("accept") or "")
    report = tmp_path / "minutes.pdf"
    report.write_bytes(sample_pdf("Meeting moved to Friday"))
    picker.set_input_files(report)
    expect(page.locator("chat-widget .files li")).to_have_text(["📎 minutes.pdf×"])
    widget(page).send("When is the meeting?")
    assert {"type": "text", "text": "File minutes.pdf:\n\nMeeting moved to Friday"} in bodies[-1][
        "messages"
    ][-1]["content"]


def test_a_pdf_that_takes_too_long_is_stopped_and_never_holds_the_chat(page: Page) -> None:
    """An 80 KB PDF that inflates to millions of drawing operations held the chat's worker
    for minutes: nothing could be sent, stopped or read meanwhile."""
    host_page(page, 'history="memory" pdf-timeout="8"')
    widget(page).wait_ready()
    page.evaluate(DROP, ["heavy.pdf", encoded(slow_pdf())])
    expect(page.locator("chat-widget .files li")).to_have_count(0)  # being read, not attached
    widget(page).send("Still here?")  # the chat goes on meanwhile
    answers = page.locator("chat-widget article[data-role=assistant]")
    expect(answers).to_contain_text("Still here?")
    expect(page.get_by_role("alert")).to_contain_text(
        "“heavy.pdf” took longer than 8 s to read, so reading it was stopped.", timeout=30_000
    )
    expect(page.locator("chat-widget .files li")).to_have_count(0)


def test_a_pdf_over_the_size_cap_is_refused_before_it_is_read(page: Page) -> None:
    fetched: list[str] = []
    page.context.on("request", lambda request: fetched.append(request.url))
    host_page(page, 'history="memory" max-attachment-bytes="40000000"')
    widget(page).wait_ready()
    page.evaluate("""() => {
      const files = new DataTransfer();
      const big = new Uint8Array(20 * 1024 * 1024 + 1);
      files.items.add(new File([big], 'huge.pdf', { type: 'application/pdf' }));
      const chat = document.querySelector('chat-widget').shadowRoot.querySelector('.chat');
      const how = { dataTransfer: files, bubbles: true, cancelable: true, composed: true };
      chat.dispatchEvent(new DragEvent('dragover', how));
      chat.dispatchEvent(new DragEvent('drop', how));
    }""")
    expect(page.get_by_role("alert")).to_contain_text(
        "“huge.pdf” is larger than the 20 MB a PDF may be, so it was not read."
    )
    assert not [url for url in fetched if "/pdf/" in url or "pdf-worker" in url]
