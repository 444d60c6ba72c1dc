"""The README's testing-kit example is the file `make test` runs (e2e/test_plugin_example.py)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_shows_the_example_that_runs() -> None:
    example = (ROOT / "e2e" / "test_plugin_example.py").read_text()
    code = example.split('"""', 2)[2].lstrip("\n")  # without its docstring
    assert f"```python\n{code}```" in (ROOT / "README.md").read_text()
