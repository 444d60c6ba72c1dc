"""The access log without turn ids: for a reader without a client secret, a turn's id is the
only secret that opens its answer, and log lines travel to people and systems that must not
be able to read the conversations."""

from __future__ import annotations

import logging
import re

TURN_ID = re.compile(r"(/chat/turns/)[^/?#\s]*")
HIDDEN = r"\1[turn]"


class HideTurnIds(logging.Filter):
    """Rewrites the path of uvicorn's access lines (`client, method, path, version, status`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        path = args[2] if isinstance(args, tuple) and len(args) == 5 else None
        if isinstance(path, str) and "/chat/turns/" in path:
            assert isinstance(args, tuple)
            record.args = (*args[:2], TURN_ID.sub(HIDDEN, path), *args[3:])
        return True


def hide_turn_ids(logger: logging.Logger | None = None) -> None:
    """Install the filter on uvicorn's access logger, once per process."""
    logger = logger or logging.getLogger("uvicorn.access")
    if not any(isinstance(f, HideTurnIds) for f in logger.filters):
        logger.addFilter(HideTurnIds())
