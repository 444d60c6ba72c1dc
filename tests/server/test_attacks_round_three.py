"""The third round of attacks on the server, each written as the attack: numbers and digits no
code expected (a 500 before), the operator's footguns (an open /metrics, a Makefile flag over
the environment, trusting every proxy), client ids that reversed, a key in other spellings,
and sync quotas one client got round."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from live import needs_redis
from localclient import TestClient
from spaces import keyed
from upstreams import KEY, SSE, Chunks, Upstream, chat, make_client

from server import Settings, SettingsError, create_app, load_settings, sign_client_token
from server.cli import start_warnings
from server.client_ids import ClientIds, lasting_secret
from server.redaction import Redactor
from server.sync.store import MIN_ITEM_BYTES
from server.testing import ChatkeepServer, RedisServer

REPOSITORY = Path(__file__).resolve().parents[2]

SPACE, TOKEN = keyed("person")


@pytest.fixture
def sync_http(tmp_path: Path) -> TestClient:
    store = f"sqlite:///{tmp_path / 'sync.db'}"
    return TestClient(create_app(Settings(sync_store=store)), headers=TOKEN)


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


# -- the operator's footguns --------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "environ"),
    [(["--metrics", "--metrics-token", ""], {}), (["--metrics-token", " "], {}),
     (["--metrics"], {"CHATKEEP_METRICS_TOKEN": ""})],
)  # fmt: skip
def test_an_empty_metrics_token_is_refused_at_start(
    argv: list[str], environ: dict[str, str]
) -> None:
    """It left /metrics open to anyone, with the operator believing it was guarded."""
    with pytest.raises(SettingsError, match="empty, which would leave /metrics open"):
        load_settings(argv, environ)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "chat.example"])
def test_metrics_on_an_address_others_reach_need_a_token(host: str) -> None:
    with pytest.raises(SettingsError, match=r"needs a token.*--metrics-public"):
        load_settings(["--metrics", "--host", host], {})
    assert load_settings(["--metrics", "--host", host, "--metrics-public"], {}).metrics
    assert load_settings(["--metrics", "--host", host], {"CHATKEEP_METRICS_TOKEN": "t0k"}).metrics


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_metrics_on_this_machine_alone_need_no_token(host: str) -> None:
    assert load_settings(["--metrics", "--host", host], {}).metrics


def test_trusting_every_proxy_is_warned_of_at_start() -> None:
    assert start_warnings(load_settings([], {})) == []
    [warning] = start_warnings(load_settings(["--forwarded-allow-ips", "*"], {}))
    assert "choose its identity" in warning and "docs/deployment.md" in warning


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_serve_honours_the_settings_in_the_environment() -> None:
    """`CHATKEEP_SYNC_STORE=postgresql://… make serve` kept conversations in the checkout's
    SQLite file: the Makefile's own flag beat the environment."""
    environ = {**os.environ, "CHATKEEP_SYNC_STORE": "postgresql://kept@db.example/chat",
               "CHATKEEP_HOST": "0.0.0.0", "CHATKEEP_PORT": "9123"}  # fmt: skip
    for name in ("HOST", "PORT", "SYNC_STORE", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        environ.pop(name, None)  # (run under `make test`, make passes its own flags down)
    ran = subprocess.run(["make", "-n", "serve"], cwd=REPOSITORY, env=environ, text=True,
                         capture_output=True, check=True)  # fmt: skip
    [command] = [line for line in ran.stdout.splitlines() if " -m server " in line]
    assert command.endswith(
        "-m server --host 0.0.0.0 --port 9123 --sync-store postgresql://kept@db.example/chat"
    )


# -- identities that do not reverse ------------------------------------------------------------


def test_a_client_id_in_the_logs_cannot_be_reversed_from_the_address() -> None:
    """The ids were plain SHA-256 of the address: all of IPv4 reversed in a core-hour. Now
    without the server's key, the address's plain hash says nothing."""
    client = "address:203.0.113.7"
    plain = hashlib.sha256(f"chatkeep-client\0{client}".encode()).hexdigest()[:16]
    ids = ClientIds("the server's own key")
    assert ids.of(client) != plain
    assert ids.of(client) == ClientIds("the server's own key").of(client)  # the same key: same id
    assert ids.of(client) != ClientIds("another key").of(client)
    assert ClientIds().of(client) != ClientIds().of(client)  # no key given: a random one each


def test_the_key_is_kept_across_restarts_in_this_user_s_state(tmp_path: Path) -> None:
    environ = {"XDG_STATE_HOME": str(tmp_path / "state")}
    first = lasting_secret(None, environ)
    assert lasting_secret(None, environ) == first and len(first) == 64
    kept = tmp_path / "state" / "chatkeep" / "id-secret"
    assert kept.stat().st_mode & 0o777 == 0o600
    assert os.listdir(kept.parent) == ["id-secret"]


@needs_redis
def test_servers_sharing_a_redis_share_the_key(redis: RedisServer, tmp_path: Path) -> None:
    first = lasting_secret(redis.url, {"XDG_STATE_HOME": str(tmp_path / "a")})
    assert lasting_secret(redis.url, {"XDG_STATE_HOME": str(tmp_path / "b")}) == first
    assert not (tmp_path / "a").exists()


def test_chatkeep_serve_keeps_the_key_across_restarts_and_hands_it_to_its_workers(
    tmp_path: Path,
) -> None:
    """A client shows under the same id after a restart, and in every worker process (they
    are handed the settings as JSON)."""
    environ = {"XDG_STATE_HOME": str(tmp_path), "CHATKEEP_LOG_FORMAT": "json"}
    seen = set()
    for _ in range(2):
        with ChatkeepServer(env=environ).wait_until_up() as server:
            httpx.post(f"{server.url}/api/chat/completions", json=chat(model="demo"))
            server.stop()
            lines = [json.loads(line) for line in server.output.splitlines()
                     if line.startswith('{"time"')]  # fmt: skip
            seen |= {line["client"] for line in lines if line["path"] == "/api/chat/completions"}
    assert len(seen) == 1
    settled = replace(Settings(), id_secret=lasting_secret(None, environ))
    assert Settings.from_json(settled.to_json()).id_secret == settled.id_secret


# -- redaction of every spelling ----------------------------------------------------------------

ESCAPED = "".join(f"\\u{ord(c):04x}" if c in "sEC" else c for c in KEY)  # JSON escapes


def _streamed_text(runtime_dir: Path, *raw_events: str) -> tuple[str, str]:
    """What the page receives for an upstream streaming these `data:` texts: the raw body, and
    the answer's text put together as the widget does."""

    async def answer(request: httpx.Request) -> httpx.Response:
        body = "".join(f"data: {event}\n\n" for event in raw_events) + "data: [DONE]\n\n"
        return httpx.Response(200, headers=SSE, stream=Chunks(body.encode()))

    with make_client(runtime_dir, Upstream(answer)) as http:
        body = http.post("/api/chat/completions", json=chat(stream=True)).text
    events = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: {")]
    text = "".join(e["choices"][0]["delta"].get("content") or "" for e in events if e["choices"])
    return body, text


def _raw(content: str, finish: str | None = None) -> str:
    """An event as an upstream may write it, escapes kept as they are."""
    choice = f'{{"index":0,"delta":{{"content":"{content}"}},"finish_reason":{json.dumps(finish)}}}'
    return f'{{"id":"x","object":"chat.completion.chunk","choices":[{choice}]}}'


@pytest.mark.parametrize(
    "written",
    [ESCAPED, KEY.replace("-", "\\u002D"), KEY.replace("-", "%2D"),
     KEY.replace("-", "%2d").replace("S", "%53"), "".join(f"%{ord(c):02X}" for c in KEY)],
)  # fmt: skip
def test_a_key_in_json_escapes_or_percent_encoded_is_redacted(
    runtime_dir: Path, written: str
) -> None:
    body, text = _streamed_text(runtime_dir, _raw(f"the key is {written}."), _raw("", "stop"))
    assert written not in body and KEY not in text and "[redacted]" in text
    assert text.startswith("the key is ") and text.endswith(".")


def test_a_key_with_a_slash_written_as_json_writes_it_is_redacted() -> None:
    redact = Redactor(["gw/KEY/42"])
    assert (
        redact('{"m":"key gw\\/KEY\\/42 and gw\\u002fKEY/42"}')
        == '{"m":"key [redacted] and [redacted]"}'
    )
    assert redact("gw%2fKEY%2F42") == "[redacted]"
    assert redact("gw/KEY/4") == "gw/KEY/4"  # only the whole key


@pytest.mark.parametrize("cut", [1, 3, len(KEY) // 2, len(KEY) - 1])
def test_a_key_split_across_two_events_is_redacted(runtime_dir: Path, cut: int) -> None:
    body, text = _streamed_text(runtime_dir, _raw(f"key: {KEY[:cut]}"),
                                _raw(f"{KEY[cut:]} ok"), _raw("", "stop"))  # fmt: skip
    assert text == "key: [redacted] ok"
    assert KEY[max(cut, len(KEY) - cut) - 1 :] not in body.replace("[redacted]", "")


def test_text_held_back_for_a_key_arrives_whole_with_the_last_event(runtime_dir: Path) -> None:
    """ "s" and "sk-" could begin the key: they wait for the next event, then go on."""
    pieces = ["Yes", " it i", "s sk-", "y blue", "sk"]
    _, text = _streamed_text(runtime_dir, *(_raw(p) for p in pieces), _raw("", "stop"))
    assert text == "".join(pieces)


def test_a_percent_encoded_key_in_an_upstream_error_is_redacted(runtime_dir: Path) -> None:
    encoded = KEY.replace("-", "%2D")

    async def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"error": {"message": f"bad key={encoded}", "type": "x"}})

    with make_client(runtime_dir, Upstream(answer)) as http:
        response = http.post("/api/chat/completions", json=chat(stream=True))
    assert encoded not in response.text and KEY not in response.text


# -- quotas that hold ------------------------------------------------------------------------

CREATE = {"if-none-match": "*"}


def _quota_app(tmp_path: Path, **limits: int) -> TestClient:
    settings = Settings(sync_store=f"sqlite:///{tmp_path / 'quota.db'}", client_secret="s3cret",
                        rate_limit=0, **limits)  # fmt: skip
    return TestClient(create_app(settings))


def _as(who: str, space: str = "person") -> dict[str, str]:
    """A client `who` writing to the space of `space` (its token too)."""
    token = {"authorization": f"Bearer {sign_client_token('s3cret', who, 600)}"}
    return token | CREATE | keyed(space)[1]


def _put(http: TestClient, who: str, space: int, item: str, data: bytes) -> httpx.Response:
    """`who` writes `item` into the space numbered `space` (with its token)."""
    name = str(space)
    return http.put(f"/api/sync/{keyed(name)[0]}/{item}", content=data, headers=_as(who, name))


def test_one_client_cannot_fill_fresh_spaces(tmp_path: Path) -> None:
    """Spaces are free: one client wrote ~60 MiB a minute, each space under its own quota."""
    with _quota_app(tmp_path, sync_client_spaces=3) as http:
        made = [_put(http, "mallory", n, "a", b"x") for n in range(3)]
        refused = _put(http, "mallory", 9, "a", b"x")
        again = _put(http, "mallory", 0, "b", b"x")
        other = _put(http, "ann", 8, "a", b"x")
    assert [r.status_code for r in made] == [200] * 3
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "sync_client_spaces"
    assert "at most 3 a day" in refused.json()["error"]["message"]
    assert 0 < int(refused.headers["retry-after"]) <= 86_400
    assert again.status_code == 200  # a space it already has still takes its changes
    assert other.status_code == 200  # another person is not held by mallory's day


def test_one_client_cannot_write_more_than_its_day_across_spaces(tmp_path: Path) -> None:
    with _quota_app(tmp_path, sync_client_bytes=10_000) as http:
        sent = [_put(http, "m", n, "a", b"x" * 3000) for n in range(3)]
        refused = _put(http, "m", 3, "a", b"x" * 3000)
        # a conflict gives its bytes back: the day is not spent on refused writes
        conflict = _put(http, "m", 0, "a", b"y" * 900)
        small = _put(http, "m", 3, "a", b"z" * 900)
    assert [r.status_code for r in sent] == [200] * 3
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "sync_client_bytes"
    assert conflict.status_code == 412 and small.status_code == 200


def test_empty_items_and_tombstones_count_for_the_client_too(tmp_path: Path) -> None:
    with _quota_app(tmp_path, sync_client_bytes=4 * MIN_ITEM_BYTES) as http:
        codes = [http.put(f"/api/sync/{SPACE}/e{n}", content=b"", headers=_as("m")).status_code
                 for n in range(5)]  # fmt: skip
    assert codes == [200] * 4 + [429]


def test_a_space_of_too_many_items_is_a_413_that_says_so(tmp_path: Path) -> None:
    with _quota_app(tmp_path, sync_space_items=2) as http:
        for name in ("a", "b"):
            http.put(f"/api/sync/{SPACE}/{name}", content=b"1", headers=_as("m"))
        crowded = http.put(f"/api/sync/{SPACE}/c", content=b"1", headers=_as("m"))
    assert crowded.status_code == 413
    assert crowded.json()["error"]["code"] == "sync_space_items"
    assert "(2, deleted ones included)" in crowded.json()["error"]["message"]
