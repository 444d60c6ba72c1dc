"""The errors the widget raises, one base class for all of them.

WidgetError (ValueError)
 ├── HistoryError    a message list that `Session.set_history` cannot accept
 ├── SnapshotError   snapshot text that `Session.import_snapshot` cannot accept
 ├── TurnError       a model turn that could not complete (upstream failure, stop, busy)
 └── NoSuchMessage   an index (or a version) that names no message to act on
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from .protocol import BUSY, STOPPED
from .texts import TEXTS, Notice


class WidgetError(ValueError):
    """Base class: every error the widget raises on bad input is one of these. A person sees
    its `notice`: the page translates it by `code` (none: the English message as it is)."""

    def __init__(
        self, message: str, *, code: str = "", params: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.params = dict(params or {})

    @classmethod
    def said(cls, code: str, **params: Any) -> Self:
        """The error whose message is the template of `code` (`widget.texts`), filled."""
        return cls(TEXTS[code].format(**params), code=code, params=params)

    def notice(self) -> Notice:
        return {"message": str(self), "code": self.code, "params": self.params}


class HistoryError(WidgetError):
    """The messages given to `set_history` are not a valid conversation."""


class SnapshotError(WidgetError):
    """The text given to `import_snapshot` is not a valid version 1 snapshot."""


class TurnError(WidgetError):
    """A model turn failed; the message is what the person sees."""


class NoSuchMessage(WidgetError):
    """An operation named a message (by index, or a version of one) that is not there."""


__all__ = ["BUSY", "STOPPED", "HistoryError", "NoSuchMessage", "SnapshotError", "TurnError",
           "WidgetError"]  # fmt: skip
