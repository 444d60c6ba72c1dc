"""Synced history, version 2, tried as an attacker would (issue: "no server, no space id and no
lost answer can change what a person kept"): each test an attack that changed what a person
kept under version 1, on the fake server of `sync_fakes` acting as the server would."""

from __future__ import annotations

import json
from typing import Any

import pytest
from scripted import Heard, ScriptedTransport, listing, run
from sync_fakes import Device, FakeRemote, FakeServer, sealed_deletion, unseal

from widget import Session
from widget.conversations import Conversations
from widget.errors import WidgetError
from widget.history import History
from widget.key_value import MemoryKeyValue
from widget.snapshots import from_dict
from widget.sync.branches import branched
from widget.sync.codes import ALPHABET, new_code, read_code
from widget.sync.judge import Verdict, judge
from widget.sync.merge import Here, Step, There, merge
from widget.sync.remote import Pulled
from widget.sync.state import Synced
from widget.sync.synced import SyncedHistory

ALTERED = (
    "The sync server sent an altered or older copy of a conversation. This device kept its own."
)


@pytest.fixture
def server() -> FakeServer:
    return FakeServer()


def messages(device: Device, conversation: str) -> int:
    stored = run(device.history.read(conversation))
    return len(stored["messages"]) if stored else 0


def told(device: Device) -> list[str]:
    return [n["message"] for n in device.heard if n["message"] == ALTERED]


def ten_messages_on_both(server: FakeServer) -> tuple[Device, Device, str]:
    laptop, phone = Device(server), Device(server)
    kept = laptop.keep("Plans", answers=2)  # 4 messages
    laptop.sync()
    laptop.keep("More", answers=3, conversation_id=kept)  # 10 messages (a tail: 6 of them)
    laptop.sync()
    laptop.rename(kept, "Plans, named")  # a rename alone: the checkpoint's version 2, whole
    laptop.sync()
    phone.sync()
    assert messages(phone, kept) == 10 and len(server.written["i" + kept]) == 2
    return laptop, phone, kept


def test_an_older_copy_served_again_is_not_taken_and_ours_is_sent_again(server: FakeServer) -> None:
    """Version 1: the older ciphertext under a new revision cut 10 messages to 4 on both."""
    laptop, phone, kept = ten_messages_on_both(server)
    item = "i" + kept
    server.serve(item, server.written[item][0])  # the version of 4 messages, once more
    laptop.sync()
    phone.sync()
    assert messages(laptop, kept) == 10 and messages(phone, kept) == 10
    assert told(laptop) == [ALTERED]  # once, though the server keeps it up
    opened = unseal(item, server.items[item][1] or "")
    assert opened is not None and len(opened[1]["conversation"]["messages"]) == 10


def test_a_deletion_no_device_sealed_forgets_nothing(server: FakeServer) -> None:
    """Version 1: tombstones the server wrote emptied both devices."""
    laptop, phone, kept = ten_messages_on_both(server)
    server.serve("i" + kept, None)
    phone.sync()  # (it sends its own again: the laptop then takes that, a newer version)
    laptop.sync()
    assert messages(laptop, kept) == 10 and messages(phone, kept) == 10
    assert told(phone) and sealed_deletion(server, "i" + kept) is False


def test_a_forgotten_conversation_replayed_stays_forgotten(server: FakeServer) -> None:
    """Version 1: a replayed ciphertext brought a forgotten conversation back."""
    laptop, phone, kept = ten_messages_on_both(server)
    run(laptop.history.forget(kept))
    laptop.sync()
    phone.sync()
    assert phone.history.entry(kept) is None
    item = "i" + kept
    server.serve(item, server.written[item][-2])  # the last version before the deletion
    laptop.sync()
    phone.sync()
    assert laptop.history.entry(kept) is None and phone.history.entry(kept) is None
    assert told(laptop) and sealed_deletion(server, item)  # the deletion, sent again


def test_garbage_over_an_item_never_stops_that_conversation_from_syncing(
    server: FakeServer,
) -> None:
    """Version 1: garbage written once over an item stopped it syncing for ever (its write
    refused every round)."""
    laptop, phone, kept = ten_messages_on_both(server)
    server.serve("i" + kept, "garbage")
    laptop.sync()
    laptop.keep("After the garbage", conversation_id=kept)
    laptop.sync()
    phone.sync()
    assert messages(phone, kept) == 12 and told(laptop)


