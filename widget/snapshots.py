"""Version 1 snapshots: a whole conversation as compact JSON, and the two ways back in.

`loads` is strict (a person imported a file and wants to know what is wrong with it);
`read_snapshot` is forgiving (data came back from storage and the widget must still start).
Neither ever executes anything it reads: JSON only, no pickle.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .errors import SnapshotError, WidgetError
from .messages import (
    MESSAGE_FIELDS,
    Message,
    attachment_size,
    copy_message,
    cut_unanswered_tool_calls,
    is_valid_text,
    validate_messages,
)
from .share_records import ShareRecord, read_shares
from .ui_messages import without_bad_ui

VERSION = 1
THINKING_LEVELS = ("off", "low", "medium", "high")
DEFAULT_MAX_SIZE_BYTES = 100 * 1024 * 1024
MAX_NESTING = 64  # a version 1 snapshot nests 6 deep; tool arguments are text
#: a string (to its closing quote, or to the end when it has none) or a bracket. Possessive
#: (`*+`): an unclosed string is consumed once, never rescanned from each quote inside it
#: (32 KB of `"\` froze the worker for 5.6 s)
_BRACKETS = re.compile(r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"?|[\[\]{}]')
_LATEST_TIME = 2**53  # the largest integer a JavaScript number holds exactly
MAX_ALLOWED_TOOLS = 64
_TOOL_NAME = re.compile(r"[\w-]{1,128}", re.ASCII)


@dataclass(frozen=True)
class Snapshot:
    """One conversation with the choices that belong to it; never instructions or tools."""

    id: str
    messages: tuple[Message, ...]
    title: str = ""
    created: int = 0
    updated: int = 0
    model: str = ""
    thinking: str = "off"
    provider: str | None = None
    #: tools allowed to run without asking in this conversation ("Allow for this conversation")
    allowed_tools: tuple[str, ...] = ()
    #: the links it is shared by (`widget.share_records`)
    shares: tuple[ShareRecord, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "version": VERSION,
            "id": self.id,
            "title": self.title,
            "created": self.created,
            "updated": self.updated,
        }
        if self.provider is not None:
            data["provider"] = self.provider
        data["model"] = self.model
        data["thinking"] = self.thinking
        data["messages"] = [copy_message(m) for m in self.messages]
        if self.allowed_tools:
            data["allowed_tools"] = list(self.allowed_tools)
        if self.shares:
            data["shares"] = [share.to_dict() for share in self.shares]
        return data

    def with_messages(self, messages: list[Message]) -> Snapshot:
        return replace(self, messages=tuple(messages))


def dumps(snapshot: Snapshot) -> str:
    """Compact JSON text; non-ASCII kept as is, so it is as short as it can be."""
    return json.dumps(snapshot.to_dict(), ensure_ascii=False, separators=(",", ":"))


def loads(text: str | bytes, *, max_size_bytes: int = DEFAULT_MAX_SIZE_BYTES) -> Snapshot:
    """Parse and check a whole snapshot, raising `SnapshotError` naming the first problem."""
    return from_dict(parse_json(text), max_size_bytes=max_size_bytes)


def parse_json(text: str | bytes | bytearray) -> object:
    """Strict JSON (no NaN or Infinity) with errors a person can act on."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SnapshotError("the snapshot is not UTF-8 text") from exc
    if not isinstance(text, str):
        raise SnapshotError("a snapshot must be JSON text")
    if nesting_depth(text) > MAX_NESTING:
        raise SnapshotError("the snapshot is nested too deeply to be a conversation")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError as exc:
        raise SnapshotError("the snapshot is nested too deeply to be a conversation") from exc
    except json.JSONDecodeError as exc:
        raise SnapshotError(
            f"the snapshot is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from exc
    except ValueError as exc:  # NaN/Infinity, or an integer too long to convert
        raise SnapshotError(f"the snapshot is not valid JSON ({exc})") from exc


def nesting_depth(text: str) -> int:
    """How deeply arrays and objects nest in JSON text, strings skipped.

    Checked before parsing because in Pyodide the parser's recursion can exhaust the
    JavaScript stack (a fatal error) before Python's own recursion limit is reached.
    """
    depth = deepest = 0
    for match in _BRACKETS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def from_dict(data: object, *, max_size_bytes: int = DEFAULT_MAX_SIZE_BYTES) -> Snapshot:
    """Check a parsed snapshot; raises `SnapshotError`."""
    if not isinstance(data, dict):
        raise SnapshotError("a snapshot must be a JSON object")
    version = data.get("version")
    if version != VERSION or isinstance(version, bool):
        raise SnapshotError(
            f"unsupported snapshot version {json.dumps(version)[:20]} (this build reads version 1)"
        )
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise SnapshotError('the snapshot has no "messages" array')
    if not messages:
        raise SnapshotError("the snapshot holds no messages")
    try:
        kept = validate_messages(messages, SnapshotError, allow_leading_system=False)
    except RecursionError as exc:
        raise SnapshotError("the snapshot is nested too deeply to be a conversation") from exc
    _check_attachment_budget(kept, max_size_bytes)
    return Snapshot(
        id=_text(data, "id", required=True),
        title=_text(data, "title"),
        created=_time(data, "created"),
        updated=_time(data, "updated"),
        model=_text(data, "model"),
        thinking=_thinking(data),
        provider=_text(data, "provider") if data.get("provider") is not None else None,
        messages=tuple(kept),
        allowed_tools=_tool_names(data),
        shares=read_shares(data),
    )


def read_snapshot(value: object) -> dict[str, Any] | None:
    """Read stored data forgivingly: a snapshot dict with a repaired ending, or `None`.

    Never raises. Unknown fields are dropped; an unsupported shape or version gives `None`.
    The ending is repaired: the conversation is cut at the first tool call without a result,
    then a failed assistant turn at the very end is dropped.
    """
    try:
        data = parse_json(value) if isinstance(value, (str, bytes, bytearray)) else value
        if isinstance(data, dict) and isinstance(data.get("messages"), list):
            data = {**data, "messages": [_known_fields(m) for m in data["messages"]]}
            # stored choices that cannot be read are dropped: tools ask again, links are
            # not listed; the conversation is kept
            for key, read in (("allowed_tools", _tool_names), ("shares", read_shares)):
                data = _without_unreadable(data, key, read)
        snapshot = from_dict(data, max_size_bytes=DEFAULT_MAX_SIZE_BYTES)
    except (WidgetError, RecursionError, TypeError, ValueError):
        return None
    messages = repair(list(snapshot.messages))
    if not messages:
        return None
    return snapshot.with_messages(messages).to_dict()


def repair(messages: list[Message]) -> list[Message]:
    """Fix the two incomplete endings providers reject or a person should not see."""
    messages = cut_unanswered_tool_calls(messages)
    if messages and messages[-1]["role"] == "assistant" and "error" in messages[-1]:
        messages = messages[:-1]
    return messages


def _without_unreadable(
    data: dict[str, Any], key: str, read: Callable[[dict[str, Any]], object]
) -> dict[str, Any]:
    """`data` without its `key` when `read` cannot read it."""
    try:
        read(data)
    except SnapshotError:
        return {name: value for name, value in data.items() if name != key}
    return data


def _known_fields(message: object) -> object:
    if not isinstance(message, dict):
        return message
    return without_bad_ui({k: v for k, v in message.items() if k in MESSAGE_FIELDS})


def _check_attachment_budget(messages: list[Message], max_size_bytes: int) -> None:
    total = sum(attachment_size(a) for m in messages for a in m.get("attachments", ()))
    if total > max_size_bytes:
        raise SnapshotError(
            f"the snapshot's attachments come to {total:,} bytes, "
            f"over the budget of {max_size_bytes:,} bytes"
        )


def _text(data: dict[str, Any], key: str, *, required: bool = False) -> str:
    value = data.get(key, None if required else "")
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value) or not is_valid_text(value):
        raise SnapshotError(f'the snapshot\'s "{key}" must be text')
    return value


def _time(data: dict[str, Any], key: str) -> int:
    value = data.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < _LATEST_TIME:
        raise SnapshotError(f'the snapshot\'s "{key}" must be a time in milliseconds')
    return value


def _thinking(data: dict[str, Any]) -> str:
    value = data.get("thinking", "off")
    if value not in THINKING_LEVELS or not isinstance(value, str):
        raise SnapshotError(
            f'the snapshot\'s "thinking" must be one of {", ".join(THINKING_LEVELS)}'
        )
    return value


def _tool_names(data: dict[str, Any]) -> tuple[str, ...]:
    names = data.get("allowed_tools", [])
    if (
        not isinstance(names, list)
        or len(names) > MAX_ALLOWED_TOOLS
        or not all(isinstance(name, str) and _TOOL_NAME.fullmatch(name) for name in names)
    ):
        raise SnapshotError(
            f'the snapshot\'s "allowed_tools" must be a list of at most {MAX_ALLOWED_TOOLS} tool '
            "names (letters, digits, _ or -)"
        )
    return tuple(dict.fromkeys(names))


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")
