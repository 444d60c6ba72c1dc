"""Python only when someone chats: a closed launcher loads nothing heavy, a returning visitor
sees their conversations before Python runs, and a message sent meanwhile waits for it."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from pages import host_page, log, widget
from playwright.sync_api import Page, Request, Route, expect

WIDGET = "document.querySelector('chat-widget')"
# 'ready' when the session is ready now, else 'waiting' (a macrotask later, so a settled
# promise always wins the race).
READY_NOW = (
    f"Promise.race([{WIDGET}.session.ready.then(() => 'ready'),"
    " new Promise(resolve => setTimeout(() => resolve('waiting'), 0))])"
)


class HeldRuntime:
    """Holds back the widget's Python, so it cannot be ready until `release()`."""

    def __init__(self, page: Page) -> None:
        self.held: list[Route] = []
        self.released = False
        page.route("**/runtime/pyodide/widget_python.zip", self.hold)

    def hold(self, route: Route) -> None:
        if self.released:
            route.continue_()
        else:
            self.held.append(route)

    def release(self) -> None:
        """Let it through, whether the worker has asked for it yet or not."""
        self.released = True
        for route in self.held:
            route.continue_()
        self.held.clear()


@pytest.fixture
def runtime_requests(page: Page) -> Iterator[list[str]]:
    """Every request the page makes for the runtime, the worker or the API."""
    seen: list[str] = []

    def note(request: Request) -> None:
        if any(part in request.url for part in ("/runtime/", "/api/", "worker.js")):
            seen.append(request.url)

    page.on("request", note)
    yield seen


def test_a_closed_launcher_starts_no_worker_and_fetches_no_runtime(
    page: Page, runtime_requests: list[str]
) -> None:
    workers: list[str] = []
    page.on("worker", lambda worker: workers.append(worker.url))
    host_page(page, 'history="local" mode="launcher"')
    opener = page.get_by_role("button", name="Open chat")
    expect(opener).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert workers == [] and runtime_requests == []

    page.evaluate(f"{WIDGET}.open()")  # the host API opens it: now Python starts
    widget(page).wait_ready()
    # Once ready, the chat's worker may start a second one to keep the memory snapshot for the
    # next visit (static/snapshot-maker.js): one chat worker, whether or not it has yet.
    chat_workers = [url for url in workers if not url.endswith("/snapshot-maker.js")]
    assert len(chat_workers) == 1 and any("widget_python.zip" in url for url in runtime_requests)
    expect(page.get_by_role("textbox", name="Message")).to_be_focused()
    page.evaluate(f"{WIDGET}.close()")
    expect(opener).to_be_visible()
    expect(page.get_by_role("textbox", name="Message")).to_be_hidden()


def test_preload_starts_a_closed_launcher(page: Page) -> None:
    host_page(page, 'history="memory" mode="launcher" preload')  # waits until ready
    expect(page.get_by_role("button", name="Open chat")).to_be_visible()


def test_a_first_visit_downloads_the_10_mb_runtime_once(
    page: Page, runtime_requests: list[str]
) -> None:
    """The page compiles it and hands it to the worker, which must not download it again."""
    host_page(page, 'history="memory"')
    downloads = [url for url in runtime_requests if url.endswith("/pyodide.asm.wasm")]
    assert len(downloads) == 1, downloads


def test_open_and_close_do_nothing_inline(page: Page) -> None:
    host_page(page, 'history="memory"')
    page.evaluate(f"{WIDGET}.close()")
    expect(page.get_by_role("textbox", name="Message")).to_be_visible()


def test_a_returning_visitor_sees_their_conversations_before_python_runs(page: Page) -> None:
    host_page(page, 'history="local"')
    widget(page).send("My name is Alice")
    runtime = HeldRuntime(page)
    page.reload()
    recent = page.get_by_role("list", name="Recent conversations")
    expect(recent.get_by_role("button", name="My name is Alice")).to_be_visible()
    expect(page.get_by_role("textbox", name="Message")).to_be_editable()
    assert page.evaluate(READY_NOW) == "waiting"
    runtime.release()
    widget(page).wait_ready()
    expect(recent.get_by_role("button", name="My name is Alice")).to_be_visible()


