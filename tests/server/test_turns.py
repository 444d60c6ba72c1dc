"""Answers that survive a reload, through a real Redis: the server's half.

With `--redis-url`, a streamed answer is named (`X-Chatkeep-Turn`), its events numbered, and
it runs to its end whoever is listening; any server sharing the Redis gives the rest of it
by turn id and offset, or stops it. The upstream is asked once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest
from live import FakeUpstream, LiveServer, needs_redis

from server.clients import sign_client_token
from server.testing import ChatkeepServer, RedisServer

pytestmark = [pytest.mark.slow, needs_redis]
QUESTION = {"messages": [{"role": "user", "content": "Tell me about tides"}], "stream": True}
TURN = "x-chatkeep-turn"


def events(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """(id, data) of each event of a stream."""
    event_id = ""
    for line in lines:
        if line.startswith("id: "):
            event_id = line[4:]
        elif line.startswith("data: "):
            yield event_id, line[6:]
            event_id = ""


def text_of(datas: list[str]) -> str:
    chunks = [json.loads(d) for d in datas if d != "[DONE]"]
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])


def start(url: str, headers: dict[str, str] | None = None, **body: object) -> httpx.Response:
    return httpx.post(f"{url}/api/chat/completions", json={**QUESTION, **body},
                      headers=headers or {}, timeout=30)  # fmt: skip


def rest(url: str, turn: str, after: int = 0, headers: dict[str, str] | None = None) -> list[str]:
    with httpx.stream("GET", f"{url}/api/chat/turns/{turn}?after={after}", headers=headers,
                      timeout=30) as response:  # fmt: skip
        assert response.status_code == 200, response.read()
        return [data for _, data in events(response.iter_lines())]


@pytest.fixture
def slow_upstream() -> Iterator[tuple[FakeUpstream, str]]:
    fake = FakeUpstream(mode="ok", interval=0.3)  # "Hello", then three chunks 0.3 s apart
    with LiveServer(fake.app()) as upstream:
        yield fake, f"{upstream.url}/v1"


def through(redis: RedisServer, upstream: str, *flags: str) -> ChatkeepServer:
    return ChatkeepServer("--upstream", upstream, "--model", "gpt-live",
                          "--redis-url", redis.url, *flags)  # fmt: skip


def test_an_answer_is_named_numbered_and_kept_for_any_offset(redis: RedisServer) -> None:
    with ChatkeepServer("--redis-url", redis.url) as server:
        with httpx.stream("POST", f"{server.url}/api/chat/completions",
                          json={**QUESTION, "model": "demo"}, timeout=30) as response:  # fmt: skip
            turn = response.headers[TURN]
            streamed = list(events(response.iter_lines()))
        kept = rest(server.url, turn)
        after_three = rest(server.url, turn, after=3)

    assert len(turn) >= 24  # 144 random bits
    numbered = [event_id for event_id, data in streamed if data != "[DONE]"]
    assert numbered == [str(n) for n in range(1, len(numbered) + 1)]
    assert kept == [data for _, data in streamed]  # the same events, then [DONE]
    assert kept[-1] == "[DONE]" and text_of(kept)
    assert after_three == kept[3:]


def test_a_page_that_goes_away_leaves_the_answer_running_for_a_reload(
    redis: RedisServer, slow_upstream: tuple[FakeUpstream, str]
) -> None:
    fake, upstream = slow_upstream
    with through(redis, upstream) as server:
        with httpx.stream("POST", f"{server.url}/api/chat/completions",
                          json=QUESTION, timeout=30) as response:  # fmt: skip
            turn = response.headers[TURN]
            first = next(events(response.iter_lines()))  # then the page reloads
        assert text_of([first[1]]) == "Hello"
        kept = rest(server.url, turn)  # after the reload: from the first event

    assert text_of(kept) == "Hello 0 1 2" and kept[-1] == "[DONE]"
    assert len(fake.received) == 1  # the upstream was asked once
    assert not fake.received[0].client_left  # and ran to its end


def test_another_server_gives_the_rest_and_stop_there_ends_it_within_a_second(
    redis: RedisServer,
) -> None:
    fake = FakeUpstream(mode="slow_stream", interval=0.1)
    with (
        LiveServer(fake.app()) as upstream,
        through(redis, f"{upstream.url}/v1") as first,
        through(redis, f"{upstream.url}/v1") as second,
    ):
        with httpx.stream("POST", f"{first.url}/api/chat/completions", json=QUESTION,
                          timeout=30) as response:  # fmt: skip
            turn = response.headers[TURN]
        with httpx.stream("GET", f"{second.url}/api/chat/turns/{turn}?after=0",
                          timeout=30) as reading:  # fmt: skip
            lines = reading.iter_lines()
            assert text_of([next(events(lines))[1]]) == "Hello"
            stopped = time.monotonic()
            assert httpx.delete(f"{second.url}/api/chat/turns/{turn}").status_code == 204
            last = [data for _, data in events(lines)][-1]
        assert fake.seconds_to_end(stopped) < 1.0
    assert json.loads(last)["error"]["message"] == "Stopped before the answer was finished."
    assert len(fake.received) == 1


def test_only_the_subject_it_was_given_to_reads_or_stops_a_turn(redis: RedisServer) -> None:
    secret = "s3cret-for-tests"
    alice = {"authorization": f"Bearer {sign_client_token(secret, 'alice', 600)}"}
    bob = {"authorization": f"Bearer {sign_client_token(secret, 'bob', 600)}"}
    with ChatkeepServer("--redis-url", redis.url,
                        env={"CHATKEEP_CLIENT_SECRET": secret}) as server:  # fmt: skip
        turn = start(server.url, alice, model="demo").headers[TURN]
        as_bob = httpx.get(f"{server.url}/api/chat/turns/{turn}", headers=bob)
        stop_as_bob = httpx.delete(f"{server.url}/api/chat/turns/{turn}", headers=bob)
        anonymous = httpx.get(f"{server.url}/api/chat/turns/{turn}")
        as_alice = rest(server.url, turn, headers=alice)

    assert as_bob.status_code == 404 and stop_as_bob.status_code == 404
    assert as_bob.json()["error"]["code"] == "turn_not_found"  # as if there were none
    assert anonymous.status_code == 401
    assert as_alice[-1] == "[DONE]"


def test_unknown_turns_and_bad_offsets_are_refused_in_words(redis: RedisServer) -> None:
    with ChatkeepServer("--redis-url", redis.url) as server:
        unknown = httpx.get(f"{server.url}/api/chat/turns/not-a-turn")
        turn = start(server.url, model="demo").headers[TURN]
        bad = httpx.get(f"{server.url}/api/chat/turns/{turn}?after=-1")
        superscript = httpx.get(f"{server.url}/api/chat/turns/{turn}?after=²")  # isdigit() says yes
    assert unknown.status_code == 404
    assert "no longer kept" in unknown.json()["error"]["message"]
    assert bad.status_code == 400 and "whole number" in bad.json()["error"]["message"]
    assert superscript.status_code == 400


def test_an_upstream_refusal_is_an_error_response_not_a_turn(redis: RedisServer) -> None:
    fake = FakeUpstream(mode="status", status=401)
    with LiveServer(fake.app()) as upstream, through(redis, f"{upstream.url}/v1") as server:
        refused = start(server.url)
    assert refused.status_code == 502
    assert TURN not in refused.headers
    assert "credentials" in refused.json()["error"]["message"]


def test_redis_going_away_mid_answer_never_fails_the_chat(
    redis: RedisServer, slow_upstream: tuple[FakeUpstream, str]
) -> None:
    _, upstream = slow_upstream
    with through(redis, upstream) as server:
        with httpx.stream("POST", f"{server.url}/api/chat/completions",
                          json=QUESTION, timeout=30) as response:  # fmt: skip
            lines = events(response.iter_lines())
            datas = [next(lines)[1]]
            redis.stop()  # mid-answer
            datas += [data for _, data in lines]
        after = start(server.url)  # and the next one, with Redis still away
        output = server.output

    assert text_of(datas) == "Hello 0 1 2" and datas[-1] == "[DONE]"
    assert after.status_code == 200 and TURN not in after.headers
    assert text_of([d for _, d in events(iter(after.text.splitlines()))]) == "Hello 0 1 2"
    assert "Redis is unreachable" in output and "not kept for a reload" in output


def test_with_redis_away_a_page_that_leaves_cancels_its_answer_as_before(
    redis: RedisServer,
) -> None:
    fake = FakeUpstream(mode="slow_stream", interval=0.1)
    with LiveServer(fake.app()) as upstream, through(redis, f"{upstream.url}/v1") as server:
        with httpx.stream("POST", f"{server.url}/api/chat/completions",
                          json=QUESTION, timeout=30) as response:  # fmt: skip
            lines = events(response.iter_lines())
            next(lines)
            redis.stop()
            next(lines), next(lines)  # the mirror has met the closed Redis by now
            left = time.monotonic()
        assert fake.seconds_to_end(left) < 1.0  # nobody could pick it up: cancelled


def test_a_kept_answer_and_its_readers_count_as_answers_in_flight(
    redis: RedisServer, slow_upstream: tuple[FakeUpstream, str]
) -> None:
    """With Redis an answer runs on after the page leaves: it holds the client's slot until it
    ends, and a reader holds one while it reads, so leaving and reading again opens nothing."""
    fake, upstream = slow_upstream
    with through(redis, upstream, "--client-streams", "1", "--rate-limit", "0") as server:
        with httpx.stream("POST", f"{server.url}/api/chat/completions",
                          json=QUESTION, timeout=30) as response:  # fmt: skip
            turn = response.headers[TURN]
        busy = httpx.get(f"{server.url}/api/chat/turns/{turn}?after=0", timeout=10)
        another = start(server.url)
        assert (busy.status_code, another.status_code) == (429, 429)
        assert busy.json()["error"]["code"] == "too_many_streams"
        fake.seconds_to_end(time.monotonic(), wait=10)  # the kept answer runs to its end
        deadline = time.monotonic() + 5  # and gives its slot back as it ends
        while (reader := httpx.get(f"{server.url}/api/chat/turns/{turn}?after=0")).status_code \
                == 429 and time.monotonic() < deadline:  # fmt: skip
            time.sleep(0.05)
        assert reader.status_code == 200 and "[DONE]" in reader.text
