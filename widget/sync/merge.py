"""Taking another device's version of a conversation, as one pure decision: what this device
holds of it and what arrived -> what to keep, and whether this device's own is still to be
sent (`merge`; no storage, no clock). `widget.sync.take` gathers the facts, asks, and writes.
Each row of the table in docs/history.md ("Taking another device's version") is one case of
it, and a test (`tests/widget/test_sync_v2.py`):

- nothing held here, or held and unchanged since synced: theirs is taken;
- changed here (or never synced) and ours starts with theirs (its own write heard back, or
  an older version written again elsewhere): ours stays, with a name or a pin given there and
  none here; nothing to send when then the same;
- changed here and theirs continues ours: theirs is taken, with a name or a pin given here
  and none there (sent back then);
- changed on both sides: both continuations as versions of the message where they part, ours
  shown (sent); parting before any question, theirs is kept as a copy " (other device)";
- named on both sides, differently: as changed on both sides (neither name is lost).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from ..messages import Message
from .branches import branched


@dataclass(frozen=True)
class Here:
    """What this device holds of the conversation."""

    held: bool
    messages: Sequence[Message] = ()
    title: str = ""
    named: bool = False
    pinned: bool = False
    #: changed here since it was synced, or never synced here
    changed: bool = True
    #: (unchanged) its newest turns exist only here: a batch of writes cut short
    cut_short: bool = False


@dataclass(frozen=True)
class There:
    """The version another device wrote."""

    messages: Sequence[Message]
    title: str
    named: bool
    pinned: bool


class Step(Enum):
    ADOPT = "ours stays, with what of theirs it lacks"
    TAKE = "theirs is taken"
    BRANCH = "both continuations, as versions"
    COPY = "theirs beside ours, as a copy"


@dataclass(frozen=True)
class Plan:
    step: Step
    #: what to keep (ADOPT: ours; TAKE: theirs; BRANCH: both; COPY: theirs, as a copy)
    messages: Sequence[Message]
    title: str
    named: bool
    pinned: bool
    #: ours is still to be sent over theirs
    send: bool


def merge(here: Here, there: There, *, adopting: bool = True) -> Plan:
    """What to keep of `there`, given `here`. `adopting` False: ours could not take what of
    theirs it lacked (no room, another tab), so it is merged as a change on both sides."""
    ours, theirs = list(here.messages), list(there.messages)
    two_names = here.named and there.named and here.title != there.title
    if here.held and here.changed and adopting and not two_names and ours[: len(theirs)] == theirs:
        named = here.named or (there.named and bool(there.title))
        title = there.title if there.named and not here.named and there.title else here.title
        pinned = here.pinned or there.pinned
        same = (there.title, there.named, there.pinned) == (title, named, pinned)
        return Plan(Step.ADOPT, ours, title, named, pinned, not (same and ours == theirs))
    unchanged = not here.held or (not here.changed and not here.cut_short)
    continues = len(theirs) > len(ours) and theirs[: len(ours)] == ours and not two_names
    if unchanged or (here.held and continues):
        # (taken as it is when unchanged here: an unpin, or a name taken back, travels too)
        mine_named = not unchanged and here.named and not there.named
        mine_pinned = not unchanged and here.pinned and not there.pinned
        title = here.title if mine_named else there.title
        return Plan(Step.TAKE, theirs, title, there.named or mine_named,
                    there.pinned or mine_pinned, mine_named or mine_pinned)  # fmt: skip
    both = branched(ours, theirs)
    if both is not None:
        return Plan(Step.BRANCH, both, here.title, here.named, here.pinned or there.pinned, True)
    return Plan(Step.COPY, theirs, there.title, True, there.pinned, True)
