"""The names that cross between Python and JavaScript agree on both sides: widget/protocol.py
against static/protocol.js (read by Node), and the server where it takes part."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from widget import protocol
from widget.config import HISTORY_MODES, WidgetConfig

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_JS = ROOT / "static" / "protocol.js"


@pytest.fixture(scope="module")
def javascript() -> dict[str, Any]:
    if sys.platform == "emscripten" or not PROTOCOL_JS.is_file() or not shutil.which("node"):
        pytest.skip("needs Node and the static folder (run on CPython from the repository)")
    script = "import(process.argv[1]).then(m => console.log(JSON.stringify(m)))"
    found = subprocess.run(["node", "-e", script, PROTOCOL_JS.as_uri()], capture_output=True,
                           text=True, check=True, timeout=30)  # fmt: skip
    declared: dict[str, Any] = json.loads(found.stdout)
    return declared


def test_message_kinds_and_requests_agree(javascript: dict[str, Any]) -> None:
    assert sorted(javascript["KIND"].values()) == sorted(protocol.MESSAGE_KINDS)
    assert sorted(javascript["REQUEST"].values()) == sorted(protocol.REQUESTS)


def test_event_kinds_agree(javascript: dict[str, Any]) -> None:
    assert sorted(javascript["EVENT"].values()) == sorted(protocol.EVENTS)


def test_storage_and_host_store_operations_agree(javascript: dict[str, Any]) -> None:
    assert sorted(javascript["STORAGE"].values()) == sorted(protocol.STORAGE_OPERATIONS)
    assert sorted(javascript["WRITTEN"].values()) == sorted(protocol.STORAGE_ANSWERS)
    assert sorted(javascript["HOST_STORE"].values()) == sorted(protocol.HOST_STORE_OPERATIONS)


def test_the_turn_header_and_chunk_agree_with_the_server(javascript: dict[str, Any]) -> None:
    from server.turn_readers import TURN_HEADER

    assert javascript["TURN_HEADER"] == protocol.TURN_HEADER == TURN_HEADER
    assert javascript["TURN_KEY"] == protocol.TURN_KEY


def test_shared_sentences_agree_with_the_server(javascript: dict[str, Any]) -> None:
    from server.turns import STOPPED

    assert javascript["SENTENCE"] == {"stopped": protocol.STOPPED, "busy": protocol.BUSY}
    assert STOPPED.message == protocol.STOPPED  # a stop elsewhere is still not an error here


def test_payloads_and_event_data_agree(javascript: dict[str, Any]) -> None:
    """Not only the names: each message's payload, field by field, is declared alike."""
    assert javascript["PAYLOAD"] == protocol.PAYLOADS
    assert javascript["EVENT_DATA"] == protocol.EVENT_DATA
    assert set(protocol.PAYLOADS) == set(protocol.MESSAGE_KINDS) | set(protocol.REQUESTS)
    assert set(protocol.EVENT_DATA) == set(protocol.EVENTS)


@pytest.mark.parametrize(
    ("value", "shape", "problems"),
    [
        ({"at": 1, "add": [], "turn": False}, "messages", []),
        ({"at": "1", "add": [], "turn": False}, "messages", ['"at" is not number']),
        ({"at": 1, "add": []}, "messages", ['"turn" is missing']),
        ({"at": 1, "add": [], "turn": True, "x": 1}, "messages", ['"x" is not declared']),
        ({"set": [], "drop": []}, "history", []),
        ({"message": "Stopped.", "code": "stopped", "params": {}}, "alert", []),
        ("text", "alert", ["expected an object, got str"]),
        (None, "stopping", []),
    ],
)  # fmt: skip
def test_conforms_names_what_does_not_fit(value: object, shape: str, problems: list[str]) -> None:
    assert protocol.conforms(value, protocol.EVENT_DATA[shape]) == problems


def test_the_storage_key_layout_agrees(javascript: dict[str, Any]) -> None:
    assert javascript["STORAGE_KEYS"] == protocol.STORAGE_KEYS
    assert protocol.storage_key("conversation", "shop", "abc") == "shop:conv:abc"
    assert protocol.storage_key("meta", "shop") == "shop:meta:"


def test_the_element_s_defaults_are_python_s() -> None:
    """The defaults an attribute falls back to are written once per language, and agree."""
    settings_js = ROOT / "static" / "settings.js"
    if sys.platform == "emscripten" or not settings_js.is_file() or not shutil.which("node"):
        pytest.skip("needs Node and the static folder (run on CPython from the repository)")
    script = "import(process.argv[1]).then(m => console.log(JSON.stringify(m)))"
    found = subprocess.run(["node", "-e", script, settings_js.as_uri()], capture_output=True,
                           text=True, check=True, timeout=30)  # fmt: skip
    declared = json.loads(found.stdout)
    python = WidgetConfig()
    assert declared["DEFAULTS"]["history"] == python.history
    assert declared["DEFAULTS"]["prefix"] == python.prefix
    assert declared["DEFAULTS"]["maxConversations"] == python.max_conversations
    assert [*declared["HISTORY_MODES"], "host"] == list(HISTORY_MODES)


def test_what_python_calls_on_the_worker_is_declared_on_both_sides(
    javascript: dict[str, Any],
) -> None:
    """The worker's calls for Python were an undeclared object: widget/bridge.py uses only
    declared ones, by attribute or by name, and the worker checks it hands exactly those."""
    assert javascript["WORKER_CALLS"] == list(protocol.WORKER_CALLS)
    bridge = "".join((ROOT / "widget" / name).read_text(encoding="utf-8")
                     for name in ("bridge.py", "sync/worker.py"))  # fmt: skip
    used = set(re.findall(r"self\.worker\.(\w+)\(", bridge))
    used |= set(re.findall(r'_ask\("(\w+)"', bridge))
    assert used == set(protocol.WORKER_CALLS)
    worker = (ROOT / "static" / "worker.js").read_text(encoding="utf-8")
    assert "WORKER_CALLS.every" in worker  # Bridge is handed the declared calls, or none


def test_the_sync_calls_requests_are_declared_alike_on_both_sides(
    javascript: dict[str, Any],
) -> None:
    """Synced history's calls on the worker (13 callbacks on an untyped object, version 1)
    have their requests declared, the same in both languages, for every sync call there is."""
    assert javascript["SYNC_CALLS"] == protocol.SYNC_CALLS
    assert set(protocol.SYNC_CALLS) == {c for c in protocol.WORKER_CALLS if c.startswith("sync")}
