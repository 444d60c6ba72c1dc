"""How a reader sees a turn: from memory in the process that runs it, else from Redis.

Both number their events (`id: n`) and name the turn in `X-Chatkeep-Turn`, so a reader
whose connection drops asks again from the last event it saw.
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .errors import APIError
from .live_turn import LiveTurn
from .turn_store import KeptTurns
from .upstream import EventStream, while_connected

TURN_HEADER = "x-chatkeep-turn"
SILENT = APIError.said(502, "upstream_dropped.silent")


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
            # Nobody can pick this answer up: Redis failed, or the page left before it was
            # told the turn's id (before the first byte).
            if turn.listeners == 0 and not turn.ended and not (turn.shared and turn.named):
                turn.stop()

    async def _relay(self, scope: Scope, send: Send) -> None:
        turn = self.turn
        await turn.wait(None)
        stream = EventStream(scope, send, {TURN_HEADER: turn.id})
        if turn.refused is not None:
            await stream.refuse(turn.refused)
            return
        await stream.start()
        turn.named = True
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
        self,
        store: KeptTurns,
        turn_id: str,
        after: int,
        first: list[tuple[int, dict[str, str]]],
        idle_seconds: float,
    ) -> None:
        super().__init__()
        self.store = store
        self.idle_seconds = idle_seconds
        self.turn_id = turn_id
        self.after = after
        self.first = first

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await while_connected(receive, lambda: self._relay(scope, send))

    async def _relay(self, scope: Scope, send: Send) -> None:
        stream = EventStream(scope, send, {TURN_HEADER: self.turn_id})
        await stream.start()
        entries, after, idle = self.first, self.after, 0.0
        store = self.store
        while True:
            for number, fields in entries:
                after = number
                if "d" in fields:
                    await stream.event(fields["d"], number)
                elif "end" in fields:
                    await stream.end(fields["end"] == "done")
                    return
            idle = 0.0 if entries else idle + 1.0
            if idle > self.idle_seconds:
                await stream.event(SILENT.sse_data())
                await stream.end(False)
                return
            try:
                entries = await store.read(self.turn_id, after, 1000)
            except store.errors as exc:
                store.failed(exc)
                # Closed without an ending: the widget asks again from `after`.
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
