"""Conversation titles: the one derived from the first message, and cleaning a generated one."""

from __future__ import annotations

from collections.abc import Sequence

from .line_breaks import split_lines
from .messages import Message

MAX_TITLE_LENGTH = 60


def derive_title(messages: Sequence[Message]) -> str:
    """The first user message, on one line, cut at a word near `MAX_TITLE_LENGTH`."""
    first = next((m.get("content") or "" for m in messages if m["role"] == "user"), "")
    return shorten(" ".join(first.split()))


def clean_title(text: str) -> str:
    """A generated title without quotes, markup or a trailing full stop."""
    line = next((line for line in split_lines(text) if line.strip()), "")  # (the one rule)
    line = " ".join(line.split()).strip("\"'`*#“”‘’ ").removeprefix("Title:").strip()
    return shorten(line.rstrip("."))


def shorten(text: str) -> str:
    if len(text) <= MAX_TITLE_LENGTH:
        return text
    cut = text[: MAX_TITLE_LENGTH - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > MAX_TITLE_LENGTH // 2 else cut).rstrip(" ,;:-") + "…"
