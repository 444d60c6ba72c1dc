"""Spend per client per day: requests, prompt and completion tokens, and what they cost.

Kept where budgets are kept (server/counters.py): in Redis, shared by every worker and
server, under `chatkeep:sum:usage:<day>:<client>:<field>` for 40 days; without Redis, in the
process. Clients are keyed ids (server/client_ids.py), never an address or a token
subject. Costs are counted in millionths of a dollar, from the providers file's prices
(`[providers.NAME.prices]`, USD per million tokens); a model without a price costs 0.
`chatkeep usage` prints a day's table from Redis.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from .counters import Counters, redis_client

FIELDS = ("requests", "prompt", "completion", "micro_usd")
KEEP_SECONDS = 40 * 86_400


def today() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")


def micro_usd(prompt: int, completion: int, price: tuple[float, float] | None) -> int:
    """The cost of tokens at USD per million (input, output), in millionths of a dollar."""
    if price is None:
        return 0
    return round(prompt * price[0] + completion * price[1])


class Usage:
    """Adds each answered request to its client's row of the day."""

    def __init__(self, counters: Counters) -> None:
        self.counters = counters

    async def add(
        self, client: str, prompt: int, completion: int, price: tuple[float, float] | None
    ) -> None:
        day = today()
        amounts = (1, prompt, completion, micro_usd(prompt, completion, price))
        for name, amount in zip(FIELDS, amounts, strict=True):
            if amount:
                await self.counters.add(f"usage:{day}:{client}:{name}", amount, KEEP_SECONDS)


@dataclass
class Row:
    client: str
    requests: int = 0
    prompt: int = 0
    completion: int = 0
    micro_usd: int = 0


async def read_day(redis_url: str, day: str, prefix: str = "chatkeep") -> list[Row]:
    """A day's rows from Redis, the most spent first."""
    client: Any = redis_client(redis_url)
    rows: dict[str, Row] = {}
    try:
        pattern = f"{prefix}:sum:usage:{day}:*"
        async for key in client.scan_iter(match=pattern, count=500):
            name = key.decode() if isinstance(key, bytes) else str(key)
            who, _, field = name.removeprefix(pattern[:-1]).rpartition(":")
            if field in FIELDS and who:
                value = await client.get(key)
                row = rows.setdefault(who, Row(who))
                setattr(row, field, int(value or 0))
    finally:
        await client.aclose()
    return sorted(rows.values(), key=lambda r: (-r.micro_usd, -r.requests, r.client))


def table(rows: list[Row], day: str) -> str:
    """The rows as a plain-text table with a total line."""
    total = Row("total", *(sum(getattr(r, f) for r in rows) for f in FIELDS))
    head = ("client", "requests", "prompt tokens", "completion tokens", "cost (USD)")
    lines = [head] + [
        (r.client, f"{r.requests:,}", f"{r.prompt:,}", f"{r.completion:,}",
         f"{r.micro_usd / 1e6:,.6f}")
        for r in [*rows, total]
    ]  # fmt: skip
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = [f"Usage on {day} (UTC), {len(rows)} client{'s' if len(rows) != 1 else ''}"]
    for n, line in enumerate(lines):
        cells = [line[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(line[1:], widths[1:], strict=True)
        ]
        out.append("  ".join(cells))
        if n == 0 or n == len(lines) - 2:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)
