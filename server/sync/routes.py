"""`/api/sync/{space}`: what changed since a cursor, compare-and-set writes of items, the
wipe of a whole space, and events that tell open devices to read.

Every request carries the space's token (`access`): a space id alone gets 403, a wiped space
410 (`WIPED_SECONDS`). An item is a name the browser derived from the person's key; its data
is ciphertext. Reads answer it as Base64 inside JSON (a page of changes at a time); a write
sends the raw bytes, so an upload is the ciphertext's size. Every write names the revision
it replaces: `If-Match: <rev>`, or `If-None-Match: *` to create. Client tokens, the rate
limit (counted apart from chat's) and the body limit apply as for chat.
"""

from __future__ import annotations

import base64
import re

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..errors import APIError
from ..limits import read_body
from .admission import admitted, guarded, space_version
from .events import space_events
from .quotas import ClientQuotas
from .store import Conflict, OverQuota, SpaceWiped, SyncStore, TooManyItems

#: an item: any short name of the browser's
ITEM = re.compile(r"[A-Za-z0-9_-]{1,64}")
REVISION = re.compile(r'(?:W/)?"?([0-9]{1,18})"?')  # ASCII digits: "²" is a `\d` too


async def changes(request: Request) -> Response:
    store, space, _ = await admitted(request)
    since = request.query_params.get("since", "0")
    if not (since.isascii() and since.isdigit()) or len(since) > 18:  # "²" is a digit too
        raise APIError(400, "since must be a revision number (0 for everything)", "bad_since")
    page = await guarded(store.changes(space, int(since)))
    items = [{"id": i.id, "rev": i.rev, "data": _text(i.data)} for i in page.items]
    return JSONResponse({"items": items, "cursor": page.cursor, "more": page.more})


async def put_item(request: Request) -> Response:
    store, space, client = await admitted(request)
    item = _item(request)
    expect = _expected(request, may_create=True)
    settings = request.app.state.settings
    data = await read_body(request, settings.max_body_bytes, settings.body_timeout)
    return await _write(request, store, (space, client), item, data, expect)


async def delete_item(request: Request) -> Response:
    store, space, client = await admitted(request)
    item, expect = _item(request), _expected(request, may_create=False)
    return await _write(request, store, (space, client), item, None, expect)


async def wipe_space(request: Request) -> Response:
    """Every item of the space goes, and it answers 410 for `WIPED_SECONDS` ("Change sync
    code": the devices still using the old code learn of it)."""
    store, space, client = await admitted(request)
    quotas: ClientQuotas = request.app.state.sync_quotas
    await quotas.writing(client, None)
    await guarded(store.wipe(space, space_version(request)))
    return Response(status_code=204)


def sync_routes() -> list[Route]:
    return [
        Route("/api/sync/{space}", changes, methods=["GET"]),
        Route("/api/sync/{space}", wipe_space, methods=["DELETE"]),
        Route("/api/sync/{space}/events", space_events, methods=["GET"]),
        Route("/api/sync/{space}/{item}", put_item, methods=["PUT"]),
        Route("/api/sync/{space}/{item}", delete_item, methods=["DELETE"]),
    ]


def _item(request: Request) -> str:
    item: str = request.path_params["item"]
    if not ITEM.fullmatch(item):
        raise APIError(404, "there is no such sync item", "bad_item")
    return item


def _expected(request: Request, *, may_create: bool) -> int | None:
    """The revision the write replaces (None: it creates), from the precondition headers."""
    if may_create and request.headers.get("if-none-match", "").strip() == "*":
        return None
    match = REVISION.fullmatch(request.headers.get("if-match", "").strip())
    if match is None:
        how = "If-Match: <rev>, or If-None-Match: * to create" if may_create else "If-Match"
        raise APIError(428, f"a sync write names the revision it replaces ({how})",
                       "precondition_required")  # fmt: skip
    return int(match.group(1))


async def _write(
    request: Request, store: SyncStore, where: tuple[str, str], item: str, data: bytes | None,
    expect: int | None,
) -> Response:  # fmt: skip
    """One write, counted against its client's day first (`ClientQuotas`)."""
    space, client = where
    quotas: ClientQuotas = request.app.state.sync_quotas
    if data is not None and request.state.sync_space is None:
        await quotas.new_space(client)
    give_back = await quotas.writing(client, None if data is None else len(data))
    try:
        rev = await guarded(store.write(space, item, data, expect, space_version(request)))
    except SpaceWiped as wiped:
        await give_back()
        raise APIError.said(410, "sync_space_wiped") from wiped
    except Conflict as conflict:
        await give_back()
        error = APIError.said(412, "sync_conflict")
        return JSONResponse(error.body() | {"rev": conflict.current}, status_code=412)
    except OverQuota as full:
        await give_back()
        raise APIError.said(413, "sync_space_full", limit=full.limit) from full
    except TooManyItems as crowded:
        await give_back()
        raise APIError.said(413, "sync_space_items", limit=crowded.limit) from crowded
    return JSONResponse({"rev": rev}, headers={"etag": f'"{rev}"'})


def _text(data: bytes | None) -> str | None:
    return None if data is None else base64.urlsafe_b64encode(data).decode("ascii")
