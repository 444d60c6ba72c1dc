"""Who may touch a space: the holder of its token (sync version 2), checked with no state.

The browser derives a 32-byte access token from the person's code and sends it, base64url
without padding, in `Chatkeep-Sync-Token` with every request. The space id is
base64url(SHA-256("chatkeep space v2" ‖ token)): the server checks a request by hashing its
token, keeps nothing but the id, and neither a log of URLs nor a copy of its database yields
the token. A space id alone reads, writes and deletes nothing (403).

Spaces written before version 2 are named by their id alone (version 1): those are read,
written and wiped without a token while their devices move to version 2 by themselves; no
new one is made.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

HEADER = "chatkeep-sync-token"
SPACE_PREFIX = b"chatkeep space v2"
TOKEN_BYTES = 32


def space_of(token: bytes) -> str:
    """The id of the space `token` opens."""
    digest = hashlib.sha256(SPACE_PREFIX + token).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def token_text(token: bytes) -> str:
    """How `token` travels in the header."""
    return base64.urlsafe_b64encode(token).rstrip(b"=").decode("ascii")


def opens(header: str, space: str) -> bool:
    """Whether the header's token is that of `space` (compared in constant time)."""
    if len(header) != 43 or not header.isascii():
        return False
    try:
        token = base64.urlsafe_b64decode(header + "=")
    except (binascii.Error, ValueError):
        return False
    return len(token) == TOKEN_BYTES and hmac.compare_digest(space_of(token), space)
