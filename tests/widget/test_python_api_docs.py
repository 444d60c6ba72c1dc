"""Every example of docs/python-api.md runs as written: each block of Python is the body of an
async function given a `transport` (a scripted model) and a `get_weather` tool, the two names
the page leaves to the reader. One of them called `ChangeFeed` with the session, not its
conversation, and failed at its first line."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from scripted import ScriptedTransport, answer, run

DOC = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


@pytest.mark.parametrize("number", range(len(EXAMPLES)))
def test_the_example_runs_as_written(number: int) -> None:
    body = textwrap.indent(EXAMPLES[number], "    ")
    transport = ScriptedTransport(*(answer("Hello, Alice.") for _ in range(4)))
    scope: dict[str, Any] = {"get_weather": get_weather, "transport": transport}
    exec(f"async def example():\n{body}\n    return locals()", scope)  # the doc's own code
    run(scope["example"]())  # (by hand: the same on CPython and under Pyodide)


def test_the_page_has_examples() -> None:
    assert len(EXAMPLES) >= 2
