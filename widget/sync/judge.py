"""What one item read from the sync server is, before anything of it is taken: the checks a
device makes so that no server, and no lost answer, changes what a person kept.

`judge` is pure (no storage, no clock): what this device holds of the item, what arrived ->
what it is. Each case is a row of the table in docs/history.md ("What a device takes") and a
test. The round (`widget.sync.rounds`) reads, asks `judge`, and then takes, keeps or sends.
"""

from __future__ import annotations

from enum import Enum

from .remote import Pulled
from .state import Synced


class Verdict(Enum):
    #: another device's version, newer than any taken here: merged (`Syncer._take`)
    TAKE = "take"
    #: another device's sealed deletion, newer than any taken here (`Syncer._take_deletion`)
    DELETE = "delete"
    #: the version this device holds already (its own write heard back, or served again)
    SAME = "same"
    #: altered: a copy older than one taken here, a bare tombstone, or one failing its tag,
    #: over a conversation held here: ours is kept and sent again over it, the person told
    KEEP_OURS = "keep ours"
    #: an older copy of a conversation deleted since: it stays deleted, the deletion is sent
    #: again, the person told
    REPLAY = "replay"
    #: failing its tag, of no conversation this device knows (another code's, or garbage)
    UNREADABLE = "unreadable"
    #: nothing to take: a bare tombstone of what this device does not hold
    IGNORE = "ignore"


def judge(pulled: Pulled, synced: Synced | None, gone: tuple[int, str] | None) -> Verdict:
    """What `pulled` is, given this device's note of its item (`synced`: the version last
    taken or sent, None if none) and of its deletion (`gone`: the seq and the conversation)."""
    if not pulled.readable or pulled.payload is None:
        if synced is not None:
            return Verdict.KEEP_OURS
        return Verdict.UNREADABLE if not pulled.readable else Verdict.IGNORE
    if gone is not None and pulled.seq <= gone[0]:
        return Verdict.REPLAY
    if synced is not None and pulled.seq < synced.seq:
        return Verdict.KEEP_OURS
    if synced is not None and pulled.seq == synced.seq:
        return Verdict.SAME
    return Verdict.DELETE if pulled.payload.get("deleted") is True else Verdict.TAKE
