"""The second round of attacks, in the browser: approval hijacked by focus, math that freezes
the page or draws over it, stored times no date can hold, imports that evict."""

from __future__ import annotations

import json
from pathlib import Path

from pages import (
    choose_files,
    host_page,
    log,
    plant,
    planted_conversation,
    route_answers,
    sse_answer,
    widget,
)
from playwright.sync_api import Page, expect

from server.testing import ChatkeepModel

CHARGE = """
const widget = document.querySelector('chat-widget');
window.charges = [];
widget.registerTool({
  name: 'charge', description: 'Charge the card', approval: true,
  parameters: {type: 'object', properties: {amount: {type: 'number'}, note: {type: 'string'}}},
  handler: (args) => { window.charges.push(args.amount); return 'charged'; },
});"""

LONG_TASKS = """
window.longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.longTasks.push(entry.duration);
}).observe({type: 'longtask', buffered: true});"""
# The Markdown renderer, which a chat loads once Python is ready, has loaded and set itself up.
RENDERER_LOADED = (
    "import('/static/runtime/vendor/markdown-it.mjs')"
    ".then(() => new Promise(done => setTimeout(done, 100)))"
)


def test_typing_while_an_approval_arrives_never_approves(
    page: Page, chatkeep_model: ChatkeepModel
) -> None:
    """The card took the focus and the next space pressed "Approve": the tool ran."""
    note = "for the invoice " * 200 + "END-OF-NOTE"
    chatkeep_model.reply(tool_call=("charge", {"amount": 5000, "note": note}))
    host_page(page, 'history="memory"', after=CHARGE)
    composer = page.get_by_role("textbox", name="Message")
    composer.fill("Pay the invoice")
    composer.press("Enter")
    page.keyboard.type("and meanwhile I keep typing", delay=15)
    approve = page.get_by_role("button", name="Approve")
    expect(approve).to_be_visible()
    page.keyboard.type(" with spaces   and more", delay=15)
    page.keyboard.press("Space")
    expect(composer).to_have_value("and meanwhile I keep typing with spaces   and more ")
    assert page.evaluate("window.charges") == []
    expect(composer).to_be_focused()
    arguments = page.get_by_role("group", name="Run charge?").locator(".arguments")
    expect(arguments).to_contain_text('"amount": 5000')
    expect(arguments).to_contain_text("END-OF-NOTE")  # in full, scrollable
    assert arguments.evaluate("e => e.scrollHeight > e.clientHeight")
    approve.click()  # a deliberate press
    widget(page).settled(at_least=4)
    assert page.evaluate("window.charges") == [5000]


def test_a_long_answer_of_unclosed_dollars_draws_without_long_tasks(
    page: Page, chatkeep_model: ChatkeepModel
) -> None:
    """64 KB of `$1 ` was one 17.7 s task when opened: every `$` scanned to the line's end."""
    hostile = "$1 " * 21_000
    entries = planted_conversation("Dollars", 1_790_000_000_000)
    key = next(k for k in entries if ":conv:" in k)
    stored = json.loads(entries[key])
    stored["messages"][1]["content"] = hostile
    entries[key] = json.dumps(stored)
    page.goto("/healthz")  # the server's origin, for its localStorage
    plant(page, entries)
    host_page(page, script=LONG_TASKS)
    # What opening the answer costs: the page's own start, and the Markdown renderer that loads
    # once Python is ready, are not the question.
    page.evaluate(RENDERER_LOADED)
    page.evaluate("window.longTasks = []")
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name="Dollars").click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("$1 $1 $1")
    # the last frames drawn, and any long task they made reported (the observer tells after)
    page.evaluate("new Promise(done => requestAnimationFrame(() => setTimeout(done, 200)))")
    # Scanning to the line's end at every `$` took 17.7 s; found in one pass, opening is one
    # task of 70-190 ms on this 2-core machine. Its speed is the benchmarks' to judge
    # (tests/js/math.test.mjs checks the scan is linear); this catches the quadratic case.
    assert max(page.evaluate("window.longTasks"), default=0) < 1000


