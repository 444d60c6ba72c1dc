"""The operations the page may ask of the session: declared once, here.

The worker asks Python for this table at boot and hands it to the page, so the element, the
worker and Python all take the names and argument shapes from one place. Adding an
operation means a row here, a method on `widget.bridge.Bridge` named after it (`exportAll`
is `export_all`, its arguments likewise) and the UI that calls it; a test checks that the
three agree.

A shape is a JSON type (`string`, `integer`, `boolean`, `array`, `object`) or `any`; a
trailing `?` allows `null` or leaving the argument out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

OPERATIONS: dict[str, dict[str, str]] = {
    # turns
    "send": {"text": "string", "attachments": "array?"},
    "retry": {"index": "integer"},
    "edit": {"index": "integer", "text": "string"},
    "showVersion": {"index": "integer", "version": "integer"},
    "stop": {},
    "pickUp": {},
    # the live conversation
    "save": {},
    "restore": {"snapshot": "any"},
    "fork": {"index": "integer"},
    "getHistory": {},
    "setHistory": {"messages": "any"},
    "readSnapshot": {"value": "any"},
    "setModel": {"model": "string"},
    "setThinking": {"level": "string"},
    "rename": {"conversationId": "string", "title": "string"},
    # kept conversations
    "open": {"conversationId": "string"},
    "forget": {"conversationId": "string"},
    "exportAll": {},
    "importAll": {"text": "string"},
    "storageChanged": {"key": "string"},
    "search": {"query": "string"},
    # tools and lifetime
    "registerTool": {"name": "string", "description": "string?", "parameters": "object?"},
    "unregisterTool": {"name": "string"},
    "dispose": {},
}

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def snake_case(name: str) -> str:
    """`exportAll` → `export_all`: the Python name of an operation or an argument."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def check_arguments(operation: str, arguments: object) -> dict[str, Any]:
    """The arguments as Python keywords, or `TypeError` when the page sent the wrong shape.

    A wrong shape is a bug in the page's code, never a person's mistake: the caller reports
    it as one. Values a person chose (`any`) are checked by the method itself.
    """
    shapes = OPERATIONS.get(operation)
    if shapes is None:
        raise TypeError(f'there is no operation "{operation}"')
    if not isinstance(arguments, Mapping):
        raise TypeError(f"{operation}: arguments must be an object")
    unknown = set(arguments) - set(shapes)
    if unknown:
        raise TypeError(f"{operation}: unknown arguments {sorted(unknown)}")
    keywords: dict[str, Any] = {}
    for name, shape in shapes.items():
        value = arguments.get(name)
        optional = shape.endswith("?")
        kind = shape.rstrip("?")
        if value is None and (optional or kind == "any"):
            keywords[snake_case(name)] = None
            continue
        expected = _JSON_TYPES.get(kind)
        if expected is not None and (
            not isinstance(value, expected) or (kind == "integer" and isinstance(value, bool))
        ):
            raise TypeError(f"{operation}: {name} must be {kind}, not {type(value).__name__}")
        keywords[snake_case(name)] = value
    return keywords
