"""Answers that survive a reload: each streamed answer is a turn of its own.

A streamed chat request becomes a *turn*: its upstream request runs in a task of this
process rather than in the HTTP request, so the page going away (a reload, a closed lid, a
dropped connection) no longer cancels it. Every event goes to the page that asked, straight
from memory, and to a store: with Redis a Redis Stream, `chatkeep:turn:<id>`, whose entry
ids are `0-1`, `0-2`, ... so an event's number is its offset; without it this process's
memory (`server.memory_turns`). The response names the turn (`X-Chatkeep-Turn`) and
numbers its events (`id:`), and the process (with Redis: any worker of any server sharing
the Redis) answers

    GET    /api/chat/turns/<id>?after=<n>   the events after the n-th, then the rest as it comes
    DELETE /api/chat/turns/<id>             stop: the upstream request ends within a second

A turn id is 144 random bits, known only to the client it was given to; with client tokens
it is also bound to the token's subject. The stream is kept `KEEP_SECONDS` after its last
event; a turn runs at most that long. The upstream is asked once, however many readers.

If Redis is configured but cannot be reached when a request comes, the request is relayed
straight through (not kept); if it goes away mid-answer, the page that asked still gets the
whole answer, and the turn is cancelled once that page goes away (nobody could pick it up).
A warning is logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets

import anyio
from starlette.requests import Request
from starlette.responses import Response

from .errors import APIError
from .limits import Release, Releasing
from .live_turn import LiveTurn
from .turn_readers import TURN_HEADER, LiveTurnResponse, StoredTurnResponse
from .turn_store import KEEP_SECONDS, KeptTurns
from .upstream import UpstreamCall

log = logging.getLogger("chatkeep")

__all__ = ["TURN_HEADER", "Turns"]

#: seconds between looks at whether another process was asked to stop a turn
STOP_POLL = 0.25
STOPPED = APIError.said(400, "stopped")
TOO_LONG = APIError.said(504, "turn_too_long")
BROKEN = APIError.said(502, "server_error")


class Turns:
    """Starts turns, lets any process read or stop them, and ends them on shutdown."""

    def __init__(self, store: KeptTurns, idle_seconds: float) -> None:
        self.store = store
        self.redis_errors = self.store.errors
        #: a reader gives up on a turn that sends nothing for this long (its server died)
        self.idle_seconds = idle_seconds
        self.live: dict[str, LiveTurn] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def begin(self, call: UpstreamCall, client: str, release: Release) -> Response | None:
        """Start `call` as a turn and answer with its events; None when Redis is away. The
        client's slot (`release`) is given back when the turn ends, not when the page leaves."""
        turn = LiveTurn(secrets.token_urlsafe(18), owner_of(client))
        try:
            await self.store.open(turn.id, turn.owner)
        except self.redis_errors as exc:
            self.store.failed(exc)
            return None
        self.store.worked()
        self.live[turn.id] = turn
        task = asyncio.create_task(self._run(turn, call))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(lambda _: release())
        return LiveTurnResponse(turn)

    async def resume(self, request: Request) -> Response:
        """`GET /api/chat/turns/<id>?after=<n>`: the events after the n-th, then the rest."""
        client = request.app.state.identity.of(request)
        turn_id = request.path_params["turn"]
        text = request.query_params.get("after", "0")
        if not (text.isascii() and text.isdigit()) or len(text) > 9:  # "²" is a digit too
            raise APIError(400, '"after" must be a whole number of events.', "invalid_parameter")
        await self._check_owner(turn_id, client)
        try:
            first = await self.store.read(turn_id, int(text), None)
        except self.redis_errors as exc:
            raise self._unavailable(exc) from exc
        if first and "refused" in first[0][1]:
            refused = json.loads(first[0][1]["refused"])
            return Response(refused["body"], status_code=refused["status"],
                            media_type="application/json")  # fmt: skip
        release = request.app.state.slots.take(client)  # a reader holds a slot while it reads
        reader = StoredTurnResponse(self.store, turn_id, int(text), first, self.idle_seconds)
        return Releasing(reader, release)

    async def stop(self, request: Request) -> Response:
        """`DELETE /api/chat/turns/<id>`: the turn ends within a second, wherever it runs."""
        client = request.app.state.identity.of(request)
        turn_id = request.path_params["turn"]
        live = self.live.get(turn_id)
        if live is not None and live.owner in ("", owner_of(client)):
            live.stop()
            return Response(status_code=204)
        await self._check_owner(turn_id, client)
        try:
            await self.store.ask_to_stop(turn_id)
        except self.redis_errors as exc:
            raise self._unavailable(exc) from exc
        return Response(status_code=204)

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.store.aclose()

    # -- one turn ------------------------------------------------------------------------

    async def _run(self, turn: LiveTurn, call: UpstreamCall) -> None:
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._mirror, turn)
                await self._produce(turn, call)
        finally:
            self.live.pop(turn.id, None)

    async def _produce(self, turn: LiveTurn, call: UpstreamCall) -> None:
        """The upstream request, until it ends, is stopped, or runs too long; whatever
        happens, the turn ends, so no reader waits for ever."""
        ending = STOPPED
        try:
            with anyio.move_on_after(KEEP_SECONDS) as deadline:
                async with anyio.create_task_group() as group:
                    turn.on_stop(group.cancel_scope.cancel)
                    group.start_soon(self._watch_stop, turn)
                    await call.stream_into(turn)
                    group.cancel_scope.cancel()
            if deadline.cancel_called:
                ending = TOO_LONG
        except Exception:
            log.exception("A kept answer failed inside the server")
            ending = BROKEN
        if not turn.ended:
            if not turn.started:
                await turn.refuse(ending)
            else:
                await turn.event(ending.sse_data())
                await turn.end(done=False)

    async def _watch_stop(self, turn: LiveTurn) -> None:
        while True:
            await anyio.sleep(STOP_POLL)
            if not turn.shared:
                continue
            try:
                if await self.store.stop_asked(turn.id):
                    turn.stop()
                    return
            except self.redis_errors:
                continue  # the mirror says so in the log; the page's own Stop still works

    async def _mirror(self, turn: LiveTurn) -> None:
        """Copy the turn's events to Redis as they come, many to a round trip."""
        written = 0  # events
        number = 1  # the next entry's
        while True:
            await turn.wait(written if turn.started else None)
            entries: list[dict[str, str]] = []
            if turn.refused is not None:
                body = json.dumps(turn.refused.body())
                entries.append({"refused": json.dumps({"status": turn.refused.status,
                                                        "body": body})})  # fmt: skip
            new = turn.events[written:]
            entries += [{"d": data} for data in new]
            ended = turn.ended
            if ended:
                entries.append({"end": "done" if turn.done else "error"})
            if entries:
                try:
                    await self.store.append(turn.id, number, entries)
                except self.redis_errors as exc:
                    self.store.failed(exc)
                    turn.shared = False
                    if turn.listeners == 0:
                        turn.stop()  # nobody is reading, and nobody else can
                    return
                self.store.worked()
            written += len(new)
            number += len(entries)
            if ended:
                return

    async def _check_owner(self, turn_id: str, client: str) -> None:
        try:
            owner = await self.store.owner(turn_id)
        except self.redis_errors as exc:
            raise self._unavailable(exc) from exc
        # Another subject's turn is as unknown as one that never was.
        if owner is None or owner not in ("", owner_of(client)):
            raise APIError.said(404, "turn_not_found", minutes=KEEP_SECONDS // 60)

    def _unavailable(self, exc: Exception) -> APIError:
        self.store.failed(exc)
        return APIError.said(503, "store_unavailable")


def owner_of(client: str) -> str:
    """Who may read a turn besides its id's holder: a token's subject; "" for an address,
    which changes when a phone changes networks (the id alone is the secret then)."""
    return client if client.startswith("subject:") else ""
