"""Hostile history files and stored values: the attacks of the second round, each as a test.

A file of conversations dated 2**53-1 evicted everything the person had; ids holding `:conv:`
were stored where nothing lists them; a snapshot of `"\\` froze the worker's reader.
"""

from __future__ import annotations

import json
import time

import pytest
from scripted import Heard, ScriptedTransport, answer, run

from widget import Session, SnapshotError
from widget.conversations import Conversations
from widget.history import History
from widget.key_value import MemoryKeyValue
from widget.snapshots import nesting_depth, read_snapshot

NOW = 1_790_000_000_000  # 2026


def make(limit: int = 20) -> tuple[Conversations, MemoryKeyValue]:
    store = MemoryKeyValue()
    conversations = Conversations(
        Session(clock=lambda: NOW), History(store, limit=limit), ScriptedTransport(
            *(answer(f"answer {n}") for n in range(30))), listener=Heard(),
    )  # fmt: skip
    run(conversations.keeper.start())
    return conversations, store


def export(*snapshots: dict[str, object]) -> str:
    return json.dumps({"format": "chatkeep-history", "version": 1, "conversations": snapshots})


def conversation(conversation_id: str, updated: int, created: int = 0) -> dict[str, object]:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    return {"version": 1, "id": conversation_id, "title": conversation_id, "created": created,
            "updated": updated, "messages": messages}  # fmt: skip


def own_conversations(tab: Conversations, count: int) -> set[str]:
    for n in range(count):
        run(tab.send(f"mine {n}"))
        run(tab.restore(None))
    return {entry.id for entry in tab.keeper.history.entries()}  # type: ignore[union-attr]


@pytest.mark.parametrize("date", [2**53 - 1, 9 * 10**15, 1, NOW + 10 * 86_400_000])
def test_far_dated_imports_take_the_import_time_and_evict_nothing(date: int) -> None:
    tab, _ = make(limit=5)
    mine = own_conversations(tab, 3)
    hostile = export(*(conversation(f"evil{n}", date, date) for n in range(20)))
    done = run(tab.import_all(hostile))
    entries = tab.keeper.history.entries()  # type: ignore[union-attr]
    assert mine <= {e.id for e in entries}  # nothing the person had is gone
    assert done == {"imported": 2, "skipped": 18}
    assert all(e.updated <= NOW for e in entries)
    # imported once: importing the same file again does not make it newer
    assert run(tab.import_all(hostile))["imported"] == 0


@pytest.mark.parametrize("bad", ["x:conv:y", "a/b", "", "x" * 65, "ü", "a b", "a\n"])
def test_an_id_outside_the_safe_alphabet_refuses_the_whole_file(bad: str) -> None:
    tab, store = make()
    before = dict(store.data)
    with pytest.raises(SnapshotError, match=r'conversation 2 of the file: .*"id" must be'):
        run(tab.import_all(export(conversation("fine", NOW - 5), conversation(bad, NOW - 5))))
    assert store.data == before


def test_a_full_store_keeps_what_it_had_and_says_how_many_did_not_fit() -> None:
    tab, store = make()
    mine = own_conversations(tab, 2)
    store.quota = sum(len(k) + len(v) for k, v in store.data.items()) + 1500
    done = run(tab.import_all(export(*(conversation(f"big{n}", NOW - n) for n in range(10)))))
    assert done["imported"] + done["skipped"] == 10 and done["skipped"] > 0
    assert mine <= {e.id for e in tab.keeper.history.entries()}  # type: ignore[union-attr]


def test_nesting_is_measured_in_linear_time() -> None:
    """32 KB of `"\\` froze the worker for 5.6 s: every quote rescanned the rest."""
    for hostile in ('"\\' * 200_000, '"' + "\\" * 400_000, '"a' * 200_000, '["' * 100_000):
        started = time.perf_counter()
        nesting_depth(hostile)
        read_snapshot(hostile)
        assert time.perf_counter() - started < 1, hostile[:10]
    assert nesting_depth('["\\"[", {"a": [1]}]') == 3
