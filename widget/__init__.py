"""Chatkeep's session logic: conversations, snapshots and the model turn loop.

The same code runs on CPython and, compiled into a wheel, under Pyodide in the widget's
Web Worker. Nothing here imports anything from the browser except `widget.bridge`.
"""

from .errors import HistoryError, NoSuchMessage, SnapshotError, TurnError, WidgetError
from .sessions import Session, Transport
from .snapshots import Snapshot, read_snapshot
from .tools import Tool, tool_from_callable

__all__ = [
    "HistoryError",
    "NoSuchMessage",
    "Session",
    "Snapshot",
    "SnapshotError",
    "Tool",
    "Transport",
    "TurnError",
    "WidgetError",
    "read_snapshot",
    "tool_from_callable",
]
