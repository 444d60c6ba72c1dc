"""What this device knows of the server's copy of synced history, kept beside the history:
how far it has read, and each conversation's item as last synced, so that a round can tell a
change made here from one made on another device."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..history import Entry
from ..protocol import storage_key


def forget_mark(prefix: str, conversation_id: str = "") -> str:
    """The key that marks a conversation forgotten here, written in the batch that removes
    it, until a round has it deleted on the server (without an id, what all marks start
    with): a page closed before that round forgets it everywhere all the same."""
    return storage_key("sync", prefix, "forgot:" + conversation_id)


def forget_mark_text(entry: Entry, stored: dict[str, Any] | None) -> str:
    """What the mark says of the version forgotten: its time, length and title, and a digest
    of each of its beginnings (`beginnings`)."""
    messages = (stored or {}).get("messages") or ()
    return json.dumps([entry.updated, entry.size, entry.title, beginnings(messages)])


def digest_of(messages: Sequence[Any]) -> str:
    """The digest of all of `messages` ("" for none): what a tail names as its parent."""
    found = beginnings(messages)
    return found[-1] if found else ""


def beginnings(messages: Sequence[Any], start: str = "") -> list[str]:
    """A short digest of the first message, the first two, ..., all of them: a version whose
    digest is among a forgotten version's is one that version continues (this device wrote
    it before the turns that followed, and lost its note of that round). Each is a hash of
    the one before and the next message, so a tail's digest follows from its parent's
    (`start`) and its own messages, without the messages before."""
    digest, found = start, []
    for message in messages:
        text = json.dumps(message, sort_keys=True, ensure_ascii=False)
        digest = hashlib.sha256(f"{digest}\0{text}".encode()).hexdigest()[:12]
        found.append(digest)
    return found


@dataclass
class Synced:
    item: str
    #: the server's revision of the item as last seen here
    rev: int
    #: the local meta `rev` when it was last synced: another one means changed here since
    local: str
    #: the item's sequence number as last taken or sent (sealed in: never taken lower again)
    seq: int = 0
    #: what the server holds of the conversation, its checkpoint and the tails since: how many
    #: messages, and the digest of them all (`digest_of`)
    length: int = 0
    digest: str = ""
    #: the tails since the checkpoint (their item and revision), and about how many bytes
    tails: list[tuple[str, int]] = field(default_factory=list)
    tail_bytes: int = 0

    def holds(self, messages: Sequence[Any]) -> bool:
        """Whether the server's copy is the start of `messages` (what a tail continues)."""
        return (
            bool(self.digest)
            and len(messages) >= self.length
            and (digest_of(messages[: self.length]) == self.digest)
        )


