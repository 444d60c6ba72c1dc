"""`/api/sync-pair/{id}`: pairing links, which carry no code.

"Sync devices" offers a link `#chatkeep-pair=ID.KEY`: the device that shows it seals its code
with a fresh key (in the link only, never sent) and keeps the sealed code here under a fresh
id; the device that opens the link, once the person said "Connect", takes it (once) and opens
it. A pairing lasts `PAIRING_SECONDS` and is read once: a link seen later, by anyone, opens
nothing, and this server never holds what opens it. Client tokens, the rate limit and the
body limit apply as for sync.
"""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..errors import APIError
from ..limits import read_body
from .admission import client_of, guarded
from .store import SyncStore

PAIRING_SECONDS = 600
#: a sealed code: a nonce, 32 characters and a tag, with room to spare
MAX_PAIRING_BYTES = 256
PAIRING_ID = re.compile(r"[A-Za-z0-9_-]{22,64}")


async def put_pairing(request: Request) -> Response:
    store, pairing = await _admitted(request)
    settings = request.app.state.settings
    data = await read_body(request, min(settings.max_body_bytes, MAX_PAIRING_BYTES),
                           settings.body_timeout)  # fmt: skip
    expires = int(store.clock()) + PAIRING_SECONDS
    if not await guarded(store.put_pairing(pairing, data, expires)):
        raise APIError(409, "that pairing id is taken: make another", "pairing_taken")
    return Response(status_code=204)


async def take_pairing(request: Request) -> Response:
    store, pairing = await _admitted(request)
    data = await guarded(store.take_pairing(pairing))
    if data is None:
        raise APIError.said(410, "sync_pairing_gone", minutes=PAIRING_SECONDS // 60)
    return Response(data, media_type="application/octet-stream",
                    headers={"cache-control": "no-store"})  # fmt: skip


def pairing_routes() -> list[Route]:
    return [
        Route("/api/sync-pair/{pairing}", put_pairing, methods=["PUT"]),
        Route("/api/sync-pair/{pairing}", take_pairing, methods=["GET"]),
    ]


async def _admitted(request: Request) -> tuple[SyncStore, str]:
    store, _ = await client_of(request)
    pairing = request.path_params["pairing"]
    if not PAIRING_ID.fullmatch(pairing):
        raise APIError(404, "there is no such pairing", "bad_pairing")
    return store, pairing
