"""`GET /api/sync/{space}/events`: Server-Sent Events that tell an open device to read.

Each event says only that the space changed, and its last revision (`event: changed`, `data:
{"rev": N}`): a device that has read up to N (its own write) has nothing to read; another
reads the changes as it always does. The stream opens with `event: ready` and the revision
now (a change may have come while no stream was open), keeps proxies from closing it with a
comment every `QUIET_SECONDS`, and ends after `STREAM_SECONDS` (the device opens another), so
no stream outlives a token's rights for long. Behind nginx, `proxy_buffering off`
(docs/deployment.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from ..errors import APIError
from .admission import admitted
from .signals import TooManyListeners
from .store import SyncStore

QUIET_SECONDS = 25.0
STREAM_SECONDS = 300.0


def _event(name: str, rev: int | None) -> bytes:
    return f'event: {name}\ndata: {{"rev": {"null" if rev is None else rev}}}\n\n'.encode()


async def space_events(request: Request) -> Response:
    store, space, _ = await admitted(request, legacy=False)
    signals = store.signals
    if signals.listeners >= signals.most:
        raise APIError.said(503, "sync_unavailable", {"Retry-After": "30"})

    async def stream() -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        try:
            with signals.listen(space) as changed:
                yield b"retry: 3000\n" + _event("ready", await _rev(store, space))
                ends = loop.time() + STREAM_SECONDS
                while (left := ends - loop.time()) > 0:
                    try:
                        await asyncio.wait_for(changed.wait(), min(QUIET_SECONDS, left))
                    except TimeoutError:
                        yield b": still here\n\n"
                        continue
                    changed.clear()
                    yield _event("changed", await _rev(store, space))
        except TooManyListeners:
            return

    headers = {"cache-control": "no-store", "x-accel-buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


async def _rev(store: SyncStore, space: str) -> int | None:
    """The space's last revision (0 when it holds nothing; None when its store is away: the
    device reads, and learns why there)."""
    try:
        found = await store.space(space)
    except Exception:  # sqlite3 / psycopg errors
        return None
    return found.rev if found is not None else 0
