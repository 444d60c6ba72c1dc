"""The testing kit's model: queued answers, then the demo model's, and the requests recorded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
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
    app = create_app(Settings(upstream=model.url, models=("demo",)), runtime_dir=runtime_dir)
    with TestClient(app) as http:
        assert said(ask(http, "Where is my refund?")) == "The refund is on its way."
        thinking = ask(http, "2+2?")
        assert said(thinking, "reasoning_content") == "Two and two." and said(thinking) == "Four."
        [call] = [e for e in ask(http, "Weather?") if e.get("choices")
                  and e["choices"][0]["delta"].get("tool_calls")]  # fmt: skip
        function = call["choices"][0]["delta"]["tool_calls"][0]["function"]
        assert function == {"name": "get_weather", "arguments": '{"city": "Oslo"}'}
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
