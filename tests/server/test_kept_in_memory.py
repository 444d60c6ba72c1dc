"""Answers that survive a locked phone without Redis: one process keeps a turn's events.

The server's half of "never lose a turn": a page that went away mid-answer asks the same
server for the rest by turn id and offset; the upstream is asked once; what is kept is
bounded in time and in bytes (`server.memory_turns`).
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from live import FakeUpstream, LiveServer

from server.memory_turns import MemoryTurnStore
from server.testing import ChatkeepServer
from server.turn_store import KEEP_SECONDS

QUESTION = {"messages": [{"role": "user", "content": "Tell me about tides"}], "stream": True}
TURN = "x-chatkeep-turn"


def datas_of(text: str) -> list[str]:
    return [line[6:] for line in text.splitlines() if line.startswith("data: ")]


def text_of(datas: list[str]) -> str:
    chunks = [json.loads(d) for d in datas if d != "[DONE]"]
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])


@pytest.mark.slow
def test_without_redis_a_page_that_left_mid_answer_gets_the_rest_from_where_it_was() -> None:
    fake = FakeUpstream(mode="ok", interval=0.3)  # "Hello", then three chunks 0.3 s apart
    with (
        LiveServer(fake.app()) as upstream,
        ChatkeepServer("--upstream", f"{upstream.url}/v1", "--model", "gpt-live") as server,
    ):
        with httpx.stream("POST", f"{server.url}/api/chat/completions", json=QUESTION,
                          timeout=30) as response:  # fmt: skip
            turn = response.headers[TURN]
            first = next(response.iter_lines())  # "id: 1", then the page is frozen
        rest = httpx.get(f"{server.url}/api/chat/turns/{turn}?after=1", timeout=30)
        whole = httpx.get(f"{server.url}/api/chat/turns/{turn}?after=0", timeout=30)
        unknown = httpx.get(f"{server.url}/api/chat/turns/not-a-turn")

    assert first == "id: 1"
    assert text_of(datas_of(whole.text)) == "Hello 0 1 2"
    assert text_of(datas_of(rest.text)) == " 0 1 2"  # nothing twice
    assert datas_of(rest.text)[-1] == "[DONE]"
    assert len(fake.received) == 1  # the upstream was asked once
    assert unknown.status_code == 404 and "no longer kept" in unknown.json()["error"]["message"]


def test_a_kept_turn_is_read_from_any_offset_and_waited_for() -> None:
    async def scenario() -> tuple[list[int], list[int], list[int]]:
        store = MemoryTurnStore()
        await store.open("t", "")
        await store.append("t", 1, [{"d": "a"}, {"d": "b"}])
        after_one = [n for n, _ in await store.read("t", 1, None)]
        waiting = asyncio.create_task(store.read("t", 2, 5000))
        await asyncio.sleep(0)
        await store.append("t", 3, [{"d": "c"}, {"end": "done"}])
        woken = [n for n, _ in await waiting]
        nothing_new = [n for n, _ in await store.read("t", 4, 10)]
        return after_one, woken, nothing_new

    assert asyncio.run(scenario()) == ([2], [3, 4], [])


def test_kept_turns_are_bounded_in_bytes_ended_ones_given_up_first() -> None:
    async def scenario() -> tuple[str | None, str | None, str | None, int]:
        store = MemoryTurnStore(max_bytes=100)
        for turn in ("ended", "running", "new"):
            await store.open(turn, "")
        await store.append("ended", 1, [{"d": "x" * 40}, {"end": "done"}])
        await store.append("running", 1, [{"d": "y" * 40}])
        await store.append("new", 1, [{"d": "z" * 40}])  # 120 bytes: one must go
        return (await store.owner("ended"), await store.owner("running"),
                await store.owner("new"), store.size)  # fmt: skip

    ended, running, new, size = asyncio.run(scenario())
    assert ended is None and running == "" and new == ""
    assert size <= 100


def test_kept_turns_are_forgotten_after_their_time() -> None:
    now = [1000.0]

    async def scenario() -> tuple[str | None, str | None, int]:
        store = MemoryTurnStore(clock=lambda: now[0])
        await store.open("t", "subject:alice")
        now[0] += KEEP_SECONDS - 1
        kept = await store.owner("t")
        now[0] += 2
        return kept, await store.owner("t"), store.size

    assert asyncio.run(scenario()) == ("subject:alice", None, 0)
    assert KEEP_SECONDS >= 5 * 60  # the floor
