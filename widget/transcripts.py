"""One conversation as a Markdown file a person can read, share or keep (`Download`).

The export file (`widget.exports`) is for Chatkeep to read back; this one is for people:
the title, then each message under its role, the model's reasoning folded into a quote, tool
calls with their arguments and results in code blocks, and attachments named (their data is
left out). Nothing in it is ever read back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from .messages import Message

ROLE_HEADINGS = {"user": "You", "assistant": "Assistant", "tool": "Tool"}
#: characters no file name may hold on common systems, and control characters
_UNSAFE_IN_NAMES = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*]+')


def conversation_markdown(title: str, messages: Sequence[Message]) -> str:
    """The conversation as Markdown text, ending in a newline."""
    parts = [f"# {_one_line(title) or 'Conversation'}"]
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
        heading = f"Tool result: {message.get('name') or 'a tool'}"
    lines = [f"## {heading}"]
    if message.get("reasoning"):
        seconds = message.get("reasoning_seconds")
        said = (
            "Thought"
            if not isinstance(seconds, int)
            else (f"Thought for {seconds} s" if seconds > 0 else "Thought for a moment")
        )
        quoted = "\n".join(
            f"> {line}" if line else ">" for line in message["reasoning"].split("\n")
        )
        lines.append(f"> **{said}**\n>\n{quoted}")
    content = message.get("content") or ""
    if role == "tool":
        lines.append(_fenced(content, ""))
    elif content:
        lines.append(content)
    for call in message.get("tool_calls", ()):
        name, arguments = call["function"]["name"], call["function"]["arguments"]
        lines.append(f"Called `{name}` with:\n\n{_fenced(_pretty(arguments), 'json')}")
    if message.get("attachments"):
        named = ", ".join(f"`{a['name']}` ({a['mime']})" for a in message["attachments"])
        lines.append(f"Attached: {named}")
    if message.get("error"):
        lines.append(f"*This answer was interrupted: {message['error']}*")
    if message.get("feedback"):
        lines.append(f"*Rated as a {message['feedback']} answer.*")
    return "\n\n".join(lines)


def _fenced(text: str, language: str) -> str:
    """A code block whose fence is longer than any run of backticks in `text`."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _pretty(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except ValueError:
        return arguments


def _one_line(text: str) -> str:
    return " ".join(text.split())
