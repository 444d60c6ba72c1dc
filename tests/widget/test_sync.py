"""Synced history's merge rules: two devices on one fake server (`sync_fakes`)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from scripted import Heard, ScriptedTransport, listing, run
from sync_fakes import Device, FakeRemote, FakeServer, held, seal, sealed_deletion

from widget import Session
from widget.conversations import Conversations
from widget.errors import WidgetError
from widget.history import History
from widget.key_value import MemoryKeyValue, StorageFull
from widget.protocol import EVENT_DATA, conforms, storage_key
from widget.snapshots import from_dict
from widget.sync.codes import new_code
from widget.sync.remote import Page, Pushed
from widget.sync.rounds import MAX_PAGES, MAX_ROUNDS
from widget.sync.state import Synced, SyncState
from widget.sync.synced import SyncedHistory
from widget.sync.versions import PAYLOAD_VERSION


@pytest.fixture
def server() -> FakeServer:
    return FakeServer()


def on_both_devices(server: FakeServer, text: str = "Plans") -> tuple[Device, Device, str]:
    """A conversation kept on the laptop, and synced to the phone."""
    laptop, phone = Device(server), Device(server)
    kept = laptop.keep(text)
    laptop.sync()
    phone.sync()
    return laptop, phone, kept


def test_a_conversation_kept_on_one_device_is_on_the_other_after_its_sync(
    server: FakeServer,
) -> None:
    laptop, phone = Device(server), Device(server)
    kept = laptop.keep("Tides")
    laptop.rename(kept, "Moon and sea")
    run(laptop.history.pin(kept, True))
    laptop.sync()
    phone.sync()
    entry = phone.history.entry(kept)
    assert entry is not None and entry.pinned and entry.named and entry.title == "Moon and sea"
    stored = run(phone.history.read(kept))
    assert stored is not None and stored["messages"][0]["content"] == "Tides 0"
    assert phone.touched == {kept}
    phone.sync()  # nothing new: nothing sent, nothing taken
    assert server.rev == 1


def test_changes_renames_pins_and_forgetting_travel_both_ways(server: FakeServer) -> None:
    laptop, phone = Device(server), Device(server)
    first = laptop.keep("First")
    second = laptop.keep("Second")
    laptop.sync()
    phone.sync()
    phone.keep("More", conversation_id=first)  # a new turn on the phone
    run(phone.history.pin(second, True))
    phone.sync()
    laptop.sync()
    stored = run(laptop.history.read(first))
    assert stored is not None and len(stored["messages"]) == 4
    assert laptop.history.entry(second).pinned  # type: ignore[union-attr]
    run(laptop.history.forget(second))
    laptop.sync()
    phone.sync()
    assert phone.history.entry(second) is None
    assert sealed_deletion(server, "i" + second)  # a deletion, sealed


def test_both_devices_changed_it_so_both_continuations_are_versions(server: FakeServer) -> None:
    """Version 1 made a copy titled " (other device)" on every device."""
    laptop, phone, shared = on_both_devices(server)
    laptop.keep("Laptop", conversation_id=shared)
    phone.keep("Phone", conversation_id=shared)
    laptop.sync()
    phone.sync()  # the phone merges: the laptop's continuation becomes a version
    laptop.sync()
    both = [run(device.history.read(shared)) for device in (laptop, phone)]
    assert both[0] == both[1] and laptop.titles() == phone.titles() == ["Plans 0"]
    parted = both[0]["messages"][2]  # type: ignore[index]
    assert (parted["content"], parted["version"]) == ("Phone 0", 1)  # the phone's, shown
    assert [v["content"] for v in parted["versions"]] == ["Laptop 0"]  # "1 / 2"


def test_a_full_browser_gives_up_nothing_only_it_holds_for_another_device_s_version(
    server: FakeServer,
) -> None:
    laptop, phone, shared = on_both_devices(server)
    laptop.keep("Laptop", conversation_id=shared)  # changed here, not sent yet
    phone.keep("Phone", conversation_id=shared)
    phone.sync()
    # No room for the two continuations together, but room for the phone's in the laptop's place.
    laptop.store.quota = sum(len(k) + len(v) for k, v in laptop.store.data.items()) + 20
    laptop.sync()
    assert "Laptop 0" in json.dumps(run(laptop.history.read(shared)))  # still here
    assert "Phone 0" in held(server, shared)  # the phone's, not replaced (the laptop's turn
    # may go beside it, as a tail of its own: nothing there is written over)
    assert [heard["code"] for heard in laptop.heard] == ["sync_storage_full"]
    laptop.sync()  # still full: it still waits, and the person is not told again
    assert "Phone 0" in held(server, shared)
    assert len(laptop.heard) == 1
    laptop.store.quota = None  # the person made room
    laptop.sync()
    phone.sync()
    for device in (laptop, phone):
        assert device.titles() == ["Plans 0"], device
    contents = json.dumps([run(phone.history.read(e.id)) for e in phone.history.entries()])
    assert "Laptop 0" in contents and "Phone 0" in contents


def test_the_conversation_open_here_is_never_given_up_for_another_device_s_version(
    server: FakeServer,
) -> None:
    laptop, phone = Device(server), Device(server)
    recipes = laptop.keep("Recipes")
    laptop.open = laptop.keep("Open here, the one the person is reading now", answers=4)
    laptop.sync()  # both are on the server, unchanged here since
    phone.sync()
    phone.keep("More recipes, with the long list of what to buy", answers=4,
               conversation_id=recipes)  # fmt: skip
    phone.sync()
    # Room for the phone's longer version only in place of the conversation open here.
    laptop.store.quota = sum(len(k) + len(v) for k, v in laptop.store.data.items()) + 200
    laptop.sync()
    assert laptop.history.entry(laptop.open) is not None
    assert "what to buy" not in json.dumps(run(laptop.history.read(recipes)))  # it waits
    assert [heard["code"] for heard in laptop.heard] == ["sync_storage_full"]
    laptop.store.quota = None  # the person made room
    laptop.sync()
    assert "what to buy 3" in json.dumps(run(laptop.history.read(recipes)))
    assert laptop.history.entry(laptop.open) is not None


def continued_on_the_phone(server: FakeServer) -> tuple[Device, Device, str]:
    """A conversation kept on the laptop, synced to the phone, and continued there."""
    laptop, phone, shared = on_both_devices(server)
    phone.keep("Phone", conversation_id=shared)
    phone.sync()
    return laptop, phone, shared


def with_turn(snapshot: dict[str, Any], text: str) -> dict[str, Any]:
    turn = [{"role": "user", "content": text}, {"role": "assistant", "content": "about"}]
    return {**snapshot, "messages": [*snapshot["messages"], *turn]}


def assert_both_kept(laptop: Device, phone: Device, ours: str, *, merged: bool = True) -> None:
    """Both devices hold the phone's turn and `ours` (`merged`: in one conversation, as
    versions of the message where they part)."""
    laptop.sync()
    phone.sync()
    for device in (laptop, phone):
        if merged:
            assert device.titles() == ["Plans 0"], device
        kept = json.dumps([run(device.history.read(e.id)) for e in device.history.entries()])
        assert "Phone 0" in kept and ours in kept, device


def test_a_turn_answered_while_sync_takes_another_device_s_version_is_kept_beside_it(
    server: FakeServer,
) -> None:
    laptop, phone, shared = continued_on_the_phone(server)
    opened = run(laptop.history.read(shared))  # open on the laptop, a turn being answered
    assert opened is not None
    laptop.sync()  # meanwhile the phone's turn is taken
    run(laptop.history.keep(from_dict(with_turn(opened, "Laptop 0"))))
    assert_both_kept(laptop, phone, "Laptop 0", merged=False)


def test_another_tab_writing_as_sync_takes_a_version_is_merged_not_written_over(
    server: FakeServer,
) -> None:
    laptop, phone, shared = continued_on_the_phone(server)
    other_tab = History(laptop.store)  # its write reaches the laptop's tab only later
    run(other_tab.load())
    opened = run(other_tab.read(shared))
    assert opened is not None
    run(other_tab.keep(from_dict(with_turn(opened, "Tab 0"))))
    laptop.sync()
    assert laptop.heard == []  # nothing to tell: the round merged it
    assert_both_kept(laptop, phone, "Tab 0")


def test_a_batch_cut_short_here_is_not_written_over_and_is_sent(server: FakeServer) -> None:
    laptop, phone, shared = continued_on_the_phone(server)
    # The laptop's page closed between a turn's two writes: the transcript, not its meta.
    stored = run(laptop.history.peek(shared))
    assert stored is not None
    cut_short = {**with_turn(stored, "Laptop 0"), "updated": 9_000}
    key = storage_key("conversation", "chatkeep", shared)
    run(laptop.store.write([(key, json.dumps(cut_short))]))
    assert_both_kept(laptop, phone, "Laptop 0")


def test_a_full_browser_gives_up_what_the_server_holds_before_what_only_it_holds(
    server: FakeServer,
) -> None:
    laptop = Device(server)
    renamed = laptop.keep("Only here")
    laptop.keep("Backed up")
    laptop.sync()
    laptop.rename(renamed, "Renamed here")  # the oldest, and changed since the round
    laptop.store.quota = sum(len(k) + len(v) for k, v in laptop.store.data.items()) + 100
    laptop.keep("New")  # room for it only in place of one of the two
    assert laptop.titles() == ["New 0", "Renamed here"]
    phone = Device(server)
    phone.sync()
    assert "Backed up 0" in phone.titles()  # nothing of it was lost


def test_after_stopping_sync_room_is_made_oldest_first_again(server: FakeServer) -> None:
    tab = Conversations(Session(), History(MemoryKeyValue()), ScriptedTransport(),
                        listener=Heard())  # fmt: skip
    run(tab.keeper.start())
    synced = SyncedHistory(tab, FakeRemote(server), offered=True, emit=lambda kind, data: None)
    history = tab.keeper.history
    assert isinstance(history, History)
    phone = Device(server)
    phone.keep("From the phone")
    phone.sync()
    run(synced.start_sync())
    (entry,) = history.entries()
    assert history.sync.backed_up(entry)  # on the server as it is here: given up first
    run(synced.stop_sync())
    assert not history.sync.backed_up(entry)  # sent nowhere now


def synced_tab(server: FakeServer) -> tuple[Conversations, SyncedHistory, list[str]]:
    """A page with synced history on `server`; the states it showed."""
    tab = Conversations(Session(), History(MemoryKeyValue()), ScriptedTransport(),
                        listener=Heard())  # fmt: skip
    run(tab.keeper.start())
    shown: list[str] = []
    synced = SyncedHistory(tab, FakeRemote(server), offered=True,
                           emit=lambda kind, data: shown.append(data["state"]))  # fmt: skip
    return tab, synced, shown


def test_stop_syncing_first_sends_a_forget_not_yet_sent(server: FakeServer) -> None:
    phone = Device(server)
    kept = phone.keep("Forget me everywhere")
    phone.sync()
    tab, synced, shown = synced_tab(server)
    run(synced.start_sync())
    run(tab.forget(kept))  # its round would run 1.5 s later: "Stop syncing" comes first
    run(synced.stop_sync())
    phone.sync()
    assert sealed_deletion(server, "i" + kept) and phone.titles() == []
    assert shown[-1] == "off" and synced.state == "off"
    assert not [k for k in tab.keeper.history.store.data if ":sync:" in k]  # type: ignore[attr-defined]


def test_stop_syncing_offline_still_stops_and_keeps_the_history(server: FakeServer) -> None:
    tab, synced, shown = synced_tab(server)
    run(synced.start_sync())
    run(tab.send("Kept here"))
    server.down = True
    run(synced.stop_sync())
    assert shown[-3:] == ["syncing", "offline", "off"]  # the last round tried, then it stopped
    assert synced.state == "off" and [e["title"] for e in listing(tab)]
    assert not [k for k in tab.keeper.history.store.data if ":sync:" in k]  # type: ignore[attr-defined]


class SpaceFull(FakeRemote):
    """A server refusing writes (413: this person's space is full) while `full` is set."""

    full = True

    async def push(
        self, conversation_id: str, expect: int | None, seq: int, payload: dict[str, Any],
        tail: str = "",
    ) -> Pushed:  # fmt: skip
        if self.full:
            raise WidgetError("Your synced history is full.", code="sync_space_full")
        return await super().push(conversation_id, expect, seq, payload, tail)


def test_a_full_space_is_said_once_while_it_lasts_not_every_round(server: FakeServer) -> None:
    heard = Heard()
    tab = Conversations(Session(), History(MemoryKeyValue()), ScriptedTransport(), listener=heard)
    run(tab.keeper.start())
    remote = SpaceFull(server)
    shown: list[dict[str, Any]] = []
    synced = SyncedHistory(tab, remote, offered=True, emit=lambda kind, data: shown.append(data))
    run(tab.import_all(json.dumps({"format": "chatkeep-history", "version": 1, "conversations": [
        {"version": 1, "id": "kept", "title": "Kept", "created": 1, "updated": 1,
         "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    ]})))  # fmt: skip
    run(synced.start_sync())
    for _ in range(3):  # every 30 s, on focus, after each change
        run(synced.sync_now())
    full = [alert for alert in heard.alerts if "full" in alert]
    assert len(full) == 1 and synced.state == "error"
    # The status says why for as long as it lasts (the alert goes with the next action).
    assert shown[-1]["reason"]["code"] == "sync_space_full"
    assert run(synced.sync_status())["reason"]["code"] == "sync_space_full"
    # Every `sync` event the page heard is what the protocol declares (its reason had drifted).
    assert [problem for data in shown for problem in conforms(data, EVENT_DATA["sync"])] == []
    remote.full = False  # the person forgot some conversations elsewhere
    run(synced.sync_now())
    assert synced.state == "synced" and shown[-1]["reason"] is None
    remote.full = True
    run(tab.pin("kept", True))
    run(synced.sync_now())  # full again, later: said again
    assert len([alert for alert in heard.alerts if "full" in alert]) == 2


def stopped_offline_after_a_forget(
    server: FakeServer,
) -> tuple[Device, Conversations, SyncedHistory, str]:
    """A conversation from the phone, forgotten on a page that then stops syncing on a train:
    its last round cannot send the forget. The page, its sync, and the code it had."""
    phone = Device(server)
    kept = phone.keep("Forget me everywhere")
    phone.sync()
    tab, synced, _ = synced_tab(server)
    code = run(synced.start_sync())["code"]
    run(tab.forget(kept))
    server.down = True
    run(synced.stop_sync())
    server.down = False
    return phone, tab, synced, code


def test_a_forget_stop_could_not_send_goes_when_the_same_code_syncs_again(
    server: FakeServer,
) -> None:
    phone, tab, synced, code = stopped_offline_after_a_forget(server)
    phone.sync()
    assert phone.titles() == ["Forget me everywhere 0"]  # not sent: still there
    run(synced.start_sync(code))  # the same code, later
    phone.sync()
    assert phone.titles() == [] and [e["title"] for e in listing(tab)] == []


def test_a_forget_stop_could_not_send_is_not_carried_to_another_code(
    server: FakeServer,
) -> None:
    phone, tab, synced, _ = stopped_offline_after_a_forget(server)
    store = tab.keeper.history.store  # type: ignore[union-attr]
    assert any(":sync:forgot:" in key for key in store.data)  # waiting for that space
    run(synced.start_sync())  # a new code: another space, where that forget means nothing
    assert not any(":sync:forgot:" in key or ":sync:left" in key for key in store.data)
    phone.sync()
    assert phone.titles() == ["Forget me everywhere 0"]


def tabs_of_one_browser(server: FakeServer) -> list[tuple[Conversations, SyncedHistory]]:
    """Two pages of one browser: one store, one IndexedDB; the browser tells each of the
    other's writes."""
    store, keys = MemoryKeyValue(), dict[str, str]()
    tabs = []
    for _ in range(2):
        tab = Conversations(Session(), History(store), ScriptedTransport(), listener=Heard())
        run(tab.keeper.start())
        tabs.append((tab, SyncedHistory(tab, FakeRemote(server, keys), offered=True,
                                        emit=lambda kind, data: None)))  # fmt: skip
    return tabs


def test_stop_syncing_in_one_tab_stops_the_others(server: FakeServer) -> None:
    (first, first_sync), (second, second_sync) = tabs_of_one_browser(server)
    run(first_sync.start_sync())
    run(second.storage_changed("chatkeep:sync:device"))  # the space, noted by the first tab
    run(second_sync.sync_now())
    assert second_sync.state == "synced"
    run(first_sync.stop_sync())
    run(second.storage_changed("chatkeep:sync:device"))  # ... and cleared by it
    assert second_sync.state == "off"
    written = server.rev
    run(second.send("Said after stopping"))
    run(second_sync.sync_now())
    assert server.rev == written  # nothing more travels from this browser
    store = first.keeper.history.store  # type: ignore[union-attr]
    assert not [key for key in store.data if ":sync:" in key]


class Spaces(FakeRemote):
    """A server with one space per secret, as the real one derives them."""

    def __init__(self) -> None:
        super().__init__(FakeServer())
        self.spaces: dict[str, FakeServer] = {}

    async def open(self, secret: str, keep_as: str, fresh: bool = False) -> str:
        self.server = self.spaces.setdefault(secret, FakeServer())
        return await super().open(secret, keep_as, fresh)


def test_a_code_for_another_space_receives_all_of_it(server: FakeServer) -> None:
    # A link with another code (or a site's key for another person) is another space: what
    # this device knew of the first one (how far it had read) says nothing there.
    remote = Spaces()
    first, second = new_code(), new_code()
    for code, titles in ((first, ["One", "Two", "Three"]), (second, ["Elsewhere"])):
        device = Device(remote.spaces.setdefault(code, FakeServer()))
        for title in titles:
            device.keep(title)
        device.sync()
    tab = Conversations(Session(), History(MemoryKeyValue()), ScriptedTransport(),
                        listener=Heard())  # fmt: skip
    run(tab.keeper.start())
    synced = SyncedHistory(tab, remote, offered=True, emit=lambda kind, data: None)
    run(synced.start_sync(first))
    run(synced.start_sync(second))
    titles = sorted(entry["title"] for entry in listing(tab))
    assert titles == ["Elsewhere 0", "One 0", "Three 0", "Two 0"]
    assert len(remote.spaces[second].items) == 4  # what this device holds went there too


class TabLocks:
    """Web Locks, shared by the tabs of one browser: each name held by one tab at a time."""

    def __init__(self) -> None:
        self.held: set[str] = set()

    async def claim(self, name: str) -> bool:
        if name in self.held:
            return False
        self.held.add(name)
        return True

    def release(self, name: str) -> None:
        self.held.discard(name)


class Interrupted(FakeRemote):
    """A remote whose next pull first lets `during` run (another tab's round, say)."""

    during: Any = None

    async def pull(self, since: int) -> Any:
        if self.during is not None:
            during, self.during = self.during, None
            during()
        return await super().pull(since)


def test_two_tabs_syncing_at_once_take_another_device_s_change_once(server: FakeServer) -> None:
    store, locks, phone, keys = MemoryKeyValue(), TabLocks(), Device(server), dict[str, str]()
    tabs = []
    for _ in range(2):
        tab = Conversations(Session(), History(store), ScriptedTransport(), listener=Heard(),
                            locks=locks)  # fmt: skip
        run(tab.keeper.start())
        remote = Interrupted(server, keys)
        tabs.append((SyncedHistory(tab, remote, offered=True, locks=locks,
                                   emit=lambda kind, data: None), remote))  # fmt: skip
    run(tabs[0][0].start_sync())
    run(tabs[1][0].sync_status())  # the second tab connects with the keys the first kept
    kept = phone.keep("On the phone")
    phone.sync()
    run(tabs[0][0].sync_now())
    phone.sync()
    phone.keep("Continued on the phone", conversation_id=kept)
    phone.sync()
    tabs[0][1].during = lambda: run(tabs[1][0].sync_now())  # both rounds at once
    run(tabs[0][0].sync_now())
    run(tabs[0][0].sync_now())
    history = History(store)
    run(history.load())
    assert [e.title for e in history.entries()] == ["On the phone 0"]  # and no copy of it
    stored = run(history.read(kept))
    assert stored is not None and len(stored["messages"]) == 4


def sent_but_answer_lost(server: FakeServer) -> tuple[Device, Device, str]:
    """The laptop continues a conversation both devices hold; its write reaches the server,
    the answer does not."""
    laptop, phone, kept = on_both_devices(server)
    laptop.keep("More", conversation_id=kept)
    server.lose_next_answer = True
    with pytest.raises(OSError):
        laptop.sync()
    return laptop, phone, kept


def messages_on(device: Device, conversation_id: str) -> list[str]:
    stored = run(device.history.read(conversation_id))
    return [m["content"] for m in stored["messages"]] if stored else []


def test_a_write_whose_answer_was_lost_is_not_taken_for_another_device_s(
    server: FakeServer,
) -> None:
    laptop, phone, kept = sent_but_answer_lost(server)
    laptop.sync()  # hears its own write back: nothing to merge
    phone.sync()
    assert laptop.titles() == phone.titles() == ["Plans 0"]  # no copy "(other device)"
    assert messages_on(phone, kept) == messages_on(laptop, kept)
    assert len(messages_on(phone, kept)) == 4
    written = server.rev
    laptop.sync()
    assert server.rev == written  # settled: nothing more to send


def test_turns_added_after_a_lost_answer_continue_the_version_sent(server: FakeServer) -> None:
    laptop, phone, kept = sent_but_answer_lost(server)
    laptop.keep("Later", conversation_id=kept)  # before the next round
    laptop.sync()
    phone.sync()
    assert laptop.titles() == phone.titles() == ["Plans 0"]
    assert messages_on(phone, kept)[-2:] == ["Later 0", "about Later"]


def test_a_round_whose_note_was_lost_makes_no_copy_of_its_own_write(server: FakeServer) -> None:
    laptop, phone, kept = on_both_devices(server)
    note = laptop.store.data["chatkeep:sync:state"]
    laptop.keep("More", conversation_id=kept)
    laptop.sync()  # sends the longer version; the page closes before its note is written
    laptop.store.data["chatkeep:sync:state"] = note
    laptop.reopen()
    laptop.sync()
    phone.sync()
    assert laptop.titles() == phone.titles() == ["Plans 0"]
    assert len(messages_on(phone, kept)) == 4


def test_a_name_and_a_pin_given_elsewhere_are_kept_with_a_turn_added_here(
    server: FakeServer,
) -> None:
    laptop, phone, kept = on_both_devices(server)
    phone.rename(kept, "Summer trip")
    run(phone.history.pin(kept, True))
    phone.sync()
    laptop.keep("More", conversation_id=kept)
    laptop.sync()
    phone.sync()
    for device in (laptop, phone):
        assert device.titles() == ["Summer trip"], device  # one conversation, no copy
        entry = device.history.entry(kept)
        assert entry is not None and entry.pinned and entry.named
        assert messages_on(device, kept)[-2:] == ["More 0", "about More"]


def test_taking_a_name_from_elsewhere_gives_up_nothing_held_only_here(
    server: FakeServer,
) -> None:
    laptop, phone, kept = on_both_devices(server)
    phone.rename(kept, "A much longer name, given on the phone")
    phone.sync()
    only_here = laptop.keep("Written only on the laptop")
    laptop.keep("More", conversation_id=kept)
    laptop.store.quota = sum(len(k) + len(v) for k, v in laptop.store.data.items()) + 10
    laptop.sync()  # no room for the longer name: nothing is given up for it
    assert laptop.history.entry(only_here) is not None
    laptop.store.quota = None
    laptop.sync()
    phone.sync()
    assert "Written only on the laptop 0" in phone.titles()
    assert "More 0" in json.dumps([run(phone.history.read(e.id)) for e in phone.history.entries()])


def test_a_device_syncing_again_takes_what_another_continued_meanwhile(
    server: FakeServer,
) -> None:
    laptop, phone, kept = on_both_devices(server)
    del laptop.store.data["chatkeep:sync:state"]  # "Stop syncing" on the laptop
    laptop.reopen()
    phone.keep("More", conversation_id=kept)  # the person goes on on the phone
    phone.sync()
    laptop.sync()  # the same code typed again on the laptop
    assert laptop.titles() == ["Plans 0"]  # the phone's version taken, no copy
    assert messages_on(laptop, kept)[-2:] == ["More 0", "about More"]


def test_a_name_given_while_not_syncing_stays_on_what_another_device_continued(
    server: FakeServer,
) -> None:
    laptop, phone, kept = on_both_devices(server)
    del laptop.store.data["chatkeep:sync:state"]
    laptop.reopen()
    laptop.rename(kept, "Named on the laptop")
    run(laptop.history.pin(kept, True))
    phone.keep("More", conversation_id=kept)
    phone.sync()
    laptop.sync()
    phone.sync()
    for device in (laptop, phone):
        assert device.titles() == ["Named on the laptop"], device
        entry = device.history.entry(kept)
        assert entry is not None and entry.pinned and entry.named
        assert messages_on(device, kept)[-2:] == ["More 0", "about More"]


def test_a_device_offline_keeps_its_changes_and_sends_them_when_back(server: FakeServer) -> None:
    laptop, phone = Device(server), Device(server)
    server.down = True
    written = laptop.keep("On the train")
    with pytest.raises(OSError):
        laptop.sync()
    assert laptop.history.entry(written) is not None  # nothing lost here
    server.down = False
    laptop.sync()
    phone.sync()
    assert phone.history.entry(written) is not None


def test_an_item_that_fails_its_tag_is_skipped_and_the_person_told(server: FakeServer) -> None:
    laptop, phone = Device(server), Device(server)
    good, bad = laptop.keep("Good"), laptop.keep("Bad")
    laptop.sync()
    server.tampered.add("i" + bad)
    phone.sync()
    assert phone.history.entry(good) is not None and phone.history.entry(bad) is None
    assert [n["code"] for n in phone.heard] == ["sync_unreadable_one"]


def test_a_conversation_forgotten_soon_after_it_was_sent_stays_forgotten(
    server: FakeServer,
) -> None:
    laptop, phone = Device(server), Device(server)
    gone = laptop.keep("Forget me")
    laptop.sync()  # sent; its own write is heard back only at the next round
    phone.sync()
    run(laptop.history.forget(gone))
    laptop.sync()  # hears its own write: not another device's change, so no reason to keep it
    phone.sync()
    assert laptop.titles() == phone.titles() == []
    assert sealed_deletion(server, "i" + gone)


def test_a_device_that_lost_what_it_knew_still_forgets_everywhere(server: FakeServer) -> None:
    laptop, phone = Device(server), Device(server)
    gone, edited = laptop.keep("Forget me"), laptop.keep("Edited on the phone")
    laptop.sync()
    phone.sync()
    phone.keep("More", conversation_id=edited)  # after the laptop last read
    phone.sync()
    run(laptop.store.write([("chatkeep:sync:state", None)]))  # its note had found no room
    run(laptop.history.forget(gone))
    run(laptop.history.forget(edited))
    laptop.sync()
    phone.sync()
    assert sealed_deletion(server, "i" + gone)  # forgotten as it was: gone everywhere
    assert laptop.titles() == phone.titles() == ["Edited on the phone 0"]  # an edit beats it


def test_a_forget_after_a_round_whose_note_was_lost_is_forgotten_everywhere(
    server: FakeServer,
) -> None:
    laptop, phone, kept = on_both_devices(server, "Forget me")
    note = laptop.store.data["chatkeep:sync:state"]
    laptop.keep("More", conversation_id=kept)
    laptop.sync()  # sends the longer version, but the page closes before its note is written
    laptop.store.data["chatkeep:sync:state"] = note
    laptop.reopen()
    run(laptop.history.forget(kept))
    laptop.sync()  # hears the longer version back: its own write, the one forgotten
    phone.sync()
    assert sealed_deletion(server, "i" + kept)
    assert laptop.titles() == phone.titles() == []


def test_a_forget_of_turns_added_after_a_lost_note_is_forgotten_everywhere(
    server: FakeServer,
) -> None:
    laptop, phone = Device(server), Device(server)
    kept = laptop.keep("Forget me")
    laptop.sync()  # sends it; the page closes before the round's note is written
    del laptop.store.data["chatkeep:sync:state"]
    laptop.reopen()
    laptop.keep("More", conversation_id=kept)  # a turn, then forgotten before the next round
    run(laptop.history.forget(kept))
    laptop.sync()  # hears back its own write, which the version forgotten continues
    phone.sync()
    assert sealed_deletion(server, "i" + kept)
    assert laptop.titles() == phone.titles() == []


def test_a_version_named_elsewhere_comes_back_after_a_forget_here(server: FakeServer) -> None:
    laptop, phone, kept = on_both_devices(server, "Forget me")
    phone.rename(kept, "Keep this one")  # the phone names it; the laptop has not heard
    phone.sync()
    run(laptop.store.write([("chatkeep:sync:state", None)]))  # and lost its note
    laptop.keep("More", conversation_id=kept)
    run(laptop.history.forget(kept))
    laptop.sync()
    phone.sync()
    assert laptop.titles() == phone.titles() == ["Keep this one"]


def test_a_round_whose_note_finds_no_room_still_shows_what_it_took(server: FakeServer) -> None:
    laptop, phone, kept = on_both_devices(server)
    phone.keep("More", conversation_id=kept)
    phone.sync()
    write = laptop.store.write

    async def no_room_for_the_note(changes: Any, expect: Any = None) -> None:
        if any(key == "chatkeep:sync:state" for key, _ in changes):
            raise StorageFull.said("storage_full")
        await write(changes, expect)

    laptop.store.write = no_room_for_the_note  # type: ignore[method-assign]
    laptop.touched.clear()
    laptop.sync()  # takes the phone's turn; its note finds no room
    assert laptop.touched == {kept}  # the page shows the turn taken
    assert len(messages_on(laptop, kept)) == 4
    laptop.store.write = write  # type: ignore[method-assign]
    written = server.rev
    laptop.sync()  # reads it again: its own version now, nothing to merge or send
    assert laptop.titles() == ["Plans 0"] and server.rev == written


def test_a_forget_is_sent_even_when_a_change_is_refused(server: FakeServer) -> None:
    laptop, phone, kept = on_both_devices(server, "Forget me")
    laptop.keep("Refused: the space is full")
    run(laptop.history.forget(kept))

    async def refused(*args: Any) -> Pushed:
        raise WidgetError("Your synced history is full.", code="sync_space_full")

    laptop.push = refused  # type: ignore[method-assign]
    with pytest.raises(WidgetError):
        laptop.sync()
    phone.sync()
    assert phone.titles() == []  # forgetting is how people make room: it went through


def test_a_forget_outlives_a_round_cut_short(server: FakeServer) -> None:
    laptop, phone, kept = on_both_devices(server, "Forget me")
    del laptop.store.data["chatkeep:sync:state"]  # its note lost: only the mark knows the version
    laptop.reopen()
    run(laptop.history.forget(kept))
    server.down = True
    with pytest.raises(OSError):
        laptop.sync()  # offline: the round is cut short
    server.down = False
    laptop.sync()
    phone.sync()
    assert sealed_deletion(server, "i" + kept) and phone.titles() == []


def test_a_full_store_never_stops_a_forget(server: FakeServer) -> None:
    laptop = Device(server)
    gone = laptop.keep("Forget me to make room")
    laptop.sync()
    laptop.store.quota = sum(len(k) + len(v) for k, v in laptop.store.data.items())  # full
    run(laptop.history.forget(gone))  # its mark is written once its removal made room
    laptop.sync()
    assert laptop.titles() == [] and sealed_deletion(server, "i" + gone)


def test_a_conversation_forgotten_as_the_page_closed_is_forgotten_everywhere(
    server: FakeServer,
) -> None:
    laptop, phone = Device(server), Device(server)
    gone, stays = laptop.keep("Forget me"), laptop.keep("Keep me")
    laptop.sync()
    phone.sync()
    run(laptop.history.forget(gone))  # and the page closes before its next round
    laptop.reopen()
    laptop.sync()
    phone.sync()
    assert phone.titles() == laptop.titles() == ["Keep me 0"]
    assert sealed_deletion(server, "i" + gone) and not sealed_deletion(server, "i" + stays)
    assert not [key for key in laptop.store.data if ":forgot:" in key]  # the mark went too


def test_a_conversation_forgotten_in_one_tab_but_open_in_another_is_not_deleted(
    server: FakeServer,
) -> None:
    laptop = Device(server)
    kept = laptop.keep("Open in the other tab")
    laptop.sync()
    other_tab = History(laptop.store)
    run(other_tab.load())
    snapshot = from_dict(run(other_tab.read(kept)))
    run(laptop.history.forget(kept))
    run(other_tab.changed(f"chatkeep:meta:{kept}"))  # the tab it is open in hears of it
    run(other_tab.keep(snapshot))  # and keeps it again at once
    run(laptop.history.changed(f"chatkeep:meta:{kept}"))
    laptop.sync()
    assert server.items["i" + kept][1] is not None
    assert laptop.titles() == ["Open in the other tab 0"]
    assert not [key for key in laptop.store.data if ":forgot:" in key]


def test_an_edit_made_elsewhere_beats_a_deletion(server: FakeServer) -> None:
    laptop, phone, kept = on_both_devices(server, "Keep me")
    phone.keep("Edited", conversation_id=kept)
    phone.sync()
    run(laptop.history.forget(kept))
    laptop.sync()  # the delete finds a newer revision: the edit comes back instead
    assert laptop.history.entry(kept) is not None
    assert server.items["i" + kept][1] is not None


def test_dropped_for_room_is_not_forgotten_elsewhere(server: FakeServer) -> None:
    small, big = Device(server, limit=2), Device(server)
    ids = [big.keep(f"chat {n}") for n in range(4)]
    big.sync()
    small.sync()  # keeps the newest two; the others were only given up for room
    small.sync()
    assert all(server.items["i" + c][1] is not None for c in ids)
    assert len(big.titles()) == 4


def test_a_device_that_lost_what_it_knew_makes_no_copies(server: FakeServer) -> None:
    laptop = Device(server)
    laptop.keep("One")
    laptop.keep("Two")
    laptop.sync()
    run(laptop.store.write([("chatkeep:sync:state", None)]))  # stopped, then started again
    laptop.sync()
    assert laptop.titles() == ["One 0", "Two 0"]


def test_a_device_that_lost_what_it_knew_still_sends_a_name_given_since(
    server: FakeServer,
) -> None:
    laptop, phone = Device(server), Device(server)
    kept = laptop.keep("Plans")
    laptop.sync()
    run(laptop.store.write([("chatkeep:sync:state", None)]))  # e.g. its write found no room
    laptop.rename(kept, "Holiday")
    laptop.sync()
    phone.sync()
    assert phone.titles() == ["Holiday"]


def test_the_state_survives_a_reload_and_unreadable_state_starts_over() -> None:
    state = SyncState(7, {"a": Synced("j", 5, "r", 2)}, {"c": ("i", 3, 1)}, gone={"k": (4, "d")})
    assert SyncState.from_json(state.to_json()) == state
    assert SyncState.from_json("{not json") == SyncState()


class EndlessPages(FakeRemote):
    """A server that always says more changes wait: from the same cursor (`advancing` False),
    or one revision further each page with nothing in it."""

    def __init__(self, server: FakeServer, *, advancing: bool) -> None:
        super().__init__(server)
        self.advancing = advancing
        self.pages = 0

    async def pull(self, since: int) -> Page:
        self.pages += 1
        return Page([], since + 1 if self.advancing else since, more=True)


@pytest.mark.parametrize("moving", [False, True])
def test_a_server_that_always_has_more_cannot_hold_a_round_or_stop_syncing(
    server: FakeServer, moving: bool
) -> None:
    """A server answering `more: true` without moving its cursor looped a round for ever, and
    "Stop syncing", which waits for the round, waited for ever too."""
    heard = Heard()
    tab = Conversations(Session(), History(MemoryKeyValue()), ScriptedTransport(), listener=heard)
    run(tab.keeper.start())
    remote = EndlessPages(server, advancing=moving)
    shown: list[dict[str, Any]] = []
    synced = SyncedHistory(tab, remote, offered=True, emit=lambda kind, data: shown.append(data))
    run(tab.send("Kept here"))
    run(synced.start_sync())
    run(synced.sync_now())
    assert remote.pages <= 2 * MAX_ROUNDS * MAX_PAGES
    if moving:  # a long way to go: this round took its share, the next takes more
        assert synced.state == "synced" and not [a for a in heard.alerts if "kept saying" in a]
    else:  # said once, and in the status while it lasts
        assert synced.state == "error" and shown[-1]["reason"]["code"] == "sync_stalled"
        assert len([alert for alert in heard.alerts if "kept saying" in alert]) == 1
    run(synced.stop_sync())
    assert synced.state == "off" and [e["title"] for e in listing(tab)]


def plant(server: FakeServer, conversation: dict[str, Any]) -> None:
    """What someone else who has the code writes into the space (not through a device)."""
    server.rev += 1
    payload = {"v": PAYLOAD_VERSION, "conversation": conversation, "title": "Planted",
               "named": True, "pinned": True}  # fmt: skip
    item = "i" + str(conversation["id"])
    server.items[item] = (server.rev, seal(item, 1, payload))


def planted(conversation_id: str, updated: int) -> dict[str, Any]:
    return {"version": 1, "id": conversation_id, "title": "Planted", "created": updated,
            "updated": updated, "messages": [{"role": "user", "content": "Planted"},
                                             {"role": "assistant", "content": "here"}]}  # fmt: skip


@pytest.mark.parametrize("bad_id", ["n1:conv:x", "a/b", "x" * 65, "", "../history"])
def test_another_device_s_conversation_passes_the_checks_of_an_import(
    server: FakeServer, bad_id: str
) -> None:
    """An attacker's planted conversations came in without the checks an import makes."""
    phone = Device(server)
    phone.keep("Mine")
    plant(server, planted(bad_id, 1_700_000_000_000))
    phone.sync()
    assert phone.titles() == ["Mine 0"]
    assert not [key for key in phone.store.data if bad_id and bad_id in key]


def test_a_conversation_dated_far_off_is_taken_as_of_now(server: FakeServer) -> None:
    """Dated 2^53 - 1, it would list first for ever and push out the person's own."""
    phone = Device(server, limit=2)
    phone.syncer.taker.clock = lambda: 1_800_000_000_000
    plant(server, planted("from-the-future", 2**53 - 1))
    phone.sync()
    entry = phone.history.entry("from-the-future")
    assert entry is not None and entry.updated == 1_800_000_000_000


def a_page(store: MemoryKeyValue, keys: dict[str, str], server: FakeServer) -> SyncedHistory:
    """A page of one browser (its storage, its IndexedDB), opened (again)."""
    tab = Conversations(Session(), History(store), ScriptedTransport(), listener=Heard())
    run(tab.keeper.start())
    return SyncedHistory(tab, FakeRemote(server, keys), offered=True, emit=lambda kind, d: None)


def taken_from_the_phone(server: FakeServer, page: SyncedHistory, text: str) -> Device:
    """A conversation kept on the phone, synced there, then taken by `page`'s round."""
    phone = Device(server)
    phone.keep(text)
    phone.sync()
    run(page.sync_now())
    assert [e["title"] for e in listing(page.conversations)] == [f"{text} 0"]
    return phone


def test_no_storage_of_the_page_holds_the_code_and_a_reload_still_syncs(server: FakeServer) -> None:
    """The code sat in plain text in the host site's localStorage: any script of the site
    took every device's history, future conversations included."""
    store, keys = MemoryKeyValue(), dict[str, str]()
    page = a_page(store, keys, server)
    code = run(page.start_sync())["code"].replace("-", "")
    assert all(code not in key + value for key, value in store.data.items())
    assert run(page.start_sync())["code"].replace("-", "") == code  # shown again in this visit
    again = a_page(store, keys, server)  # the page reloaded: the keys are taken up
    assert run(again.sync_status())["connected"] is True
    assert run(again.start_sync()) == {"code": "", "pairing": ""}  # kept nowhere: not shown
    taken_from_the_phone(server, again, "From the phone")
    run(again.stop_sync())
    assert keys == {} and not [key for key in store.data if ":sync:" in key]


def test_a_code_kept_by_an_earlier_version_moves_into_keys(server: FakeServer) -> None:
    store, keys = MemoryKeyValue(), dict[str, str]()
    code = new_code()
    run(store.write([("chatkeep:sync:secret", code)]))
    page = a_page(store, keys, server)
    assert run(page.sync_status())["connected"] is True
    assert "chatkeep:sync:secret" not in store.data and keys == {"chatkeep": code}
    assert all(code not in value for value in store.data.values())


@pytest.mark.parametrize("key", ["person-42-secret", "a" * 64, "abcdefgh" * 5])
def test_a_weak_site_key_is_refused(server: FakeServer, key: str) -> None:
    """A 16-character guessable key was found from the space's name in 0.25 s."""
    page = a_page(MemoryKeyValue(), {}, server)
    with pytest.raises(WidgetError, match="at least 32 characters, of at least 16"):
        run(page.use_sync_key(key))
    assert run(page.sync_status())["connected"] is False and server.rev == 0


def test_a_sign_out_takes_the_person_s_synced_conversations_out_of_this_browser(
    server: FakeServer,
) -> None:
    store, keys = MemoryKeyValue(), dict[str, str]()
    page = a_page(store, keys, server)
    run(page.use_sync_key("person-7-0123456789abcdefghijklmnopqrstuv"))
    phone = taken_from_the_phone(server, page, "Theirs")
    run(page.sign_out())
    assert listing(page.conversations) == [] and page.state == "off"
    assert keys == {} and not [key for key in store.data if ":sync:" in key]
    phone.sync()
    assert phone.titles() == ["Theirs 0"]  # still in their synced history
