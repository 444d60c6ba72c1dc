"""The second round of attacks on the server, each written as the attack: the operator's key
quoted back, addresses for the upstream to fetch, bodies built to backtrack, identities picked
by the client, lines torn at characters JSON allows, text that is not Unicode, files that are
not assets, turn ids in the log."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hostile import hostile_demo_bodies
from live import LiveServer, needs_redis, wait_until
from localclient import TestClient
from spaces import keyed
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from upstreams import KEY, SSE, Chunks, Upstream, chat, delta, make_client, sse

from server import Settings, create_app
from server.clients import ClientIdentity
from server.sync.access import HEADER
from server.testing import ChatkeepServer, RedisServer

SECRET = "client-secret-of-the-operator"


def quoting(status: int) -> Upstream:
    """An upstream that quotes the credential it received, as some gateways do."""

    async def answer(request: httpx.Request) -> httpx.Response:
        said = f"Invalid key {request.headers['authorization']} (also {KEY}) for {SECRET}"
        return httpx.Response(status, json={"error": {"message": said, "type": "x"}})

    return Upstream(answer)


@pytest.mark.parametrize("status", [400, 404, 409, 422])
def test_an_upstream_that_quotes_the_key_in_an_error_never_shows_it(
    runtime_dir: Path, status: int
) -> None:
    for stream in (True, False):
        with make_client(runtime_dir, quoting(status), client_secret=None) as http:
            response = http.post("/api/chat/completions", json=chat(stream=stream))
        assert response.status_code == 400
        assert KEY not in response.text and "[redacted]" in response.text


def test_the_client_secret_is_redacted_too(runtime_dir: Path) -> None:
    settings = Settings(upstream="https://models.example/v1", api_key=KEY, models=("gpt-a",),
                        client_secret=SECRET)  # fmt: skip
    app = create_app(settings, transport=httpx.MockTransport(quoting(422)),
                     runtime_dir=runtime_dir)  # fmt: skip
    from server import sign_client_token

    token = sign_client_token(SECRET, "alice", 60)
    with TestClient(app) as http:
        response = http.post("/api/chat/completions", json=chat(),
                             headers={"authorization": f"Bearer {token}"})  # fmt: skip
    assert SECRET not in response.text and KEY not in response.text


def test_a_key_quoted_mid_stream_or_in_an_answer_never_reaches_the_page(runtime_dir: Path) -> None:
    async def answer(request: httpx.Request) -> httpx.Response:
        error = {"error": {"message": f"upstream failed for {KEY}"}}
        return httpx.Response(200, headers=SSE, stream=Chunks(
            *sse(delta(f"the key is {KEY}"), error)))  # fmt: skip

    with make_client(runtime_dir, Upstream(answer)) as http:
        text = http.post("/api/chat/completions", json=chat(stream=True)).text
    assert KEY not in text and text.count("[redacted]") >= 2


def test_a_key_quoted_in_a_whole_answer_is_redacted(runtime_dir: Path) -> None:
    async def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"object": "chat.completion", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": f"key {KEY}"}}]})  # fmt: skip

    with make_client(runtime_dir, Upstream(answer)) as http:
        assert KEY not in http.post("/api/chat/completions", json=chat()).text


PARTS_THAT_NEVER_PASS: list[Any] = [
    {"type": "video_url", "video_url": {"url": "http://10.0.0.5/admin"}},
    {"type": "audio_url", "audio_url": {"url": "http://169.254.169.254/latest"}},
    {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
    {"type": "file", "file": {"file_id": "file-abc"}},
    {"type": "image_embeds", "image_embeds": "AAAA"},
    {"type": "text", "text": "hi", "url": "http://10.0.0.5/"},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA", "fetch": "x"}},
    {"type": "image_url", "image_url": {"url": "data:text/html,<b>"}},
    {"type": "image_url", "image_url": {"url": "https://10.0.0.5/a.png"}},
    {"type": "text", "text": ["nested"]},
    {"type": "image_url", "image_url": "data:image/png;base64,AA"},
]


@pytest.mark.parametrize("part", PARTS_THAT_NEVER_PASS)
def test_content_parts_other_than_text_and_inline_images_never_pass(
    runtime_dir: Path, part: Any
) -> None:
    upstream = Upstream()
    with make_client(runtime_dir, upstream) as http:
        response = http.post("/api/chat/completions",
                             json=chat(messages=[{"role": "user", "content": [part]}]))  # fmt: skip
    assert response.status_code == 400, part
    assert response.json()["error"]["code"] == "invalid_messages"
    assert upstream.bodies == []


@pytest.mark.parametrize("message", [
    {"role": "user", "content": "hi", "audio": {"id": "x"}},
    {"role": "user", "content": "hi", "url": "http://10.0.0.5/"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function",
     "function": {"name": "f", "arguments": {"not": "text"}}}]},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function",
     "function": {"name": "f", "arguments": "{}", "url": "http://x"}}]},
    {"role": "tool", "tool_call_id": ["a"], "content": "x"},
])  # fmt: skip
def test_unknown_keys_in_a_message_are_refused(runtime_dir: Path, message: Any) -> None:
    upstream = Upstream()
    with make_client(runtime_dir, upstream) as http:
        response = http.post("/api/chat/completions", json=chat(messages=[message]))
    assert response.status_code == 400 and upstream.bodies == []


def test_an_image_from_an_allowed_host_passes(runtime_dir: Path) -> None:
    upstream = Upstream()
    image = {"type": "image_url", "image_url": {"url": "https://img.example/cat.png"}}
    with make_client(runtime_dir, upstream, image_hosts=("img.example",)) as http:
        allowed = http.post("/api/chat/completions",
                            json=chat(messages=[{"role": "user", "content": [image]}]))  # fmt: skip
    assert allowed.status_code == 200 and len(upstream.bodies) == 1


def test_deep_nesting_is_refused_not_forwarded(runtime_dir: Path) -> None:
    deep = "[" * 9_999 + '"x"' + "]" * 9_999  # written out: json.dumps would refuse it
    upstream = Upstream()
    with make_client(runtime_dir, upstream) as http:
        for template in (
            chat(messages=[{"role": "user", "content": [{"type": "text", "text": "DEEP"}]}]),
            chat(response_format={"type": "json_schema", "json_schema": "DEEP"}),
            chat(
                tools=[
                    {
                        "type": "function",
                        "function": {"name": "f", "parameters": {"properties": "DEEP"}},
                    }
                ]
            ),
        ):
            text = json.dumps(template).replace('"DEEP"', deep)
            response = http.post("/api/chat/completions", content=text,
                                 headers={"content-type": "application/json"})  # fmt: skip
            assert response.status_code == 400
    assert upstream.bodies == []


SURROGATES = [
    '{"model": "gpt-a", "messages": [{"role": "user", "content": "\\ud800"}]}',
    '{"model": "gpt-a", "messages": [{"role": "user", "content": [{"type": "text", '
    '"text": "\\udfff"}]}]}',
    '{"model": "\\ud800", "messages": [{"role": "user", "content": "hi"}]}',
    '{"model": "gpt-a", "user": "\\udc00", "messages": [{"role": "user", "content": "hi"}]}',
    '{"model": "gpt-a", "messages": [{"role": "user", "\\ud800": 1, "content": "hi"}]}',
    '{"model": "gpt-a", "messages": [{"role": "tool", "tool_call_id": "\\ud800", "content": ""}]}',
    '{"model": "gpt-a", "stop": ["\\ud800"], "messages": [{"role": "user", "content": "hi"}]}',
    '{"model": "gpt-a", "messages": [{"role": "user", "content": [{"type": "\\ud800"}]}]}',
    '{"model": "gpt-a", "tools": [{"type": "function", "function": {"name": "\\ud800"}}], '
    '"messages": [{"role": "user", "content": "hi"}]}',
]


@pytest.mark.parametrize("body", SURROGATES)
def test_a_lone_surrogate_anywhere_is_a_400_not_a_500(runtime_dir: Path, body: str) -> None:
    upstream = Upstream()
    settings = Settings(upstream="https://models.example/v1", models=("gpt-a",))
    app = create_app(settings, transport=httpx.MockTransport(upstream), runtime_dir=runtime_dir)
    with TestClient(app, raise_server_exceptions=False) as http:
        for stream in (False, True):
            sent = body.replace('{"model"', f'{{"stream": {json.dumps(stream)}, "model"', 1)
            response = http.post("/api/chat/completions", content=sent,
                                 headers={"content-type": "application/json"})  # fmt: skip
            assert response.status_code == 400, response.text
        encoded = http.post(
            "/api/chat/completions",
            headers={"content-type": "application/json"},
            content=b'{"messages": [{"role": "user", "content": "\xed\xa0\x80"}]}',
        )
        assert encoded.status_code == 400  # the surrogate UTF-8-encoded, not escaped
    assert upstream.bodies == []


def test_odd_part_shapes_never_reach_the_demo_model(runtime_dir: Path) -> None:
    """Each of these was a 500 with a traceback from the demo model."""
    odd: list[Any] = [
        [{"type": "file", "file": "x"}],
        [{"type": "text", "text": 5}],
        [{"type": "image_url"}],
        [{"type": "text"}],
    ]
    app = create_app(Settings(), runtime_dir=runtime_dir)
    with TestClient(app, raise_server_exceptions=False) as http:
        for content in odd:
            response = http.post("/api/chat/completions", json={
                "messages": [{"role": "user", "content": content}]})  # fmt: skip
            assert response.status_code == 400, content
        tools = http.post(
            "/api/chat/completions",
            json={
                "tools": [{"type": "function", "function": "get_weather"}],
                "messages": [{"role": "user", "content": "hi"}],
            },
        )
        assert tools.status_code == 400  # fmt: skip


def test_raw_line_separators_inside_json_do_not_cut_the_answer(runtime_dir: Path) -> None:
    """vLLM, llama.cpp and Node servers send U+2028, U+2029 and U+0085 raw in JSON strings."""
    text = "one\u2028two\u2029three\u0085four"
    event = json.dumps(delta(text, "stop"), ensure_ascii=False)

    async def answer(request: httpx.Request) -> httpx.Response:
        raw = f"data: {event}\r\n\r\n".encode()
        return httpx.Response(200, headers=SSE, stream=Chunks(raw[:20], raw[20:-1], raw[-1:],
                                                              b"data: [DONE]\r\r"))  # fmt: skip

    with make_client(runtime_dir, Upstream(answer)) as http:
        body = http.post("/api/chat/completions", json=chat(stream=True)).text
    events = [json.loads(line[6:]) for line in body.split("\n") if line.startswith("data: {")]
    assert [e["choices"][0]["delta"]["content"] for e in events] == [text]
    assert "cannot read" not in body and body.rstrip().endswith("[DONE]")


def test_the_demo_model_answers_hostile_bodies_while_others_are_served(
    runtime_dir: Path,
) -> None:
    """Each body is answered within 2 s, and /healthz within 0.5 s all along. (A page that
    leaves keeps its answer running for its return: no cap on answers in flight here.)"""
    app = create_app(Settings(rate_limit=0, client_streams=0), runtime_dir=runtime_dir)
    slowest = 0.0
    with LiveServer(app) as server:
        done = threading.Event()

        def probe() -> None:
            nonlocal slowest
            while not done.is_set():
                started = time.perf_counter()
                httpx.get(f"{server.url}/healthz", timeout=10)
                slowest = max(slowest, time.perf_counter() - started)
                time.sleep(0.02)

        prober = threading.Thread(target=probe)
        prober.start()
        try:
            for body in hostile_demo_bodies():
                started = time.perf_counter()
                with httpx.stream("POST", f"{server.url}/api/chat/completions", json=body,
                                  timeout=30) as response:  # fmt: skip
                    assert response.status_code == 200
                    next(response.iter_lines())  # the answer has begun
                took = time.perf_counter() - started
                assert took < 2, (body["messages"][-1]["content"][:40], took)
        finally:
            done.set()
            prober.join()
    assert slowest < 0.5


def _identity(trusted: tuple[str, ...], peer: str, *lines: str) -> str:
    scope = {"type": "http", "client": (peer, 1), "headers": [
        (b"x-forwarded-for", line.encode()) for line in lines]}  # fmt: skip
    return ClientIdentity(trusted, None).of(Request(scope))


def test_a_second_forwarded_line_cannot_pick_the_client() -> None:
    """A proxy that adds its own line: the client's own line came first and was believed."""
    proxy = ("10.0.0.1",)
    assert _identity(proxy, "10.0.0.1", "1.2.3.4", "203.0.113.9") == "address:203.0.113.9"
    picked = {_identity(proxy, "10.0.0.1", f"9.9.9.{n}", "203.0.113.9") for n in range(10)}
    assert picked == {"address:203.0.113.9"}