def test_two_items_swapped_fail_their_tags_and_both_devices_keep_theirs(
    server: FakeServer,
) -> None:
    laptop, phone = Device(server), Device(server)
    one, two = laptop.keep("One"), laptop.keep("Two")
    laptop.sync()
    phone.sync()
    (a, a_data), (b, b_data) = [("i" + c, server.items["i" + c][1]) for c in (one, two)]
    server.serve(a, b_data)
    server.serve(b, a_data)
    phone.sync()
    assert phone.titles() == ["One 0", "Two 0"] and told(phone)
    laptop.sync()
    assert laptop.titles() == ["One 0", "Two 0"]


def test_a_deletion_names_the_version_it_replaced_so_a_lost_answer_brings_nothing_back(
    server: FakeServer,
) -> None:
    """The known limit of version 1: continued on one device whose write arrived but whose
    answer was lost, then forgotten on another that took it, it came back."""
    laptop, phone = Device(server), Device(server)
    kept = laptop.keep("Plans")
    laptop.sync()
    phone.sync()
    laptop.keep("More", conversation_id=kept)
    server.lose_next_answer = True
    with pytest.raises(OSError):
        laptop.sync()
    phone.sync()
    assert messages(phone, kept) == 4
    run(phone.history.forget(kept))
    phone.sync()
    laptop.sync()
    phone.sync()
    assert laptop.history.entry(kept) is None and phone.history.entry(kept) is None


def test_an_edit_still_beats_a_deletion(server: FakeServer) -> None:
    laptop, phone = Device(server), Device(server)
    kept = laptop.keep("Plans")
    laptop.sync()
    phone.sync()
    run(phone.history.forget(kept))
    laptop.keep("Changed meanwhile", conversation_id=kept)
    phone.sync()
    laptop.sync()
    phone.sync()
    assert messages(laptop, kept) == 4 and messages(phone, kept) == 4


@pytest.mark.parametrize(
    ("pulled", "synced", "gone", "verdict"),
    [
        (Pulled("i", 9, {"v": 1}, seq=3), None, None, Verdict.TAKE),
        (Pulled("i", 9, {"v": 1}, seq=3), Synced("i", 5, "r", 2), None, Verdict.TAKE),
        (Pulled("i", 9, {"v": 1}, seq=2), Synced("i", 5, "r", 2), None, Verdict.SAME),
        (Pulled("i", 9, {"v": 1}, seq=1), Synced("i", 5, "r", 2), None, Verdict.KEEP_OURS),
        (Pulled("i", 9, None), Synced("i", 5, "r", 2), None, Verdict.KEEP_OURS),
        (Pulled("i", 9, None, readable=False), Synced("i", 5, "r", 2), None, Verdict.KEEP_OURS),
        (Pulled("i", 9, None, readable=False), None, None, Verdict.UNREADABLE),
        (Pulled("i", 9, None), None, None, Verdict.IGNORE),
        (Pulled("i", 9, {"v": 1}, seq=4), None, (4, "c"), Verdict.REPLAY),
        (Pulled("i", 9, {"v": 1}, seq=5), None, (4, "c"), Verdict.TAKE),
        (Pulled("i", 9, {"deleted": True}, seq=3), Synced("i", 5, "r", 2), None, Verdict.DELETE),
    ],
)
def test_what_arrives_is_judged_as_the_table_in_docs_history_says(
    pulled: Pulled, synced: Synced | None, gone: tuple[int, str] | None, verdict: Verdict
) -> None:
    assert judge(pulled, synced, gone) is verdict


# -- codes --------------------------------------------------------------------------------


def a_page(server: FakeServer, remote: FakeRemote | None = None) -> SyncedHistory:
    tab = Conversations(Session(), History(MemoryKeyValue()), ScriptedTransport(), listener=Heard())
    run(tab.keeper.start())
    return SyncedHistory(tab, remote or FakeRemote(server), offered=True, emit=lambda k, d: None)


