"""A tool result that carries a UI, as its message keeps it.

    {"role": "tool", ..., "content": TEXT, "ui": SPEC, "ui_state": {FORM_ID: {NAME: VALUE}}}
    {"role": "tool", ..., "content": TEXT, "ui_fallback": TEXT}

`content` is what the model reads (the tool's text); `ui` a spec that passed `check_spec`,
drawn by the page; `ui_state` what the person sent with each of its forms (drawn again,
read-only, after a reload); `ui_fallback` the text drawn with the note "Some content could not
be shown." when the tool's spec was refused (its `text`, else the tool's own).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from typing import Any

from .errors import WidgetError
from .ui_spec import MAX_BYTES, UiSpecError, check_spec

UI_FIELDS = ("ui", "ui_fallback", "ui_state")
MAX_FORMS, MAX_VALUES = 20, 50


def tool_output(output: object) -> dict[str, Any]:
    """A tool's result as message fields: a string is the text; `{"text", "ui"}` is text with a
    spec, checked here (refused whole: its fallback is kept instead)."""
    if (
        not isinstance(output, dict)
        or set(output) != {"text", "ui"}
        or not _is_text(output["text"])
    ):
        return {"content": output if isinstance(output, str) else json.dumps(output)}
    text, spec = output["text"], output["ui"]
    try:
        return {"content": text, "ui": check_spec(spec)}
    except UiSpecError as exc:  # told in the console (Pyodide's stderr), for the tool's author
        print(f"Chatkeep: a tool's UI was not drawn: {exc}.", file=sys.stderr)
        fallback = spec.get("text") if isinstance(spec, dict) else None
        return {"content": text, "ui_fallback": fallback if _is_text(fallback) else text}


def clean_ui_fields(
    raw: dict[str, Any], message: dict[str, Any], index: int, error: type[WidgetError]
) -> None:
    """A stored tool message's UI, checked as strictly as when the tool answered."""
    if raw.get("ui") is not None:
        try:
            message["ui"] = check_spec(raw["ui"])
        except UiSpecError as exc:
            raise error(f"message at index {index} has a UI that cannot be drawn ({exc})") from exc
    if raw.get("ui_fallback") is not None:
        if not _is_text(raw["ui_fallback"]):
            raise error(f"message at index {index} has a ui_fallback that is not text")
        message["ui_fallback"] = raw["ui_fallback"]
    if raw.get("ui_state") is not None:
        message["ui_state"] = clean_state(raw["ui_state"], index, error)


def clean_state(value: object, index: int, error: type[WidgetError]) -> dict[str, Any]:
    """What was sent with each form: form id → field name → text or true/false."""
    wrong = f"message at index {index} has a ui_state that is not what its forms sent"
    if not isinstance(value, dict) or len(value) > MAX_FORMS:
        raise error(wrong)
    for form, values in value.items():
        if not isinstance(values, dict) or len(values) > MAX_VALUES or len(form) > 64:
            raise error(wrong)
        for name, sent in values.items():
            if len(name) > 64 or not (isinstance(sent, bool) or _is_text(sent, 1000)):
                raise error(wrong)
    if len(json.dumps(value)) > MAX_BYTES:
        raise error(wrong)
    return {form: dict(values) for form, values in value.items()}


def without_bad_ui(message: dict[str, Any]) -> dict[str, Any]:
    """Stored data read forgivingly: a UI that cannot be drawn is left out, the message kept."""
    kept = dict(message)
    try:
        clean_ui_fields(message, {}, 0, WidgetError)
    except WidgetError:
        for field in UI_FIELDS:
            kept.pop(field, None)
    return kept


def _is_text(value: object, limit: int = 8000) -> bool:
    return isinstance(value, str) and len(value) <= limit


def components(node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """`node` and every component inside it, in order (of a spec that passed `check_spec`)."""
    yield node
    for child in [*node.get("children", []), *node.get("actions", [])]:
        yield from components(child)
    if "submit" in node:
        yield from components(node["submit"])


def form_fields(spec: Mapping[str, Any], form_id: str) -> dict[str, str] | None:
    """The fields of the form `form_id` (name → kind), or None when the spec has no such form."""
    for node in components(spec["root"]):
        if node["type"] == "Form" and node["id"] == form_id:
            fields = (n for n in components(node) if n["type"] == "Field")
            return {field["name"]: field.get("kind", "text") for field in fields}
    return None
