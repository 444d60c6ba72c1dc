"""Answers that survive a reload: with Redis, each streamed answer is a turn of its own.

A streamed chat request becomes a *turn*: its upstream request runs in a task of this
process rather than in the HTTP request, so the page going away (a reload, a closed lid, a
dropped connection) no longer cancels it. Every event goes to the page that asked, straight
from memory, and to a Redis Stream, `chatkeep:turn:<id>`, whose entry ids are `0-1`, `0-2`,
... so an event's number is its offset. The response names the turn (`X-Chatkeep-Turn`) and
numbers its events (`id:`), and any worker of any server sharing the Redis answers

    GET    /api/chat/turns/<id>?after=<n>   the events after the n-th, then the rest as it comes
    DELETE /api/chat/turns/<id>             stop: the upstream request ends within a second

A turn id is 144 random bits, known only to the client it was given to; with client tokens
it is also bound to the token's subject. The stream is kept `KEEP_SECONDS` after its last
event; a turn runs at most that long. The upstream is asked once, however many readers.

If Redis cannot be reached when a request comes, the request is relayed as without Redis;
if it goes away mid-answer, the page that asked still gets the whole answer, and the turn is
cancelled as before once that page goes away (nobody could pick it up). A warning is logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .errors import APIError
from .upstream import EventStream, UpstreamCall, while_connected

log = logging.getLogger("chatkeep")

TURN_HEADER = "x-chatkeep-turn"
#: seconds a turn's events are kept after the last one, and the longest a turn may run
KEEP_SECONDS = 900
#: seconds between looks at whether another process was asked to stop a turn
STOP_POLL = 0.25
GONE = (
    "This answer is no longer kept on the chat server (answers are kept for "
    f"{KEEP_SECONDS // 60} minutes), so the rest of it cannot be shown."
)
STOPPED = APIError(400, "Stopped before the answer was finished.", "stopped")
TOO_LONG = APIError(504, "The answer took too long and was ended.", "turn_too_long")
BROKEN = APIError(502, "The chat server failed while writing this answer.", "server_error")
SILENT = APIError(502, "The answer stopped arriving. Try again.", "upstream_dropped")
STORE_AWAY = "Answers cannot be picked up right now: the chat server's store is away."


class LiveTurn:
    """A turn running in this process: its events in memory, for the page that asked."""

    def __init__(self, turn_id: str, owner: str) -> None:
        self.id = turn_id
        self.owner = owner
        self.events: list[str] = []
        self.refused: APIError | None = None
        self.started = False
        #: None while running; True once complete, False after an error or a stop
        self.done: bool | None = None
        #: pages reading from memory right now
        self.listeners = 0
        #: False once Redis failed for this turn: nobody else can read it
        self.shared = True
        self.stopping = False
        self._cancel: Callable[[], None] = lambda: None
        self._changed = asyncio.Event()

    def stop(self) -> None:
        """End the upstream request now (or as soon as it starts)."""
        self.stopping = True
        self._cancel()

    def on_stop(self, cancel: Callable[[], None]) -> None:
        self._cancel = cancel
        if self.stopping:
            cancel()

    # -- StreamSink: what the upstream call writes ---------------------------------------

    async def refuse(self, error: APIError) -> None:
        self.refused, self.done = error, False
        self._notify()

    async def start(self) -> None:
        self.started = True
        self._notify()

    async def event(self, data: str) -> None:
        self.events.append(data)
        self._notify()

    async def end(self, done: bool) -> None:
        self.done = done
        self._notify()

    # -- readers -------------------------------------------------------------------------

    @property
    def ended(self) -> bool:
        return self.done is not None

    async def wait(self, seen: int | None) -> None:
        """Until the turn has more than `seen` events (None: has started), or has ended."""
        while not self.ended and (not self.started if seen is None else len(self.events) <= seen):
            await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()


class TurnStore:
    """The Redis side: one stream of events per turn, its owner, and a stop flag."""

    def __init__(self, client: Any, prefix: str = "chatkeep") -> None:
        self.client = client
        self.prefix = prefix
        self._failing = False

    def key(self, turn_id: str, part: str = "") -> str:
        return f"{self.prefix}:turn:{turn_id}{part}"

    async def open(self, turn_id: str, owner: str) -> None:
        await self.client.set(self.key(turn_id, ":owner"), owner, ex=KEEP_SECONDS, nx=True)

    async def owner(self, turn_id: str) -> str | None:
        value = await self.client.get(self.key(turn_id, ":owner"))
        return value.decode() if isinstance(value, bytes) else value

    async def append(self, turn_id: str, first: int, entries: list[dict[str, str]]) -> None:
        """Entries numbered from `first`, in one round trip; every key's life restarts."""
        async with self.client.pipeline(transaction=False) as pipe:
            for number, fields in enumerate(entries, start=first):
                pipe.xadd(self.key(turn_id), fields, id=f"0-{number}")
            pipe.expire(self.key(turn_id), KEEP_SECONDS)
            pipe.expire(self.key(turn_id, ":owner"), KEEP_SECONDS)
            await pipe.execute()

    async def read(
        self, turn_id: str, after: int, block_ms: int | None
    ) -> list[tuple[int, dict[str, str]]]:
        """The entries after number `after`, waiting up to `block_ms` for one (None: not)."""
        found = await self.client.xread({self.key(turn_id): f"0-{after}"}, count=512,
                                        block=block_ms)  # fmt: skip
        entries = []
        for _, items in found or []:
            for entry_id, fields in items:
                number = int(entry_id.split(b"-")[1])
                entries.append((number, {k.decode(): v.decode() for k, v in fields.items()}))
        return entries

    async def ask_to_stop(self, turn_id: str) -> None:
        await self.client.set(self.key(turn_id, ":stop"), "1", ex=KEEP_SECONDS)

    async def stop_asked(self, turn_id: str) -> bool:
        return bool(await self.client.exists(self.key(turn_id, ":stop")))

    def failed(self, exc: Exception) -> None:
        if not self._failing:
            log.warning(
                "Redis is unreachable (%s): answers are not kept for a reload until it is back",
                exc,
            )
        self._failing = True

    def worked(self) -> None:
        if self._failing:
            log.warning("Redis is back: answers are kept for a reload again")
        self._failing = False


