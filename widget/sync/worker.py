"""Synced history's half in the worker, as Python calls it (`WORKER_CALLS`): each request
checked against its declaration (`SYNC_CALLS`, the same in static/protocol.js), sent as one
JSON text, and answered as one. The bridge (`widget.bridge`) hands it the worker, and how to
read what the worker throws; nothing here is browser-specific."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..protocol import SYNC_CALLS, conforms

if TYPE_CHECKING:
    from .remote import Moved, Page, Pushed


class WorkerSync:
    """Synced history's server, through the worker: it derives the keys, encrypts and
    decrypts (WebCrypto), and speaks `/api/sync`; Python sees conversations only."""

    def __init__(self, worker: Any, from_js: Callable[[Exception], Exception | None]) -> None:
        self.worker = worker
        self.from_js = from_js  # (the bridge's: what the worker threw, as the widget's error)

    async def _ask(self, method: str, request: dict[str, Any], *item: str) -> Any:
        """One call, its request checked against its declaration (`SYNC_CALLS`) first; a
        write's `item` (JSON text) goes beside it, carried as it is."""
        if problems := conforms(request, SYNC_CALLS[method]):
            raise TypeError(f"{method} sent what it does not declare: {'; '.join(problems)}")
        try:
            return json.loads(await getattr(self.worker, method)(_dumps(request), *item))
        except Exception as exc:
            if (said := self.from_js(exc)) is None:
                raise
            raise said from exc

    async def open(self, secret: str, keep_as: str, fresh: bool = False) -> str:
        opening = {"secret": secret, "keepAs": keep_as, "fresh": fresh}
        return str(await self._ask("syncOpen", opening))

    async def known_before(self, secret: str) -> bool:
        return bool(await self._ask("syncKnownBefore", {"secret": secret}))

    async def resume(self, kept_as: str) -> str | None:
        space: str | None = await self._ask("syncResume", {"keptAs": kept_as})
        return space

    async def forget(self, kept_as: str) -> None:
        await self._ask("syncForget", {"keptAs": kept_as})

    async def listen(self) -> None:
        await self._ask("syncListen", {})

    async def wipe(self) -> None:
        await self._ask("syncWipe", {})

    async def pair(self, secret: str) -> str:
        return str(await self._ask("syncPair", {"secret": secret}))

    async def unpair(self, link: str) -> str:
        return str(await self._ask("syncUnpair", {"link": link}))

    # widget.sync is imported once a device connects (widget/sync/synced.py), before any of these.

    async def pull(self, since: int) -> Page:
        from .remote import Page, Pulled

        page = await self._ask("syncPull", {"since": since})
        items = []
        for found in page["items"]:
            text = found.get("payload")  # (the item's JSON text, opened by the worker)
            payload = _parsed(text) if isinstance(text, str) else None
            readable = found.get("readable", True) and (text is None or payload is not None)
            items.append(
                Pulled(found["item"], found["rev"], payload, readable, found.get("seq", 0))
            )
        return Page(items, page["cursor"], page["more"])

    async def push(
        self, conversation_id: str, expect: int | None, seq: int, payload: dict[str, Any],
        tail: str = "",
    ) -> Pushed:  # fmt: skip
        version = {"conversation": conversation_id, "expect": expect, "seq": seq, "tail": tail}
        return _pushed(await self._ask("syncPush", version, _dumps(payload)))

    async def drop(self, item: str, expect: int) -> Pushed:
        return _pushed(await self._ask("syncDrop", {"item": item, "expect": expect}))

    async def delete(
        self, conversation_id: str, expect: int | None, seq: int, payload: dict[str, Any]
    ) -> Pushed:
        version = {"conversation": conversation_id, "expect": expect, "seq": seq}
        return _pushed(await self._ask("syncDelete", version, _dumps(payload)))

    async def moving(self) -> bool:
        return bool(await self._ask("syncMoving", {}))

    async def pull_moved(self) -> list[Moved]:
        from .remote import Moved

        found = await self._ask("syncPullMoved", {})
        moved = [(m["item"], _parsed(m.get("payload"))) for m in found]
        return [Moved(item, payload) for item, payload in moved if payload is not None]

    async def moved(self) -> None:
        await self._ask("syncMoved", {})


def _pushed(done: dict[str, Any]) -> Pushed:
    from .remote import Pushed

    return Pushed(done["item"], done["rev"], done["written"])


def _parsed(text: object) -> dict[str, Any] | None:
    """An item's payload, from the JSON text the worker opened; None when it is not one."""
    try:
        payload = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None


def _dumps(request: dict[str, Any]) -> str:
    return json.dumps(request, ensure_ascii=False, separators=(",", ":"))
