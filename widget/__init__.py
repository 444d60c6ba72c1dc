"""Chatkeep's session logic: conversations, snapshots and the model turn loop.

The same code runs on CPython and, compiled into a wheel, under Pyodide in the widget's
Web Worker. Nothing here imports anything from the browser except `widget.bridge`.

The public names are imported when first asked for (PEP 562): the worker imports
`widget.precompiled` before anything else, which importing them all here would defeat.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: the module each public name is defined in
_HOMES = {
    "HistoryError": "errors",
    "NoSuchMessage": "errors",
    "SnapshotError": "errors",
    "TurnError": "errors",
    "WidgetError": "errors",
    "Session": "sessions",
    "Transport": "sessions",
    "Snapshot": "snapshots",
    "read_snapshot": "snapshots",
    "Tool": "tools",
    "tool_from_callable": "tools",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})
