"""What a chat request may carry upstream: its messages checked part by part.

The proxy forwards the client's messages to a model the operator pays for and, with a
self-hosted upstream, runs inside the operator's network: so every message must be an object
of a known role, and an image may only travel inline (a `data:` URL), never as an address the
upstream would fetch itself.
"""

from __future__ import annotations

from typing import Any

from .errors import APIError

ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
TEXT_PARTS = frozenset({"text", "input_text", "refusal"})


def checked_messages(messages: object, instructions: str = "") -> list[dict[str, Any]]:
    """The messages, each checked; the operator's `instructions` first (a system message)."""
    if not isinstance(messages, list) or not messages:
        raise APIError(400, '"messages" must be a non-empty array.', "invalid_messages")
    for number, message in enumerate(messages):
        _check(number, message)
    if instructions:
        return [{"role": "system", "content": instructions}, *messages]
    return messages


def _check(number: int, message: object) -> None:
    where = f"message {number}"
    if not isinstance(message, dict):
        raise _invalid(f"{where} is not an object.")
    if message.get("role") not in ROLES:
        raise _invalid(f"{where} has no known role (system, user, assistant or tool).")
    content = message.get("content")
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        raise _invalid(f"{where}: content must be text or an array of parts.")
    for part in content:
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            raise _invalid(f"{where}: each part of its content must be an object with a type.")
        if part["type"] == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else None
            if not isinstance(url, str) or not url.startswith("data:"):
                raise _invalid(
                    f"{where}: an image must be sent inline, as a data: URL; "
                    "this server does not pass on addresses for the model to fetch."
                )


def _invalid(message: str) -> APIError:
    return APIError(400, message, "invalid_messages")
