"""The access log without turn ids, sync spaces or pairings: for a reader without a client
secret, a turn's id is the only secret that opens its answer; a synced history's space id
names the person (its token opens it), and a pairing's id takes its sealed code (once, which
spoils the link); log lines travel to people and systems that must be able to do none of it."""

from __future__ import annotations

import logging
import re

TURN_ID = re.compile(r"(/chat/turns/)[^/?#\s]*")
SYNC_SPACE = re.compile(r"(/sync/)[^/?#\s]*")
PAIRING = re.compile(r"(/sync-pair/)[^/?#\s]*")
SHARE = re.compile(r"(/share/)[^/?#\s]*")


def hidden(path: str) -> str:
    """`path` with any turn id, sync space, pairing and share replaced by `[turn]`,
    `[space]`, `[pairing]` and `[share]`."""
    if "/chat/turns/" in path:
        path = TURN_ID.sub(r"\1[turn]", path)
    if "/sync/" in path:
        path = SYNC_SPACE.sub(r"\1[space]", path)
    if "/sync-pair/" in path:
        path = PAIRING.sub(r"\1[pairing]", path)
    if "/share/" in path:
        path = SHARE.sub(r"\1[share]", path)  # an id reads the ciphertext: half a link
    return path


class HideTurnIds(logging.Filter):
    """Rewrites the path of uvicorn's access lines (`client, method, path, version, status`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        path = args[2] if isinstance(args, tuple) and len(args) == 5 else None
        if isinstance(path, str) and any(part in path for part in ("/chat/turns/", "/sync",
                                                                   "/share/")):  # fmt: skip
            assert isinstance(args, tuple)
            record.args = (*args[:2], hidden(path), *args[3:])
        return True


def hide_turn_ids(logger: logging.Logger | None = None) -> None:
    """Install the filter on uvicorn's access logger, once per process."""
    logger = logger or logging.getLogger("uvicorn.access")
    if not any(isinstance(f, HideTurnIds) for f in logger.filters):
        logger.addFilter(HideTurnIds())
