"""Moving a device from a version 1 space: its first round of version 2 reads the old space
whole (`Remote.pull_moved`), takes it as another device's versions, and wipes it
(`Remote.moved`) once nothing of it waits for room here (docs/history.md, "Moving from
version 1")."""

from __future__ import annotations

from ..key_value import Conflict
from .remote import Pulled, Remote
from .state import SyncState
from .take import Taker


async def moved_from_version_1(
    taker: Taker, remote: Remote, state: SyncState, earlier: SyncState, touched: set[str]
) -> bool:
    """The version 1 space, read whole and merged as another device's versions; wiped unless
    some of it waits for room here (True: it is read again next round). What was forgotten
    here and not yet deleted there (`earlier`: this device's note of version 1) becomes a
    deletion in the new space, so a device that moves later forgets it too."""
    for conversation in [*earlier.forgotten, *state.versions]:
        state.forgotten.setdefault(conversation, ("", None, 0))
    scratch = SyncState(versions=state.versions)  # (its items are version 1's)
    waiting = False
    for moved in await remote.pull_moved():
        try:
            taken = await taker.take(scratch, Pulled(moved.item, 0, moved.payload), touched)
        except Conflict:
            taken = False
        waiting = waiting or not taken
    if not waiting:
        await remote.moved()
    return waiting