def test_ipv6_clients_count_by_their_64() -> None:
    addresses = {_identity((), f"2001:db8:1:2::{n:x}") for n in range(10)}
    assert addresses == {"address:2001:db8:1:2::/64"}
    assert _identity((), "2001:db8:1:3::1") != _identity((), "2001:db8:1:2::1")
    assert _identity((), "::ffff:192.0.2.7") == "address:192.0.2.7"


def test_trusting_every_hop_names_the_left_most_address() -> None:
    """`*` made every client the proxy's own address: one person used up everyone's limit."""
    assert _identity(("*",), "10.0.0.1", "198.51.100.7, 10.0.0.2") == "address:198.51.100.7"
    assert _identity(("*",), "10.0.0.1", "198.51.100.8", "10.0.0.2") == "address:198.51.100.8"
    assert _identity(("*",), "10.0.0.1") == "address:10.0.0.1"


def test_with_a_rate_limit_picked_identities_no_longer_pass(runtime_dir: Path) -> None:
    settings = Settings(rate_limit=3, forwarded_allow_ips=("127.0.0.1",))
    app = create_app(settings, runtime_dir=runtime_dir)
    with TestClient(app) as http:
        statuses = [
            http.post(
                "/api/chat/completions",
                json={"messages": [{"role": "user", "content": "hi"}]},
                headers=[("x-forwarded-for", f"9.9.9.{n}"), ("x-forwarded-for", "203.0.113.9")],
            ).status_code
            for n in range(10)
        ]
    assert statuses.count(200) == 3 and statuses.count(429) == 7


