"""What a chat request may carry upstream: an allow-list of message keys and content parts.

The proxy forwards the client's messages to a model the operator pays for and, with a
self-hosted upstream, runs inside the operator's network. So nothing passes that is not known:
a message has only `role`, `content`, `name`, `tool_calls` and `tool_call_id`; a content part
is text or an image, and an image travels inline (a `data:` URL) or from a host the operator
allowed, never as an address the upstream would fetch inside its own network (vLLM fetches
audio and video URLs itself). The other forwarded fields are bounded in depth, and a text with
a lone surrogate (which no upstream can read as UTF-8) is refused here, as a 400, not later.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from .errors import APIError

ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
MESSAGE_KEYS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})
PART_KEYS = {"text": frozenset({"type", "text"}), "image_url": frozenset({"type", "image_url"})}
IMAGE_KEYS = frozenset({"url", "detail"})
CALL_KEYS = frozenset({"id", "type", "function"})
FUNCTION_KEYS = frozenset({"name", "arguments"})
TOOL_KEYS = frozenset({"name", "description", "parameters", "strict"})
#: deep enough for any tool's JSON Schema, far from what a parser's recursion notices
MAX_DEPTH = 32
#: a `\uD800`-`\uDFFF` escape: only then can a parsed string hold a lone surrogate
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def checked_messages(
    messages: object, instructions: str = "", image_hosts: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """The messages, each checked; the operator's `instructions` first (a system message)."""
    if not isinstance(messages, list) or not messages:
        raise APIError(400, '"messages" must be a non-empty array.', "invalid_messages")
    hosts = frozenset(image_hosts)
    for number, message in enumerate(messages):
        _check(f"message {number}", message, hosts)
    if instructions:
        return [{"role": "system", "content": instructions}, *messages]
    return messages


def check_tools(tools: object) -> None:
    """Tools as Chat Completions declares them: functions with a name and a JSON Schema."""
    if not isinstance(tools, list):
        raise APIError(400, '"tools" must be an array.', "invalid_tools")
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if (
            not isinstance(tool, dict)
            or tool.keys() - {"type", "function"}
            or tool.get("type") != "function"
            or not isinstance(function, dict)
            or function.keys() - TOOL_KEYS
            or not isinstance(function.get("name"), str)
            or not isinstance(function.get("description", ""), str)
            or not isinstance(function.get("parameters", {}), dict)
        ):
            raise APIError(
                400, 'Each tool must be {"type": "function", "function": {"name", '
                '"description", "parameters"}}.', "invalid_tools",
            )  # fmt: skip
    check_depth("tools", tools)


def check_depth(name: str, value: object) -> None:
    """Refuse a field nested deeper than any real request needs (read without recursion)."""
    level: list[object] = [value]
    for _ in range(MAX_DEPTH + 1):
        level = [
            child
            for item in level
            if isinstance(item, (dict, list))
            for child in (item.values() if isinstance(item, dict) else item)
        ]
        if not level:
            return
    raise APIError(400, f'"{name}" is nested too deeply.', "invalid_parameter")


def check_text(body: bytes, payload: dict[str, Any]) -> None:
    """Refuse a lone surrogate anywhere in the request: JSON can escape one, UTF-8 cannot
    carry it, so the upstream call would fail. Walked only when the body has such an escape."""
    if _SURROGATE_ESCAPE.search(body) is None:
        return
    pending: list[object] = [payload]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending += item.keys()
            pending += item.values()
        elif isinstance(item, list):
            pending += item
        elif isinstance(item, str) and not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise APIError(
                    400, "The request holds text that is not valid Unicode (a lone surrogate).",
                    "invalid_text",
                ) from exc  # fmt: skip


def _check(where: str, message: object, image_hosts: frozenset[str]) -> None:
    if not isinstance(message, dict):
        raise _invalid(f"{where} is not an object.")
    if unknown := message.keys() - MESSAGE_KEYS:
        raise _invalid(f"{where} has a field this server does not pass on: {_names(unknown)}.")
    if message.get("role") not in ROLES:
        raise _invalid(f"{where} has no known role (system, user, assistant or tool).")
    for key in ("name", "tool_call_id"):
        if key in message and not isinstance(message[key], str):
            raise _invalid(f'{where}: "{key}" must be text.')
    if "tool_calls" in message:
        _check_tool_calls(where, message["tool_calls"])
    content = message.get("content")
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        raise _invalid(f"{where}: content must be text or an array of parts.")
    for part in content:
        _check_part(where, part, image_hosts)


def _check_part(where: str, part: object, image_hosts: frozenset[str]) -> None:
    kind = part.get("type") if isinstance(part, dict) else None
    if not isinstance(part, dict) or not isinstance(kind, str) or kind not in PART_KEYS:
        shown = f'"{kind[:40]}" ' if isinstance(kind, str) else ""
        raise _invalid(
            f"{where}: a content part {shown}is not one this server passes on "
            "(only text and image_url)."
        )
    if unknown := part.keys() - PART_KEYS[kind]:
        raise _invalid(f"{where}: a {kind} part has a field this server does not pass on: "
                       f"{_names(unknown)}.")  # fmt: skip
    if kind == "text":
        if not isinstance(part.get("text"), str):
            raise _invalid(f'{where}: a text part must hold "text".')
        return
    image = part.get("image_url")
    url = image.get("url") if isinstance(image, dict) else None
    if not isinstance(image, dict) or image.keys() - IMAGE_KEYS or not isinstance(url, str):
        raise _invalid(f'{where}: an image part must be {{"image_url": {{"url": ...}}}}.')
    if image.get("detail", "auto") not in ("auto", "low", "high"):
        raise _invalid(f'{where}: an image\'s "detail" must be auto, low or high.')
    if not (url.startswith("data:image/") or _on_allowed_host(url, image_hosts)):
        raise _invalid(
            f"{where}: an image must be sent inline, as a data: URL of an image; "
            "this server does not pass on addresses for the model to fetch."
        )


def _check_tool_calls(where: str, calls: object) -> None:
    if not isinstance(calls, list):
        raise _invalid(f'{where}: "tool_calls" must be an array.')
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if (
            not isinstance(call, dict)
            or call.keys() - CALL_KEYS
            or not isinstance(call.get("id"), str)
            or call.get("type", "function") != "function"
            or not isinstance(function, dict)
            or function.keys() - FUNCTION_KEYS
            or not isinstance(function.get("name"), str)
            or not isinstance(function.get("arguments", ""), str)
        ):
            raise _invalid(
                f'{where}: each tool call must be {{"id", "type": "function", '
                '"function": {"name", "arguments"}}, arguments as text.'
            )


def _on_allowed_host(url: str, image_hosts: frozenset[str]) -> bool:
    if not image_hosts or not url.startswith("https://"):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.hostname in image_hosts and parts.port is None and not parts.username


def _names(keys: Iterable[str]) -> str:
    return ", ".join(sorted(f'"{str(key)[:40]}"' for key in keys)[:5])


def _invalid(message: str) -> APIError:
    return APIError(400, message, "invalid_messages")
