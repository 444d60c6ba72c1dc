"""Spaces as a browser makes them (sync version 2): a token, and the id that is its digest."""

from __future__ import annotations

import hashlib

from server.sync import access


def keyed(name: str) -> tuple[str, dict[str, str]]:
    """A space of a person called `name`: its id, and the header that opens it."""
    token = hashlib.sha256(f"token of {name}".encode()).digest()
    return access.space_of(token), {access.HEADER: access.token_text(token)}
