"""The links a conversation is shared by ("Share"), kept in its snapshot.

    "shares": [{"id", "key", "token", "expires", "digest"}]

Each is what the sharing device needs to give the link again and to stop it: the share's id
and key (the link's fragment, `#chatkeep-share=ID.KEY`), the delete token the server
answered, when the server forgets it (seconds since the epoch), and a digest of what was
sealed (a conversation changed since is sealed anew by "Share"). Kept in the snapshot so
that the person's other synced devices list the share, and can stop it, too. A shared copy
never carries them (`widget.share_operations`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .errors import SnapshotError

MAX_SHARES = 16
_ID = re.compile(r"[\w-]{22,64}", re.ASCII)
_KEY = re.compile(r"[\w-]{43}", re.ASCII)
_TOKEN = re.compile(r"[\w-]{16,128}", re.ASCII)
_LATEST = 2**53
_FIELDS = {"id", "key", "token", "expires", "digest"}
_DIGEST = re.compile(r"[0-9a-f]{16,64}", re.ASCII)


@dataclass(frozen=True)
class ShareRecord:
    id: str
    key: str
    token: str
    expires: int
    digest: str

    @property
    def fragment(self) -> str:
        """What follows `#` in the link."""
        return f"chatkeep-share={self.id}.{self.key}"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "key": self.key, "token": self.token, "expires": self.expires,
                "digest": self.digest}  # fmt: skip


def read_shares(data: dict[str, Any]) -> tuple[ShareRecord, ...]:
    """A snapshot's `shares`, checked; raises `SnapshotError` for anything else."""
    listed = data.get("shares", [])
    if not isinstance(listed, list) or len(listed) > MAX_SHARES:
        raise SnapshotError(f'the snapshot\'s "shares" must be a list of at most {MAX_SHARES}')
    return tuple(_record(item) for item in listed)


def shared_until(shares: tuple[ShareRecord, ...]) -> int:
    """When the last of them expires (0: none)."""
    return max((share.expires for share in shares), default=0)


def _record(item: object) -> ShareRecord:
    if not isinstance(item, dict) or set(item) != _FIELDS:
        raise SnapshotError(
            'each of the snapshot\'s "shares" is {"id", "key", "token", "expires", "digest"}'
        )
    expires, digest = item["expires"], item["digest"]
    if (
        not isinstance(item["id"], str)
        or not _ID.fullmatch(item["id"])
        or not isinstance(item["key"], str)
        or not _KEY.fullmatch(item["key"])
        or not isinstance(item["token"], str)
        or not _TOKEN.fullmatch(item["token"])
        or isinstance(expires, bool)
        or not isinstance(expires, int)
        or not 0 < expires < _LATEST
        or not isinstance(digest, str)
        or not _DIGEST.fullmatch(digest)
    ):
        raise SnapshotError('one of the snapshot\'s "shares" is not a share this widget made')
    return ShareRecord(item["id"], item["key"], item["token"], expires, digest)
