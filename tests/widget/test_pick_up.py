"""Answers that survive a reload: the widget's half.

The server names an answer it keeps for a reload (a turn id, with Redis); the widget stores
the question with that id at once, and after a reload opens that conversation again and
picks the answer up where the server has it, storing it complete once it is.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from scripted import Heard, answer, pause, run, text_chunk

from widget import Session, TurnError
from widget.conversations import Conversations
from widget.errors import STOPPED
from widget.history import History
from widget.key_value import MemoryKeyValue
from widget.protocol import TURN_KEY


class KeepingServer:
    """A transport like the worker's against a server with Redis: each answer is named by a
    turn id first, and kept whole under it, whatever happens to the page that asked."""

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.kept: dict[str, str] = {}
        self.requests: list[dict[str, Any]] = []
        self.resumed: list[str] = []
        #: called after the n-th batch of a new answer (a reload in the middle of it)
        self.after_batch: tuple[int, Callable[[], None]] | None = None

    async def complete(self, request: dict[str, Any]) -> AsyncIterator[list[Any]]:
        self.requests.append(request)
        turn = f"turn-{len(self.requests)}"
        text = self.kept[turn] = self.texts.pop(0)
        yield [{TURN_KEY: turn}]
        for number, batch in enumerate(answer(text), start=1):
            await pause()
            yield batch
            if self.after_batch and self.after_batch[0] == number:
                self.after_batch[1]()

    async def resume(self, turn: str) -> AsyncIterator[list[Any]]:
        self.resumed.append(turn)
        if turn not in self.kept:
            raise TurnError("This answer is no longer kept on the chat server.")
        for batch in answer(self.kept[turn]):
            await pause()
            yield batch

    def cancel(self) -> None:
        """A stop: the session reads no further batch."""


class Tabs:
    """Web Locks as the worker takes them: one tab (or worker) holds a turn at a time."""

    def __init__(self) -> None:
        self.held: dict[str, str] = {}

    def of(self, tab: str) -> TabLocks:
        return TabLocks(self, tab)

    def reload(self, tab: str) -> None:
        self.held = {turn: holder for turn, holder in self.held.items() if holder != tab}


class TabLocks:
    """One tab's side of `Tabs`: a `widget.claims.Locks`."""

    def __init__(self, tabs: Tabs, tab: str) -> None:
        self.tabs, self.tab = tabs, tab

    async def claim(self, turn: str) -> bool:
        return self.tabs.held.setdefault(turn, self.tab) == self.tab

    def release(self, turn: str) -> None:
        if self.tabs.held.get(turn) == self.tab:
            del self.tabs.held[turn]


def open_tab(
    store: MemoryKeyValue, server: KeepingServer, tabs: Tabs, name: str = "a"
) -> tuple[Conversations, list[str]]:
    alerts: list[str] = []
    ticks = iter(range(1, 10**6))
    conversations = Conversations(
        Session(clock=lambda: next(ticks)), History(store), server,
        listener=Heard(alerts), locks=tabs.of(name),
    )  # fmt: skip
    run(conversations.keeper.start())
    return conversations, alerts


def reload_mid_answer(server: KeepingServer, tabs: Tabs) -> tuple[MemoryKeyValue, str]:
    """Send a question; the page goes away after the first half of the answer. Returns the
    storage as it was at that moment (what a reload finds) and the conversation's id."""
    store = MemoryKeyValue()
    tab, _ = open_tab(store, server, tabs)
    survived = MemoryKeyValue()

    def gone() -> None:
        survived.data = dict(store.data)

    server.after_batch = (1, gone)
    run(tab.send("Tell me about tides"))  # this page's own ending is never stored
    server.after_batch = None
    tabs.reload("a")
    return survived, tab.conversation.id


def metas(store: MemoryKeyValue) -> list[dict[str, Any]]:
    return [json.loads(v) for k, v in store.data.items() if ":meta:" in k]


def test_the_question_is_stored_with_the_turn_id_as_the_answer_starts() -> None:
    server, tabs = KeepingServer("The moon pulls the sea."), Tabs()
    store, conversation = reload_mid_answer(server, tabs)
    [meta] = metas(store)
    assert meta["pending"] == "turn-1"
    stored = json.loads(store.data[f"chatkeep:conv:{conversation}"])
    assert stored["messages"] == [{"role": "user", "content": "Tell me about tides"}]


