"""Letting a request at a space: the client's token and rate limit, then the space's token
(`access`), and the store's answers kept from ever being a 500."""

from __future__ import annotations

import re
from collections.abc import Awaitable

from starlette.requests import Request

from ..errors import APIError
from . import access
from .store import Conflict, OverQuota, Space, SpaceWiped, SyncStore, TooManyItems

#: a space: at least 128 bits in Base64url (version 2: 256 bits, 43 characters)
SPACE = re.compile(r"[A-Za-z0-9_-]{22,64}")


async def client_of(request: Request) -> tuple[SyncStore, str]:
    """The store and the client, once the client may ask sync anything: its client token (401
    without a valid one), sync turned on (404), and the rate limit (429, counted apart)."""
    client: str = request.app.state.identity.of(request)
    store: SyncStore | None = request.app.state.sync
    if store is None:
        raise APIError.said(404, "sync_off")
    await request.app.state.rate_limiter.check(f"sync:{client}")
    return store, client


async def admitted(request: Request, *, legacy: bool = True) -> tuple[SyncStore, str, str]:
    """The store, the space and the client, once the client may ask (`client_of`) and holds
    the space's token (a version 1 space, while it lasts, with `legacy`)."""
    store, client = await client_of(request)
    space = request.path_params["space"]
    if not SPACE.fullmatch(space):
        raise APIError(404, "there is no such sync space", "bad_space")
    token = request.headers.get(access.HEADER)
    if token is not None and not access.opens(token.strip(), space):
        raise APIError.said(403, "sync_forbidden")
    found = await guarded(store.space(space))
    if found is not None and found.gone(store.clock()):
        raise APIError.said(410, "sync_space_wiped")
    if token is None and not (legacy and found is not None and found.version == 1):
        raise APIError.said(403, "sync_token_required")
    if token is not None and found is not None and found.version != 2:
        raise APIError.said(403, "sync_forbidden")  # (a version 1 id: no token opens it)
    request.state.sync_space = found
    return store, space, client


def space_version(request: Request) -> int:
    """The version of the space `admitted` let in (2 for one not written yet)."""
    found: Space | None = request.state.sync_space
    return found.version if found is not None else 2


async def guarded[T](pending: Awaitable[T]) -> T:
    """The store's answer; a store that is away is a 503 that says so, never a 500."""
    try:
        return await pending
    except (Conflict, OverQuota, TooManyItems, SpaceWiped):
        raise
    except Exception as exc:  # sqlite3 / psycopg errors: the database is away or locked
        raise APIError.said(503, "sync_unavailable", {"Retry-After": "30"}) from exc
