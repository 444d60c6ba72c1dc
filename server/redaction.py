"""Secrets out of relayed text: the operator's keys and the client secret become `[redacted]`.

An upstream or a gateway may quote the credential it received in an error message, and any
visitor can provoke an error (the client picks the fields). Every text this server relays,
keeps or logs from an upstream passes through `Redactor` first, in every spelling a reader
would decode back to the key: as written, with JSON escapes (`\\/`, `\\u0073`) or percent-encoded
(`%2D`), any mix of them, and, in a stream, split across two events (`StreamRedaction`). The
common case, no secret and neither `%` nor a backslash in the text, costs one substring search
per secret.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from .settings import Settings

REDACTED = "[redacted]"
#: the fields of a streamed delta that carry text (a tool call's `function.arguments` too)
TEXT_FIELDS = ("content", "reasoning_content", "reasoning", "refusal")


class Redactor:
    """Replaces every configured secret in a text; the longest first, so a key that holds
    another is never half-replaced."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        found = {s for s in secrets if s}
        self.keys = tuple(sorted(found, key=len, reverse=True))
        found |= {json.dumps(s)[1:-1] for s in found}  # as quoted inside JSON text
        self.secrets = tuple(sorted(found, key=len, reverse=True))
        # Each character as written, %-encoded or JSON-escaped: one fixed-length alternation
        # per character, no quantifier, so a search is linear in the text.
        self._spelled = tuple(re.compile("".join(map(_spellings, key))) for key in self.keys)

    @classmethod
    def of(cls, settings: Settings) -> Redactor:
        keys = [settings.api_key, settings.client_secret]
        keys += [provider.api_key for provider in settings.providers]
        return cls(keys)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        if "%" in text or "\\" in text:
            for spelled in self._spelled:
                text = spelled.sub(REDACTED, text)
        return text

    def held_back(self, text: str) -> int:
        """How many characters at the end of `text` could begin a key that the next piece of
        a stream completes: they wait for it."""
        longest = 0
        for key in self.keys:
            window = text[-(len(key) - 1) :] if len(key) > 1 else ""
            start = window.find(key[0])
            while start != -1:
                if key.startswith(window[start:]):
                    longest = max(longest, len(window) - start)
                    break
                start = window.find(key[0], start + 1)
        return longest


def _spellings(char: str) -> str:
    code = ord(char)
    ways = [re.escape(char), "\\\\u" + _any_case(f"{code:04x}")]
    if code < 0x80:
        ways.append("%" + _any_case(f"{code:02x}"))
    if char == "/":
        ways.append(r"\\/")
    return "(?:" + "|".join(ways) + ")"


def _any_case(hex_digits: str) -> str:
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in hex_digits)


class StreamRedaction:
    """The text fields of one streamed answer, redacted across events: a key split between
    two deltas (`"…sk-SEC"`, `"RET…"`) is seen whole. What could begin a key waits for the next
    delta of the same field, and is sent with the last event at the latest."""

    def __init__(self, redact: Redactor) -> None:
        self.redact = redact
        self._held: dict[tuple[Any, ...], str] = {}

    def event(self, data: str, event: dict[str, Any], last: bool = False) -> str:
        """`data` (the event as JSON text, `event` parsed) as it may be sent."""
        changed = False
        for place, delta, field in _text_fields(event):
            text = self._held.pop(place, "") + delta[field]
            if not self.redact.keys:
                continue
            redacted = self.redact(text)
            keep = 0 if last else self.redact.held_back(redacted)
            if keep:
                self._held[place] = redacted[-keep:]
                redacted = redacted[:-keep]
            if redacted != delta[field]:
                delta[field], changed = redacted, True
        if last and self._held:  # (fields the last event does not have)
            changed = _put_back(event, self._held) or changed
            self._held.clear()
        if changed:
            return json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        return self.redact(data)


def _text_fields(event: dict[str, Any]) -> list[tuple[tuple[Any, ...], dict[str, Any], str]]:
    found: list[tuple[tuple[Any, ...], dict[str, Any], str]] = []
    choices = event.get("choices")
    for choice in choices if isinstance(choices, list) else ():
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if not isinstance(delta, dict):
            continue
        index = choice.get("index", 0)
        found += [((index, name), delta, name) for name in TEXT_FIELDS
                  if isinstance(delta.get(name), str)]  # fmt: skip
        calls = delta.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                found.append(((index, "tool", call.get("index", 0)), function, "arguments"))
    return found


def _put_back(event: dict[str, Any], held: dict[tuple[Any, ...], str]) -> bool:
    """Text still held at the last event goes into that event, in its own choice and field."""
    choices = event.setdefault("choices", [])
    if not isinstance(choices, list):
        return False
    for place, text in held.items():
        choice = next((c for c in choices if isinstance(c, dict)
                       and c.get("index", 0) == place[0]), None)  # fmt: skip
        if choice is None:
            choice = {"index": place[0], "delta": {}}
            choices.append(choice)
        delta = choice.setdefault("delta", {})
        if not isinstance(delta, dict):
            continue
        if place[1] == "tool":
            calls = delta.setdefault("tool_calls", [])
            calls.append({"index": place[2], "function": {"arguments": text}})
        else:
            delta[place[1]] = (delta.get(place[1]) or "") + text
    return True
