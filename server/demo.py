"""The built-in demo model: a deterministic, offline, OpenAI-compatible upstream.

What it says is decided here; `server.demo_wire` sends it as such a server would (plugged in as
the shared httpx client's transport, so a demo chat goes through exactly the proxy code a real
upstream does). It streams its answers in several chunks, remembers a
name it was told, calls a `get_weather` tool when one is offered, and answers a title request.
Asked to think (`reasoning_effort`), it first streams a short reasoning, as `reasoning_content`
like DeepSeek and vLLM do, so that a newcomer sees how a reasoning model's answer looks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

NAME_TOLD = re.compile(r"\bmy name is\s+([^\s.,!?;:]+(?:\s+[A-Z][^\s.,!?;:]*)*)", re.IGNORECASE)
NAME_ASKED = re.compile(r"\bwhat(?:'s| is) my name\b", re.IGNORECASE)
WEATHER_WORD = re.compile(r"\bweather\b", re.IGNORECASE)
IN_WORD = re.compile(r"\bin\s+", re.IGNORECASE)
NOT_IN_A_CITY = re.compile(r"[^\w' -]")
CITY_START = re.compile(r"[A-Za-zÀ-ÿ]")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
TITLE_REQUEST = "Write a title for this conversation"


@dataclass(frozen=True)
class Reply:
    text: str = ""
    tool_call: dict[str, Any] | None = None
    #: what the model thinks before it answers, streamed first
    reasoning: str = ""


def demo_reasoning(messages: Sequence[dict[str, Any]], effort: object) -> str:
    """A short reasoning for a thinking level: longer the harder it is asked to think."""
    if effort not in ("low", "medium", "high") or not messages:
        return ""
    question = " ".join(text_of(messages[-1]).split())[:80] or "nothing yet"
    steps = [
        f"The person wrote “{question}”.",
        "I am the demo model, so I answer by a few fixed rules: a name I was told, "
        "the weather in a city through a tool, or else I repeat what was said.",
        "Which rule fits? I will check for a name first, then for a city, and keep it short.",
    ]
    return " ".join(steps[: {"low": 1, "medium": 2, "high": 3}[effort]])


def demo_reply(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()) -> Reply:
    """What the demo model answers to a conversation (pure: the same input, the same answer)."""
    if asks_for_a_title(messages):
        return Reply(_title_for(text_of(messages[-1]) if messages else ""))
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        said = text_of(last)[:500]
        return Reply(f"Here is what {str(last.get('name') or 'the tool')[:64]} says: {said}")
    question = text_of(last).strip()
    tool_names = {t.get("function", {}).get("name") for t in tools if isinstance(t, dict)}
    if (asked := asked_city(question)) and "get_weather" in tool_names:
        city = asked.title()[:100]
        call_id = f"call_weather_{len(messages)}"
        arguments = json.dumps({"city": city})
        return Reply(tool_call={"id": call_id, "name": "get_weather", "arguments": arguments})
    if NAME_ASKED.search(question):
        name = _told_name(messages[:-1])
        return Reply(f"Your name is {name}." if name else "You have not told me your name yet.")
    if (told := NAME_TOLD.search(question)) is not None:
        return Reply(f"Nice to meet you, {told.group(1)[:100]}! I will remember your name.")
    if re.search(r"\b(warm|hot|cold|chilly)\b", question, re.IGNORECASE):
        return Reply(_judge_temperature(messages))
    if attached := _attachments(last):
        return Reply(f"I received {', '.join(attached)}. {question[:200]}".strip())
    if not question:
        return Reply("Say something and I will answer.")
    return Reply(
        "I am the Chatkeep demo model, running without a real language model. "
        f"You said: “{question[:500]}”. Tell me your name, or ask about the weather in a city."
    )


def demo_answer(body: dict[str, Any]) -> Reply:
    """The demo model's whole answer to a request body: its reply, and a reasoning first when
    the request asks it to think (never for a title)."""
    messages = body.get("messages") or []
    reply = demo_reply(messages, body.get("tools") or ())
    if asks_for_a_title(messages):
        return reply
    return Reply(
        reply.text, reply.tool_call, demo_reasoning(messages, body.get("reasoning_effort"))
    )


def asks_for_a_title(messages: Sequence[dict[str, Any]]) -> bool:
    return any(text_of(m).startswith(TITLE_REQUEST) for m in messages if m.get("role") == "system")


def _attachments(message: dict[str, Any]) -> list[str]:
    """What a user message carried besides its text, as the demo describes it."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    found = []
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "image_url":
            found.append("an image")
        elif part.get("type") == "file":
            found.append(f"the file {part.get('file', {}).get('filename', 'unnamed')}")
        elif part.get("type") == "text" and (
            match := re.match(r"File (.+?):\n", part.get("text", ""))
        ):
            found.append(f"the file {match.group(1)}")
    return found


def asked_city(question: str) -> str | None:
    """The city of "… weather … in <City>?", read in one pass over the question: a single
    regular expression for it backtracks, and a 4 KB question then took seconds."""
    weather = WEATHER_WORD.search(question)
    if weather is None:
        return None
    tail = question[weather.end() :].rstrip("?.!").rstrip()
    # The city runs to the end: it starts after the last character no city name holds.
    clean_from = max((found.end() for found in NOT_IN_A_CITY.finditer(tail)), default=0)
    for found in IN_WORD.finditer(tail):
        start = found.end()
        if start >= clean_from and start < len(tail) and CITY_START.match(tail, start):
            return tail[start:]
    return None


def _told_name(messages: Sequence[dict[str, Any]]) -> str | None:
    for message in reversed(messages):
        if message.get("role") == "user" and (match := NAME_TOLD.search(text_of(message))):
            return match.group(1)[:100]
    return None


def _judge_temperature(messages: Sequence[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "tool" and (found := _temperature(text_of(message))):
            degrees = float(found[0])
            verdict = "warm" if degrees >= 20 else "mild" if degrees >= 12 else "cold"
            return (
                f"Going by the report I have ({text_of(message)[:500]}), {found[1]} is {verdict}."
            )
    return "I have no temperature to go by yet: ask me about the weather in a city first."


def _temperature(text: str) -> tuple[str, str] | None:
    """The first "<number> °C" in a text: its number and how it was written. Numbers first,
    then the unit after each, read by hand: a pattern for the unit (`\\s*°?\\s*C`) tries
    every split of a run of spaces, so one digit and 60,000 spaces held the event loop for 6 s
    (and `re` holds the GIL: a thread does not help)."""
    for number in NUMBER.finditer(text):
        if (end := _celsius_end(text, number.end())) is not None:
            return number.group(), text[number.start() : end]
    return None


def _celsius_end(text: str, start: int) -> int | None:
    """Where " °C" that starts at `start` ends (spaces, an optional degree sign, spaces, a C
    that ends a word), or None: one look at each character."""
    at = _after_spaces(text, start)
    if text.startswith("°", at):
        at = _after_spaces(text, at + 1)
    if not text.startswith("C", at):
        return None
    after = at + 1
    if after < len(text) and (text[after].isalnum() or text[after] == "_"):
        return None  # "Celsius", "CO2": not the unit on its own
    return after


def _after_spaces(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _title_for(text: str) -> str:
    first = text.split("\n\n---\n\n")[0]
    words = re.findall(r"[\w'’-]+", first)[:5]
    title = " ".join(words)
    return title[:1].upper() + title[1:] if title else "New conversation"


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: the person's own words, not attached files
        texts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return " ".join(t for t in texts if isinstance(t, str) and not t.startswith("File "))
    return ""
