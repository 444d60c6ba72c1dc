"""`ChatWidget`: a Playwright page object for a page that embeds Chatkeep.

It finds the widget's parts by their roles and the element's documented parts
(`::part(composer)`), reads the conversation through the public host API
(`element.session`), and waits for answers the way a person does: until the widget is no
longer busy. Every failure says what was waited for and what the widget showed instead.
Playwright is imported only when a method needs it, so installing Chatkeep without it is fine.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

__all__ = ["ChatWidget"]

#: True once the element's session is ready, no turn runs, and the conversation holds at
#: least `n` messages.
_SETTLED = """([element, n]) => {
  const session = element.session;
  return Boolean(session) && !session.busy && session.messages.length >= n;
}"""


class ChatWidget:
    """The `<chat-widget>` on `page` matching `selector` (the first one)."""

    def __init__(self, page: Page, selector: str = "chat-widget", timeout: float = 60_000) -> None:
        self.page = page
        self.selector = selector
        #: milliseconds any wait may take, unless a method is told otherwise
        self.timeout = timeout

    @property
    def element(self) -> Locator:
        return self.page.locator(self.selector).first

    @property
    def answers(self) -> Locator:
        """The model's answers in the conversation, oldest first (`.last` is the newest)."""
        return self.element.get_by_role("log").locator("article[data-role=assistant]")

    def send(self, text: str) -> None:
        """Type `text`, press Enter, and wait until the answer (tools included) has settled."""
        self.wait_ready(open_launcher=True)
        before = len(self.history())
        field = self.element.locator("[part=composer]").get_by_role("textbox")
        field.fill(text)
        field.press("Enter")
        self.settled(before + 2, why=f"sent {text!r}, but no answer settled")

    def wait_ready(self, *, open_launcher: bool = False) -> None:
        """Until the session is ready (Python running, history loaded); a launcher is opened
        first when told to (it starts only when opened)."""
        self.page.wait_for_function(
            """([selector, open]) => customElements.whenDefined('chat-widget').then(() => {
                 const element = document.querySelector(selector);
                 if (open) element.open?.();
                 return element.session.ready; }).then(() => true)""",
            arg=[self.selector, open_launcher],
            timeout=self.timeout,
        )

    def settled(self, at_least: int = 0, *, why: str = "no turn settled") -> None:
        """Until no turn runs and the conversation holds at least `at_least` messages."""
        handle = self.element.element_handle(timeout=self.timeout)
        try:
            self.page.wait_for_function(_SETTLED, arg=[handle, at_least], timeout=self.timeout)
        except Exception as exc:  # Playwright's TimeoutError: say what was seen instead
            raise AssertionError(
                f"{why} within {self.timeout / 1000:g} s; {self._on_screen()}"
            ) from exc

    def expect_answer(self, text: str, timeout: float | None = None) -> None:
        """The newest answer contains `text` (at once, or within `timeout` milliseconds)."""
        self._expect(self.answers.last, text, timeout, f"the newest answer to contain {text!r}")

    def expect_error(self, text: str | None = None, timeout: float | None = None) -> None:
        """An alert is shown (containing `text`, when given)."""
        alert = self.element.get_by_role("alert")
        wanted = f"an alert saying {text!r}" if text else "an alert"
        self._expect(alert, text, timeout, wanted)

    def history(self) -> list[dict[str, Any]]:
        """The open conversation's settled messages, as `element.session.messages` has them."""
        messages: list[dict[str, Any]] = self.element.evaluate(
            "element => element.session ? element.session.messages : []"
        )
        return messages

    def _expect(self, where: Locator, text: str | None, timeout: float | None, wanted: str) -> None:
        from playwright.sync_api import expect

        wait = self.timeout if timeout is None else timeout
        try:
            if text is None:
                expect(where).to_be_visible(timeout=wait)
            else:
                expect(where).to_contain_text(text, timeout=wait)
        except AssertionError as exc:
            raise AssertionError(
                f"expected {wanted} within {wait / 1000:g} s; {self._on_screen()}"
            ) from exc

    def _on_screen(self) -> str:
        """What the widget shows: the conversation as the person reads it, and any alert."""
        try:
            seen = self.element.evaluate(
                """element => {
                  const root = element.shadowRoot;
                  const alert = root?.querySelector('[role=alert]:not([hidden])');
                  const messages = (element.session?.messages ?? []).map(m =>
                    `${m.role}: ${m.content ?? JSON.stringify(m.tool_calls ?? null)}`);
                  return {messages, alert: alert?.textContent ?? '', busy: element.session?.busy};
                }"""
            )
        except Exception as exc:  # the page is gone or the element was never there
            return f"the widget could not be read ({exc})"
        messages = "\n  ".join(m[:300] for m in seen["messages"][-6:]) or "(no messages)"
        alert = f"the alert says {json.dumps(seen['alert'])}" if seen["alert"] else "no alert"
        busy = " (still busy)" if seen["busy"] else ""
        return f"on screen{busy}, {alert}; the last messages:\n  {messages}"
