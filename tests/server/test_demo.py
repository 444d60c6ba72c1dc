"""The built-in demo model, alone and through the proxy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from localclient import TestClient

from server import create_app
from server.demo import demo_reply

WEATHER_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def test_it_remembers_a_name_from_earlier_in_the_conversation() -> None:
    messages = [user("Hi! My name is Alice."), {"role": "assistant", "content": "Hello"},
                user("What is my name?")]  # fmt: skip
    assert demo_reply(messages).text == "Your name is Alice."
    assert demo_reply([user("What's my name?")]).text == "You have not told me your name yet."


def test_it_calls_get_weather_only_when_offered_and_quotes_the_result() -> None:
    question = [user("What's the weather in paris?")]
    reply = demo_reply(question, [WEATHER_TOOL])
    assert reply.tool_call is not None
    assert reply.tool_call["name"] == "get_weather"
    assert json.loads(reply.tool_call["arguments"]) == {"city": "Paris"}
    assert demo_reply(question).tool_call is None
    result = {
        "role": "tool",
        "tool_call_id": "c",
        "name": "get_weather",
        "content": "22°C and sunny",
    }
    assert "22°C and sunny" in demo_reply([*question, result]).text


def test_it_judges_a_stored_temperature() -> None:
    result = {
        "role": "tool",
        "tool_call_id": "c",
        "name": "get_weather",
        "content": "22°C and sunny",
    }
    assert "22°C is warm" in demo_reply([result, user("Is that warm?")]).text


@pytest.mark.parametrize(
    ("report", "judged"),
    [("22°C", "22°C is warm"), ("22 ° C", "22 ° C is warm"), ("8\tC.", "8\tC is cold"),
     ("-3 °C", "-3 °C is cold"), ("14C", "14C is mild")],
)  # fmt: skip
def test_it_reads_every_spelling_of_degrees_celsius(report: str, judged: str) -> None:
    result = {"role": "tool", "tool_call_id": "c", "name": "get_weather", "content": report}
    assert judged in demo_reply([result, user("Is that warm?")]).text


@pytest.mark.parametrize("report", ["22 Celsius", "7 CO2", "5 °F", "1" + " " * 60_000 + "x"])
def test_a_number_without_degrees_celsius_is_no_temperature(report: str) -> None:
    result = {"role": "tool", "tool_call_id": "c", "name": "get_weather", "content": report}
    assert "no temperature" in demo_reply([result, user("Is that warm?")]).text


def test_it_is_deterministic() -> None:
    messages = [user("Tell me a story")]
    assert demo_reply(messages) == demo_reply(messages)


def stream_events(http: TestClient, body: dict[str, Any]) -> list[Any]:
    with http.stream("POST", "/api/chat/completions", json=body) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in response.iter_lines() if line.startswith("data: ")]
    return [line[6:] if line == "data: [DONE]" else json.loads(line[6:]) for line in lines]


def test_the_demo_streams_through_the_proxy_in_several_chunks(runtime_dir: Path) -> None:
    body = {"model": "demo", "stream": True, "messages": [user("My name is Bob")]}
    with TestClient(create_app(runtime_dir=runtime_dir)) as http:
        events = stream_events(http, body)
    assert events[-1] == "[DONE]"
    text = "".join(
        e["choices"][0]["delta"].get("content") or "" for e in events[:-1] if e["choices"]
    )
    assert text == "Nice to meet you, Bob! I will remember your name."
    assert (
        len([e for e in events[:-1] if e["choices"] and e["choices"][0]["delta"].get("content")])
        > 3
    )


def test_asked_to_think_the_demo_streams_its_reasoning_first(runtime_dir: Path) -> None:
    body = {"model": "demo", "stream": True, "messages": [user("My name is Bob")],
            "reasoning_effort": "medium"}  # fmt: skip
    with TestClient(create_app(runtime_dir=runtime_dir)) as http:
        events = stream_events(http, body)
        plain = stream_events(http, {**body, "reasoning_effort": None})
    deltas = [e["choices"][0]["delta"] for e in events[:-1] if e["choices"]]
    thought = "".join(d.get("reasoning_content") or "" for d in deltas)
    assert thought.startswith("The person wrote “My name is Bob”. I am the demo model")
    first_thought = next(i for i, d in enumerate(deltas) if d.get("reasoning_content"))
    first_word = next(i for i, d in enumerate(deltas) if d.get("content"))
    assert first_thought < first_word
    assert not any(e["choices"][0]["delta"].get("reasoning_content")
                   for e in plain[:-1] if e["choices"])  # fmt: skip


def test_the_demo_answers_without_streaming_too(runtime_dir: Path) -> None:
    body = {
        "model": "demo",
        "messages": [user("What's the weather in Oslo?")],
        "tools": [WEATHER_TOOL],
    }
    with TestClient(create_app(runtime_dir=runtime_dir)) as http:
        completion = http.post("/api/chat/completions", json=body).json()
    choice = completion["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
