"""UI specs: cards, tables and forms a tool result may carry beside its text, checked whole.

    {"v": 1, "text": FALLBACK, "root": NODE}

A spec is drawn by the widget itself (static/ui-render.js) from a fixed set of components, or
not at all: anything this build does not know or allow (an unknown component or property, a
value out of bounds, a newer `v`, a duplicate id, a `__proto__` key, a number that is not
finite, a lone surrogate, a URL of another kind) refuses the whole spec, and its `text` is
drawn instead with the note "Some content could not be shown.". The page checks every spec
again before drawing (static/ui-spec.js, the same rules); tests/widget/test_ui_specs.py holds
the two to the same verdicts over generated specs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

VERSION = 1
MAX_BYTES, MAX_DEPTH, MAX_NODES, MAX_ROWS = 64 * 1024, 8, 500, 200
MAX_COLUMNS, MAX_OPTIONS, MAX_ITEMS, MAX_ACTIONS = 20, 50, 50, 6
ICONS = ("check", "star", "info", "warning", "cart", "calendar", "clock", "pin", "link", "mail")
FIELD_KINDS = ("text", "email", "number", "url", "tel", "date", "textarea", "select",
               "checkbox", "radio")  # fmt: skip
COLUMN_TYPES = ("text", "number", "date")
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_HTTPS = re.compile(r"https://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:[/?#][!-~]*)?")
_DATA_IMAGE = re.compile(r"data:image/(?:png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+={0,2}", re.ASCII)
_SURROGATE = re.compile("[\ud800-\udfff]")


class UiSpecError(ValueError):
    """Why a spec is not drawn (for the console and the tests; the person sees the note)."""


Check = Callable[[Any, str], None]


def check_spec(spec: object) -> dict[str, Any]:
    """The spec, when every rule holds; raises `UiSpecError` naming the first that does not."""
    if not isinstance(spec, dict):
        raise UiSpecError("a spec is an object")
    _keys(spec, "spec", required={"v", "text", "root"})
    if spec["v"] != VERSION or isinstance(spec["v"], bool):
        raise UiSpecError(f"this build draws version {VERSION} specs")
    _text(spec["text"], "text", 8000)
    _values(spec, "spec", 0)
    size = len(json.dumps(spec, ensure_ascii=False, separators=(",", ":")).encode())
    if size > MAX_BYTES:
        raise UiSpecError(f"the spec is {size} bytes, more than {MAX_BYTES}")
    seen = _Seen()
    _node(spec["root"], "root", 1, seen)
    return spec


class _Seen:
    def __init__(self) -> None:
        self.nodes = 0
        self.ids: set[str] = set()


def _values(value: object, where: str, depth: int) -> None:
    """Every value of the spec: no `__proto__` key, no lone surrogate, finite numbers only."""
    if depth > 40:
        raise UiSpecError(f"{where} is nested too deeply")
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "__proto__" or _SURROGATE.search(key):
                raise UiSpecError(f"{where} has a key that is not allowed")
            _values(item, f"{where}.{key}", depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _values(item, f"{where}[{index}]", depth + 1)
    elif isinstance(value, str) and _SURROGATE.search(value):
        raise UiSpecError(f"{where} holds a lone surrogate")
    elif isinstance(value, float) and not math.isfinite(value):
        raise UiSpecError(f"{where} is not a finite number")


def _node(node: object, where: str, depth: int, seen: _Seen, only: str | None = None) -> None:
    if depth > MAX_DEPTH:
        raise UiSpecError(f"{where} is deeper than {MAX_DEPTH} levels")
    if not isinstance(node, dict) or not isinstance(node.get("type"), str):
        raise UiSpecError(f"{where} is not a component")
    kind = node["type"]
    if kind not in COMPONENTS:
        raise UiSpecError(f'{where}: there is no component "{kind[:40]}"')
    if only is not None and kind != only:
        raise UiSpecError(f"{where} must be a {only}, not a {kind}")
    seen.nodes += 1
    if seen.nodes > MAX_NODES:
        raise UiSpecError(f"the spec has more than {MAX_NODES} components")
    properties = COMPONENTS[kind]
    required = {key for key, (_, needed) in properties.items() if needed}
    _keys(node, where, required={"type", *required}, optional={"id", *properties})
    if kind == "Form" and "id" not in node:
        raise UiSpecError(f'{where} has no "id"')
    if "id" in node:
        _name(node["id"], f"{where}.id")
        if node["id"] in seen.ids:
            raise UiSpecError(f'{where}: the id "{node["id"]}" is used twice')
        seen.ids.add(node["id"])
    for key, (check, _) in properties.items():
        if key in node:
            check(node[key], f"{where}.{key}")
    child_kind = "ListItem" if kind == "List" else None
    for index, child in enumerate(_list(node.get("children", []), f"{where}.children", MAX_NODES)):
        _node(child, f"{where}.children[{index}]", depth + 1, seen, child_kind)
    actions = _list(node.get("actions", []), f"{where}.actions", MAX_ACTIONS)
    for index, action in enumerate(actions):
        _node(action, f"{where}.actions[{index}]", depth + 1, seen, "Button")
    if "submit" in node:
        _node(node["submit"], f"{where}.submit", depth + 1, seen, "Button")
    if kind == "Field":
        _field(node, where)
    if kind == "Table":
        _table(node, where)


def _field(node: Mapping[str, Any], where: str) -> None:
    kind = node.get("kind", "text")
    if kind in ("select", "radio") and not node.get("options"):
        raise UiSpecError(f"{where}: a {kind} field needs options")
    if "value" in node and (kind == "checkbox") != isinstance(node["value"], bool):
        raise UiSpecError(f"{where}.value is {'true or false' if kind == 'checkbox' else 'text'}")


def _table(node: Mapping[str, Any], where: str) -> None:
    keys = [column["key"] for column in node["columns"]]
    if len(set(keys)) != len(keys):
        raise UiSpecError(f"{where}.columns name a key twice")
    for index, row in enumerate(node["rows"]):
        extra = set(row) - set(keys)
        if extra:
            raise UiSpecError(f"{where}.rows[{index}] has a cell no column names")


def _keys(
    value: Mapping[str, Any], where: str, *, required: set[str], optional: Collection[str] = ()
) -> None:
    missing = sorted(required - set(value))
    if missing:
        raise UiSpecError(f'{where} has no "{missing[0]}"')
    unknown = sorted(set(value) - required - set(optional))
    if unknown:
        raise UiSpecError(f'{where} has a property "{unknown[0][:40]}" this build does not draw')


def _text(value: object, where: str, limit: int) -> None:
    if not isinstance(value, str) or len(value) > limit:
        raise UiSpecError(f"{where} is text of at most {limit} characters")


def _texts(limit: int) -> Check:
    return lambda value, where: _text(value, where, limit)


def _name(value: object, where: str) -> None:
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise UiSpecError(f"{where} is 1 to 64 letters, digits, _ or -")


def _one_of(choices: tuple[str, ...]) -> Check:
    def check(value: object, where: str) -> None:
        if value not in choices:
            raise UiSpecError(f"{where} is one of {', '.join(choices)}")

    return check


def _list(value: object, where: str, limit: int) -> list[Any]:
    if not isinstance(value, list) or len(value) > limit:
        raise UiSpecError(f"{where} is a list of at most {limit}")
    return value


def _https(value: object, where: str) -> None:
    if not isinstance(value, str) or len(value) > 2048 or not _HTTPS.fullmatch(value):
        raise UiSpecError(f"{where} is an https address")


def _image_url(value: object, where: str) -> None:
    if isinstance(value, str) and _DATA_IMAGE.fullmatch(value):
        return
    _https(value, where)


def _boolean(value: object, where: str) -> None:
    if not isinstance(value, bool):
        raise UiSpecError(f"{where} is true or false")


def _cell(value: object, where: str) -> None:
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return
    _text(value, where, 500)


def _items(value: object, where: str) -> None:
    for index, item in enumerate(_list(value, where, MAX_ITEMS)):
        if not isinstance(item, dict):
            raise UiSpecError(f"{where}[{index}] is an object")
        _keys(item, f"{where}[{index}]", required={"label", "value"})
        _text(item["label"], f"{where}[{index}].label", 100)
        _cell(item["value"], f"{where}[{index}].value")


def _columns(value: object, where: str) -> None:
    columns = _list(value, where, MAX_COLUMNS)
    if not columns:
        raise UiSpecError(f"{where} names at least one column")
    for index, column in enumerate(columns):
        at = f"{where}[{index}]"
        if not isinstance(column, dict):
            raise UiSpecError(f"{at} is an object")
        _keys(column, at, required={"key", "label"}, optional={"type"})
        _name(column["key"], f"{at}.key")
        _text(column["label"], f"{at}.label", 100)
        if "type" in column:
            _one_of(COLUMN_TYPES)(column["type"], f"{at}.type")


def _rows(value: object, where: str) -> None:
    for index, row in enumerate(_list(value, where, MAX_ROWS)):
        if not isinstance(row, dict):
            raise UiSpecError(f"{where}[{index}] is an object")
        for key, cell in row.items():
            _cell(cell, f"{where}[{index}].{key}")


def _options(value: object, where: str) -> None:
    for index, option in enumerate(_list(value, where, MAX_OPTIONS)):
        if isinstance(option, dict):
            _keys(option, f"{where}[{index}]", required={"value", "label"})
            _text(option["value"], f"{where}[{index}].value", 100)
            _text(option["label"], f"{where}[{index}].label", 100)
        else:
            _text(option, f"{where}[{index}]", 100)


def _value(value: object, where: str) -> None:
    if not isinstance(value, bool):
        _text(value, where, 1000)


def _action(value: object, where: str) -> None:
    if not isinstance(value, dict) or value.get("kind") not in ("message", "tool", "link"):
        raise UiSpecError(f'{where} is an action of kind "message", "tool" or "link"')
    if value["kind"] == "message":
        _keys(value, where, required={"kind", "text"})
        _text(value["text"], f"{where}.text", 2000)
    elif value["kind"] == "tool":
        _keys(value, where, required={"kind", "tool"}, optional={"args"})
        _name(value["tool"], f"{where}.tool")
        if not isinstance(value.get("args", {}), dict):
            raise UiSpecError(f"{where}.args is an object")
    else:
        _keys(value, where, required={"kind", "url"})
        _https(value["url"], f"{where}.url")


def _nested(value: object, where: str) -> None:
    """`children`, `actions`, `submit`: checked as components (`_node`), in order."""


_NESTED = _nested
#: each component's properties (besides `type` and `id`): how each is checked, and whether
#: it is required
COMPONENTS: dict[str, dict[str, tuple[Check, bool]]] = {
    "Card": {"title": (_texts(200), False), "children": (_NESTED, False),
             "actions": (_NESTED, False)},
    "List": {"children": (_NESTED, True)},
    "ListItem": {"children": (_NESTED, True)},
    "Stack": {"children": (_NESTED, True), "direction": (_one_of(("row", "column")), False)},
    "Heading": {"text": (_texts(200), True)},
    "Text": {"text": (_texts(4000), True)},
    "Markdown": {"text": (_texts(8000), True)},
    "Badge": {"text": (_texts(40), True)},
    "Icon": {"name": (_one_of(ICONS), True), "label": (_texts(100), False)},
    "Image": {"url": (_image_url, True), "alt": (_texts(300), True)},
    "Divider": {},
    "Facts": {"items": (_items, True)},
    "Table": {"caption": (_texts(200), True), "columns": (_columns, True), "rows": (_rows, True)},
    "Button": {"label": (_texts(100), True), "action": (_action, True)},
    "Form": {"children": (_NESTED, True), "submit": (_NESTED, True)},
    "Field": {"name": (_name, True), "label": (_texts(100), True),
              "kind": (_one_of(FIELD_KINDS), False), "options": (_options, False),
              "required": (_boolean, False), "value": (_value, False)},
    "Link": {"label": (_texts(100), True), "url": (_https, True)},
}  # fmt: skip
