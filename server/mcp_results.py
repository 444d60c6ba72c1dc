"""What an MCP tool's result becomes: text the model can read (an image or a resource named and
linked, never fetched; at most `RESULT_LIMIT` characters), and a UI spec its structured content
may carry for the widget to draw (`chatkeep_ui`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

#: the most text a tool's result carries to the model
RESULT_LIMIT = 64 * 1024
#: the most JSON a UI spec may be (the widget refuses more: widget/ui_spec.py)
UI_LIMIT = 64 * 1024


def ui_of(structured: object) -> dict[str, Any]:
    """`{"ui": spec}` when a result's structured content carries one (`chatkeep_ui`, an object
    of at most 64 KiB of JSON), else nothing."""
    spec = structured.get("chatkeep_ui") if isinstance(structured, dict) else None
    if not isinstance(spec, dict):
        return {}
    try:
        size = len(json.dumps(spec, ensure_ascii=False, allow_nan=False).encode())
    except ValueError:
        return {}
    return {"ui": spec} if size <= UI_LIMIT else {}


def result_text(content: Sequence[Any]) -> str:
    """What the model reads of a result: its text; an image or a resource named and linked
    (never fetched); at most `RESULT_LIMIT` characters."""
    parts = []
    for item in content:
        kind = getattr(item, "type", "")
        if kind == "text":
            parts.append(item.text)
        elif kind in ("image", "audio"):
            parts.append(f"[{kind}: {getattr(item, 'mime_type', '') or 'unknown type'}]")
        elif kind == "resource_link":
            parts.append(f"[resource: {item.name} {item.uri}]")
        elif kind == "resource":
            resource = item.resource
            text = getattr(resource, "text", None)
            parts.append(text if isinstance(text, str) else f"[resource: {resource.uri}]")
    text = "\n".join(parts)
    if len(text) > RESULT_LIMIT:
        text = text[:RESULT_LIMIT] + f"\n[cut: the result was {len(text):,} characters long]"
    return text