class Turns:
    """Starts turns, lets any process read or stop them, and ends them on shutdown."""

    def __init__(self, client: Any, idle_seconds: float) -> None:
        import redis.exceptions  # optional: only with --redis-url

        self.store = TurnStore(client)
        self.redis_errors = (redis.exceptions.RedisError, OSError)
        #: a reader gives up on a turn that sends nothing for this long (its server died)
        self.idle_seconds = idle_seconds
        self.live: dict[str, LiveTurn] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def begin(self, call: UpstreamCall, client: str) -> Response | None:
        """Start `call` as a turn and answer with its events; None when Redis is away."""
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
        return LiveTurnResponse(turn)

    async def resume(self, request: Request) -> Response:
        """`GET /api/chat/turns/<id>?after=<n>`: the events after the n-th, then the rest."""
        client = request.app.state.identity.of(request)
        turn_id = request.path_params["turn"]
        text = request.query_params.get("after", "0")
        if not text.isdigit() or len(text) > 9:
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
        return StoredTurnResponse(self, turn_id, int(text), first)

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
        await self.store.client.aclose()

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
            raise APIError(404, GONE, "turn_not_found")

    def _unavailable(self, exc: Exception) -> APIError:
        self.store.failed(exc)
        return APIError(503, STORE_AWAY, "store_unavailable")


def owner_of(client: str) -> str:
    """Who may read a turn besides its id's holder: a token's subject; "" for an address,
    which changes when a phone changes networks (the id alone is the secret then)."""
    return client if client.startswith("subject:") else ""


class LiveTurnResponse(Response):
    """The page that asked reads its turn from memory; leaving does not end the turn."""

    def __init__(self, turn: LiveTurn) -> None:
        super().__init__()
        self.turn = turn

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        turn = self.turn
        turn.listeners += 1
        try:
            await while_connected(receive, lambda: self._relay(scope, send))
        finally:
            turn.listeners -= 1
            if turn.listeners == 0 and not turn.shared and not turn.ended:
                turn.stop()  # Redis failed: nobody else can pick this answer up

    async def _relay(self, scope: Scope, send: Send) -> None:
        turn = self.turn
        await turn.wait(None)
        stream = EventStream(scope, send, {TURN_HEADER: turn.id})
        if turn.refused is not None:
            await stream.refuse(turn.refused)
            return
        await stream.start()
        sent = 0
        while True:
            for data in turn.events[sent:]:
                sent += 1
                await stream.event(data, sent)
            if turn.ended and sent == len(turn.events):
                await stream.end(bool(turn.done))
                return
            await turn.wait(sent)


class StoredTurnResponse(Response):
    """Any process reads a turn from Redis: what was written, then the rest as it comes."""

    def __init__(
        self, turns: Turns, turn_id: str, after: int, first: list[tuple[int, dict[str, str]]]
    ) -> None:
        super().__init__()
        self.turns = turns
        self.turn_id = turn_id
        self.after = after
        self.first = first

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await while_connected(receive, lambda: self._relay(scope, send))

    async def _relay(self, scope: Scope, send: Send) -> None:
        stream = EventStream(scope, send, {TURN_HEADER: self.turn_id})
        await stream.start()
        entries, after, idle = self.first, self.after, 0.0
        store = self.turns.store
        while True:
            for number, fields in entries:
                after = number
                if "d" in fields:
                    await stream.event(fields["d"], number)
                elif "end" in fields:
                    await stream.end(fields["end"] == "done")
                    return
            idle = 0.0 if entries else idle + 1.0
            if idle > self.turns.idle_seconds:
                await stream.event(SILENT.sse_data())
                await stream.end(False)
                return
            try:
                entries = await store.read(self.turn_id, after, 1000)
            except self.turns.redis_errors as exc:
                store.failed(exc)
                # Closed without an ending: the widget asks again from `after`.
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
