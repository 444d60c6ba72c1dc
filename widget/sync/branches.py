"""Two continuations of one conversation, as versions of the message where they part.

When this device and another both continued a conversation since they last synced, both keep
one conversation: this device's messages as shown, the other's as a version of the first
message where they part (or, where they part at an answer, of the question before it, as a
retry makes one), reachable with "Previous version" / "Next version" ("1 / 2"). Never a copy
titled " (other device)": that is what users of synced notes complain of most. Merging again
what was merged already adds nothing, so two devices end with the same conversation.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..messages import Message, copy_message


def branched(ours: Sequence[Message], theirs: Sequence[Message]) -> list[Message] | None:
    """`ours` with `theirs` as a version where they part; None when one holds the other (a
    continuation, nothing to branch) or they part before any question."""
    start = 0
    while start < min(len(ours), len(theirs)) and ours[start] == theirs[start]:
        start += 1
    if start == len(ours) or start == len(theirs):
        return None
    at = start
    while at >= 0 and ours[at]["role"] != "user":
        at -= 1
    if at < 0 or theirs[at]["role"] != "user":
        return None
    mine = ours[at]
    every = [*mine.get("versions", [])]
    shown = _version_of(theirs, at)
    known = [_version_of(ours, at), *every]
    for alternative in [shown, *theirs[at].get("versions", [])]:
        if alternative not in known:
            every.append(alternative)
            known.append(alternative)
    if len(every) == len(mine.get("versions", [])):
        return None  # theirs is a version ours holds already
    merged: Message = {**mine, "versions": every, "version": mine.get("version", 1)}
    return [*ours[:at], merged, *ours[at + 1 :]]


def _version_of(messages: Sequence[Message], index: int) -> Message:
    """The user message at `index` and what followed it, as one of its versions."""
    message = messages[index]
    version: Message = {"content": message["content"],
                        "after": [copy_message(m) for m in messages[index + 1 :]]}  # fmt: skip
    if "attachments" in message:
        version["attachments"] = message["attachments"]
    return version
