"""Reading an upstream's Server-Sent Events: bytes into lines (any line ending, split
anywhere), lines into each event's `data`, and the rest of a stream read to its end."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio

#: how long, and how much, is read after `[DONE]` to keep an upstream connection
DRAIN_SECONDS, DRAIN_EVENTS = 1.0, 16


async def sse_lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """A byte stream's lines, split where Server-Sent Events split them: at CRLF, LF or CR only.

    Not `str.splitlines` (nor httpx's `aiter_lines`, which follows it): that also splits at
    U+2028, U+2029 and U+0085, which JSON allows raw inside strings, and several servers send
    so; split there, an event is torn in two and the answer lost.
    """
    partial: list[bytes] = []  # the line being received, in pieces: never re-copied
    after_cr = False  # the last chunk ended in CR: a LF first in the next one ends nothing
    async for chunk in chunks:
        if after_cr and chunk[:1] == b"\n":
            chunk = chunk[1:]
        after_cr = chunk[-1:] == b"\r"
        if b"\r" in chunk:
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        *ended, rest = chunk.split(b"\n")
        if ended:
            ended[0] = b"".join((*partial, ended[0]))
            partial = []
            for line in ended:
                yield line.decode("utf-8", "replace")
        if rest:
            partial.append(rest)
    if partial:
        yield b"".join(partial).decode("utf-8", "replace")


async def sse_data(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The `data` of each Server-Sent Event; comments and other fields are dropped."""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        yield "\n".join(data)


async def drain(events: AsyncIterator[str]) -> None:
    """Read what follows `[DONE]` (the body's last chunk, usually nothing else), so that the
    connection goes back to the pool: closed half-read, the next answer would wait for a new one.
    A bounded read: an upstream that keeps talking loses its connection instead."""
    with anyio.move_on_after(DRAIN_SECONDS):
        count = 0
        async for _ in events:
            count += 1
            if count > DRAIN_EVENTS:
                return