def test_every_code_with_one_character_mistyped_is_said_to_be_mistyped(server: FakeServer) -> None:
    """Version 1: a typo connected to a new, empty space and said "Synced"."""
    code = new_code()
    for place in range(len(code)):
        for other in ALPHABET:
            if other != code[place]:
                assert read_code(code[:place] + other + code[place + 1 :])[1] is False
    page = a_page(server)
    typo = code[:5] + ("0" if code[5] != "0" else "1") + code[6:]
    with pytest.raises(WidgetError, match="This sync code is mistyped"):
        run(page.start_sync(typo))
    assert run(page.sync_status())["connected"] is False and server.rev == 0


class KnownBefore(FakeRemote):
    """A server that held a version 1 space for one code made before the check character."""

    async def known_before(self, secret: str) -> bool:
        return secret == OLD_CODE


OLD_CODE = next(c for c in ("0123456789ABCDEFGHJKMNPQRSTVWXY" + x for x in ALPHABET)
                if not read_code(c)[1])  # fmt: skip


def test_a_code_made_before_the_check_still_connects(server: FakeServer) -> None:
    page = a_page(server, KnownBefore(server))
    assert run(page.start_sync(OLD_CODE))["code"].replace("-", "") == OLD_CODE


# -- moving from version 1 ----------------------------------------------------------------


def v1_space(*conversations: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f"v1-{c['id']}": {"v": 1, "conversation": c, "title": c["title"], "named": False,
                              "pinned": False} for c in conversations}  # fmt: skip


def conversation(conversation_id: str, *texts: str) -> dict[str, Any]:
    said = [{"role": r, "content": t} for t in texts for r in ("user", "assistant")]
    return {
        "version": 1,
        "id": conversation_id,
        "title": conversation_id.title(),
        "created": 1_700_000_000_000,
        "updated": 1_700_000_000_000,
        "messages": said,
    }


def test_devices_of_a_version_1_space_move_by_themselves_losing_nothing(
    server: FakeServer,
) -> None:
    server.v1 = v1_space(conversation("shared", "hello"), conversation("only-there", "far"))
    laptop, phone = Device(server), Device(server)
    for device in (laptop, phone):  # what each held, synced under version 1
        device.keep("Local to " + ("laptop" if device is laptop else "phone"))
        run(device.history.keep(from_dict(conversation("shared", "hello"))))
    laptop.sync()  # moves: takes the old space, wipes it, sends everything
    assert server.v1 == {}
    phone.sync()  # finds the old space wiped: sends what it holds, merges, no copies
    laptop.sync()
    expected = ["Local to laptop 0", "Local to phone 0", "Only-There", "Shared"]
    assert laptop.titles() == expected and phone.titles() == expected


def test_a_version_1_device_holding_no_code_moves_to_the_space_the_code_reaches() -> None:
    """Its keys were kept non-extractable: version 2's keys follow from them (the worker,
    tests/js/sync-client.test.mjs); here, that the round moves once and then stops moving."""
    server = FakeServer()
    server.v1 = v1_space(conversation("old", "kept"))
    device = Device(server)
    device.sync()
    assert run(device.moving()) is False and device.titles() == ["Old"]
    assert json.loads(next(iter(server.items.values()))[1])["seq"] == 1


# -- two continuations ----------------------------------------------------------------------


def said(*pairs: str) -> list[dict[str, Any]]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(pairs)
    ]


def test_two_continuations_become_versions_of_the_question_where_they_part() -> None:
    ours, theirs = said("Hi", "Hello", "Ours?", "Mine"), said("Hi", "Hello", "Theirs?", "Yours")
    merged = branched(ours, theirs)
    assert merged is not None and merged[:2] == ours[:2] and len(merged) == 4
    assert merged[2]["content"] == "Ours?" and merged[2]["version"] == 1
    assert merged[2]["versions"] == [{"content": "Theirs?", "after": said("x", "Yours")[1:]}]
    assert merged[3] == ours[3]
    assert branched(merged, theirs) is None  # merged again: nothing new
    assert branched(ours, ours + said("More", "Yes")) is None  # a continuation, no branch


