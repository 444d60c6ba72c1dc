"""Chatkeep's benchmarks (`make bench`): each row a figure with the target it is held to."""

from __future__ import annotations

from typing import Any


def row(name: str, value: float, target: float, unit: str) -> dict[str, Any]:
    """One line of the table: met when `value` is at most `target`."""
    return {"name": name, "value": round(value, 3), "target": target, "unit": unit,
            "ok": value <= target}  # fmt: skip
