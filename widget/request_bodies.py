"""Turning a stored conversation into a Chat Completions request body.

What is stored and what is sent differ: instructions and the host page's context are
prepended but never stored, attachments become content parts, and a failed turn is sent as the
text it got to, if any.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Sequence
from typing import Any

from .messages import Message
from .tools import Tool

#: the most characters of a host page's context sent with a request (compact JSON)
PAGE_CONTEXT_LIMIT = 8_000

TITLE_INSTRUCTIONS = (
    "Write a title for this conversation: at most six words, no quotes, "
    "no final full stop. Answer with the title only."
)


def chat_request(
    messages: Sequence[Message],
    *,
    instructions: str | None,
    model: str,
    thinking: str,
    tools: Iterable[Tool] = (),
    page_context: str | None = None,
) -> dict[str, Any]:
    """The streaming request that continues `messages`; the host page's context (JSON text)
    follows the instructions as a system message of its own."""
    body: dict[str, Any] = {}
    if model:
        body["model"] = model
    prefix = [{"role": "system", "content": instructions}] if instructions else []
    if page_context:
        prefix.append({"role": "system", "content": f"Page context: {page_context}"})
    body["messages"] = prefix + [sent for m in messages if (sent := wire_message(m))]
    body["stream"] = True
    body["stream_options"] = {"include_usage": True}
    specs = [tool.spec() for tool in tools]
    if specs:
        body["tools"] = specs
    if thinking != "off":
        body["reasoning_effort"] = thinking
    return body


def title_request(messages: Sequence[Message], *, model: str) -> dict[str, Any]:
    """A small request asking the model to name the conversation from its first exchange."""
    first_user = next((m["content"] for m in messages if m["role"] == "user"), "")
    first_answer = next(
        (m["content"] for m in messages if m["role"] == "assistant" and m.get("content")), ""
    )
    body: dict[str, Any] = {"model": model} if model else {}
    body["messages"] = [
        {"role": "system", "content": TITLE_INSTRUCTIONS},
        {"role": "user", "content": f"{first_user[:2000]}\n\n---\n\n{first_answer[:2000]}"},
    ]
    body["stream"] = True
    body["max_tokens"] = 32
    return body


def wire_message(message: Message) -> Message | None:
    """One stored message as the upstream expects it, or `None` when there is nothing to send."""
    role = message["role"]
    if role == "assistant" and "error" in message:
        # An interrupted answer is sent as the text it reached; its tool calls never ran.
        return {"role": "assistant", "content": message["content"]} if message["content"] else None
    sent: Message = {"role": role, "content": message["content"]}
    if message.get("tool_calls"):
        sent["tool_calls"] = message["tool_calls"]
    if role == "tool":
        sent["tool_call_id"] = message["tool_call_id"]
        if "name" in message:
            sent["name"] = message["name"]
    if message.get("attachments"):
        sent["content"] = content_parts(message["content"] or "", message["attachments"])
    return sent


def content_parts(text: str, attachments: Sequence[Message]) -> list[dict[str, Any]]:
    """OpenAI content parts: the text, then each file as an image or as its text. A file that
    is neither is named in a text part: the server passes only text and images upstream."""
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for item in attachments:
        data_url = f"data:{item['mime']};base64,{item['data']}"
        if item["mime"].startswith("image/"):
            parts.append({"type": "image_url", "image_url": {"url": data_url}})
        elif (decoded := _as_text(item)) is not None:
            parts.append({"type": "text", "text": f"File {item['name']}:\n\n{decoded}"})
        else:
            said = f"File {item['name']}: ({item['mime']}, not text, so its content is left out)"
            parts.append({"type": "text", "text": said})
    return parts


def _as_text(item: Message) -> str | None:
    mime: str = item["mime"]
    if not (mime.startswith("text/") or mime in ("application/json", "application/xml")):
        return None
    try:
        return base64.b64decode(item["data"]).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def page_context(text: str | None) -> str | None:
    """A host page's context as it is sent: a JSON object, compact (None: none). Anything else
    is the host program's mistake, said as a `TypeError` the page's console shows."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise TypeError("pageContext is not JSON") from exc
    if not isinstance(value, dict):
        raise TypeError("pageContext must be an object, or a function that returns one")
    compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if len(compact) > PAGE_CONTEXT_LIMIT:
        raise TypeError(
            f"pageContext is {len(compact):,} characters of JSON; at most "
            f"{PAGE_CONTEXT_LIMIT:,} are sent with each message"
        )
    return compact
