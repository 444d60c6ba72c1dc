"""Synced history's one hook into a `History`: what the history asks of it as it keeps and
forgets (`History.sync`). Declared here, apart from both, so that history knows of synced
history only this; `widget.sync.rounds.Syncer` is the one that answers it."""

from __future__ import annotations

from typing import Protocol

from .entries import Entry
from .key_value import Change


class SyncHook(Protocol):
    """What synced history asks of the history it syncs, all in one place (`History.sync`;
    `widget.sync.rounds.Syncer` is the one that does)."""

    def backed_up(self, entry: Entry) -> bool:
        """On the server as it is here: such conversations go first when the store is full."""
        ...

    async def forget_marks(self, entry: Entry) -> list[Change]:
        """What forgetting it writes beside its removal, in the same batch: a mark that it is
        to be deleted on the server too."""
        ...

    def heard(self, conversation_id: str, forgotten: bool) -> None:
        """This tab kept, pinned or forgot it (`forgotten`): a round sends it soon."""
        ...


class NotSynced:
    """The hook of a history that syncs nowhere."""

    def backed_up(self, entry: Entry) -> bool:
        return False

    async def forget_marks(self, entry: Entry) -> list[Change]:
        return []

    def heard(self, conversation_id: str, forgotten: bool) -> None:
        return None


NOT_SYNCED = NotSynced()
