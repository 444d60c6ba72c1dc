"""`/api/share/{id}`: a conversation shared by a link that no server can read.

The browser seals the conversation with a fresh key that travels only in the link's fragment
(`#chatkeep-share=ID.KEY`) and keeps the ciphertext here under a fresh id; this server answers
a delete token, keeps only its hash (SHA-256), and forgets the share after `--share-days`.
Anyone with the link reads it (`GET`); only the token deletes it ("Stop sharing"), checked in
constant time. Client tokens, the rate limit (as writes are) and the body limit apply; each
share's bytes count in the client's daily sync bytes. The server never holds the key, a
title or a word.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..errors import APIError
from ..limits import read_body
from .admission import client_of, guarded
from .store import SyncStore

SHARE_ID = re.compile(r"[A-Za-z0-9_-]{22,64}")
TOKEN_HEADER = "chatkeep-share-token"


async def put_share(request: Request) -> Response:
    store, share, client = await _admitted(request)
    settings = request.app.state.settings
    data = await read_body(request, settings.max_body_bytes, settings.body_timeout)
    if not data:
        raise APIError(400, "A share holds a sealed conversation, not nothing.", "empty_share")
    give_back = await request.app.state.sync_quotas.writing(client, len(data))
    token = secrets.token_urlsafe(24)
    expires = int(store.clock()) + settings.share_days * 86_400
    if not await guarded(store.put_share(share, data, _hashed(token), expires)):
        await give_back()
        raise APIError(409, "that share id is taken: make another", "share_taken")
    return JSONResponse({"token": token, "expires": expires}, status_code=201)


async def get_share(request: Request) -> Response:
    store, share, _ = await _admitted(request)
    found = await guarded(store.share(share))
    if found is None:
        raise APIError.said(404, "share_gone")
    return Response(found[0], media_type="application/octet-stream",
                    headers={"cache-control": "no-store"})  # fmt: skip


async def delete_share(request: Request) -> Response:
    store, share, _ = await _admitted(request)
    found = await guarded(store.share(share))
    if found is None:
        raise APIError.said(404, "share_gone")
    given = request.headers.get(TOKEN_HEADER, "")
    if not hmac.compare_digest(_hashed(given.strip()), found[1]):
        raise APIError(
            403, "Only the device that shared it can stop sharing it.", "share_forbidden"
        )
    await guarded(store.delete_share(share))
    return Response(status_code=204)


def share_routes() -> list[Route]:
    return [
        Route("/api/share/{share}", put_share, methods=["PUT"]),
        Route("/api/share/{share}", get_share, methods=["GET"]),
        Route("/api/share/{share}", delete_share, methods=["DELETE"]),
    ]


def _hashed(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def _admitted(request: Request) -> tuple[SyncStore, str, str]:
    store, client = await client_of(request)
    share = request.path_params["share"]
    if not SHARE_ID.fullmatch(share):
        raise APIError.said(404, "share_gone")
    return store, share, client