def test_typeset_math_never_draws_outside_its_message(
    page: Page, chatkeep_model: ChatkeepModel
) -> None:
    chatkeep_model.reply("Above: $\\raisebox{18em}{RAISED}$ and $x^2$.")
    host_page(page, 'history="memory"')
    page.get_by_role("textbox", name="Message").fill("Some math")
    page.get_by_role("button", name="Send").click()
    answer = log(page).locator("article[data-role=assistant]").last
    raised = answer.locator("mtext", has_text="RAISED")
    expect(raised).to_have_count(1)
    box, message = raised.bounding_box(), answer.bounding_box()
    assert box is not None and message is not None
    assert box["y"] + box["height"] < message["y"]  # laid out above the message ...
    # ... but not drawn there: what is at that point is not the raised text
    hit = page.evaluate(
        "([x, y]) => { let e = document.elementFromPoint(x, y);"
        " while (e && e.shadowRoot) { const inner = e.shadowRoot.elementFromPoint(x, y);"
        " if (!inner || inner === e) break; e = inner; } return e ? e.textContent : ''; }",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert "RAISED" not in hit


def test_any_stored_time_draws_a_row_that_can_be_forgotten(page: Page) -> None:
    """Dated 9e15, the history page drew no rows at all ("Invalid time value")."""
    page.goto("/healthz")
    for title, updated in (("Far future", 9 * 10**15), ("Largest", 2**53 - 1), ("Zero", 0),
                           ("Normal", 1_790_000_000_000)):  # fmt: skip
        plant(page, planted_conversation(title, updated))
    host_page(page)
    page.get_by_role("button", name="History").click()
    rows = page.get_by_role("list", name="Conversations", exact=True).get_by_role("listitem")
    expect(rows).to_have_count(4)
    far = rows.filter(has_text="Far future")
    far.get_by_role("button", name="Forget").click()
    expect(rows).to_have_count(3)


def test_an_import_never_evicts_and_says_what_did_not_fit(page: Page, tmp_path: Path) -> None:
    page.goto("/healthz")
    plant(page, planted_conversation("Mine one", 1_790_000_000_000))
    plant(page, planted_conversation("Mine two", 1_790_000_000_001))
    host_page(page, 'history="local" max-conversations="4"')
    conversations = [
        {"version": 1, "id": f"evil{n}", "title": f"Evil {n}", "created": 2**53 - 1,
         "updated": 2**53 - 1, "messages": [{"role": "user", "content": "hi"},
                                            {"role": "assistant", "content": "x"}]}
        for n in range(20)
    ]  # fmt: skip
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps({"format": "chatkeep-history", "conversations": conversations}))
    page.get_by_role("button", name="History").click()
    choose_files(page, "Import", hostile)
    expect(page.get_by_role("status")).to_have_text(
        "Imported 2 conversations. 18 more did not fit and were not imported: "
        "forget or unpin conversations to make room."
    )
    rows = page.get_by_role("list", name="Conversations", exact=True).get_by_role("listitem")
    expect(rows).to_have_count(4)
    expect(rows.filter(has_text="Mine one")).to_have_count(1)
    expect(rows.filter(has_text="Mine two")).to_have_count(1)


def test_long_code_in_an_answer_draws_without_long_tasks(page: Page) -> None:
    """highlight.js guesses a language by running every grammar: bounded by size."""
    code = "".join(f"x{n} = '{'\\\\' * (n % 9)}' + \"<!--\" /* (( [[ {{ \n" for n in range(2500))
    route_answers(page, sse_answer({"content": f"Here:\n\n```\n{code}```\n\nand\n\n"
                                               f"```python\n{code}```"}))  # fmt: skip
    host_page(page, 'history="memory"', script=LONG_TASKS)
    # What drawing the answer costs: the page's own start (a first visit, its scripts not yet
    # in any cache, on a machine busy with other tests) and the Markdown renderer that loads
    # once Python is ready are not the question here.
    page.evaluate(RENDERER_LOADED)
    page.evaluate("window.longTasks = []")
    page.get_by_role("textbox", name="Message").fill("Code please")
    page.get_by_role("button", name="Send").click()
    widget(page).settled(at_least=2)
    # highlight.js has loaded and whatever it was asked to do has run (one task, if any)
    page.evaluate("import('/static/runtime/vendor/highlight.mjs')"
                  ".then(() => new Promise(done => setTimeout(done, 100)))")  # fmt: skip
    # Guessing over every grammar unbounded took seconds; bounded, drawing both blocks is one
    # task of 60-140 ms alone and up to ~230 ms on this 2-core machine in a full test run.
    # Its speed is the benchmarks' to judge (bench/page.py); this catches the unbounded case.
    assert max(page.evaluate("window.longTasks"), default=0) < 1000
