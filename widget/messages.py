"""Chat messages: validation of whole conversations and the copies the session keeps.

A conversation is a list of plain dicts in the OpenAI Chat Completions shape, plus fields of
our own: `attachments` (files sent with a user message), `error` (an assistant turn that
failed or was interrupted), on an answer `reasoning` (what the model thought before it
answered, never sent again), `reasoning_seconds`, `feedback` ("good" or "bad", a person's
rating) and `sources` (the links it cites, widget/sources.py), and on an edited user message
`versions` (the other versions:
`[{"content", "attachments"?, "after": [the messages that followed it]}]`) with `version`
(the 1-based place of the shown one among all). The list itself is always the shown branch,
so a reader that ignores `versions` reads exactly what the person sees. Validation is
all-or-nothing: it either returns a clean copy of every message or raises before anything
has been kept.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any

from .errors import WidgetError
from .sources import clean_sources
from .ui_messages import UI_FIELDS, clean_ui_fields

ROLES = ("system", "user", "assistant", "tool")
MESSAGE_FIELDS = ("role", "content", "tool_calls", "tool_call_id", "name", "attachments", "error",
                  "error_code", "error_params", "versions", "version", "reasoning",
                  "reasoning_seconds", "feedback", "sources", *UI_FIELDS)  # fmt: skip
RATINGS = ("good", "bad")

Message = dict[str, Any]


def validate_messages(
    value: object, error: type[WidgetError], *, allow_leading_system: bool = True
) -> list[Message]:
    """Check a whole conversation and return clean copies, without a leading system message.

    Raises `error` with a sentence naming the first problem; positions count from the list
    as given, a leading system message included.
    """
    if not isinstance(value, list):
        raise error("expected an array of messages")
    call_ids: set[str] = set()
    kept: list[Message] = []
    for index, raw in enumerate(value):
        if not isinstance(raw, dict):
            raise error(f"message at index {index} is not an object")
        role = raw.get("role")
        if not isinstance(role, str) or role not in ROLES:
            raise error(f'message at index {index} has unknown role "{_describe(role)}"')
        if role == "system":
            if index > 0 or not allow_leading_system:
                raise error(f"unexpected system message at index {index}")
            _check_text(raw.get("content"), index, error, nullable=False)
            continue
        message = _clean_message(raw, role, index, error)
        if role == "tool":
            call_id = message["tool_call_id"]
            if call_id not in call_ids:
                raise error(f'orphaned tool_call_id "{call_id}"')
        for call in message.get("tool_calls", ()):
            call_ids.add(call["id"])
        kept.append(message)
    return kept


def pending_tool_calls(messages: Sequence[Message]) -> list[Message]:
    """The tool calls that have no tool message answering them, oldest first."""
    answered = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
    return [
        copy_call(call)
        for message in messages
        for call in message.get("tool_calls", ())
        if call["id"] not in answered
    ]


def cut_unanswered_tool_calls(messages: list[Message]) -> list[Message]:
    """The conversation up to (not including) the first assistant turn with an unanswered call."""
    answered = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
    for index, message in enumerate(messages):
        if any(call["id"] not in answered for call in message.get("tool_calls", ())):
            return messages[:index]
    return messages


def copy_message(message: Message) -> Message:
    """A deep copy of a validated message (messages hold only dicts, lists and scalars)."""
    copied = dict(message)
    if "tool_calls" in copied:
        copied["tool_calls"] = [copy_call(call) for call in copied["tool_calls"]]
    if "attachments" in copied:
        copied["attachments"] = [dict(item) for item in copied["attachments"]]
    if "versions" in copied:
        copied["versions"] = [
            {**v, "after": [copy_message(m) for m in v["after"]]}
            | ({"attachments": [dict(a) for a in v["attachments"]]} if "attachments" in v else {})
            for v in copied["versions"]
        ]
    return copied


def copy_call(call: Message) -> Message:
    return {**call, "function": dict(call["function"])}


def attachment_size(attachment: Message) -> int:
    """Decoded size in bytes of a validated attachment, computed without decoding it."""
    data: str = attachment["data"]
    return len(data) * 3 // 4 - data.endswith("=") - data.endswith("==")


def _clean_message(raw: dict[str, Any], role: str, index: int, error: type[WidgetError]) -> Message:
    message: Message = {"role": role}
    content = raw.get("content")
    _check_text(content, index, error, nullable=role == "assistant")
    message["content"] = content
    if role == "assistant":
        if raw.get("tool_calls") is not None:
            message["tool_calls"] = _clean_tool_calls(raw["tool_calls"], index, error)
        if raw.get("error") is not None:
            message["error"] = _string_field(raw, "error", index, error)
            message |= _error_code(raw, index, error)
        _clean_answer_extras(raw, message, index, error)
    if role == "tool":
        message["tool_call_id"] = _string_field(raw, "tool_call_id", index, error, required=True)
        if raw.get("name") is not None:
            message["name"] = _string_field(raw, "name", index, error)
        clean_ui_fields(raw, message, index, error)  # a UI it carries (cards, tables, forms)
    if role == "user" and raw.get("attachments") is not None:
        message["attachments"] = _clean_attachments(raw["attachments"], index, error)
    if role == "user" and raw.get("versions") is not None:
        message["versions"] = _clean_versions(raw["versions"], index, error)
        version = raw.get("version")
        total = len(message["versions"]) + 1
        if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= total:
            raise error(f"message at index {index} has a version outside 1 to {total}")
        message["version"] = version
    return message


def _error_code(raw: dict[str, Any], index: int, error: type[WidgetError]) -> Message:
    """What the page translates a failed answer's `error` by (`widget.texts`): its code, and
    the values its sentence was filled with (text or numbers)."""
    code, params = raw.get("error_code"), raw.get("error_params", {})
    if code is None:
        return {}
    if (
        not isinstance(code, str)
        or not isinstance(params, dict)
        or not all(
            isinstance(value, (str, int, float)) and not isinstance(value, bool)
            for value in params.values()
        )
    ):
        raise error(f"message at index {index} has an error_code or error_params of the wrong kind")
    return {"error_code": code, "error_params": dict(params)}


def _clean_answer_extras(
    raw: dict[str, Any], message: Message, index: int, error: type[WidgetError]
) -> None:
    """An answer's reasoning, how long it took, and the person's rating of it."""
    if raw.get("reasoning") is not None:
        message["reasoning"] = _string_field(raw, "reasoning", index, error)
    seconds = raw.get("reasoning_seconds")
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds < 10**7:
            raise error(f'message at index {index} has an invalid "reasoning_seconds" '
                        "(expected whole seconds)")  # fmt: skip
        message["reasoning_seconds"] = seconds
    if raw.get("sources") is not None:
        message["sources"] = clean_sources(raw["sources"], index, error)
    feedback = raw.get("feedback")
    if feedback is not None:
        if feedback not in RATINGS:
            raise error(f'message at index {index} has feedback that is not "good" or "bad"')
        message["feedback"] = feedback


def _clean_versions(value: object, index: int, error: type[WidgetError]) -> list[Message]:
    if not isinstance(value, list) or not value:
        raise error(f"message at index {index} has invalid versions (expected a non-empty array)")
    versions = []
    for alternative in value:
        if not isinstance(alternative, dict):
            raise error(f"message at index {index} has a version that is not an object")
        _check_text(alternative.get("content"), index, error, nullable=False)
        kept: Message = {"content": alternative["content"]}
        if alternative.get("attachments") is not None:
            kept["attachments"] = _clean_attachments(alternative["attachments"], index, error)
        try:
            kept["after"] = validate_messages(
                alternative.get("after", []), error, allow_leading_system=False
            )
        except WidgetError as exc:
            raise error(f"message at index {index} has an invalid version: {exc}") from exc
        versions.append(kept)
    return versions


def _check_text(content: object, index: int, error: type[WidgetError], *, nullable: bool) -> None:
    if content is None and nullable:
        return
    if not isinstance(content, str):
        kind = "a string or null" if nullable else "a string"
        raise error(f"message at index {index} has content that is not {kind}")
    if not is_valid_text(content):
        raise error(f"message at index {index} has content that is not valid Unicode text")


def _string_field(
    raw: dict[str, Any], field: str, index: int, error: type[WidgetError], *, required: bool = False
) -> str:
    value = raw.get(field)
    if not isinstance(value, str) or (required and not value) or not is_valid_text(value):
        raise error(f'message at index {index} has an invalid "{field}" (expected text)')
    return value


def _clean_tool_calls(value: object, index: int, error: type[WidgetError]) -> list[Message]:
    problem = f"message at index {index} has invalid tool_calls"
    if not isinstance(value, list):
        raise error(f"{problem} (expected an array)")
    calls = []
    for call in value:
        function = call.get("function") if isinstance(call, dict) else None
        if (
            not isinstance(call, dict)
            or not _is_text(call.get("id"))
            or call.get("type", "function") != "function"
            or not isinstance(function, dict)
            or not _is_text(function.get("name"))
            or not isinstance(function.get("arguments"), str)
            or not is_valid_text(function["arguments"])
        ):
            raise error(f"{problem} (each needs an id, a function name and arguments text)")
        calls.append(
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": function["name"], "arguments": function["arguments"]},
            }
        )
    return calls


def _clean_attachments(value: object, index: int, error: type[WidgetError]) -> list[Message]:
    if not isinstance(value, list):
        raise error(f"message at index {index} has invalid attachments (expected an array)")
    attachments = []
    for item in value:
        if not isinstance(item, dict) or not all(
            _is_text(item.get(key)) for key in ("name", "mime")
        ):
            raise error(f"message at index {index} has an attachment without a name and a type")
        data = item.get("data")
        if not isinstance(data, str) or not _is_base64(data):
            raise error(
                f'attachment "{item["name"]}" of message at index {index} is not valid Base64'
            )
        attachments.append({"name": item["name"], "mime": item["mime"], "data": data})
    return attachments


def _is_base64(data: str) -> bool:
    if len(data) % 4:
        return False
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _is_text(value: object) -> bool:
    return isinstance(value, str) and bool(value) and is_valid_text(value)


def is_valid_text(text: str) -> bool:
    """False for text holding lone surrogates, which cannot be stored or sent as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _describe(value: object) -> str:
    # Never repr() a container: it may nest deeper than the stack allows.
    if isinstance(value, str):
        text = value
    elif value is None or isinstance(value, (bool, int, float)):
        text = repr(value) if not isinstance(value, int) or abs(value) < 10**20 else "a number"
    else:
        text = f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."
