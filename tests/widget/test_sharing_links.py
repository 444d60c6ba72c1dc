"""Sharing a conversation by a link (`widget.share_operations`), as the worker drives it: what
is sealed, what the snapshot keeps of each link, when "Share" seals anew, "Stop sharing", and
a stranger's conversation checked and copied only on "Continue this conversation"."""

from __future__ import annotations

import json
from typing import Any

from test_bridge import FakeHost, call, started

from widget.snapshots import from_dict, read_snapshot

SNAPSHOT = {"version": 1, "id": "theirs", "title": "Tides", "created": 5, "updated": 6,
            "messages": [{"role": "user", "content": "Why two tides?"},
                         {"role": "assistant", "content": "The moon, and the $r^{-3}$ law."}],
            "allowed_tools": ["book_table"]}  # fmt: skip


class SharingHost(FakeHost):
    """The worker: each seal recorded and answered as the server would; each stop too."""

    def __init__(self) -> None:
        super().__init__()
        self.sealed: list[dict[str, Any]] = []
        self.stopped: list[dict[str, str]] = []

    async def shareSeal(self, text: str) -> str:
        n = len(self.sealed) + 1
        self.sealed.append(json.loads(text))
        made = {"id": f"share{n}".ljust(24, "x"), "key": "k" * 43,
                "token": f"token{n}".ljust(32, "t"), "expires": 4_000_000_000}  # fmt: skip
        return json.dumps(made)

    async def shareStop(self, request: str) -> None:
        self.stopped.append(json.loads(request))


def chatted(host: SharingHost) -> Any:
    bridge = started(host, history="memory")
    call(bridge, "setHistory", messages=SNAPSHOT["messages"])
    call(bridge, "allowTool", name="book_table", allowed=True)
    return bridge


def listed(host: FakeHost) -> list[dict[str, Any]]:
    return [entry for kind, data in host.events if kind == "history" for entry in data["set"]]


def test_a_share_seals_the_conversation_alone_and_its_snapshot_keeps_the_link() -> None:
    host = SharingHost()
    bridge = chatted(host)
    made = call(bridge, "share", conversationId=call(bridge, "save")["result"]["id"])["result"]
    assert made["fragment"] == f"chatkeep-share={'share1'.ljust(24, 'x')}.{'k' * 43}"
    [sealed] = host.sealed
    assert sealed["messages"] == SNAPSHOT["messages"]
    assert "shares" not in sealed and "allowed_tools" not in sealed  # never the owner's own
    saved = call(bridge, "save")["result"]
    assert [s["token"] for s in saved["shares"]] == ["token1".ljust(32, "t")]
    assert listed(host)[-1]["shared"] == 4_000_000_000  # the history row says so


def test_share_again_gives_the_same_link_until_the_conversation_changes() -> None:
    host = SharingHost()
    bridge = chatted(host)
    live = call(bridge, "save")["result"]["id"]
    first = call(bridge, "share", conversationId=live)["result"]
    assert call(bridge, "share", conversationId=live)["result"] == first
    assert len(host.sealed) == 1
    call(
        bridge, "setHistory", messages=[*SNAPSHOT["messages"], {"role": "user", "content": "And?"}]
    )
    second = call(bridge, "share", conversationId=live)["result"]
    assert second != first and len(host.sealed) == 2
    assert host.stopped == [{"id": "share1".ljust(24, "x"), "token": "token1".ljust(32, "t")}]
    assert len(call(bridge, "save")["result"]["shares"]) == 1


def test_stop_sharing_tells_the_server_and_forgets_the_link() -> None:
    host = SharingHost()
    bridge = chatted(host)
    live = call(bridge, "save")["result"]["id"]
    call(bridge, "share", conversationId=live)
    assert call(bridge, "stopSharing", conversationId=live) == {"result": None}
    assert host.stopped[-1]["token"] == "token1".ljust(32, "t")
    assert "shares" not in call(bridge, "save")["result"]
    assert "shared" not in listed(host)[-1]


def test_a_conversation_in_the_history_is_shared_where_it_is_kept() -> None:
    host = SharingHost()
    bridge = chatted(host)
    kept = call(bridge, "save")["result"]["id"]
    call(bridge, "pin", conversationId=kept, pinned=True)
    call(bridge, "restore", snapshot=None)  # another conversation is open now
    call(bridge, "share", conversationId=kept)
    [row] = [e for e in listed(host) if e["id"] == kept][-1:]
    assert row["shared"] and row["pinned"]  # shared, still pinned
    reply = call(bridge, "share", conversationId="not-kept")
    assert reply["error"]["code"] == "conversation_gone"


def test_a_shared_conversation_is_checked_as_an_import_is() -> None:
    bridge = started(SharingHost())
    shown = call(bridge, "readShared", text=json.dumps(SNAPSHOT))["result"]
    assert shown == {"title": "Tides", "messages": SNAPSHOT["messages"]}
    for text in ("not json", json.dumps({**SNAPSHOT, "messages": []}),
                 json.dumps({**SNAPSHOT, "version": 2}), "[" * 10_000):  # fmt: skip
        error = call(bridge, "readShared", text=text)["error"]
        assert error["code"] == "share_unreadable", text[:40]
        assert error["message"].startswith("This shared conversation cannot be shown: ")
    assert call(bridge, "save")["result"]["messages"] == []  # nothing opened, nothing kept


def test_continue_copies_it_into_the_history_under_an_id_of_its_own() -> None:
    host = SharingHost()
    bridge = started(host)
    new_id = call(bridge, "continueShared", text=json.dumps(SNAPSHOT))["result"]
    assert new_id != "theirs"
    opened = call(bridge, "save")["result"]
    assert opened["id"] == new_id and opened["messages"] == SNAPSHOT["messages"]
    assert "allowed_tools" not in opened  # the stranger's choices are not the opener's
    assert [e["id"] for e in listed(host)][-1] == new_id


def test_a_snapshot_s_shares_are_checked_strictly_and_read_forgivingly() -> None:
    share = {"id": "a" * 24, "key": "b" * 43, "token": "c" * 32, "expires": 9, "digest": "0f" * 16}
    assert from_dict({**SNAPSHOT, "shares": [share]}).shares[0].token == "c" * 32
    for bad in ([{**share, "extra": 1}], [{**share, "expires": True}], "x",
                [{**share, "id": "<script>"}], [share] * 17):  # fmt: skip
        try:
            from_dict({**SNAPSHOT, "shares": bad})
        except ValueError as exc:
            assert "shares" in str(exc)
        else:
            raise AssertionError(f"{bad!r} was taken")
        forgiven = read_snapshot({**SNAPSHOT, "shares": bad})
        assert forgiven is not None and "shares" not in forgiven  # the conversation stays
