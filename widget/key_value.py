"""Where history is kept: the page's localStorage (through the bridge) or page memory."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from .errors import WidgetError


class StorageFull(WidgetError):
    """The store has no room left for a write."""


class Conflict(WidgetError):
    """Another tab changed an entry since this tab last read or wrote it."""


Change = tuple[str, str | None]  # (key, value); None removes the key


class KeyValue(Protocol):
    """The few storage operations history needs.

    `write` applies a batch of changes all together or not at all, in one trip to the page:
    it raises `Conflict` when a key in `expect` does not hold the expected text (None: absent)
    and `StorageFull` when the batch does not fit, in both cases changing nothing.
    """

    async def read_all(self, prefix: str) -> dict[str, str]: ...
    async def get(self, key: str) -> str | None: ...
    async def write(
        self, changes: Sequence[Change], expect: Mapping[str, str | None] | None = None
    ) -> None: ...


class MemoryKeyValue:
    """Page memory: gone on reload. `quota` (characters, keys plus values) is for tests."""

    def __init__(self, quota: int | None = None) -> None:
        self.data: dict[str, str] = {}
        self.quota = quota

    async def read_all(self, prefix: str) -> dict[str, str]:
        return {key: value for key, value in self.data.items() if key.startswith(prefix)}

    async def get(self, key: str) -> str | None:
        return self.data.get(key)

    async def write(
        self, changes: Sequence[Change], expect: Mapping[str, str | None] | None = None
    ) -> None:
        for key, expected in (expect or {}).items():
            if self.data.get(key) != expected:
                raise Conflict(f"{key} was changed elsewhere")
        # Each write must fit as it comes, as in a browser: a batch frees room before taking it.
        after = dict(self.data)
        size = sum(len(k) + len(v) for k, v in after.items()) if self.quota is not None else 0
        for key, value in changes:
            old = after.pop(key, None)
            size -= 0 if old is None else len(key) + len(old)
            if value is not None:
                after[key] = value
                size += len(key) + len(value)
                if self.quota is not None and size > self.quota:
                    raise StorageFull("the store is full")
        self.data = after
