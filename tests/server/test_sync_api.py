"""`/api/sync/{space}`: reads since a cursor, compare-and-set writes, tombstones, the quota,
and the chat server's own rules (client tokens, rate limits, body size), on both stores."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest
from localclient import TestClient
from spaces import keyed

from server import Settings, create_app, sign_client_token

SPACE, TOKEN = keyed("person")  # what the browser derives: 256 bits in Base64url
CREATE = {"if-none-match": "*"}


@pytest.fixture
def http(store_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(sync_store=store_url, sync_space_bytes=1000)),
                    headers=TOKEN) as client:  # fmt: skip
        yield client


def read(http: TestClient, since: int = 0) -> dict[str, Any]:
    response = http.get(f"/api/sync/{SPACE}", params={"since": since})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_an_item_is_created_read_replaced_and_deleted(http: TestClient) -> None:
    assert http.get("/api/models").json()["chatkeep"]["sync"] is True
    created = http.put(f"/api/sync/{SPACE}/conv1", content=b"\x00\xffcipher", headers=CREATE)
    assert created.status_code == 200
    rev = created.json()["rev"]
    assert created.headers["etag"] == f'"{rev}"'
    [item] = read(http)["items"]
    assert item["id"] == "conv1" and item["rev"] == rev
    assert base64.urlsafe_b64decode(item["data"]) == b"\x00\xffcipher"
    cursor = read(http)["cursor"]
    replaced = http.put(f"/api/sync/{SPACE}/conv1", content=b"v2", headers={"if-match": f'"{rev}"'})
    assert replaced.status_code == 200
    deleted = http.delete(f"/api/sync/{SPACE}/conv1",
                          headers={"if-match": str(replaced.json()["rev"])})  # fmt: skip
    assert deleted.status_code == 200
    later = read(http, cursor)
    assert [(i["id"], i["data"]) for i in later["items"]] == [("conv1", None)]
    assert later["cursor"] == deleted.json()["rev"] and later["more"] is False


def test_a_stale_write_is_412_with_the_revision_now(http: TestClient) -> None:
    rev = http.put(f"/api/sync/{SPACE}/c", content=b"1", headers=CREATE).json()["rev"]
    http.put(f"/api/sync/{SPACE}/c", content=b"2", headers={"if-match": str(rev)})
    stale = http.put(f"/api/sync/{SPACE}/c", content=b"3", headers={"if-match": str(rev)})
    assert stale.status_code == 412
    assert stale.json()["error"]["code"] == "sync_conflict"
    assert stale.json()["rev"] == rev + 1
    again = http.put(f"/api/sync/{SPACE}/c", content=b"3", headers=CREATE)
    assert again.status_code == 412
    assert base64.urlsafe_b64decode(read(http)["items"][0]["data"]) == b"2"


def test_a_write_without_a_precondition_is_refused(http: TestClient) -> None:
    bare = http.put(f"/api/sync/{SPACE}/c", content=b"1")
    assert bare.status_code == 428
    assert "If-None-Match: *" in bare.json()["error"]["message"]
    assert http.delete(f"/api/sync/{SPACE}/c", headers=CREATE).status_code == 428
    assert read(http)["items"] == []


def test_a_full_space_is_413_and_keeps_what_it_had(http: TestClient) -> None:
    http.put(f"/api/sync/{SPACE}/a", content=b"x" * 600, headers=CREATE)
    full = http.put(f"/api/sync/{SPACE}/b", content=b"y" * 600, headers=CREATE)
    assert full.status_code == 413
    error = full.json()["error"]
    assert error["code"] == "sync_space_full" and error["params"] == {"limit": 1000}
    assert "at most 1000 bytes" in error["message"]
    assert [i["id"] for i in read(http)["items"]] == ["a"]


def test_bad_names_and_cursors_are_clear_errors(http: TestClient) -> None:
    assert http.get("/api/sync/short").status_code == 404  # not a derived space id
    assert http.put(f"/api/sync/{SPACE}/a.b", content=b"", headers=CREATE).status_code == 404
    for since in ("-1", "x", "9" * 30):
        response = http.get(f"/api/sync/{SPACE}", params={"since": since})
        assert response.status_code == 400
        assert "revision number" in response.json()["error"]["message"]


def test_without_a_store_sync_is_off_and_says_so(store_url: str) -> None:
    with TestClient(create_app(Settings()), headers=TOKEN) as http:
        assert http.get("/api/models").json()["chatkeep"]["sync"] is False
        off = http.get(f"/api/sync/{SPACE}")
        assert off.status_code == 404
        assert off.json()["error"]["code"] == "sync_off"


def test_client_tokens_the_rate_limit_and_the_body_limit_apply(store_url: str) -> None:
    settings = Settings(sync_store=store_url, client_secret="s" * 32, rate_limit=3,
                        max_body_bytes=100)  # fmt: skip
    with TestClient(create_app(settings), headers=TOKEN) as http:
        assert http.get(f"/api/sync/{SPACE}").status_code == 401
        token = {"authorization": f"Bearer {sign_client_token('s' * 32, 'person', 60)}"}
        big = http.put(f"/api/sync/{SPACE}/a", content=b"z" * 101, headers=CREATE | token)
        assert big.status_code == 413 and big.json()["error"]["code"] == "body_too_large"
        for _ in range(2):  # the refused upload counted as the first of 3
            assert http.get(f"/api/sync/{SPACE}", headers=token).status_code == 200
        assert http.get(f"/api/sync/{SPACE}", headers=token).status_code == 429
        assert http.get("/api/models", headers=token).status_code == 200  # chat's own count


def test_a_store_that_is_away_is_503_not_500(tmp_path: Any) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    app = create_app(Settings(sync_store=f"sqlite:///{blocked}/sync.db"))
    with TestClient(app, headers=TOKEN) as http:
        away = http.get(f"/api/sync/{SPACE}")
        assert away.status_code == 503
        assert away.json()["error"]["code"] == "sync_unavailable"
        assert away.headers["retry-after"] == "30"
