"""The third round of attacks on the server, each written as the attack: numbers and digits no
code expected (a 500 before), ..."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from localclient import TestClient
from upstreams import Upstream, chat, make_client

from server import Settings, create_app

SPACE = "S" * 43


@pytest.fixture
def sync_http(tmp_path: Path) -> TestClient:
    store = f"sqlite:///{tmp_path / 'sync.db'}"
    return TestClient(create_app(Settings(sync_store=store)))


@pytest.mark.parametrize("since", ["²", "١٢", "٣", "1e3", "-1", "9" * 19, " 1"])
def test_a_cursor_in_other_digits_is_a_400_not_a_500(sync_http: TestClient, since: str) -> None:
    with sync_http as http:
        response = http.get(f"/api/sync/{SPACE}", params={"since": since})
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "bad_since"


@pytest.mark.parametrize("revision", ["²", '"²"', 'W/"³"'])
def test_a_revision_in_other_digits_is_refused_not_a_500(
    sync_http: TestClient, revision: str
) -> None:
    with sync_http as http:
        response = http.put(f"/api/sync/{SPACE}/item", content=b"x",
                            headers={"if-match": revision.encode("latin-1")})  # fmt: skip
    assert response.status_code == 428, response.text


async def _never_called(request: httpx.Request) -> httpx.Response:
    raise AssertionError("a body with such a number reached the upstream")


@pytest.mark.parametrize(
    ("number", "said"),
    [("1e999", "too large"), ("-1e999", "too large"), ("1" * 5000, "more than 30 digits"),
     ("-" + "9" * 31, "more than 30 digits"), ("NaN", "not valid JSON"),
     ("Infinity", "not valid JSON")],
)  # fmt: skip
@pytest.mark.parametrize("field", ["temperature", "max_tokens", "top_p", "seed"])
def test_a_number_no_upstream_can_take_is_a_400_that_says_what(
    runtime_dir: Path, number: str, said: str, field: str
) -> None:
    body = chat(stream=True)
    raw = httpx.Request("POST", "/", json=body).content.decode()[:-1] + f', "{field}": {number}}}'
    with make_client(runtime_dir, Upstream(_never_called)) as http:
        response = http.post("/api/chat/completions", content=raw,
                             headers={"content-type": "application/json"})  # fmt: skip
    assert response.status_code == 400, response.text
    assert said in response.json()["error"]["message"]


def test_an_ordinary_number_still_goes(runtime_dir: Path) -> None:
    seen: list[bytes] = []

    async def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.content)
        return httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]})

    with make_client(runtime_dir, Upstream(answer)) as http:
        response = http.post("/api/chat/completions", json=chat(temperature=0.5, seed=12))
    assert response.status_code == 200, response.text
    assert b'"temperature": 0.5' in seen[0] or b'"temperature":0.5' in seen[0]
