"""Records made from methods compiled ahead (widget/precompiled.py) are the records
`@dataclass` makes: the same behaviour, hints and signature; a record changed since is
compiled as before."""

from __future__ import annotations

import builtins
import dataclasses
import inspect
import marshal
from typing import Any

import pytest

from widget import precompiled

RECORD = """
from dataclasses import dataclass, field

@dataclass(frozen=True)
class Card:
    title: str
    tags: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list, compare=False)
    secret: str = field(default="", repr=False)
"""


@pytest.fixture(autouse=True)
def plain_dataclasses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test leaves `dataclasses` as it found it."""
    monkeypatch.setattr(dataclasses, "exec", builtins.exec, raising=False)


def made(source: str = RECORD) -> Any:
    namespace: dict[str, Any] = {"__name__": "records"}
    exec(compile(source, "<record>", "exec", dont_inherit=True), namespace)  # hints as written
    return namespace["Card"]


def test_a_record_from_code_compiled_ahead_is_the_record_dataclass_makes() -> None:
    plain = made()
    codes = precompiled.recording()
    made()
    assert len(codes) == 1
    counts = precompiled.install(marshal.loads(marshal.dumps(codes)))  # as the zip ships them
    ahead = made()
    assert counts == {"ahead": 1}

    card = ahead("Cake", ("sweet",), ["a note"], "hidden")
    assert card == ahead("Cake", ("sweet",), ["another"], "hidden") != ahead("Cake", ("sweet",))
    assert repr(card) == "Card(title='Cake', tags=('sweet',), notes=['a note'])"
    assert hash(card) == hash(ahead("Cake", ("sweet",), secret="hidden"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.title = "Pie"  # type: ignore[misc]
    assert ahead("Pie").notes is not ahead("Pie").notes
    for name in ("__init__", "__repr__", "__eq__", "__setattr__", "__hash__"):
        method, same = getattr(ahead, name), getattr(plain, name)
        assert inspect.signature(method) == inspect.signature(same)
        assert method.__qualname__ == same.__qualname__
    # Compiled without this package's `from __future__ import annotations`: real hints.
    assert ahead.__init__.__annotations__ == plain.__init__.__annotations__
    assert ahead.__init__.__annotations__["tags"] == tuple[str, ...]


def test_a_record_changed_since_the_build_is_compiled_as_before() -> None:
    codes = precompiled.recording()
    made()
    counts = precompiled.install(codes)
    changed = made(RECORD.replace("title: str", "title: str\n    pages: int = 0"))
    assert counts == {"now": 1}
    assert changed("Cake", pages=3).pages == 3


def test_a_checkout_ships_no_compiled_methods() -> None:
    # Only the zip the worker boots has them (tools/stdlib_subset.mjs).
    assert precompiled.install_shipped() is None
    assert dataclasses.exec is builtins.exec  # type: ignore[attr-defined]
