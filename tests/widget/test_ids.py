"""Ids name conversations in storage, in exports and on other devices: they must not collide."""

from __future__ import annotations

import re

from widget.ids import new_id


def test_an_id_is_32_hex_digits_and_a_thousand_never_repeat() -> None:
    ids = [new_id() for _ in range(1000)]
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
    assert len(set(ids)) == len(ids)
