"""Request bodies built to make the demo model's patterns backtrack, each near the 1 MiB limit.

One per pattern the demo model reads a message with (names, the weather, temperatures,
attached files, titles); shared by the tests of the demo model and of the testing kit's.
"""

from __future__ import annotations

from typing import Any

SIZE = 300_000  # characters of each hostile run: ~0.9 MiB of JSON with its escapes at most


def _body(*messages: dict[str, Any]) -> dict[str, Any]:
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    return {"model": "demo", "stream": True, "messages": list(messages), "tools": tools}


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def hostile_demo_bodies() -> list[dict[str, Any]]:
    digits = {"role": "tool", "tool_call_id": "c", "name": "get_weather", "content": "1" * SIZE}
    return [
        _body(digits, _user("Is it warm?")),  # the temperature: a run of digits, no unit
        _body({**digits, "content": "1 " * (SIZE // 2)}, _user("Is it cold?")),
        # one digit, spaces and a letter: each split of the spaces tried for " °C" (6 s at 60,000)
        _body({**digits, "content": "1" + " " * SIZE + "x"}, _user("Is it warm?")),
        _body({**digits, "content": "1" + " " * 60_000 + "x"}, _user("Is it warm?")),
        _body(_user("my name is " + " " * SIZE + ".")),
        _body(_user("my name is " * (SIZE // 11))),
        _body(_user("my name is X" + " Y" * (SIZE // 2) + "!")),
        _body(_user("my name is a" + " B" * (SIZE // 2)), _user("what is my name?")),
        _body(_user("weather in " * (SIZE // 11))),
        _body(_user("weather " + "in " * (SIZE // 3) + "1")),
        _body({"role": "user", "content": [{"type": "text", "text": "File " + "x" * SIZE}]}),
        _body(
            {"role": "system", "content": "Write a title for this conversation"},
            _user("a " * (SIZE // 2)),
        ),
    ]
