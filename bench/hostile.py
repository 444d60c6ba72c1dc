"""The project's hostile inputs, read at their full size and at a quarter of it by the same
code in the same run: the growth, time(n) / (4 x time(n/4)), is about 1 for code linear in what
it reads and about 4 for code that is quadratic (a pattern that backtracks, a rescan), so the
rows hold the whole linear without trusting this machine's absolute times.

The demo model's bodies are tests/server/hostile.py's (the third round's digit, spaces and
letter among them); the redactor reads a stream of escapes, percent signs and beginnings of a
key; the Markdown download, text of every kind of line break; the cited-link check, hosts
built to make a parser rescan."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import row, timed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "server"))
import hostile

from server.demo import demo_answer
from server.redaction import Redactor, StreamRedaction
from widget.sources import is_safe_link
from widget.transcripts import conversation_markdown

#: time(n) / (4 x time(n/4)) at most: linear reads about 1, quadratic about 4
TARGET = 2.0
BREAKS = ["\r", "\n", "\r\n", "\u2028", "\u2029", "\x85"]


def _growth(read: Callable[[int], Callable[[], object]], size: int) -> float:
    """time(size) / (4 x time(size / 4)) for the input `read(size)` prepares."""
    return timed(read(size), 3) / max(4 * timed(read(size // 4), 3), 1e-6)


def _demo_bodies(size: int) -> Callable[[], object]:
    full = hostile.SIZE
    hostile.SIZE = size  # (read when the bodies are built)
    try:
        bodies = hostile.hostile_demo_bodies()
    finally:
        hostile.SIZE = full
    return lambda: [demo_answer(body) for body in bodies]


def _redaction(size: int) -> Callable[[], object]:
    redactor = Redactor(["sk-SECRET-KEY-123", "gw/KEY/42"])
    text = (("%5" + "\\u00" * 50 + "sk-SEC") * size)[: size * 100]

    def stream() -> None:
        redaction = StreamRedaction(redactor)
        for start in range(0, len(text), 400):
            event = {"choices": [{"index": 0, "delta": {"content": text[start : start + 400]}}]}
            redaction.event('{"choices":[]}', event)

    return stream


def _markdown(size: int) -> Callable[[], object]:
    text = "".join(f"thinking{BREAKS[n % 6]}## You{BREAKS[n % 6]}```{n}" for n in range(size))
    message = {"role": "assistant", "content": text, "reasoning": text}
    return lambda: conversation_markdown("t", [message])


def _links(size: int) -> Callable[[], object]:
    # (a link is at most 2,000 characters: the hosts are long ones, and more of them)
    hosts = [f"http://0x{'f' * 150}.{'9' * 150}.xn--{'a' * 150}.{n}/" for n in range(size)]
    return lambda: [is_safe_link(host) for host in hosts]


def bench_hostile() -> list[dict[str, Any]]:
    why = "a growth near 4 is quadratic: find the pattern or loop that rereads its input"
    return [
        row("hostile bodies for the demo model (~1 MiB each): growth", _growth(
            _demo_bodies, hostile.SIZE), TARGET, "x", why=why),
        row("redacting a stream of escapes, % and key beginnings (2 MB): growth", _growth(
            _redaction, 20_000), TARGET, "x", why=why),
        row("the Markdown download of every kind of line break (3 MB): growth", _growth(
            _markdown, 120_000), TARGET, "x", why=why),
        row("checking cited links built to rescan (4,000 hosts): growth", _growth(
            _links, 4_000), TARGET, "x", why=why),
    ]  # fmt: skip


if __name__ == "__main__":
    for result in bench_hostile():
        print(f"{result['name']}: {result['value']}{result['unit']} (≤ {result['target']})")