def test_after_a_reload_the_answer_is_picked_up_and_stored_complete() -> None:
    server, tabs = KeepingServer("The moon pulls the sea."), Tabs()
    store, conversation = reload_mid_answer(server, tabs)

    tab, alerts = open_tab(store, server, tabs)
    assert tab.conversation.id == conversation  # opened again, not a new conversation
    assert tab.keeper.unfinished == "turn-1"
    run(tab.pick_up())
    settled = tab.session.get_history()[-1]

    assert settled == {"role": "assistant", "content": "The moon pulls the sea."}
    assert len(server.requests) == 1 and server.resumed == ["turn-1"]  # asked once
    assert [m["role"] for m in tab.session.get_history()] == ["user", "assistant"]
    [meta] = metas(store)
    assert "pending" not in meta and meta["size"] == 2
    assert alerts == [] and tabs.held == {}  # the claim is given back
    # A second reload finds nothing to pick up.
    again, _ = open_tab(store, server, tabs)
    assert again.keeper.unfinished is None and run(again.pick_up()) is None


def test_a_second_tab_leaves_an_answer_another_tab_is_reading() -> None:
    server, tabs = KeepingServer("Tides."), Tabs()
    store, conversation = reload_mid_answer(server, tabs)
    reading, _ = open_tab(store, server, tabs, "a")
    assert reading.keeper.unfinished == "turn-1"

    other, _ = open_tab(store, server, tabs, "b")
    assert other.conversation.id != conversation and other.keeper.unfinished is None
    run(other.open(conversation))  # opened by hand: shown, but not picked up twice
    assert other.keeper.unfinished is None
    run(reading.pick_up())
    assert server.resumed == ["turn-1"]


def test_an_answer_the_server_no_longer_has_is_kept_as_interrupted() -> None:
    server, tabs = KeepingServer("Tides."), Tabs()
    store, _ = reload_mid_answer(server, tabs)
    server.kept.clear()  # expired, or a server without Redis

    tab, alerts = open_tab(store, server, tabs)
    run(tab.pick_up())
    settled = tab.session.get_history()[-1]

    assert alerts == [settled["error"]] and "no longer kept" in settled["error"]  # alerted
    [meta] = metas(store)
    assert "pending" not in meta  # never tried again
    assert tab.session.get_history()[-1]["error"] == settled["error"]


def test_stop_while_picking_up_ends_it_as_stopped() -> None:
    server, tabs = KeepingServer("A long answer about tides."), Tabs()
    store, _ = reload_mid_answer(server, tabs)
    tab, _ = open_tab(store, server, tabs)
    tab.conversation.subscribe(lambda kind: tab.session.stop() if kind == "draft" else None)
    run(tab.pick_up())
    assert tab.session.get_history()[-1]["error"] == STOPPED
    assert "pending" not in metas(store)[0]


def test_a_turn_id_never_reaches_the_answer_or_the_snapshot() -> None:
    store, server, tabs = MemoryKeyValue(), KeepingServer("Plain text."), Tabs()
    tab, _ = open_tab(store, server, tabs)
    run(tab.send("Hi"))
    assert tab.session.get_history()[-1] == {"role": "assistant", "content": "Plain text."}
    assert "pending" not in tab.conversation.snapshot().to_dict()
    assert "pending" not in metas(store)[0] and tabs.held == {}


def test_an_opened_conversation_with_an_unfinished_answer_is_picked_up() -> None:
    server, tabs = KeepingServer("Tides.", "Other."), Tabs()
    store, conversation = reload_mid_answer(server, tabs)
    tab, _ = open_tab(store, server, tabs)
    run(tab.restore(None))  # left before picking up: the claim goes back, the turn stays stored
    assert tabs.held == {}
    run(tab.open(conversation))
    assert tab.keeper.unfinished == "turn-1"
    run(tab.pick_up())
    assert tab.session.get_history()[-1] == {"role": "assistant", "content": "Tides."}


def test_without_a_turn_id_nothing_changes() -> None:
    store = MemoryKeyValue()
    conversations = Conversations(Session(), History(store), Plain(), listener=Heard())
    run(conversations.keeper.start())
    run(conversations.send("Hi"))
    assert conversations.keeper.unfinished is None and "pending" not in metas(store)[0]


class Plain:
    """A server without Redis: no turn ids."""

    async def complete(self, request: dict[str, Any]) -> AsyncIterator[list[Any]]:
        await pause()
        yield [text_chunk("Hello", "stop")]

    async def resume(self, turn: str) -> AsyncIterator[list[Any]]:
        raise AssertionError("never asked without a turn id")
        yield []

    def cancel(self) -> None:
        pass
