"""The testing kit's model: queued answers, then the demo model's, and the requests recorded."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hostile import hostile_demo_bodies
from localclient import TestClient

from server import Settings, create_app
from server.scripted_model import ChatkeepModel


@pytest.fixture
def model() -> Iterator[ChatkeepModel]:
    with ChatkeepModel(delay=0) as scripted:
        yield scripted


def ask(http: TestClient, text: str, **extra: Any) -> list[dict[str, Any]]:
    body = {"model": "demo", "stream": True, "messages": [{"role": "user", "content": text}],
            **extra}  # fmt: skip
    response = http.post("/api/chat/completions", json=body)
    if response.status_code != 200:
        return [response.json()]
    lines = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    return [json.loads(line) for line in lines if line != "[DONE]"]


def said(events: list[dict[str, Any]], field: str = "content") -> str:
    return "".join(e["choices"][0]["delta"].get(field) or "" for e in events if e.get("choices"))


def test_queued_answers_in_order_then_the_demo_model(
    model: ChatkeepModel, runtime_dir: Path
) -> None:
    model.reply("The refund is on its way.")
    model.reply("Four.", reasoning="Two and two.")
    model.reply(tool_call=("get_weather", {"city": "Oslo"}))
    model.reply("The shop is closed.", status=503)
    settings = Settings(upstream=model.url, api_key=model.key, models=("demo",))
    app = create_app(settings, runtime_dir=runtime_dir)
    with TestClient(app) as http:
        assert said(ask(http, "Where is my refund?")) == "The refund is on its way."
        thinking = ask(http, "2+2?")
        assert said(thinking, "reasoning_content") == "Two and two." and said(thinking) == "Four."
        deltas = [e["choices"][0]["delta"] for e in ask(http, "Weather?") if e.get("choices")]
        first, *pieces = [delta["tool_calls"][0] for delta in deltas if delta.get("tool_calls")]
        assert first["function"] == {"name": "get_weather", "arguments": ""}  # as providers do,
        arguments = "".join(piece["function"]["arguments"] for piece in pieces)  # in pieces
        assert arguments == '{"city": "Oslo"}' and first["id"]
        [failure] = ask(http, "Are you open?")
        assert "failed" in failure["error"]["message"] or "busy" in failure["error"]["message"]
        assert said(ask(http, "My name is Bob")).startswith("Nice to meet you, Bob!")  # the demo
    assert [r["messages"][-1]["content"] for r in model.requests] == [
        "Where is my refund?", "2+2?", "Weather?", "Are you open?", "My name is Bob"]  # fmt: skip
    model.reset()
    assert model.requests == [] and model.queued == 0


def test_a_reply_without_anything_to_say_is_refused(model: ChatkeepModel) -> None:
    with pytest.raises(ValueError, match="needs a text"):
        model.reply()
    with pytest.raises(ValueError, match="400 to 599"):
        model.reply(status=200)


def test_the_model_answers_only_the_server_it_serves(model: ChatkeepModel) -> None:
    """Another local process (no key, a wrong key) gets 403: nothing of the queue, not recorded."""
    model.reply("The test's secret answer.")
    body = {"model": "demo", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}
    for headers in ({}, {"authorization": "Bearer guessed"}, {"authorization": model.key}):
        response = httpx.post(f"{model.url}/chat/completions", json=body, headers=headers)
        assert response.status_code == 403, headers
        assert "secret answer" not in response.text
    assert model.queued == 1 and model.requests == []
    own = httpx.post(f"{model.url}/chat/completions", json=body,
                     headers={"authorization": f"Bearer {model.key}"})  # fmt: skip
    assert "secret" in own.text and model.queued == 0 and len(model.requests) == 1


def test_hostile_bodies_are_answered_in_linear_time(model: ChatkeepModel) -> None:
    """A body built to make the demo's patterns backtrack is answered within 2 s."""
    for body in hostile_demo_bodies():
        started = time.perf_counter()
        response = httpx.post(f"{model.url}/chat/completions", json=body, timeout=30,
                              headers={"authorization": f"Bearer {model.key}"})  # fmt: skip
        assert response.status_code == 200
        assert time.perf_counter() - started < 2, body["messages"][-1]["content"][:40]


def test_a_title_request_never_takes_a_queued_answer(model: ChatkeepModel) -> None:
    """A test that queued two answers got its second one used as the conversation's title."""
    model.reply("First answer.")
    model.reply("Second answer.")
    headers = {"authorization": f"Bearer {model.key}"}

    def ask(messages: list[dict[str, Any]]) -> str:
        body = {"model": "demo", "stream": True, "messages": messages}
        return httpx.post(f"{model.url}/chat/completions", json=body, headers=headers).text

    assert "First" in ask([{"role": "user", "content": "Hi"}])
    title = ask([{"role": "system", "content": "Write a title for this conversation: short."},
                 {"role": "user", "content": "Hi\n\n---\n\nFirst answer."}])  # fmt: skip
    assert "Second" not in title and model.queued == 1
    assert "Second" in ask([{"role": "user", "content": "And?"}])
    assert len(model.requests) == 3  # every chat request is recorded, titles too
