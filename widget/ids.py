"""Random ids: a conversation's, and a stored revision's."""

from __future__ import annotations

import os


def new_id() -> str:
    """128 random bits as 32 hex digits, the form `uuid.uuid4().hex` has: read straight from
    `os.urandom`, since importing `uuid` took a first visit's start 5-8 ms in Pyodide."""
    return os.urandom(16).hex()
