"""The Redis side of kept answers: one stream of events per turn, its owner, a stop flag."""

from __future__ import annotations

import logging
from typing import Any, Protocol

log = logging.getLogger("chatkeep")

#: seconds a turn's events are kept after the last one, and the longest a turn may run
KEEP_SECONDS = 900


class KeptTurns(Protocol):
    """Where a turn's events are kept for its readers: Redis (`TurnStore`) or this process's
    memory (`server.memory_turns.MemoryTurnStore`)."""

    #: what its calls raise when the store is away (nothing, for memory)
    errors: tuple[type[Exception], ...]

    async def open(self, turn_id: str, owner: str) -> None: ...
    async def owner(self, turn_id: str) -> str | None: ...
    async def append(self, turn_id: str, first: int, entries: list[dict[str, str]]) -> None: ...
    async def read(
        self, turn_id: str, after: int, block_ms: int | None
    ) -> list[tuple[int, dict[str, str]]]: ...
    async def ask_to_stop(self, turn_id: str) -> None: ...
    async def stop_asked(self, turn_id: str) -> bool: ...
    async def aclose(self) -> None: ...
    def failed(self, exc: Exception) -> None: ...
    def worked(self) -> None: ...


class TurnStore:
    """The Redis side: one stream of events per turn, its owner, and a stop flag."""

    def __init__(self, client: Any, prefix: str = "chatkeep") -> None:
        import redis.exceptions  # optional: only with --redis-url

        self.client = client
        #: what a Redis call raises when the store is away
        self.errors: tuple[type[Exception], ...] = (redis.exceptions.RedisError, OSError)
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

    async def aclose(self) -> None:
        await self.client.aclose()

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
