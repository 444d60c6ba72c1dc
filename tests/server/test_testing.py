"""The pytest plugin and server helper Chatkeep ships for people's own tests."""

from __future__ import annotations

import time
from importlib.metadata import entry_points

import httpx
import pytest

from server.testing import ChatkeepServer, ServerDidNotStart


def test_the_plugin_is_registered_for_pytest() -> None:
    plugins = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert plugins.get("chatkeep") == "chatkeep.testing"


def test_a_server_starts_on_a_free_port_and_stops() -> None:
    with ChatkeepServer("--model", "demo") as server:
        assert httpx.get(f"{server.url}/api/models").json()["data"][0]["id"] == "demo"
    assert server.process.poll() is not None


def test_a_server_that_cannot_start_fails_with_its_output() -> None:
    server = ChatkeepServer("--upstream", "ftp://nowhere")
    with pytest.raises(ServerDidNotStart, match="the upstream must be an http"):
        server.wait_until_up(timeout=20)


def test_two_worker_processes_serve_the_same_settings() -> None:
    with ChatkeepServer("--workers", "2", "--model", "demo", "--model", "demo-mini") as server:
        models = [m["id"] for m in httpx.get(f"{server.url}/api/models").json()["data"]]
        assert models == ["demo", "demo-mini"]
        body = {"model": "demo-mini", "messages": [{"role": "user", "content": "My name is Ann"}]}
        answer = httpx.post(f"{server.url}/api/chat/completions", json=body, timeout=30).json()
        assert "Ann" in answer["choices"][0]["message"]["content"]
        # The server answers once one worker listens; the other may still be starting.
        deadline = time.monotonic() + 30
        while server.output.count("Started server process") < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.output.count("Started server process") == 2
