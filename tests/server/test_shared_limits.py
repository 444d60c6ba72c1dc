"""Limits and budgets shared through a real Redis, by two servers and by two workers; and a
chat that carries on, counting in its own process, when Redis goes away."""

from __future__ import annotations

import httpx
import pytest
from live import needs_redis

from server.testing import ChatkeepServer, RedisServer

pytestmark = [pytest.mark.slow, needs_redis]
BODY = {"model": "demo", "messages": [{"role": "user", "content": "My name is Ann"}]}


def ask(server: ChatkeepServer) -> int:
    return httpx.post(f"{server.url}/api/chat/completions", json=BODY, timeout=30).status_code


def test_two_servers_share_one_rate_limit(redis: RedisServer) -> None:
    flags = ["--redis-url", redis.url, "--rate-limit", "3"]
    with ChatkeepServer(*flags) as first, ChatkeepServer(*flags) as second:
        statuses = [ask(first), ask(second), ask(first), ask(second)]
    assert statuses == [200, 200, 200, 429]


def test_two_workers_share_one_rate_limit(redis: RedisServer) -> None:
    with ChatkeepServer("--workers", "2", "--redis-url", redis.url, "--rate-limit", "4") as server:
        statuses = [ask(server) for _ in range(6)]
    assert statuses.count(200) == 4 and statuses[4:] == [429, 429]


def test_two_servers_share_one_daily_budget(redis: RedisServer) -> None:
    flags = ["--redis-url", redis.url, "--daily-tokens", "1"]
    with ChatkeepServer(*flags) as first, ChatkeepServer(*flags) as second:
        statuses = [ask(first), ask(second), ask(first)]
        refused = httpx.post(f"{second.url}/api/chat/completions", json=BODY, timeout=30)
    assert statuses == [200, 429, 429]  # one answer used the shared budget up, for both
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "budget_exhausted"


def test_without_redis_the_chat_goes_on_counting_in_its_own_process(redis: RedisServer) -> None:
    with ChatkeepServer("--redis-url", redis.url, "--rate-limit", "100") as server:
        assert ask(server) == 200
        redis.stop()
        assert ask(server) == 200  # never a failed chat
        output = server.output
    assert "Redis is unreachable" in output


def test_a_full_redis_is_a_fallback_not_a_failed_chat(redis: RedisServer) -> None:
    """The attack (or an accident): Redis out of memory under `noeviction` refuses every
    write, which made every chat a 500."""
    import redis as redis_py

    client = redis_py.Redis.from_url(redis.url)
    with ChatkeepServer("--redis-url", redis.url, "--rate-limit", "100",
                        "--daily-tokens", "100000") as server:  # fmt: skip
        assert ask(server) == 200
        client.config_set("maxmemory-policy", "noeviction")
        client.config_set("maxmemory", 1)  # every write is now refused with OOM
        assert [ask(server) for _ in range(3)] == [200, 200, 200]
        streamed = httpx.post(f"{server.url}/api/chat/completions", json={**BODY, "stream": True},
                              timeout=30)  # fmt: skip
    client.config_set("maxmemory", 0)
    client.close()
    assert streamed.status_code == 200 and "[DONE]" in streamed.text
