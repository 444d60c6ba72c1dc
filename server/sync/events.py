"""`GET /api/sync/{space}/events`: Server-Sent Events that tell an open device to read.

Each event says only that the space changed (`event: changed`); the device then reads the
changes as it always does. The stream opens with `event: ready` (read now: a change may have
come while no stream was open), keeps proxies from closing it with a comment every
`QUIET_SECONDS`, and ends after `STREAM_SECONDS` (the device opens another), so no stream
outlives a token's rights for long. Behind nginx, `proxy_buffering off` (docs/deployment.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from ..errors import APIError
from .admission import admitted
from .signals import TooManyListeners

QUIET_SECONDS = 25.0
STREAM_SECONDS = 300.0
READY = b"retry: 3000\nevent: ready\ndata: {}\n\n"
CHANGED = b"event: changed\ndata: {}\n\n"


async def space_events(request: Request) -> Response:
    store, space, _ = await admitted(request, legacy=False)
    signals = store.signals
    if signals.listeners >= signals.most:
        raise APIError.said(503, "sync_unavailable", {"Retry-After": "30"})

    async def stream() -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        try:
            with signals.listen(space) as changed:
                yield READY
                ends = loop.time() + STREAM_SECONDS
                while (left := ends - loop.time()) > 0:
                    try:
                        await asyncio.wait_for(changed.wait(), min(QUIET_SECONDS, left))
                    except TimeoutError:
                        yield b": still here\n\n"
                        continue
                    changed.clear()
                    yield CHANGED
        except TooManyListeners:
            return

    headers = {"cache-control": "no-store", "x-accel-buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)
