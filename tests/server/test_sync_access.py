"""Sync version 2 from outside: the token opens a space, its id alone opens nothing, a wiped
space says so, spaces written before version 2 stay reachable only for their move, and open
devices hear of a change through events (on both stores)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import Iterator

import httpx
import pytest
from live import LiveServer
from localclient import TestClient
from spaces import keyed

from server import Settings, create_app
from server.sync import open_store
from server.sync.access import HEADER, space_of
from server.sync.store import WIPED_SECONDS

SPACE, TOKEN = keyed("ann")
OTHER, OTHER_TOKEN = keyed("mallory")
CREATE = {"if-none-match": "*"}


@pytest.fixture
def http(store_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(sync_store=store_url))) as client:
        yield client


def items(
    http: TestClient, space: str = SPACE, token: dict[str, str] = TOKEN
) -> list[tuple[str, bytes]]:
    answer = http.get(f"/api/sync/{space}", headers=token)
    assert answer.status_code == 200, answer.text
    return [(i["id"], base64.urlsafe_b64decode(i["data"] or "")) for i in answer.json()["items"]]


def test_the_space_id_is_the_digest_the_contract_fixes() -> None:
    token = bytes(range(32))
    digest = hashlib.sha256(b"chatkeep space v2" + token).digest()
    assert space_of(token) == base64.urlsafe_b64encode(digest).decode().rstrip("=")


def test_a_space_id_alone_reads_writes_and_deletes_nothing(http: TestClient) -> None:
    """The attack: the id travels in every URL (proxies and the nginx setup log it)."""
    rev = http.put(f"/api/sync/{SPACE}/a", content=b"ann's", headers=CREATE | TOKEN).json()["rev"]
    tries = [
        http.get(f"/api/sync/{SPACE}"),
        http.put(f"/api/sync/{SPACE}/a", content=b"x", headers={"if-match": str(rev)}),
        http.put(f"/api/sync/{SPACE}/b", content=b"x", headers=CREATE),
        http.delete(f"/api/sync/{SPACE}/a", headers={"if-match": str(rev)}),
        http.delete(f"/api/sync/{SPACE}"),
        http.get(f"/api/sync/{SPACE}/events"),
    ]
    assert [t.status_code for t in tries] == [403] * 6
    assert {t.json()["error"]["code"] for t in tries} == {"sync_token_required"}
    assert "Chatkeep-Sync-Token" in tries[0].json()["error"]["message"]
    assert items(http) == [("a", b"ann's")]


@pytest.mark.parametrize("token", ["", "x" * 43, "A" * 42, "é" * 43, OTHER_TOKEN[HEADER]])
def test_a_token_that_is_not_the_space_s_opens_nothing(http: TestClient, token: str) -> None:
    """Another person's token (client tokens on: one user read and deleted another's items),
    or any made-up one."""
    http.put(f"/api/sync/{SPACE}/a", content=b"ann's", headers=CREATE | TOKEN)
    header = {HEADER: token.encode("utf-8")}
    read = http.get(f"/api/sync/{SPACE}", headers=header)
    wiped = http.delete(f"/api/sync/{SPACE}", headers=header)
    assert (read.status_code, wiped.status_code) == (403, 403)
    assert read.json()["error"]["code"] == "sync_forbidden"
    assert items(http) == [("a", b"ann's")]


def test_a_wiped_space_answers_410_for_thirty_days(store_url: str) -> None:
    app = create_app(Settings(sync_store=store_url))
    with TestClient(app) as http:
        http.put(f"/api/sync/{SPACE}/a", content=b"1", headers=CREATE | TOKEN)
        assert http.delete(f"/api/sync/{SPACE}", headers=TOKEN).status_code == 204
        after = [
            http.get(f"/api/sync/{SPACE}", headers=TOKEN),
            http.put(f"/api/sync/{SPACE}/b", content=b"2", headers=CREATE | TOKEN),
            http.get(f"/api/sync/{SPACE}/events", headers=TOKEN),
        ]
        assert [a.status_code for a in after] == [410] * 3
        said = after[0].json()["error"]
        assert said["code"] == "sync_space_wiped"
        assert said["message"] == "This sync code was changed on another device. Use the new code."
        store = app.state.sync
        now = store.clock()
        store.clock = lambda: now + WIPED_SECONDS
        assert items(http) == []  # thirty days on: an empty space, as any unused id


def test_a_space_written_before_version_2_is_reached_by_its_id_only_to_move(
    store_url: str,
) -> None:
    """Its devices hold no token (version 1 derived none): they read it, and wipe it once
    moved. No new one is made without a token."""
    old = "V" * 43
    app = create_app(Settings(sync_store=store_url))
    with TestClient(app) as http:
        asyncio.run(_write_v1(store_url, old))
        assert items(http, old, {}) == [("conv", b"v1 ciphertext")]
        assert http.get(f"/api/sync/{old}", headers=TOKEN).status_code == 403  # no token opens it
        assert http.get(f"/api/sync/{old}/events").status_code == 403  # nor events without
        fresh = http.put(f"/api/sync/{'W' * 43}/a", content=b"x", headers=CREATE)
        assert fresh.status_code == 403
        assert http.delete(f"/api/sync/{old}").status_code == 204
        assert http.get(f"/api/sync/{old}").status_code == 410


async def _write_v1(url: str, space: str) -> None:
    store = open_store(url, 10_000)
    try:
        await store.write(space, "conv", b"v1 ciphertext", None, version=1)
    finally:
        await store.close()


def test_an_open_device_hears_a_change_through_events(store_url: str) -> None:
    with (
        LiveServer(create_app(Settings(sync_store=store_url))) as server,
        httpx.Client(base_url=server.url, headers=TOKEN, timeout=30) as client,
        client.stream("GET", f"/api/sync/{SPACE}/events") as events,
    ):
        assert events.headers["content-type"].startswith("text/event-stream")
        lines = events.iter_lines()
        assert _event(lines) == 'ready {"rev": 0}'
        client.put(f"/api/sync/{OTHER}/a", content=b"x", headers=CREATE | OTHER_TOKEN)
        rev = client.put(f"/api/sync/{SPACE}/a", content=b"x", headers=CREATE).json()["rev"]
        assert _event(lines) == f'changed {{"rev": {rev}}}'  # a device that wrote it reads not
        client.delete(f"/api/sync/{SPACE}")
        assert _event(lines).startswith("changed")


def _event(lines: Iterator[str]) -> str:
    """The next event: its name and its data (comments skipped)."""
    name = ""
    for line in lines:
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            return f"{name} {line.removeprefix('data: ')}"
    raise AssertionError("the stream ended")


PAIRING = "P" * 22


def test_a_pairing_is_taken_once_and_lasts_ten_minutes(store_url: str) -> None:
    app = create_app(Settings(sync_store=store_url))
    with TestClient(app) as http:
        assert http.put(f"/api/sync-pair/{PAIRING}", content=b"sealed").status_code == 204
        assert http.put(f"/api/sync-pair/{PAIRING}", content=b"again").status_code == 409
        taken = http.get(f"/api/sync-pair/{PAIRING}")
        assert taken.status_code == 200 and taken.content == b"sealed"
        gone = http.get(f"/api/sync-pair/{PAIRING}")
        assert gone.status_code == 410 and gone.json()["error"]["code"] == "sync_pairing_gone"
        assert "works once, for 10 minutes" in gone.json()["error"]["message"]
        http.put(f"/api/sync-pair/{'Q' * 22}", content=b"sealed")
        store = app.state.sync
        now = store.clock()
        store.clock = lambda: now + 600
        assert http.get(f"/api/sync-pair/{'Q' * 22}").status_code == 410
        assert http.put(f"/api/sync-pair/{'R' * 22}", content=b"x" * 257).status_code == 413
        assert http.get("/api/sync-pair/short").status_code == 404
