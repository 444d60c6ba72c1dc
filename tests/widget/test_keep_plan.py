"""The plan `History.keep` writes, worked out without a store: what is dropped, given up,
kept beside another tab's version."""

from __future__ import annotations

from widget.entries import Entry
from widget.keep_plan import KeepPlan
from widget.snapshots import Snapshot

SNAPSHOT = Snapshot(id="new", title="New", messages=({"role": "user", "content": "hi"},))


def entries(*ids: str, pinned: tuple[str, ...] = ()) -> list[Entry]:
    """Newest first, as `History.entries` lists them."""
    return [Entry(i, i, 100 - n, pinned=i in pinned) for n, i in enumerate(ids)]


def plan(listed: list[Entry], **options: object) -> KeepPlan | None:
    settings: dict[str, object] = {"limit": 3, "named": False, "pending": "", "spare": (),
                                   "expect": {}, "make_room": True, **options}  # fmt: skip
    return KeepPlan.first(SNAPSHOT, listed, **settings)  # type: ignore[arg-type]


def test_over_the_limit_the_oldest_unpinned_others_go_never_the_spared() -> None:
    first = plan(entries("a", "b", "c", "d", pinned=("d",)), spare=("c",))
    assert first is not None
    assert first.dropped == ("b",)  # a and c stay (c is open), d is pinned
    assert first.room == ("a",)


def test_a_full_store_gives_up_the_oldest_left_one_at_a_time() -> None:
    first = plan(entries("a", "b"), limit=10)
    assert first is not None and first.room == ("b", "a") and first.dropped == ()
    second = first.giving_up_one()
    assert second is not None and second.dropped == ("b",)
    third = second.giving_up_one()
    assert third is not None and third.dropped == ("b", "a")
    assert third.giving_up_one() is None


def test_an_import_makes_no_room() -> None:
    assert plan(entries("a", "b", "c"), make_room=False) is None
    fits = plan(entries("a"), make_room=False)
    assert fits is not None and fits.dropped == () and fits.room == ()


def test_another_tab_s_rename_is_kept_and_its_turns_never_overwritten() -> None:
    first = plan(entries("new"), expect={"k": "mine"})
    assert first is not None
    renamed = first.over_rename("k", "theirs", Entry("new", "Their name", 5, named=True,
                                                      pinned=True))  # fmt: skip
    assert (renamed.snapshot.title, renamed.named, renamed.pinned) == ("Their name", True, True)
    assert renamed.expect == {"k": "theirs"}
    copy = first.as_copy()
    assert copy.snapshot.id != "new" and copy.expect == {} and not copy.pinned
    assert '"title": "New"' in first.meta()
