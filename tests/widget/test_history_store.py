"""Kept conversations: keys, limits, a full store, two tabs, unreadable entries."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from scripted import Heard, ScriptedTransport, answer, listing, run

from widget import Session
from widget.conversation import Conversation
from widget.conversations import Conversations
from widget.history import History
from widget.key_value import Conflict, MemoryKeyValue, StorageFull
from widget.snapshots import from_dict


def conversation(text: str, updated: int, size: int = 10) -> Conversation:
    clock = iter(range(updated, updated + 1000))
    made = Conversation(clock=lambda: next(clock))
    made.set_history(
        [{"role": "user", "content": text}, {"role": "assistant", "content": "x" * size}]
    )
    return made


def test_keys_are_prefixed_and_per_conversation() -> None:
    store = MemoryKeyValue()
    store.data["unrelated"] = "keep me"
    history = History(store, prefix="app")
    session = conversation("hello", 5)
    run(history.keep(session.snapshot()))
    assert set(store.data) == {"unrelated", f"app:meta:{session.id}", f"app:conv:{session.id}"}
    assert json.loads(store.data[f"app:conv:{session.id}"])["messages"][0]["content"] == "hello"
    assert store.data["unrelated"] == "keep me"


def test_the_list_is_newest_first_and_survives_a_reload() -> None:
    store = MemoryKeyValue()
    history = History(store)
    sessions = [conversation(f"chat {i}", 100 * i) for i in (1, 3, 2)]
    for session in sessions:
        run(history.keep(session.snapshot()))
    reloaded = History(store)
    run(reloaded.load())
    assert [e.title for e in reloaded.entries()] == ["chat 3", "chat 2", "chat 1"]
    snapshot = run(reloaded.read(sessions[0].id))
    assert snapshot is not None and snapshot["messages"][0]["content"] == "chat 1"


def test_past_the_limit_the_oldest_go_first() -> None:
    store = MemoryKeyValue()
    history = History(store, limit=20)
    for i in range(21):
        run(history.keep(conversation(f"chat {i}", 10 * (i + 1)).snapshot()))
    titles = [e.title for e in history.entries()]
    assert len(titles) == 20
    assert "chat 0" not in titles and titles[0] == "chat 20"
    assert len(store.data) == 40


def test_a_full_store_gives_up_the_oldest_until_the_live_one_fits() -> None:
    store = MemoryKeyValue(quota=3000)
    history = History(store)
    old = [conversation(f"old {i}", i + 1, size=600) for i in range(4)]
    for session in old:
        run(history.keep(session.snapshot()))
    live = conversation("live", 100, size=1200)
    run(history.keep(live.snapshot()))
    titles = [e.title for e in history.entries()]
    assert titles[0] == "live"
    assert "old 0" not in titles and "old 3" in titles


def test_a_conversation_too_large_alone_is_refused_and_nothing_is_damaged() -> None:
    store = MemoryKeyValue(quota=2000)
    history = History(store)
    kept = conversation("kept", 1, size=500)
    run(history.keep(kept.snapshot()))
    before = dict(store.data)
    huge = conversation("huge", 5, size=5000)
    with pytest.raises(StorageFull, match="too large for this browser's storage"):
        run(history.keep(huge.snapshot()))
    assert store.data == before  # what was given up trying was put back
    assert [e.title for e in history.entries()] == ["kept"]


def test_unreadable_entries_are_skipped_and_left_untouched() -> None:
    store = MemoryKeyValue()
    good = conversation("good", 1)
    run(History(store).keep(good.snapshot()))
    planted = {
        "chatkeep:meta:corrupt": "{not json",
        "chatkeep:meta:truncated": '{"v": 1, "title": "Trunc',
        "chatkeep:meta:newer": json.dumps({"v": 2, "title": "Future", "updated": 9, "rev": "r"}),
        "chatkeep:meta:edited": json.dumps({"v": 1, "title": 5, "updated": "soon", "rev": "r"}),
        "chatkeep:meta:badconv": json.dumps({"v": 1, "title": "Bad", "updated": 3, "rev": "r"}),
        "chatkeep:conv:badconv": '{"version": 1, "messages": "nope"}',
    }
    store.data.update(planted)
    history = History(store)
    run(history.load())
    assert [e.title for e in history.entries()] == ["Bad", "good"]
    assert run(history.read("badconv")) is None
    for key, value in planted.items():
        assert store.data[key] == value


def test_two_tabs_continuing_one_conversation_lose_no_turns() -> None:
    store = MemoryKeyValue()
    tab_a, tab_b = History(store), History(store)
    session = conversation("shared", 1)
    run(tab_a.keep(session.snapshot()))
    run(tab_b.load())
    snapshot = run(tab_b.read(session.id))
    assert snapshot is not None
    a_turn = session.snapshot().with_messages(
        [*session.snapshot().messages, {"role": "user", "content": "from A"}]
    )
    b_turn = session.snapshot().with_messages(
        [*session.snapshot().messages, {"role": "user", "content": "from B"}]
    )
    assert run(tab_a.keep(a_turn)).id == session.id
    b_id = run(tab_b.keep(b_turn)).id
    assert b_id != session.id  # B's version is kept as a new conversation
    contents = {
        m["content"]
        for key, text in store.data.items()
        if key.startswith("chatkeep:conv:")
        for m in json.loads(text)["messages"]
    }
    assert {"from A", "from B"} <= contents


def test_another_tabs_changes_reach_the_list() -> None:
    store = MemoryKeyValue()
    tab_a, tab_b = History(store), History(store)
    session = conversation("from A", 1)
    run(tab_a.keep(session.snapshot()))
    assert run(tab_b.changed(f"chatkeep:meta:{session.id}")) is True
    assert [e.title for e in tab_b.entries()] == ["from A"]
    run(tab_a.forget(session.id))
    assert run(tab_b.changed(f"chatkeep:meta:{session.id}")) is True
    assert tab_b.entries() == []
    assert run(tab_b.changed("other:key")) is False


# -- when the live conversation is stored ---------------------------------------------------


def make(
    generate_title: bool = False, *answers: list[object]
) -> tuple[Conversations, MemoryKeyValue]:
    store = MemoryKeyValue()
    alerts: list[str] = []
    ticks = iter(range(1, 10**6))
    conversations = Conversations(
        Session(clock=lambda: next(ticks)),
        History(store),
        ScriptedTransport(*answers),
        generate_title=generate_title,
        listener=Heard(alerts),
    )
    run(conversations.keeper.start())
    return conversations, store


def stored_conversations(store: MemoryKeyValue) -> list[dict[str, object]]:
    return [json.loads(v) for k, v in store.data.items() if ":conv:" in k]


def test_each_settled_turn_is_stored_and_empty_ones_never_are() -> None:
    conversations, store = make(False, answer("Hi Alice"), answer("Alice"))
    run(conversations.restore(None))
    assert store.data == {}
    run(conversations.send("My name is Alice"))
    [stored] = stored_conversations(store)
    assert [m["content"] for m in stored["messages"]] == ["My name is Alice", "Hi Alice"]  # type: ignore[index]
    run(conversations.send("What is my name?"))
    [stored] = stored_conversations(store)
    assert len(stored["messages"]) == 4  # type: ignore[arg-type]


def test_a_generated_title_is_stored_and_a_failed_one_keeps_the_derived() -> None:
    conversations, store = make(True, answer("Hello!"), answer("Greeting Alice"))
    run(conversations.send("Hi, I am Alice"))
    assert listing(conversations)[0]["title"] == "Greeting Alice"
    assert stored_conversations(store)[0]["title"] == "Greeting Alice"
    failing, store = make(True, answer("Hello!"))
    run(failing.send("Plan a picnic"))
    assert listing(failing)[0]["title"] == "Plan a picnic"


class FullOnce(MemoryKeyValue):
    """A store that refuses one write as full (another tab had just filled it), once `full`
    writes from now have gone through."""

    full: int | None = None

    async def write(self, changes: Any, expect: Any = None) -> None:
        if self.full is not None:
            self.full -= 1
            if self.full < 0:
                self.full = None
                raise StorageFull("full, for now")
        await super().write(changes, expect)


def test_opening_the_oldest_conversation_of_a_full_store_never_gives_it_up() -> None:
    # Leaving the open conversation stores it; with the store full that gives up the oldest
    # other one, which must not be the one being opened (it would then be kept nowhere).
    store = FullOnce()
    history = History(store)
    oldest, newer = conversation("oldest", 1), conversation("newer", 2)
    for made in (oldest, newer):
        run(history.keep(made.snapshot()))
    alerts: list[str] = []
    tab = Conversations(Session(clock=iter(range(100, 10**6)).__next__), history,
                        ScriptedTransport(answer("Hello")), listener=Heard(alerts))  # fmt: skip
    run(tab.keeper.start())
    run(tab.send("live"))
    live = tab.conversation.id
    store.full = 0
    run(tab.open(oldest.id))
    assert tab.conversation.id == oldest.id and not alerts
    reloaded = History(store)
    run(reloaded.load())
    assert {e.title for e in reloaded.entries()} == {"oldest", "live"}  # "newer" made room
    assert run(reloaded.read(oldest.id)) is not None and run(reloaded.read(live)) is not None


def test_forking_in_a_full_store_never_gives_up_the_conversation_forked() -> None:
    store = FullOnce()
    answers = ScriptedTransport(answer("one"), answer("two"))
    tab = Conversations(Session(clock=iter(range(100, 10**6)).__next__), History(store),
                        answers, listener=Heard())  # fmt: skip
    run(tab.keeper.start())
    run(tab.send("first"))
    run(tab.send("second"))
    forked = tab.conversation.id
    run(History(store).keep(conversation("newer", 10**7).snapshot()))
    run(tab.storage_changed(next(k for k in store.data if ":meta:" in k and forked not in k)))
    store.full = 1  # storing the fork finds the store full
    assert run(tab.fork(2)) == "second"
    reloaded = History(store)
    run(reloaded.load())
    assert [e.title for e in reloaded.entries()] == ["first", "first"]  # "newer" made room
    assert run(reloaded.read(forked)) is not None


def test_new_open_forget_and_fork() -> None:
    conversations, _ = make(False, answer("one"), answer("two"), answer("three"))
    run(conversations.send("first chat"))
    first = conversations.conversation.id
    run(conversations.restore(None))
    run(conversations.send("second chat"))
    run(conversations.send("more"))
    second = conversations.conversation.id
    assert [e["id"] for e in listing(conversations)] == [second, first]
    run(conversations.open(first))
    assert conversations.session.get_history()[0]["content"] == "first chat"
    text = run(conversations.fork(0))
    assert text == "first chat" and conversations.conversation.is_empty
    run(conversations.open(second))
    text = run(conversations.fork(2))
    assert text == "more"
    assert len(listing(conversations)) == 3  # the fork holds the first turn of the second chat
    run(conversations.forget(conversations.conversation.id))
    assert conversations.conversation.is_empty
    assert len(listing(conversations)) == 2


def test_restore_is_strict_and_cuts_unanswered_calls() -> None:
    conversations, _ = make()
    call = {"id": "c", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    snapshot = {
        "version": 1, "id": "host1", "title": "From the host", "model": "m", "thinking": "low",
        "messages": [{"role": "user", "content": "weather?"},
                     {"role": "assistant", "content": None, "tool_calls": [call]}],
    }  # fmt: skip
    run(conversations.restore(snapshot))
    live = conversations.conversation
    assert (live.id, live.title, live.model, live.thinking) == (
        "host1",
        "From the host",
        "m",
        "low",
    )
    assert live.get_history() == [{"role": "user", "content": "weather?"}]
    with pytest.raises(ValueError, match="unsupported snapshot version"):
        run(conversations.restore({"version": 3, "messages": []}))
    assert live.id == "host1"


def test_rename_the_live_or_a_kept_conversation() -> None:
    conversations, store = make(False, answer("one"), answer("two"))
    run(conversations.send("first"))
    first = conversations.conversation.id
    run(conversations.rename(first, "  Live rename  "))
    assert conversations.conversation.title == "Live rename"
    run(conversations.restore(None))
    run(conversations.send("second"))
    run(conversations.rename(first, "Renamed while closed"))
    titles = {e["id"]: e["title"] for e in listing(conversations)}
    assert titles[first] == "Renamed while closed"
    assert json.loads(store.data[f"chatkeep:conv:{first}"])["title"] == "Renamed while closed"
    with pytest.raises(ValueError, match="at least one character"):
        run(conversations.rename(first, "   "))


def test_a_new_model_or_thinking_level_is_kept_at_once() -> None:
    conversations, store = make(False, answer("one"))
    run(conversations.set_model("demo-mini"))
    assert store.data == {}  # an empty conversation is never stored
    run(conversations.send("first"))
    run(conversations.set_thinking("high"))
    run(conversations.set_model("demo"))
    [stored] = stored_conversations(store)
    assert (stored["model"], stored["thinking"]) == ("demo", "high")
    with pytest.raises(ValueError, match="thinking must be one of"):
        run(conversations.set_thinking("extreme"))


def test_export_then_import_all_history() -> None:
    conversations, _ = make(False, answer("one"), answer("two"))
    run(conversations.send("first"))
    run(conversations.restore(None))
    run(conversations.send("second"))
    exported = run(conversations.export_all())
    data = json.loads(exported)
    assert data["format"] == "chatkeep-history" and data["version"] == 1
    assert [c["messages"][0]["content"] for c in data["conversations"]] == ["second", "first"]

    elsewhere, _ = make()
    assert run(elsewhere.import_all(exported)) == {"imported": 2, "skipped": 0}
    assert sorted(e["title"] for e in listing(elsewhere)) == ["first", "second"]
    assert run(elsewhere.import_all(exported))["imported"] == 0  # already kept, not newer
    single = json.dumps(data["conversations"][0])
    assert run(make()[0].import_all(single))["imported"] == 1


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("{nope", "not valid JSON"),
        ('{"format": "chatkeep-history", "conversations": 5}', 'no "conversations" array'),
        ('{"format": "chatkeep-history", "version": 999, "conversations": []}',
         "export of version 999, and this version of Chatkeep reads version 1 only"),
        ('{"format": "chatkeep-history", "version": "1", "conversations": []}', 'version "1"'),
        ('{"version": 999, "id": "a", "messages": [{"role": "user", "content": "x"}]}',
         "unsupported snapshot version 999"),
        (
            json.dumps({"format": "chatkeep-history", "conversations": [
                {"version": 1, "id": "a", "messages": [{"role": "user", "content": "ok"}]},
                {"version": 1, "id": "b", "messages": [{"role": "robot", "content": "x"}]},
            ]}),
            'conversation 2 of the file: message at index 0 has unknown role "robot"',
        ),
    ],
)  # fmt: skip
def test_a_bad_import_keeps_nothing(text: str, error: str) -> None:
    conversations, store = make()
    with pytest.raises(ValueError, match=error.replace("(", r"\(")):
        run(conversations.import_all(text))
    assert store.data == {}


class CountingStore(MemoryKeyValue):
    """Counts the trips history makes to the store (each one a round trip to the page)."""

    def __init__(self) -> None:
        super().__init__()
        self.trips: list[str] = []

    async def read_all(self, prefix: str) -> dict[str, str]:
        self.trips.append("read_all")
        return await super().read_all(prefix)

    async def get(self, key: str) -> str | None:
        self.trips.append("get")
        return await super().get(key)

    async def write(self, changes: Any, expect: Any = None) -> None:
        self.trips.append("write")
        await super().write(changes, expect)


def test_storing_a_turn_is_one_trip_even_past_the_limit() -> None:
    store = CountingStore()
    conversations = Conversations(
        Session(),
        History(store, limit=2),
        ScriptedTransport(*(answer(f"A{i}") for i in range(4))),
        listener=Heard(),
    )
    run(conversations.keeper.start())
    assert store.trips == ["read_all"]
    for number in range(3):
        store.trips.clear()
        run(conversations.send(f"Question {number}"))
        assert store.trips == ["write"]  # the turn, and dropping the oldest, in one batch
        run(conversations.restore(None))
    assert len(listing(conversations)) == 2


def test_a_batch_that_does_not_fit_changes_nothing() -> None:
    store = MemoryKeyValue(quota=100)
    store.data["other"] = "x" * 50
    with pytest.raises(StorageFull):
        run(store.write([("a", "y" * 10), ("b", "z" * 60)]))
    assert store.data == {"other": "x" * 50}
    with pytest.raises(Conflict):
        run(store.write([("a", "1")], {"other": "changed"}))
    assert store.data == {"other": "x" * 50}


def test_a_rename_while_the_title_is_generated_wins() -> None:
    transport = ScriptedTransport(answer("Hello"), answer("Generated name"))
    conversations = Conversations(Session(), History(MemoryKeyValue()), transport, listener=Heard(),
                                  generate_title=True)  # fmt: skip
    run(conversations.keeper.start())
    session = conversations.session
    # The person renames just as the title request streams its first batch.
    transport.on_batch = lambda: (
        run(conversations.rename(session.conversation.id, "My name for it"))
        if len(transport.requests) == 2 and not session.conversation.named
        else None
    )
    run(conversations.send("Hi"))
    assert session.conversation.title == "My name for it"
    assert listing(conversations)[0]["title"] == "My name for it"


def test_a_rename_in_another_tab_wins_and_makes_no_copy() -> None:
    store = MemoryKeyValue()
    transport = ScriptedTransport(answer("Hello"), answer("Generated name"), answer("More"))
    tab_a = Conversations(
        Session(), History(store), transport, generate_title=True, listener=Heard()
    )
    run(tab_a.keeper.start())
    run(tab_a.send("Hi"))
    tab_b = History(store)
    run(tab_b.load())
    [entry] = tab_b.entries()
    snapshot = from_dict(run(tab_b.read(entry.id)))
    run(tab_b.keep(replace(snapshot, title="Named in B"), named=True))
    run(tab_a.storage_changed(f"chatkeep:meta:{entry.id}"))  # the browser's storage event
    assert tab_a.conversation.title == "Named in B"
    run(tab_a.send("And then?"))  # A's next turn keeps B's name, in place
    assert [e["title"] for e in listing(tab_a)] == ["Named in B"]


def test_search_finds_words_in_titles_and_messages_reading_each_conversation_once() -> None:
    store = CountingStore()
    answers = [answer("Herons wait by the mill"), answer("Sourdough needs time"),
               answer("The river bends")]  # fmt: skip
    ticks = iter(range(1, 10**6))
    session = Session(clock=lambda: next(ticks))
    conversations = Conversations(
        session, History(store), ScriptedTransport(*answers), listener=Heard()
    )
    run(conversations.keeper.start())
    ids = []
    for question in ("Tell me about birds", "How do I bake bread?", "Where does it flow?"):
        run(conversations.send(question))
        ids.append(conversations.conversation.id)
        run(conversations.restore(None))
    birds, bread, river = ids
    assert run(conversations.search("HERONS")) == [birds]
    assert run(conversations.search("bread time")) == [bread]  # title and answer together
    assert run(conversations.search("the")) == [river, birds]  # newest first
    assert run(conversations.search("bread herons")) == []
    assert run(conversations.search("  ")) == [river, bread, birds]
    store.trips.clear()
    run(conversations.search("sourdough"))
    assert store.trips == []  # already read: searching as one types reads nothing


def tab_b_continues_tab_a_s_conversation() -> tuple[Conversations, MemoryKeyValue, str]:
    """Tab A asks a question and is answered; tab B, on the same store, adds a turn to it."""
    store = MemoryKeyValue()
    transport = ScriptedTransport(answer("One"), answer("Two"))
    tab_a = Conversations(Session(), History(store), transport, listener=Heard())
    run(tab_a.keeper.start())
    run(tab_a.send("Shared start"))
    shared = tab_a.conversation.id
    tab_b = History(store)
    run(tab_b.load())
    snapshot = from_dict(run(tab_b.read(shared)))
    more = [*snapshot.messages, {"role": "user", "content": "from B"},
            {"role": "assistant", "content": "answered in B"}]  # fmt: skip
    run(tab_b.keep(replace(snapshot.with_messages(more), updated=snapshot.updated + 1)))
    return tab_a, store, shared


def test_the_open_conversation_follows_another_tab_s_turns_when_nothing_here_is_unsaved() -> None:
    tab_a, store, shared = tab_b_continues_tab_a_s_conversation()
    run(tab_a.storage_changed(f"chatkeep:meta:{shared}"))  # the browser tells tab A
    assert [m["content"] for m in tab_a.session.get_history()][-1] == "answered in B"
    run(tab_a.send("from A"))  # A continues it: one conversation, every turn in it
    [stored] = [json.loads(v) for k, v in store.data.items() if ":conv:" in k]
    assert [m["content"] for m in stored["messages"]] == [
        "Shared start", "One", "from B", "answered in B", "from A", "Two"]  # fmt: skip


def test_searching_never_lets_this_tab_write_over_another_tab_s_turns() -> None:
    tab_a, store, _ = tab_b_continues_tab_a_s_conversation()  # (A not told: storage events lag)
    assert run(tab_a.search("answered")) == []  # the open one is searched as A holds it
    run(tab_a.send("from A"))  # A continues its own version
    texts = [m["content"] for text in store.data.values() if text.startswith("{\"version\"")
             for m in json.loads(text)["messages"]]  # fmt: skip
    assert "answered in B" in texts and "from A" in texts  # neither tab's turns were lost


def test_versions_of_an_edited_message_survive_export_and_import() -> None:
    conversations, _ = make(False, answer("Hi Alise"), answer("Hi Alice"))
    run(conversations.send("My name is Alise"))
    run(conversations.edit(0, "My name is Alice"))
    exported = run(conversations.export_all())
    other, _ = make(False)
    assert run(other.import_all(exported))["imported"] == 1
    [entry] = listing(other)
    run(other.open(entry["id"]))
    [first, _answer] = other.session.get_history()
    assert (first["content"], first["version"]) == ("My name is Alice", 2)
    assert first["versions"][0]["content"] == "My name is Alise"
    assert [m["content"] for m in first["versions"][0]["after"]] == ["Hi Alise"]


def test_pinned_conversations_come_first_and_outlive_the_limit() -> None:
    store = MemoryKeyValue()
    history = History(store, limit=3)
    first = conversation("keep this one", 10)
    run(history.keep(first.snapshot()))
    run(history.pin(first.id, True))
    for i in range(5):
        run(history.keep(conversation(f"chat {i}", 100 * (i + 1)).snapshot()))
    titles = [e.title for e in history.entries()]
    assert titles == ["keep this one", "chat 4", "chat 3", "chat 2"]  # the limit: 3 unpinned
    reloaded = History(store, limit=3)
    run(reloaded.load())
    assert [e.title for e in reloaded.entries()] == titles
    assert reloaded.entries()[0].pinned
    run(reloaded.pin(first.id, False))
    run(reloaded.keep(conversation("chat 5", 600).snapshot()))
    assert "keep this one" not in [e.title for e in reloaded.entries()]


def test_a_full_store_never_gives_up_a_pinned_conversation() -> None:
    store = MemoryKeyValue(quota=2_600)
    history = History(store)
    pinned = [conversation(f"pinned {i}", 10 * (i + 1), size=300) for i in range(2)]
    for session in pinned:
        run(history.keep(session.snapshot()))
        run(history.pin(session.id, True))
    loose = conversation("loose", 50, size=300)
    run(history.keep(loose.snapshot()))
    newer = conversation("newer", 60, size=300)
    run(history.keep(newer.snapshot()))  # the loose one makes room, the pinned ones stay
    assert [e.title for e in history.entries()] == ["pinned 1", "pinned 0", "newer"]
    before = dict(store.data)
    with pytest.raises(StorageFull, match="full of pinned conversations"):
        run(history.keep(conversation("too much", 70, size=900).snapshot()))
    assert store.data == before  # nothing lost, the person told what to do


def test_a_pin_in_another_tab_is_not_written_over() -> None:
    store = MemoryKeyValue()
    tab_a, tab_b = History(store), History(store)
    session = conversation("shared", 10)
    run(tab_a.keep(session.snapshot()))
    run(tab_b.load())
    run(tab_b.pin(session.id, True))
    session.set_history([*session.get_history(), {"role": "user", "content": "more"}])
    run(tab_a.keep(session.snapshot()))  # tab A saw no pin: it keeps it all the same
    reloaded = History(store)
    run(reloaded.load())
    [entry] = [e for e in reloaded.entries() if e.title == "shared"]
    assert entry.pinned


def test_pin_through_the_facade_keeps_the_open_conversation_first() -> None:
    heard = Heard()
    conversations = Conversations(Session(), History(MemoryKeyValue()),
                                  ScriptedTransport(answer("Hi")), listener=heard)  # fmt: skip
    run(conversations.keeper.start())
    run(conversations.send("Hello"))
    run(conversations.pin(conversations.conversation.id, True))
    assert heard.entries[0].pinned and heard.entries[0].id == conversations.conversation.id
