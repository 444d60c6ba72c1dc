"""Sync codes: 160 random bits a person can read aloud, type, or carry in a link.

A code is 32 characters of Crockford's Base32 (no I, L, O or U: nothing to misread), shown
in eight groups of four. Typing is forgiving: case, spaces and dashes do not matter, and the
letters people confuse with digits (O, I, L) read as those digits.
"""

from __future__ import annotations

import os

from .errors import WidgetError

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LENGTH = 32  # 32 x 5 bits = 160 bits
MISREAD = str.maketrans({"O": "0", "I": "1", "L": "1"})


def new_code() -> str:
    """160 bits from the system's random source (in the browser, `crypto.getRandomValues`)."""
    number = int.from_bytes(os.urandom(LENGTH * 5 // 8))
    return "".join(ALPHABET[(number >> (5 * i)) & 31] for i in range(LENGTH))


def grouped(code: str) -> str:
    """`ABCD-EFGH-…`: how the code is shown."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


def read_code(typed: str) -> str:
    """The code a person typed or pasted (or a link carried), or `WidgetError`."""
    code = "".join(typed.upper().split()).replace("-", "").translate(MISREAD)
    if len(code) != LENGTH or any(c not in ALPHABET for c in code):
        raise WidgetError.said("bad_sync_code", length=LENGTH)
    return code
