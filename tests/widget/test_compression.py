"""Raw deflate for stored transcripts: the same format as the browser's `deflate-raw`."""

from __future__ import annotations

import math
import re
import zlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from widget.compression import MAX_INFLATED_BYTES, deflate, inflate
from widget.snapshots import DEFAULT_MAX_SIZE_BYTES


@given(st.binary(max_size=5000) | st.text(max_size=2000).map(str.encode))
def test_round_trip(data: bytes) -> None:
    assert inflate(deflate(data)) == data


def test_raw_deflate_as_other_readers_expect() -> None:
    text = ("a conversation about rivers and mills, " * 200).encode()
    packed = deflate(text)
    assert zlib.decompress(packed, -zlib.MAX_WBITS) == text  # no zlib header: raw deflate
    assert len(packed) * 10 < len(text)


@pytest.mark.parametrize("damaged", [b"", b"\x00\x01\x02garbage", b"\xff" * 40])
def test_damaged_or_cut_data_is_a_value_error(damaged: bytes) -> None:
    with pytest.raises(ValueError):
        inflate(damaged)
    with pytest.raises(ValueError):
        inflate(deflate(b"some text that is long enough to be cut in half")[:10])


def test_only_bytes_are_accepted() -> None:
    with pytest.raises(TypeError):
        deflate("text")  # the worker encodes first


def test_inflating_stops_at_the_limit() -> None:
    """163 k characters of localStorage inflated to 314 MB: now a value error past the limit."""
    bomb = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    packed = bomb.compress(b"\0" * 5_000_000) + bomb.flush()
    with pytest.raises(ValueError, match="more than"):
        inflate(packed, limit=1_000_000)
    assert inflate(packed, limit=5_000_000) == b"\0" * 5_000_000


def test_the_limit_is_the_snapshot_size_limit_on_both_sides() -> None:
    codec = Path(__file__).parents[2] / "static" / "codec.js"
    declared = re.search(r"MAX_INFLATED_BYTES = ([\d *]+);", codec.read_text())
    assert declared is not None
    assert math.prod(int(n) for n in declared.group(1).split("*")) == MAX_INFLATED_BYTES
    assert MAX_INFLATED_BYTES == DEFAULT_MAX_SIZE_BYTES