@dataclass
class SyncState:
    cursor: int = 0
    items: dict[str, Synced] = field(default_factory=dict)
    #: conversations the person forgot here, to delete there: id -> (item, rev, seq); an item
    #: "" and rev None when this device never saw it there (a deletion then creates it)
    forgotten: dict[str, tuple[str, int | None, int]] = field(default_factory=dict)
    #: items deleted (a sealed deletion taken or sent): item -> (its seq, the conversation);
    #: an older copy of one served again is a replay, never a conversation back
    gone: dict[str, tuple[int, str]] = field(default_factory=dict)
    #: for this round only: conversations whose other version waits here (no room, or
    #: another tab wrote meanwhile), so nothing of this device's is sent over it
    held_back: set[str] = field(default_factory=set)
    #: for this round only: revisions to read again (a version forgotten here was continued
    #: there: it comes back whole, its checkpoint read again before its tails)
    again: list[int] = field(default_factory=list)
    #: forgotten here, for this round only: id -> the version forgotten (its `updated`, number
    #: of messages and title), to know it on the server when `items` cannot (this device lost
    #: its note of the server, or of the round that sent that version)
    versions: dict[str, tuple[int, int, str, list[str]]] = field(default_factory=dict)

    def changed_here(self, entry: Entry) -> bool:
        """Never synced, or changed here since it was: this version exists nowhere else."""
        synced = self.items.get(entry.id)
        return synced is None or synced.local != entry.rev

    def forget(self, conversation_id: str, mark: str) -> None:
        """The person forgot it here (`mark`, its `forget_mark_text`): the round deletes it
        there too."""
        synced = self.items.pop(conversation_id, None)
        if synced is not None:
            self.forgotten[conversation_id] = (synced.item, synced.rev, synced.seq)
        with contextlib.suppress(ValueError, TypeError):
            updated, size, title, *more = json.loads(mark)  # (marks of 1.x: no digests)
            digests = [str(d) for d in more[0]] if more and isinstance(more[0], list) else []
            self.versions[conversation_id] = (int(updated), int(size), str(title), digests)

    def forgotten_here(self, conversation_id: str, payload: dict[str, Any],
                       item: tuple[str, int, int]) -> bool:  # fmt: skip
        """Whether `payload` (`item`: its name, revision and seq) is a version the person
        forgot here: this device's own last write, heard back, the very version forgotten or
        one it continues, not named otherwise (its write unknown to `items`: this device lost
        its note of the round that sent it). It is deleted there too; any other version comes
        back (an edit, or a name given, elsewhere beats a deletion)."""
        if (sent := self.forgotten.get(conversation_id)) is not None and sent[:2] == item[:2]:
            return True
        if (forgot := self.versions.get(conversation_id)) is None:
            return False
        there = payload.get("conversation") or {}
        messages, title = there.get("messages") or (), payload.get("title")
        same = (there.get("updated"), len(messages), title) == forgot[:3]
        digests = forgot[3]
        continued = 0 < len(messages) <= len(digests) and (
            beginnings(messages)[-1] == digests[len(messages) - 1]
            and (title == forgot[2] or payload.get("named") is not True))  # fmt: skip
        if not (same or continued):
            return False
        self.forgotten[conversation_id] = item
        return True

    def replaced(self, conversation_id: str) -> dict[str, Any]:
        """What a deletion of `conversation_id` says it replaced: the version forgotten here
        (its number of messages and the digest of all of them), so that a device holding that
        very version forgets it, and one holding more keeps it (an edit beats a deletion)."""
        forgot = self.versions.get(conversation_id)
        if forgot is None:
            return {}
        return {"length": forgot[1], "digest": forgot[3][-1] if forgot[3] else ""}

    def to_json(self) -> str:
        return json.dumps({
            "v": 2, "cursor": self.cursor,
            "items": {c: [s.item, s.rev, s.local, s.seq, s.length, s.digest,
                          [list(t) for t in s.tails], s.tail_bytes]
                      for c, s in self.items.items()},
            "forgotten": {c: list(f) for c, f in self.forgotten.items()},
            "gone": {i: list(g) for i, g in self.gone.items()},
        })  # fmt: skip

    @classmethod
    def from_json(cls, text: str | None) -> SyncState:
        """The state kept; one of version 1 (no sequence numbers: the next write of each item
        is 1, and the version 1 space is moved from anyway) reads as one of version 2."""
        try:
            data = json.loads(text or "")
            return cls(
                int(data["cursor"]),
                {c: _synced(*kept) for c, kept in data["items"].items()},
                {c: (str(i), None if r is None else int(r), int(n[0]) if n else 0)
                 for c, (i, r, *n) in data["forgotten"].items()},
                {i: (int(n), str(c)) for i, (n, c) in data.get("gone", {}).items()},
            )  # fmt: skip
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls()  # unreadable or absent: sync from the start (nothing is lost)


def _synced(item: Any, rev: Any, local: Any, seq: Any = 0, length: Any = 0, digest: Any = "",
            tails: Any = (), tail_bytes: Any = 0) -> Synced:  # fmt: skip
    """A conversation's note as `to_json` keeps it (one of before: no seq, no tails)."""
    kept = [(str(item), int(rev)) for item, rev in tails]
    return Synced(str(item), int(rev), str(local), int(seq), int(length), str(digest), kept,
                  int(tail_bytes))  # fmt: skip
