"""One conversation as a Markdown file a person can read, share or keep (`Download`).

The export file (`widget.exports`) is for Chatkeep to read back; this one is for people:
the title, then each message under its role, the model's reasoning folded into a quote, tool
calls with their arguments and results in code blocks, and attachments named (their data is
left out). Nothing in it is ever read back.

The file is inert wherever it is opened: what a model or a tool wrote is text, not markup that
acts. Images become links (a viewer would fetch a remote image, and its address can carry what
the conversation said), HTML shows as text, and only Chatkeep writes headings, so no message,
tool name or reasoning can forge a "## You" section.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence

from .line_breaks import split_lines, with_newlines
from .messages import Message

ROLE_HEADINGS = {"user": "You", "assistant": "Assistant", "tool": "Tool"}
#: characters no file name may hold on common systems, and control characters
_UNSAFE_IN_NAMES = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*]+')
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
#: what starts a heading: ATX `#`s, or a setext underline, after any quote markers
_HEADING = re.compile(r"( {0,3}(?:>[ \t]?)*)(#{1,6}(?=[ \t]|$)|=+[ \t]*$|-+[ \t]*$)")
_TICKS = re.compile(r"`+")


def conversation_markdown(title: str, messages: Sequence[Message]) -> str:
    """The conversation as Markdown text, ending in a newline."""
    parts = [f"# {_inert_line(_one_line(title)) or 'Conversation'}"]
    for message in messages:
        parts.append(_message(message))
    return "\n\n".join(part.rstrip() for part in parts) + "\n"


def file_name(title: str) -> str:
    """`<title>.md`, with what a file name cannot hold taken out."""
    name = _UNSAFE_IN_NAMES.sub(" ", title)
    name = " ".join(name.split()).strip(". ")[:100].rstrip(". ")
    return f"{name or 'conversation'}.md"


def _message(message: Message) -> str:
    role = message["role"]
    heading = ROLE_HEADINGS.get(role, role.title())
    if role == "tool":
        heading = f"Tool result: {_inert_line(_one_line(message.get('name') or '')) or 'a tool'}"
    lines = [f"## {heading}"]
    if message.get("reasoning"):
        seconds = message.get("reasoning_seconds")
        said = (
            "Thought"
            if not isinstance(seconds, int)
            else (f"Thought for {seconds} s" if seconds > 0 else "Thought for a moment")
        )
        quoted = "\n".join(
            f"> {line}" if line else ">" for line in split_lines(inert(message["reasoning"]))
        )
        lines.append(f"> **{said}**\n>\n{quoted}")
    content = message.get("content") or ""
    if role == "tool":
        lines.append(_fenced(content, ""))
    elif content:
        lines.append(inert(content))
    for call in message.get("tool_calls", ()):
        name, arguments = call["function"]["name"], call["function"]["arguments"]
        lines.append(f"Called {_code(name)} with:\n\n{_fenced(_pretty(arguments), 'json')}")
    if message.get("attachments"):
        named = ", ".join(
            f"{_code(a['name'])} ({_inert_line(_one_line(a['mime']))})"
            for a in message["attachments"]
        )
        lines.append(f"Attached: {named}")
    if message.get("error"):
        said = _inert_line(_one_line(message["error"]))
        lines.append(f"*This answer was interrupted: {said}*")
    if message.get("feedback"):
        lines.append(f"*Rated as a {message['feedback']} answer.*")
    return "\n\n".join(lines)


def _fenced(text: str, language: str) -> str:
    """A code block whose fence is longer than any run of backticks in `text`."""
    text = with_newlines(text)  # a CR would end a line for a viewer: its fence too
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def inert(text: str) -> str:
    """Markdown that shows what it says and does nothing more: outside code, HTML is text,
    an image is a link, and no line starts a heading. Linear in the text's length."""
    out = []
    fence = ""
    for line in split_lines(text):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            out.append(line)
        elif opened:
            fence = opened.group(1)
            out.append(line)
        else:
            out.append(_inert_line(line))
    if fence:  # closed here: an open fence would swallow the headings that follow
        out.append(fence)
    return "\n".join(out)


def _inert_line(line: str) -> str:
    if heading := _HEADING.match(line):
        line = f"{heading.group(1)}\\{line[heading.end(1) :]}"
    return "".join(
        part if in_code else part.replace("<", "&lt;").replace("![", "[")
        for part, in_code in _code_spans(line)
    )


def _code_spans(line: str) -> list[tuple[str, bool]]:
    """The line cut into (text, is it a code span): a run of backticks opens a span that the
    next run of the same length closes (CommonMark's rule, within one line)."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(line)]
    by_length: dict[int, list[int]] = {}
    for number, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(number)
    parts: list[tuple[str, bool]] = []
    at = number = 0
    while number < len(runs):
        start, end = runs[number]
        same = by_length[end - start]
        later = bisect.bisect_right(same, number)
        if later == len(same):
            number += 1  # never closed: literal backticks
            continue
        close = same[later]
        parts += [(line[at:start], False), (line[start : runs[close][1]], True)]
        at, number = runs[close][1], close + 1
    parts.append((line[at:], False))
    return parts


def _code(text: str) -> str:
    """`text` as one inline code span, whatever backticks it holds."""
    text = _one_line(text)
    longest = max((len(run) for run in _TICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    return f"{ticks} {text} {ticks}" if longest else f"`{text}`"


def _pretty(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except ValueError:
        return arguments


def _one_line(text: str) -> str:
    return " ".join(text.split())
