"""Sync codes: 155 random bits a person can read aloud, type, or write down, and a check.

A code is 32 characters of Crockford's Base32 (no I, L, O or U: nothing to misread), shown
in eight groups of four; the last is a check character, so that a code with one character
mistyped is said to be mistyped before anything connects (a typo used to connect to a new,
empty space and say "Synced"). Typing is forgiving: case, spaces and dashes do not matter, and
the letters people confuse with digits (O, I, L) read as those digits.

The check is a weighted sum modulo 32 with odd weights: each weight is invertible modulo 32,
so any one character changed changes the sum, and a swap of two neighbours does unless they
lie 16 apart in the alphabet. Codes made before version 2 carry no check: `read_code` says
whether a code checks, and the round finds out whether an unchecked one named a space then.
"""

from __future__ import annotations

import os

from ..errors import WidgetError

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LENGTH = 32  # 31 x 5 bits = 155 random bits, and the check
MISREAD = str.maketrans({"O": "0", "I": "1", "L": "1"})


def new_code() -> str:
    """155 bits from the system's random source (in the browser, `crypto.getRandomValues`),
    and their check character."""
    number = int.from_bytes(os.urandom(20))
    body = "".join(ALPHABET[(number >> (5 * i)) & 31] for i in range(LENGTH - 1))
    return body + _check(body)


def grouped(code: str) -> str:
    """`ABCD-EFGH-…`: how the code is shown."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


def read_code(typed: str) -> tuple[str, bool]:
    """The code a person typed or pasted (or a link carried), and whether its check character
    holds; or `WidgetError` when it is no code at all."""
    code = "".join(typed.upper().split()).replace("-", "").translate(MISREAD)
    if len(code) != LENGTH or any(c not in ALPHABET for c in code):
        raise WidgetError.said("bad_sync_code", length=LENGTH)
    return code, _check(code[:-1]) == code[-1]


def _check(body: str) -> str:
    """The character that makes the weighted sum of the whole code 0 modulo 32."""
    total = sum((2 * i + 1) * ALPHABET.index(c) for i, c in enumerate(body))
    last_weight = 2 * len(body) + 1  # odd: it has an inverse modulo 32
    return ALPHABET[(-total * pow(last_weight, -1, 32)) % 32]
