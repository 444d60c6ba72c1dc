"""`present`: the built-in tool that lets the model draw a UI itself (the `present` attribute).

Its arguments are the spec itself (`v` may be left out): a flat object, as providers refuse a
schema with a top-level `oneOf`. The components are described in words for the model;
what it writes is checked as any tool's UI is, and drawn as it streams (static/ui-stream.js).
"""

from __future__ import annotations

from typing import Any

from .tools import Tool
from .ui_spec import VERSION

NAME = "present"
DESCRIPTION = (
    "Show the person a card, a table, a list or a form instead of writing it out. `text` says "
    "the same in words (shown if the UI cannot be); `root` is one component, an object whose "
    '"type" is one of: Card {title?, children?, actions?: [Button]}, Stack {children, '
    'direction?: "row"|"column"}, List {children: [ListItem {children}]}, Heading {text}, Text '
    "{text}, Markdown {text}, Badge {text}, Divider {}, Facts {items: [{label, value}]}, Table "
    '{caption, columns: [{key, label, type?: "text"|"number"|"date"}], rows: [{key: value}]}, '
    "Image {url: https, alt}, Link {label, url: https}, Button {label, action}, Form {id, "
    'children: [Field], submit: Button}, Field {name, label, kind?: "text"|"email"|"number"|'
    '"url"|"tel"|"date"|"textarea"|"select"|"checkbox"|"radio", options?, required?}. An '
    'action is {"kind": "message", "text"} (sent as the person\'s message when pressed) or '
    '{"kind": "link", "url"}. No other properties; at most 500 components, 200 table rows.'
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "v": {"type": "integer", "enum": [VERSION], "description": "The format's version."},
        "text": {"type": "string", "description": "The same, in words."},
        "root": {"type": "object", "description": "The component to show (see above)."},
    },
    "required": ["text", "root"],
}
SHOWN = "Shown to the person."


async def _present(arguments: dict[str, Any]) -> dict[str, Any]:
    text = arguments.get("text")
    spec = {"v": arguments.get("v", VERSION), "text": text, "root": arguments.get("root")}
    return {"text": SHOWN if isinstance(text, str) else "Nothing was shown.", "ui": spec}


PRESENT = Tool(NAME, DESCRIPTION, PARAMETERS, _present)
