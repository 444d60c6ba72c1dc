"""The widget's configuration, as the page's controller sends it to the worker at boot."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

HISTORY_MODES = ("local", "memory", "off", "host")
#: the defaults of the element's attributes, as `static/settings.js` has them (a test checks)
DEFAULT_HISTORY, DEFAULT_PREFIX, DEFAULT_MAX_CONVERSATIONS = "memory", "chatkeep", 20


@dataclass(frozen=True)
class WidgetConfig:
    """What the element's attributes say (`static/client.js` reads them, `configFrom`)."""

    #: `local` (the page's localStorage), `memory`, `off`, or `host` (`element.historyStore`)
    history: str = DEFAULT_HISTORY
    prefix: str = DEFAULT_PREFIX
    max_conversations: int = DEFAULT_MAX_CONVERSATIONS
    generate_title: bool = False
    instructions: str | None = None
    #: the model id to start with; the server's default when it is not offered
    model: str | None = None
    #: the host's start-up snapshot, read tolerantly at start
    snapshot: object = None
    #: what the server offers, `[{"id", "provider"?}]`, the first its default
    models: list[dict[str, Any]] = field(default_factory=list)
    #: tool calls run per answer, as the server says (`/api/models`); the rest are not run
    max_tool_calls: int = 16
    #: synced history: the element asks for it (`sync`), history is `local`, and the server
    #: keeps it (`/api/models`)
    sync: bool = False
    #: the `present` attribute: the model may draw a UI itself (`widget.ui_present`)
    present: bool = False

    @classmethod
    def from_json(cls, text: str) -> WidgetConfig:
        options = json.loads(text)
        history = options.get("history")
        models = options.get("models")
        return cls(
            history=history if history in HISTORY_MODES else DEFAULT_HISTORY,
            prefix=str(options.get("prefix") or DEFAULT_PREFIX),
            max_conversations=max(
                1, int(options.get("maxConversations") or DEFAULT_MAX_CONVERSATIONS)
            ),
            generate_title=bool(options.get("generateTitle")),
            instructions=_text(options.get("instructions")),
            model=_text(options.get("model")),
            snapshot=options.get("snapshot"),
            models=[m for m in models if isinstance(m, dict)] if isinstance(models, list) else [],
            max_tool_calls=_count(options.get("maxToolCalls"), 16),
            sync=options.get("sync") is True
            and options.get("syncOffered") is True
            and history == "local",
            present=options.get("present") is True,
        )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _count(value: object, default: int) -> int:
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default
    )
