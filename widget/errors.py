"""The errors the widget raises, one base class for all of them.

WidgetError (ValueError)
 ├── HistoryError    a message list that `Session.set_history` cannot accept
 ├── SnapshotError   snapshot text that `Session.import_snapshot` cannot accept
 ├── TurnError       a model turn that could not complete (upstream failure, stop, busy)
 └── NoSuchMessage   an index (or a version) that names no message to act on
"""

from .protocol import BUSY, STOPPED


class WidgetError(ValueError):
    """Base class: every error the widget raises on bad input is one of these."""


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
