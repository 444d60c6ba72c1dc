"""Chatkeep's benchmarks (`make bench`): each row a figure with the target it is held to."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def timed(action: Callable[[], object], repeat: int = 7) -> float:
    """The median time of `repeat` runs of `action`, in milliseconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def row(
    name: str, value: float, target: float, unit: str, *, at_least: bool = False, why: str = ""
) -> dict[str, Any]:
    """One line of the table: met when `value` is at most `target` (or at least, if so told).

    `why` explains a miss, printed under the row whenever the target is not met.
    """
    ok = value >= target if at_least else value <= target
    return {"name": name, "value": round(value, 3), "target": target, "unit": unit,
            "at_least": at_least, "ok": ok, "why": why}  # fmt: skip