def test_continuations_parting_at_an_answer_are_versions_of_its_question() -> None:
    ours, theirs = said("Hi", "Hello", "Why?", "Because"), said("Hi", "Hello", "Why?", "No idea")
    merged = branched(ours, theirs)
    assert merged is not None and merged[2]["content"] == "Why?"
    assert merged[2]["versions"] == [{"content": "Why?", "after": [theirs[3]]}]


def test_versions_either_side_had_are_kept_once() -> None:
    edited = {"content": "Old question", "after": said("x", "Old answer")[1:]}
    ours, theirs = (
        [*said("Hi", "Hello"), {"role": "user", "content": question, "versions": [edited],
                                "version": 2}, {"role": "assistant", "content": answer}]
        for question, answer in (("Q", "A"), ("Q2", "A2"))
    )  # fmt: skip
    merged = branched(ours, theirs)
    assert merged is not None
    assert merged[2]["versions"] == [edited, {"content": "Q2", "after": [theirs[3]]}]
    assert merged[2]["version"] == 2  # ours stays shown, second of three


# -- pairing links ----------------------------------------------------------------------------


def test_a_pairing_link_connects_another_device_once_without_carrying_the_code(
    server: FakeServer,
) -> None:
    laptop = a_page(server)
    shown = run(laptop.start_sync())
    assert shown["pairing"] and shown["code"].replace("-", "") not in shown["pairing"]
    phone = a_page(server)
    assert run(phone.start_sync(pairing=shown["pairing"]))["code"] == shown["code"]
    assert run(phone.sync_status())["connected"] is True
    stranger = a_page(server)
    with pytest.raises(WidgetError, match="expired or was used already"):
        run(stranger.start_sync(pairing=shown["pairing"]))  # used: it opens nothing more
    assert run(stranger.sync_status())["connected"] is False


def test_a_device_never_downloads_its_own_write_again(server: FakeServer) -> None:
    """Version 1: the writer downloaded each of its writes again in its next round."""
    laptop = Device(server)
    read: list[int] = []
    pull = laptop.pull

    async def counted(since: int) -> Any:
        page = await pull(since)
        read.extend(p.rev for p in page.items)
        return page

    laptop.pull = counted  # type: ignore[method-assign]
    laptop.keep("Plans")
    laptop.sync()
    laptop.keep("More", conversation_id=laptop.history.entries()[0].id)
    laptop.sync()
    laptop.sync()
    assert read == []


class Spaces(FakeRemote):
    """A server with one space per secret, as the real one derives them."""

    def __init__(self, spaces: dict[str, FakeServer]) -> None:
        super().__init__(FakeServer())
        self.spaces = spaces

    async def open(self, secret: str, keep_as: str, fresh: bool = False) -> str:
        self.server = self.spaces.setdefault(secret, FakeServer())
        return await super().open(secret, keep_as, fresh)


def test_change_sync_code_wipes_the_old_space_and_stops_its_other_devices() -> None:
    spaces: dict[str, FakeServer] = {}
    laptop, phone = a_page(FakeServer(), Spaces(spaces)), a_page(FakeServer(), Spaces(spaces))
    run(laptop.conversations.send("Kept through the change"))
    old = run(laptop.start_sync())["code"]
    run(phone.start_sync(old))
    assert [e["title"] for e in listing(phone.conversations)]
    new = run(laptop.change_sync_code())["code"]
    assert new and new != old and run(laptop.sync_status())["connected"] is True
    assert spaces[old.replace("-", "")].items == {}  # wiped
    assert len(spaces[new.replace("-", "")].items) == 1  # everything here, sent anew
    run(phone.sync_now())  # its next round: told, and it stops, keeping its history
    heard = phone.conversations.listener.alerts  # type: ignore[attr-defined]
    assert any("changed on another device" in alert for alert in heard)
    assert run(phone.sync_status())["connected"] is False
    assert [e["title"] for e in listing(phone.conversations)]
    run(phone.start_sync(new))
    assert run(phone.sync_status())["connected"] is True


# -- no size stops a conversation ------------------------------------------------------------