@pytest.mark.parametrize("path", [
    "/static/node_modules/pyodide/package.json", "/static/node_modules/katex/README.md",
    "/static/package.json", "/static/package-lock.json", "/static/tsconfig.json",
    "/static/runtime/.stamp", "/static/i18n/../package.json", "/static/.gitignore",
])  # fmt: skip
def test_only_built_assets_are_served(runtime_dir: Path, path: str) -> None:
    (runtime_dir / ".stamp").write_text("")
    app = create_app(Settings(), runtime_dir=runtime_dir)
    with TestClient(app) as http:
        assert http.get(path).status_code == 404
        for served in (
            "/static/chat-widget.js",
            "/static/i18n/de.js",
            "/static/chat-widget.css",
            "/static/chat-widget.d.ts",
            "/static/runtime/pyodide/widget_python.zip",
        ):
            assert http.get(served).status_code == 200, served


def _quoting_stream_app() -> Starlette:
    """An upstream that starts an answer, then fails quoting the key it received."""

    async def completions(request: Request) -> Response:
        said = f"overloaded, key {request.headers.get('authorization')}"

        async def events() -> AsyncIterator[bytes]:
            yield b'data: {"choices": [{"index": 0, "delta": {"content": "Hello"}}]}\n\n'
            yield f"data: {json.dumps({'error': {'message': said}})}\n\n".encode()

        return StreamingResponse(events(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


@needs_redis
def test_a_kept_turn_never_holds_the_key(redis: RedisServer) -> None:
    with LiveServer(_quoting_stream_app()) as upstream, ChatkeepServer(
        "--upstream", f"{upstream.url}/v1", "--model", "m", "--redis-url", redis.url,
        env={"CHATKEEP_API_KEY": KEY},
    ) as server:  # fmt: skip
        answer = httpx.post(f"{server.url}/api/chat/completions", json=chat(model="m",
                            stream=True), timeout=30)  # fmt: skip
        turn = answer.headers["x-chatkeep-turn"]
        kept = httpx.get(f"{server.url}/api/chat/turns/{turn}?after=0", timeout=30).text
        stored = subprocess.run(["redis-cli", "-p", str(redis.port), "xrange",
                                 f"chatkeep:turn:{turn}", "-", "+"],
                                capture_output=True, text=True).stdout  # fmt: skip
    assert "Hello" in answer.text and "Hello" in kept and "Hello" in stored
    for text in (answer.text, kept, stored, server.output):
        assert KEY not in text


@needs_redis
def test_the_access_log_never_shows_a_turn_id(redis: RedisServer) -> None:
    with ChatkeepServer("--redis-url", redis.url) as server:
        answer = httpx.post(f"{server.url}/api/chat/completions", json=chat(model="demo",
                            stream=True), timeout=30)  # fmt: skip
        turn = answer.headers["x-chatkeep-turn"]
        httpx.get(f"{server.url}/api/chat/turns/{turn}?after=2", timeout=30)
        httpx.delete(f"{server.url}/api/chat/turns/{turn}", timeout=30)
        wait_until(lambda: server.output.count("/api/chat/turns/") >= 2, 5)
    assert server.output.count("/api/chat/turns/[turn]") == 2
    assert turn not in server.output


def test_the_logs_never_show_a_sync_space(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A space id reads and deletes a person's (encrypted) synced items: like a turn id, it
    stays out of both logs."""
    space, token = keyed("person")
    store = f"sqlite:///{tmp_path / 'sync.db'}"
    with ChatkeepServer("--sync-store", store) as server:
        httpx.put(f"{server.url}/api/sync/{space}/item1", content=b"x",
                  headers={"if-none-match": "*", **token}, timeout=30)  # fmt: skip
        httpx.get(f"{server.url}/api/sync/{space}?since=0", headers=token, timeout=30)
        wait_until(lambda: server.output.count("/api/sync/") >= 2, 5)
    assert server.output.count("/api/sync/[space]") == 2
    assert space not in server.output
    app = create_app(Settings(log_format="json", sync_store=store))
    with TestClient(app, headers=token) as http:
        http.get(f"/api/sync/{space}?since=0")
    lines = capsys.readouterr().out
    assert '"path":"/api/sync/[space]"' in lines and space not in lines
    assert token[HEADER] not in lines and token[HEADER] not in server.output
