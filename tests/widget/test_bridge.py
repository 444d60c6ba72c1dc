"""The bridge as the worker drives it: one operations table, replies, and events that carry
changes rather than states. Runs on CPython with a stand-in for `pyodide.ffi`, and under
Pyodide with the real one."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from scripted import call_chunk, heard_draft, pause, run, text_chunk

if sys.platform != "emscripten" and "pyodide" not in sys.modules:
    ffi = types.ModuleType("pyodide.ffi")
    ffi.JsException = type("JsException", (Exception,), {})  # type: ignore[attr-defined]
    package = types.ModuleType("pyodide")
    package.ffi = ffi  # type: ignore[attr-defined]
    sys.modules.update({"pyodide": package, "pyodide.ffi": ffi})

from widget import Session, TurnError
from widget.bridge import Bridge
from widget.conversations import Conversations
from widget.errors import STOPPED
from widget.history import History
from widget.key_value import MemoryKeyValue
from widget.operations import OPERATIONS, SYNC_OPERATIONS, check_arguments, snake_case, table
from widget.protocol import EVENT_DATA, PAYLOADS, conforms
from widget.share_operations import ShareOperations
from widget.sync.synced import SyncedHistory
from widget.texts import TEXTS
from widget.tool_operations import ToolOperations

IN_PYODIDE = sys.platform == "emscripten"
STATIC = Path(__file__).resolve().parents[2] / "static"


class FakeStream:
    def __init__(self, batches: list[list[Any]]) -> None:
        self.batches = list(batches)
        self.closed = False

    async def next(self) -> str | None:
        await pause()
        if self.closed or not self.batches:
            return None
        return json.dumps(self.batches.pop(0))

    def close(self) -> None:
        self.closed = True


class GoneStream(FakeStream):
    """What the worker's stream does when the server no longer keeps an answer."""

    def __init__(self) -> None:
        super().__init__([])

    async def next(self) -> str | None:
        raise TurnError("This answer is no longer kept on the chat server.")


class FakeHost:
    """The worker's callbacks, recording every event as the page would receive it."""

    def __init__(self, *answers: list[list[Any]], store: MemoryKeyValue | None = None) -> None:
        self.answers = list(answers)
        self.store = store or MemoryKeyValue()
        self.events: list[tuple[str, Any]] = []
        self.thoughts: list[tuple[int, str]] = []
        self.tool_calls: list[tuple[str, str]] = []
        self.kept: dict[str, list[list[Any]]] = {}
        self.resumed: list[str] = []

    def openStream(self, body: str) -> FakeStream:
        return FakeStream(self.answers.pop(0))

    def resumeStream(self, turn: str) -> FakeStream:
        self.resumed.append(turn)
        return FakeStream(self.kept[turn]) if turn in self.kept else GoneStream()

    async def claimTurn(self, turn: str) -> bool:
        return True

    def releaseTurn(self, turn: str) -> None:
        pass

    def emit(self, kind: str, data: str) -> None:
        event = json.loads(data)
        assert conforms(event, EVENT_DATA[kind]) == [], (kind, event)
        self.events.append((kind, event))

    def draft(self, data: str) -> None:
        heard_draft(json.loads(data), self.events, self.thoughts)

    async def callTool(self, data: str) -> str:
        request = json.loads(data)
        assert conforms(request, PAYLOADS["callTool"]) == [], request
        self.tool_calls.append((request["name"], json.dumps(request["arguments"])))
        return json.dumps("22°C")  # the page's answer, as JSON text

    async def storage(self, data: str) -> str:
        """The page's localStorage, as `static/storage.js` answers the worker."""
        request = json.loads(data)
        assert conforms(request, PAYLOADS["storage"]) == [], request
        if request["op"] == "readAll":
            return json.dumps(await self.store.read_all(request["prefix"]))
        if request["op"] == "get":
            return json.dumps(await self.store.get(request["key"]))
        changes = [tuple(change) for change in request["changes"]]
        await self.store.write(changes, request["expect"])
        return json.dumps("ok")

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.events]


