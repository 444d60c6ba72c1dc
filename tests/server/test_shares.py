"""Share links, the server's half: `PUT/GET/DELETE /api/share/{id}` over the sync store (both
backends). It keeps the ciphertext and a hash of the delete token, for `--share-days`; the
token alone stops sharing; the id reads; the log hides it."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from localclient import TestClient

from server import Settings, create_app
from server.access_log import hidden

SEALED = bytes(range(256)) * 8  # ciphertext: what a browser sends


def share_id() -> str:
    return secrets.token_urlsafe(18)


@pytest.fixture
def http(store_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(sync_store=store_url, share_days=30))) as client:
        yield client


def test_a_share_is_read_by_its_id_and_stopped_only_with_its_token(http: TestClient) -> None:
    share = share_id()
    made = http.put(f"/api/share/{share}", content=SEALED)
    assert made.status_code == 201
    token = made.json()["token"]
    assert len(token) >= 32 and made.json()["expires"] > 0
    read = http.get(f"/api/share/{share}")
    assert read.content == SEALED and read.headers["cache-control"] == "no-store"

    wrong = http.delete(f"/api/share/{share}", headers={"chatkeep-share-token": token[:-1] + "x"})
    none = http.delete(f"/api/share/{share}")
    assert (wrong.status_code, none.status_code) == (403, 403)
    assert http.get(f"/api/share/{share}").status_code == 200  # still shared

    assert (
        http.delete(f"/api/share/{share}", headers={"chatkeep-share-token": token}).status_code
        == 204
    )
    gone = http.get(f"/api/share/{share}")
    assert gone.status_code == 404
    assert gone.json()["error"]["message"] == "This shared conversation is no longer available."


def test_unknown_and_malformed_ids_say_the_same_and_a_taken_id_is_refused(
    http: TestClient,
) -> None:
    for share in (share_id(), "short", "x" * 80):
        answer = http.get(f"/api/share/{share}")
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "share_gone"
    share = share_id()
    assert http.put(f"/api/share/{share}", content=b"one").status_code == 201
    taken = http.put(f"/api/share/{share}", content=b"two")
    assert taken.status_code == 409 and http.get(f"/api/share/{share}").content == b"one"
    assert http.put(f"/api/share/{share_id()}", content=b"").status_code == 400


def test_a_share_past_its_days_is_gone(store_url: str) -> None:
    app = create_app(Settings(sync_store=store_url, share_days=1))
    with TestClient(app) as http:
        share = share_id()
        http.put(f"/api/share/{share}", content=SEALED)
        store = app.state.sync
        now = store.clock()
        store.clock = lambda: now + 86_400 + 1
        assert http.get(f"/api/share/{share}").status_code == 404


def test_a_share_is_no_larger_than_the_body_limit(store_url: str) -> None:
    with TestClient(create_app(Settings(sync_store=store_url, max_body_bytes=1024))) as http:
        assert http.put(f"/api/share/{share_id()}", content=b"x" * 2000).status_code == 413


def test_the_log_hides_share_ids() -> None:
    assert hidden("/api/share/AbCdEfGhIjKlMnOpQrStUvWx") == "/api/share/[share]"