STARTUP = {"version": 1, "id": "kept-by-host", "title": "Opened by the host", "created": 1,
           "updated": 2, "model": "demo", "thinking": "off",
           "messages": [{"role": "user", "content": "My name is Hana"},
                        {"role": "assistant", "content": "Hello **Hana**"}]}  # fmt: skip


def test_the_conversation_start_up_opens_is_drawn_once_before_python_runs(page: Page) -> None:
    runtime = HeldRuntime(page)
    script = f"{WIDGET}.snapshot = {json.dumps(STARTUP)};"
    host_page(page, 'history="memory"', script=script, ready=False)  # Python is held back
    answer = log(page).locator("article[data-role=assistant]")
    expect(answer.locator("strong")).to_have_text("Hana")  # drawn as Markdown already
    assert page.evaluate(READY_NOW) == "waiting"
    answer.evaluate("node => { node.dataset.drawnBefore = 'yes'; }")
    runtime.release()
    widget(page).wait_ready()
    expect(page.get_by_role("heading", level=2)).to_have_text("Opened by the host")
    assert answer.evaluate("node => node.dataset.drawnBefore") == "yes"  # not drawn again
    widget(page).send("What is my name?")
    expect(answer.last).to_contain_text("Hana")


def test_a_first_visit_loads_markdown_only_once_python_is_ready(page: Page) -> None:
    """Nothing to draw before then: loading it at once took a first visit's start time."""
    renderer: list[str] = []
    page.on("request", lambda r: renderer.append(r.url) if "/vendor/" in r.url else None)
    runtime = HeldRuntime(page)
    host_page(page, 'history="memory"', ready=False)
    expect(page.get_by_role("textbox", name="Message")).to_be_editable()
    # The page drew its next frame and went idle: a load asked for at start would have begun.
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestIdleCallback(done)))"
    )
    assert renderer == [] and page.evaluate(READY_NOW) == "waiting"
    runtime.release()
    widget(page).wait_ready()
    widget(page).send("Hello")
    expect(log(page).locator("article[data-role=assistant] p").first).to_be_visible()  # Markdown
    assert any(url.endswith("/markdown-it.mjs") for url in renderer), renderer


def test_a_message_sent_before_python_runs_is_shown_at_once_and_answered_once(
    page: Page,
) -> None:
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/chat/completions" in r.url else None)
    runtime = HeldRuntime(page)
    host_page(page, 'history="memory" mode="launcher"')
    page.get_by_role("button", name="Open chat").click()
    page.get_by_role("textbox", name="Message").fill("My name is Ravi")
    page.get_by_role("button", name="Send").click()
    expect(log(page).locator("article[data-role=user]")).to_have_text("My name is Ravi")
    expect(page.get_by_role("textbox", name="Message")).to_have_value("")
    assert asked == [] and page.evaluate(READY_NOW) == "waiting"
    runtime.release()
    widget(page).settled(at_least=2)
    expect(log(page).locator("article[data-role=user]")).to_have_count(1)
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Ravi")
    assert len(asked) == 1


def test_session_send_before_ready_resolves_after_the_answer(page: Page) -> None:
    runtime = HeldRuntime(page)
    host_page(page, 'history="memory"', ready=False)
    page.evaluate(f"void (window.sent = {WIDGET}.session.send('My name is Ada'))")
    expect(log(page).locator("article[data-role=user]")).to_have_count(1)
    runtime.release()
    page.wait_for_function("window.sent.then(() => window.answered = true) && window.answered")
    history = page.evaluate(f"{WIDGET}.session.getHistory()")
    assert [m["role"] for m in history] == ["user", "assistant"] and "Ada" in history[1]["content"]