def call(bridge: Bridge, operation: str, **arguments: Any) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads(run(bridge.call(operation, json.dumps(arguments))))
    return reply


def started(host: FakeHost, **config: Any) -> Bridge:
    offered = [{"id": "demo"}, {"id": "mini"}]
    bridge = Bridge(host, json.dumps({"history": "memory", "models": offered, **config}))
    state = json.loads(run(bridge.start()))
    assert state["meta"]["model"] == "demo" and state["messages"] == []
    return bridge


def streamed(text: str, parts: int) -> list[list[Any]]:
    size = max(1, len(text) // parts)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return [[text_chunk(piece)] for piece in pieces] + [[text_chunk("", "stop")]]


def test_the_operations_are_the_facades_public_async_methods() -> None:
    public = {
        name
        for facade in (Conversations, SyncedHistory, ToolOperations, ShareOperations)
        for name, member in vars(facade).items()
        if not name.startswith("_") and inspect.iscoroutinefunction(member)
    }  # fmt: skip
    assert {snake_case(operation) for operation in OPERATIONS} == public
    assert OPERATIONS["startSync"] == {"code": "string?", "pairing": "string?"}
    assert {snake_case(op) for op in SYNC_OPERATIONS} == {
        name for name in vars(SyncedHistory) if not name.startswith("_")
        and inspect.iscoroutinefunction(vars(SyncedHistory)[name])}  # fmt: skip
    assert OPERATIONS["send"] == {"text": "string", "attachments": "array?"}
    assert OPERATIONS["allowTool"] == {"name": "string", "allowed": "boolean"}
    assert OPERATIONS["rename"] == {"conversationId": "string", "title": "string"}
    assert OPERATIONS["restore"] == {"snapshot": "any"}
    assert OPERATIONS["registerTool"]["parameters"] == "object?"


class _Facade:
    """A facade as an operation's author might write it, to read its table."""

    async def tag(
        self, name: str, *, weight: int | None = None, labels: list[str] | None = None
    ) -> None: ...


def test_shapes_are_read_from_the_hints_text_keyword_only_arguments_too() -> None:
    assert table(_Facade) == {"tag": {"name": "string", "weight": "integer?", "labels": "array?"}}


def test_a_hint_with_no_json_shape_fails_the_import_naming_it() -> None:
    class Facade:
        async def move(self, to: tuple[int, int]) -> None: ...

    with pytest.raises(TypeError, match=r'the type hint "tuple\[int, int\]" has no JSON shape'):
        table(Facade)


def test_the_page_uses_only_declared_operations_and_every_one_is_used() -> None:
    if not STATIC.is_dir():
        pytest.skip("the static folder is not mounted here")
    sources = "\n".join(p.read_text() for p in STATIC.glob("*.js"))
    used = set(re.findall(r'(?:call|act|#call)\("(\w+)"|op: "(\w+)"', sources))
    used = {called or posted for called, posted in used}
    assert used == set(OPERATIONS), (used - set(OPERATIONS), set(OPERATIONS) - used)


def test_arguments_of_the_wrong_shape_are_a_bug_not_a_person_s_mistake() -> None:
    assert check_arguments("retry", {"index": 2}) == {"index": 2}
    assert check_arguments("send", {"text": "hi"}) == {"text": "hi", "attachments": None}
    for operation, arguments in [("retry", {"index": "2"}), ("retry", {"index": True}),
                                 ("nope", {}), ("send", {"text": "x", "extra": 1}),
                                 ("open", [])]:  # fmt: skip
        with pytest.raises(TypeError):
            check_arguments(operation, arguments)
    host = FakeHost()
    error = call(started(host), "retry", index="2")["error"]
    assert error["message"] == TEXTS["bug"] and error["code"] == "bug"
    assert "index must be integer" in error["bug"]


def test_a_person_s_mistake_answers_its_message() -> None:
    bridge = started(FakeHost())
    assert call(bridge, "setHistory", messages=[{"role": "robot", "content": "x"}]) == {
        "error": {
            "message": 'message at index 0 has unknown role "robot"',
            "code": "",
            "params": {},
        }
    }
    assert call(bridge, "setModel", model="gpt-9") == {
        "error": {
            "message": 'The model "gpt-9" is not offered here.',
            "code": "model_not_offered",
            "params": {"model": "gpt-9"},
        }
    }
    assert call(bridge, "rename", conversationId="x", title=" ") == {
        "error": {
            "message": "A title needs at least one character.",
            "code": "title_empty",
            "params": {},
        }
    }


def test_a_turn_reaches_the_page_as_events_and_its_reply_only_settles_it() -> None:
    host = FakeHost(streamed("Hello there", 3))
    bridge = started(host)
    assert call(bridge, "send", text="Hi") == {"result": None}
    assert "".join(d[1] for k, d in host.events if k == "draft" and d) == "Hello there"
    assert [d["at"] for k, d in host.events if k == "messages"] == [0, 1]
    assert call(bridge, "getHistory")["result"][1] == {
        "role": "assistant",
        "content": "Hello there",
    }


def test_tools_run_on_the_page() -> None:
    host = FakeHost([[call_chunk("c1", "get_weather", '{"city": "Paris"}')]],
                    streamed("It is 22°C.", 2))  # fmt: skip
    bridge = started(host)
    call(bridge, "registerTool", name="get_weather", description="Weather", parameters=None)
    call(bridge, "send", text="Weather in Paris?")
    assert host.tool_calls == [("get_weather", '{"city": "Paris"}')]
    assert call(bridge, "getHistory")["result"][2]["content"] == "22°C"


@pytest.mark.skipif(
    IN_PYODIDE, reason="interleaving two calls needs asyncio.run, which Pyodide in Node lacks"
)
def test_stop_before_switching_is_python_s_rule() -> None:
    host = FakeHost(streamed("x " * 500, 500))
    bridge = started(host)

    async def send_then_switch() -> tuple[dict[str, Any], bool]:
        turn = asyncio.ensure_future(bridge.call("send", json.dumps({"text": "long"})))
        while "draft" not in host.kinds():
            await asyncio.sleep(0)
        switched = json.loads(await bridge.call("restore", json.dumps({"snapshot": None})))
        return switched, turn.done()

    switched, settled_first = asyncio.run(send_then_switch())
    assert settled_first and switched == {"result": None}
    assert "stopping" in host.kinds()
    assert call(bridge, "getHistory")["result"] == []
    added = [m for kind, data in host.events if kind == "messages" for m in data["add"]]
    assert added[-1] == {"role": "assistant", "content": "", "error": STOPPED,
                         "error_code": "stopped", "error_params": {}}  # fmt: skip


PROVIDERS = [{"id": "openai/gpt-4o-mini", "provider": "openai"},
             {"id": "openai/gpt-4o", "provider": "openai"},
             {"id": "local/Qwen/Qwen2.5-7B", "provider": "local"}]  # fmt: skip


def test_with_several_providers_a_snapshot_keeps_provider_and_model_apart() -> None:
    host = FakeHost(streamed("Hello", 1))
    requests: list[dict[str, Any]] = []
    opened = host.openStream
    host.openStream = lambda body: (requests.append(json.loads(body)), opened(body))[1]  # type: ignore[method-assign]
    bridge = Bridge(host, json.dumps({"history": "memory", "models": PROVIDERS}))
    state = json.loads(run(bridge.start()))
    assert (state["meta"]["model"], state["meta"]["provider"]) == ("openai/gpt-4o-mini", "openai")
    call(bridge, "setModel", model="local/Qwen/Qwen2.5-7B")
    call(bridge, "send", text="hi")
    assert requests[0]["model"] == "local/Qwen/Qwen2.5-7B"  # the id the server routes by
    saved = call(bridge, "save")["result"]
    assert (saved["provider"], saved["model"]) == ("local", "Qwen/Qwen2.5-7B")
    call(bridge, "restore", snapshot=None)
    assert call(bridge, "save")["result"]["provider"] == "openai"
    call(bridge, "restore", snapshot=saved)
    assert [d for k, d in host.events if k == "meta"][-1]["model"] == "local/Qwen/Qwen2.5-7B"


def test_a_conversation_on_a_model_no_longer_offered_opens_on_the_default_with_a_notice() -> None:
    host = FakeHost()
    bridge = Bridge(host, json.dumps({"history": "memory", "models": PROVIDERS}))
    run(bridge.start())
    snapshot = {"version": 1, "id": "old", "title": "Old", "created": 1, "updated": 2,
                "provider": "retired", "model": "gpt-3", "thinking": "off",
                "messages": [{"role": "user", "content": "hi"},
                             {"role": "assistant", "content": "hello"}]}  # fmt: skip
    call(bridge, "restore", snapshot=snapshot)
    [notice] = [data for kind, data in host.events if kind == "alert"]
    assert '"retired/gpt-3", which is no longer offered' in notice["message"]
    assert notice["code"] == "model_gone" and notice["params"]["gone"] == "retired/gpt-3"
    assert '"openai/gpt-4o-mini"' in notice["message"]
    saved = call(bridge, "save")["result"]
    assert (saved["provider"], saved["model"]) == ("openai", "gpt-4o-mini")
    assert call(bridge, "setModel", model="retired/gpt-3")["error"]["message"].startswith(
        "The model"
    )


def reloaded_mid_answer(host: FakeHost) -> Bridge:
    """A widget starting over a store that holds a question whose answer the server was
    still writing under turn "T1" when the page went away."""
    asked = Session()
    asked.set_history([{"role": "user", "content": "Why tides?"}])
    run(History(host.store).keep(asked.conversation.snapshot(), pending="T1"))
    return Bridge(host, json.dumps({"history": "local", "models": [{"id": "demo"}]}))


def test_after_a_reload_the_page_is_told_to_pick_the_answer_up_and_sees_it_stream() -> None:
    host = FakeHost()
    host.kept["T1"] = streamed("Tides come from the moon.", 3)
    bridge = reloaded_mid_answer(host)
    state = json.loads(run(bridge.start()))
    assert state["meta"]["unfinished"] is True
    assert [m["content"] for m in state["messages"]] == ["Why tides?"]

    assert call(bridge, "pickUp") == {"result": None}
    drafts = "".join(d[1] for k, d in host.events if k == "draft" and d)
    assert drafts == "Tides come from the moon."
    assert host.resumed == ["T1"]
    assert [d for k, d in host.events if k == "meta"][-1]["unfinished"] is False
    assert call(bridge, "getHistory")["result"][-1] == {
        "role": "assistant",
        "content": "Tides come from the moon.",
    }
    assert call(bridge, "pickUp") == {"result": None} and host.resumed == ["T1"]  # once


def test_an_answer_no_longer_kept_is_alerted_and_kept_as_interrupted() -> None:
    host = FakeHost()
    bridge = reloaded_mid_answer(host)
    run(bridge.start())
    assert call(bridge, "pickUp") == {"result": None}
    [alert] = [d for k, d in host.events if k == "alert"]
    assert alert["message"] == "This answer is no longer kept on the chat server."
    assert call(bridge, "getHistory")["result"][-1]["error"] == alert["message"]


WRITES = ("syncPush", "syncDelete")  # (their item beside the request, as JSON text)


class RecordingWorker:
    """The worker's sync calls, answering as static/sync-client.js does, recording requests."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, Any]] = []

    def __getattr__(self, method: str) -> Any:
        async def call(text: str, *item: str) -> str:
            self.asked.append((method, json.loads(text)))
            assert [json.loads(i) for i in item] == ([{"v": 1}] if method in WRITES else [])
            answers = {"syncPull": {"items": [], "cursor": 0, "more": False},
                       "syncPullMoved": []}  # fmt: skip
            written = {"item": "i", "rev": 1, "written": True}
            return json.dumps(answers.get(method, written if "Pu" in method or method
                                          in ("syncDelete", "syncDrop") else "print"))  # fmt: skip

        return call


def test_every_sync_call_python_makes_is_what_the_worker_declares() -> None:
    """The 13 callbacks on an untyped `worker` (version 1) had no declared requests: each is
    declared now (`SYNC_CALLS`, the same in static/protocol.js) and checked as it is sent."""
    from widget.protocol import SYNC_CALLS
    from widget.sync.worker import WorkerSync

    worker = RecordingWorker()
    sync = WorkerSync(worker, lambda exc: None)
    payload = {"v": 1}
    run(sync.open("secret", "chatkeep", True))
    run(sync.known_before("secret"))
    run(sync.resume("chatkeep"))
    run(sync.forget("chatkeep"))
    run(sync.listen())
    run(sync.pull(0))
    run(sync.push("c", None, 1, payload))
    run(sync.push("c", 3, 2, payload, "tail-word"))
    run(sync.delete("c", 4, 3, payload))
    run(sync.drop("item", 5))
    run(sync.moving())
    run(sync.pull_moved())
    run(sync.moved())
    run(sync.wipe())
    run(sync.pair("secret"))
    run(sync.unpair("id.key"))
    assert {method for method, _ in worker.asked} == set(SYNC_CALLS)
    for method, request in worker.asked:
        assert conforms(request, SYNC_CALLS[method]) == [], method
    with pytest.raises(TypeError, match="syncPull sent what it does not declare"):
        run(sync._ask("syncPull", {"since": "0"}))


def test_items_cross_as_the_json_text_python_wrote_and_python_reads() -> None:
    """Each conversion has one owner: Python writes and reads an item's JSON; the worker only
    compresses, seals and carries the text (no parse and stringify again in between)."""
    from widget.sync.worker import WorkerSync

    class Worker:
        async def syncPull(self, text: str) -> str:
            items = [{"item": "a", "rev": 1, "seq": 2, "payload": '{"v": 1, "x": "é"}'},
                     {"item": "b", "rev": 2, "seq": 1, "payload": "{not json"},
                     {"item": "c", "rev": 3, "seq": 0, "payload": None}]  # fmt: skip
            return json.dumps({"items": items, "cursor": 3, "more": False})

    page = run(WorkerSync(Worker(), lambda exc: None).pull(0))
    assert [(p.item, p.payload, p.readable, p.seq) for p in page.items] == [
        ("a", {"v": 1, "x": "é"}, True, 2),
        ("b", None, False, 1),  # sealed by someone with the key, but not JSON: not taken
        ("c", None, True, 0),  # a bare tombstone
    ]


def test_a_tool_allowed_for_a_conversation_is_kept_in_it_told_and_taken_back() -> None:
    host = FakeHost()
    bridge = started(host)
    call(bridge, "setHistory", messages=[{"role": "user", "content": "Book a table"}])
    assert call(bridge, "allowTool", name="book_table", allowed=True) == {"result": None}
    assert [d for k, d in host.events if k == "meta"][-1]["allowed"] == ["book_table"]
    saved = call(bridge, "save")["result"]
    assert saved["allowed_tools"] == ["book_table"]  # in its snapshot

    call(bridge, "restore", snapshot=None)  # another conversation asks again
    assert [d for k, d in host.events if k == "meta"][-1]["allowed"] == []
    call(bridge, "restore", snapshot=saved)
    assert [d for k, d in host.events if k == "meta"][-1]["allowed"] == ["book_table"]
    call(bridge, "allowTool", name="book_table", allowed=False)
    assert [d for k, d in host.events if k == "meta"][-1]["allowed"] == []
    assert "allowed_tools" not in call(bridge, "save")["result"]
