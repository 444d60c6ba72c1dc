"""Raw deflate for stored transcripts: the same format as the browser's `deflate-raw`."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from widget.compression import deflate, inflate


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
