"""The proxy over real HTTP against a fake upstream that is a real server too."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator

import httpx
import openai
import pytest
from live import FakeUpstream, LiveServer

from server import Settings, create_app

KEY = "sk-live-SECRET-4242"


@pytest.fixture
def upstream() -> Iterator[tuple[FakeUpstream, str]]:
    fake = FakeUpstream()
    with LiveServer(fake.app()) as server:
        yield fake, f"{server.url}/v1"


def proxy(upstream_url: str, **overrides: object) -> LiveServer:
    settings = Settings(upstream=upstream_url, api_key=KEY, models=("gpt-live",), **overrides)  # type: ignore[arg-type]
    return LiveServer(create_app(settings))


def wait_for(condition: object, timeout: float = 2.0) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if callable(condition) and condition():
            return time.monotonic() - start
        time.sleep(0.01)
    raise AssertionError("the condition did not hold in time")


def chat(**fields: object) -> dict[str, object]:
    return {"model": "gpt-live", "messages": [{"role": "user", "content": "hi"}], **fields}


def test_streamed_answers_read_to_the_end_share_one_upstream_connection(
    upstream: tuple[FakeUpstream, str],
) -> None:
    """Closed half-read after `[DONE]`, every answer opened a new connection: +1 ms or more
    to the first token of each (measured in `make bench`)."""
    fake, url = upstream
    with proxy(url) as server, httpx.Client(base_url=server.url) as client:
        for _ in range(3):
            with client.stream("POST", "/api/chat/completions", json=chat(stream=True)) as answer:
                assert answer.read().decode().rstrip().endswith("data: [DONE]")
    assert len(fake.received) == 3
    assert len({request.connection for request in fake.received}) == 1


def test_the_official_openai_client_streams_and_not(upstream: tuple[FakeUpstream, str]) -> None:
    fake, url = upstream
    with proxy(url) as server:
        client = openai.OpenAI(base_url=f"{server.url}/api", api_key="anything", max_retries=0)
        whole = client.chat.completions.create(
            model="gpt-live", messages=[{"role": "user", "content": "hi"}]
        )
        assert whole.choices[0].message.content == "Hello there"
        stream = client.chat.completions.create(
            model="gpt-live", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
        assert text == "Hello 0 1 2"
        models = [m.id for m in client.models.list()]
        assert models == ["gpt-live"]
        with pytest.raises(openai.BadRequestError, match="not available here"):
            client.chat.completions.create(
                model="gpt-other", messages=[{"role": "user", "content": "x"}]
            )
    # the user's "anything" key never reached the upstream: the server's did
    assert {r.headers["authorization"] for r in fake.received} == {f"Bearer {KEY}"}


def test_the_client_cannot_steer_the_upstream(upstream: tuple[FakeUpstream, str]) -> None:
    fake, url = upstream
    with proxy(url) as server:
        response = httpx.post(
            f"{server.url}/api/chat/completions?api_base=http://evil.example",
            json=chat(api_base="http://evil.example", base_url="http://evil.example",
                      headers={"X-Base-Url": "http://evil.example"}, extra_body={"x": 1}),
            headers={"X-Base-Url": "http://evil.example", "Authorization": "Bearer user",
                     "X-Forwarded-Host": "evil.example"},
        )  # fmt: skip
    assert response.status_code == 200
    [received] = fake.received
    assert received.path == "/v1/chat/completions" and received.query == ""
    assert set(received.body) == {"model", "messages", "stream", "max_tokens"}  # capped
    assert received.headers["authorization"] == f"Bearer {KEY}"
    assert "x-base-url" not in received.headers and "x-forwarded-host" not in received.headers


def test_a_client_leaving_mid_stream_leaves_its_answer_kept_until_it_stops_it(
    upstream: tuple[FakeUpstream, str],
) -> None:
    """A page that went away mid-answer (a locked phone) may come back for the rest: the answer
    runs on, without Redis too; "Stop" (DELETE of its turn) closes the upstream within a second."""
    fake, url = upstream
    fake.mode = "slow_stream"
    with proxy(url) as server, httpx.Client() as client:
        with client.stream(
            "POST", f"{server.url}/api/chat/completions", json=chat(stream=True)
        ) as r:
            turn = r.headers["x-chatkeep-turn"]
            lines = r.iter_lines()
            assert next(lines).startswith("id: ")
        with client.stream("GET", f"{server.url}/api/chat/turns/{turn}?after=1") as again:
            assert next(again.iter_lines()).startswith("id: 2")  # it ran on, from where it was
        assert fake.received[0].ended is None
        stopped = time.monotonic()
        assert client.delete(f"{server.url}/api/chat/turns/{turn}").status_code == 204
        wait_for(lambda: fake.received[0].ended is not None)
        ended = fake.received[0].ended
        assert ended is not None and ended - stopped < 1.0
        assert fake.received[0].client_left and len(fake.received) == 1


def test_a_client_leaving_before_the_first_byte_closes_the_upstream(
    upstream: tuple[FakeUpstream, str],
) -> None:
    fake, url = upstream
    fake.mode = "slow_start"
    with proxy(url) as server:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{server.url}/api/chat/completions", json=chat(stream=True), timeout=0.5)
        left = time.monotonic()
        wait_for(lambda: bool(fake.received) and fake.received[0].ended is not None)
        ended = fake.received[0].ended
        assert ended is not None and ended - left < 1.0
        assert fake.received[0].client_left


def test_a_slow_upstream_times_out_with_504(upstream: tuple[FakeUpstream, str]) -> None:
    fake, url = upstream
    fake.mode = "slow_start"
    with proxy(url, upstream_timeout=0.3) as server:
        response = httpx.post(
            f"{server.url}/api/chat/completions", json=chat(stream=True), timeout=5
        )
    assert response.status_code == 504
    assert response.json()["error"]["code"] == "upstream_timeout"


@pytest.mark.parametrize(
    ("mode", "message"), [("drop", "broke off"), ("error_event", "overloaded")]
)
def test_failures_mid_stream_end_with_one_error_event(
    upstream: tuple[FakeUpstream, str], mode: str, message: str
) -> None:
    fake, url = upstream
    fake.mode = mode
    with (
        proxy(url) as server,
        httpx.stream("POST", f"{server.url}/api/chat/completions", json=chat(stream=True)) as r,
    ):
        lines = [line for line in r.iter_lines() if line.startswith("data: ")]
    assert "comment" not in "".join(lines)
    assert json.loads(lines[0][6:])["choices"][0]["delta"]["content"] == "Hello"
    error = json.loads(lines[-1][6:])["error"]
    assert message in error["message"] and len([x for x in lines if "error" in x]) == 1


def test_an_unreachable_upstream_is_a_502_that_names_no_secret() -> None:
    with proxy("http://127.0.0.1:9/v1") as server:
        response = httpx.post(f"{server.url}/api/chat/completions", json=chat())
    assert response.status_code == 502
    assert "could not be reached" in response.json()["error"]["message"]
    assert KEY not in response.text and "127.0.0.1:9" not in response.text


@pytest.mark.parametrize(("status", "ours"), [(401, 502), (500, 502), (429, 429), (400, 400)])
def test_upstream_statuses_are_mapped(
    upstream: tuple[FakeUpstream, str], status: int, ours: int
) -> None:
    fake, url = upstream
    fake.mode, fake.status = "status", status
    with proxy(url) as server:
        response = httpx.post(f"{server.url}/api/chat/completions", json=chat())
    assert response.status_code == ours
    assert set(response.json()["error"]) <= {"message", "type", "code", "params"}


def test_one_client_cannot_hold_every_answer_at_once(upstream: tuple[FakeUpstream, str]) -> None:
    """The attack: open answers and never leave, until the upstream pool is full and everyone
    else waits. Each client has `--client-streams` answers in flight at most."""
    fake, url = upstream
    fake.mode = "slow_stream"
    with (
        proxy(url, client_streams=2, rate_limit=0) as server,
        httpx.Client() as http,
        contextlib.ExitStack() as streams,
    ):
        endpoint = f"{server.url}/api/chat/completions"
        first = streams.enter_context(http.stream("POST", endpoint, json=chat(stream=True)))
        second = streams.enter_context(http.stream("POST", endpoint, json=chat(stream=True)))
        third = http.post(endpoint, json=chat(stream=True))
        assert (first.status_code, second.status_code) == (200, 200)
        assert third.status_code == 429 and third.headers["retry-after"] == "1"
        assert third.json()["error"]["code"] == "too_many_streams"
        # One answer ends (leaving is not enough: it runs on for the page's return), and its
        # slot is free again.
        assert http.delete(f"{server.url}/api/chat/turns/{first.headers['x-chatkeep-turn']}")\
            .status_code == 204  # fmt: skip
        first.close()
        wait_for(lambda: http.post(endpoint, json=chat()).status_code == 200, timeout=5)
