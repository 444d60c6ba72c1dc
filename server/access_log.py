"""The access log without turn ids or sync spaces: for a reader without a client secret, a
turn's id is the only secret that opens its answer, and a synced history's space id the only
one that reads or deletes its (encrypted) items; log lines travel to people and systems that
must be able to do neither."""

from __future__ import annotations

import logging
import re

TURN_ID = re.compile(r"(/chat/turns/)[^/?#\s]*")
SYNC_SPACE = re.compile(r"(/sync/)[^/?#\s]*")


def hidden(path: str) -> str:
    """`path` with any turn id and sync space replaced by `[turn]` and `[space]`."""
    if "/chat/turns/" in path:
        path = TURN_ID.sub(r"\1[turn]", path)
    if "/sync/" in path:
        path = SYNC_SPACE.sub(r"\1[space]", path)
    return path


class HideTurnIds(logging.Filter):
    """Rewrites the path of uvicorn's access lines (`client, method, path, version, status`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        path = args[2] if isinstance(args, tuple) and len(args) == 5 else None
        if isinstance(path, str) and ("/chat/turns/" in path or "/sync/" in path):
            assert isinstance(args, tuple)
            record.args = (*args[:2], hidden(path), *args[3:])
        return True


def hide_turn_ids(logger: logging.Logger | None = None) -> None:
    """Install the filter on uvicorn's access logger, once per process."""
    logger = logger or logging.getLogger("uvicorn.access")
    if not any(isinstance(f, HideTurnIds) for f in logger.filters):
        logger.addFilter(HideTurnIds())