def test_a_conversation_too_large_for_one_request_syncs_in_parts(server: FakeServer) -> None:
    """Version 1: past the body limit a conversation never synced, and held back every older
    one behind it."""
    laptop, phone = Device(server), Device(server)
    older = laptop.keep("Older", answers=1)
    laptop.sync()
    server.max_bytes = 3_000  # (a 1 MiB limit, scaled down)
    long = laptop.keep("A long conversation " + "x" * 200, answers=40)  # about 20 KB
    laptop.keep("More to the older one", conversation_id=older)
    laptop.sync()
    phone.sync()
    assert messages(phone, long) == 80 and messages(phone, older) == 4
    assert laptop.heard == []
    laptop.keep("And one more turn", conversation_id=long)
    laptop.sync()
    phone.sync()
    assert messages(phone, long) == 82


def test_a_turn_too_large_alone_is_said_once_and_holds_nothing_back(server: FakeServer) -> None:
    laptop, phone = Device(server), Device(server)
    server.max_bytes = 3_000
    huge = laptop.keep("Huge " + "y" * 5_000)
    fine = laptop.keep("Fine")
    laptop.sync()
    laptop.sync()
    phone.sync()
    assert phone.history.entry(fine) is not None and phone.history.entry(huge) is None
    assert [n["code"] for n in laptop.heard] == ["sync_too_large"]
    assert "stays on this device" in laptop.heard[0]["message"]


# -- taking another device's version: one pure decision ---------------------------------------

A, B, C, D = said("A", "a"), said("B", "b"), said("C", "c"), said("D", "d")


def there(messages: list[dict[str, Any]], title: str = "T", named: bool = False,
          pinned: bool = False) -> There:  # fmt: skip
    return There(messages, title, named, pinned)


@pytest.mark.parametrize(
    ("here", "arrived", "step", "send"),
    [
        (Here(False), there(A), Step.TAKE, False),  # nothing here
        (Here(True, A + B, "T", changed=False), there(A + B + C), Step.TAKE, False),  # unchanged
        (Here(True, A + B + C, "T"), there(A + B), Step.ADOPT, True),  # ours continues theirs
        (Here(True, A + B, "T"), there(A + B), Step.ADOPT, False),  # its own, heard back
        (Here(True, A, "Mine", named=True), there(A + B), Step.TAKE, True),  # theirs continues
        (Here(True, A + B, "T"), there(A + C), Step.BRANCH, True),  # both continued
        (
            Here(True, A + B, "T", cut_short=True, changed=False),
            there(A + C),
            Step.BRANCH,
            True,
        ),  # a batch cut short here: its turn is ours alone
        (Here(True, B, "T"), there(C), Step.BRANCH, True),  # part at the first question
        (
            Here(True, [{"role": "system", "content": "x"}], "T"),
            there([{"role": "system", "content": "y"}]),
            Step.COPY,
            True,
        ),  # before any question
        (
            Here(True, A + B, "Mine", named=True),
            there(A, "Theirs", named=True),
            Step.COPY,
            True,
        ),  # named on both sides, differently: neither name is lost
    ],
)
def test_taking_another_device_s_version_is_one_pure_decision(
    here: Here, arrived: There, step: Step, send: bool
) -> None:
    """The table of docs/history.md ("Taking another device's version"), case by case."""
    plan = merge(here, arrived)
    assert (plan.step, plan.send) == (step, send)


def test_a_name_or_a_pin_from_either_side_is_kept() -> None:
    adopted = merge(Here(True, A + B, "Generated"), there(A, "Named there", named=True,
                                                         pinned=True))  # fmt: skip
    assert (adopted.title, adopted.named, adopted.pinned) == ("Named there", True, True)
    taken = merge(Here(True, A, "Named here", named=True, pinned=True), there(A + B, "Generated"))
    assert (taken.title, taken.named, taken.pinned, taken.send) == ("Named here", True, True, True)
    unpinned = merge(Here(True, A, "T", pinned=True, changed=False), there(A + B))
    assert unpinned.pinned is False  # unchanged here: an unpin there travels
    stuck = merge(Here(True, A + B, "T"), there(A, "Named", named=True), adopting=False)
    assert stuck.step is Step.COPY  # no room to take the name: as changed on both sides
