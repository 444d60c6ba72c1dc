"""The operations the page may ask of the session, read from its facades themselves.

Every public async method of `widget.conversations.Conversations` (the conversations), of
`widget.sync.synced.SyncedHistory` (synced history), of `widget.tool_operations.
ToolOperations` (the page's tools) and of `widget.share_operations.ShareOperations` (shared
links) is an operation: its
name and its arguments' names in camelCase (`export_all` is `exportAll`), each argument's
shape read from its type hint. The worker hands this table to the page at boot, and the
page checks every call against it before it crosses.

A shape is a JSON type (`string`, `integer`, `boolean`, `array`, `object`) or `any`; a
trailing `?` allows `null` or leaving the argument out. Shapes are read from the hints' text
(the facades defer their annotations), not by evaluating them: evaluating took a first visit's
start 17 ms of the widget's import in Pyodide, and a hint with no shape fails the import all
the same.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any

from .conversations import Conversations
from .share_operations import ShareOperations
from .sync.synced import SyncedHistory
from .tool_operations import ToolOperations

_SHAPES = {"str": "string", "int": "integer", "bool": "boolean", "list": "array", "dict": "object",
           "object": "any"}  # fmt: skip
_OPTIONAL = "| None"


def camel_case(name: str) -> str:
    """`export_all` → `exportAll`: the page's name of an operation or an argument."""
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def snake_case(name: str) -> str:
    """`exportAll` → `export_all`: the Python name of an operation or an argument."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def methods(facade: type = Conversations) -> dict[str, Callable[..., Any]]:
    """The facade's operations by their page names, in the order the class defines them."""
    return {
        camel_case(name): method
        for name, method in vars(facade).items()
        if not name.startswith("_") and inspect.iscoroutinefunction(method)
    }


def _shape(hint: str) -> str:
    """`str | None` → `string?`, `list[Message]` → `array`: the shape an annotation's text names."""
    if hint.endswith(_OPTIONAL):
        return _shape(hint.removesuffix(_OPTIONAL).strip()) + "?"
    shape = _SHAPES.get(hint.split("[", 1)[0].strip())
    if shape is None:
        raise TypeError(f'the type hint "{hint}" has no JSON shape: use one of {sorted(_SHAPES)}')
    return shape


def table(facade: type = Conversations) -> dict[str, dict[str, str]]:
    """Operation → argument name → shape, from the signatures."""
    found = {}
    for operation, method in methods(facade).items():
        code = method.__code__
        names = code.co_varnames[1 : code.co_argcount + code.co_kwonlyargcount]
        hints = method.__annotations__
        found[operation] = {camel_case(name): _shape(hints[name]) for name in names}
    return found


_SYNCED = table(SyncedHistory)
_TOOLS = table(ToolOperations)
_SHARES = table(ShareOperations)
OPERATIONS = table(Conversations) | _SYNCED | _TOOLS | _SHARES
#: the operations `SyncedHistory` answers, and `ToolOperations` (the others, `Conversations`)
SYNC_OPERATIONS = frozenset(_SYNCED)
TOOL_OPERATIONS = frozenset(_TOOLS)
SHARE_OPERATIONS = frozenset(_SHARES)

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


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
        kind = shape.rstrip("?")
        if value is None and (shape.endswith("?") or kind == "any"):
            keywords[snake_case(name)] = None
            continue
        expected = _JSON_TYPES.get(kind)
        if expected is not None and (
            not isinstance(value, expected) or (kind == "integer" and isinstance(value, bool))
        ):
            raise TypeError(f"{operation}: {name} must be {kind}, not {type(value).__name__}")
        keywords[snake_case(name)] = value
    return keywords
