"""How much of the model's context window a conversation fills, for the header's meter.

The upstream's own count is the truth: its report for the last answer (prompt and
completion tokens: the instructions, the page's context and the tools included) covers every
message up to that answer. What came after it, or a conversation opened with no report yet,
is estimated at four characters a token, as tokenizers average for English text.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from .messages import Message

CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Report:
    """The upstream's count of a conversation's first `covers` messages."""

    tokens: int
    covers: int


def reported(usage: dict[str, int] | None, covers: int) -> Report | None:
    """The report in an answer's `usage`, covering the conversation up to and with it."""
    if not usage:
        return None
    tokens = usage.get("total_tokens") or usage.get("prompt_tokens", 0) + usage.get(
        "completion_tokens", 0
    )
    return Report(tokens, covers) if tokens > 0 else None


def context_tokens(messages: Sequence[Message], report: Report | None) -> int:
    """The tokens the conversation takes: as reported, plus an estimate of what came after."""
    if report is not None and report.covers <= len(messages):
        return report.tokens + estimated(messages[report.covers :])
    return estimated(messages)


def estimated(messages: Sequence[Message]) -> int:
    """Four characters a token, of what the model reads of each message."""
    chars = 0
    for message in messages:
        content = message.get("content")
        chars += len(content) if isinstance(content, str) else len(json.dumps(content or ""))
        for call in message.get("tool_calls") or ():
            chars += len(json.dumps(call, ensure_ascii=False))
    return math.ceil(chars / CHARS_PER_TOKEN)
