"""The Python the worker boots (`widget_python.zip`, made by tools/stdlib_subset.mjs) holds
every standard-library module the widget imports, anywhere in its code, and every module of
the widget itself: a module missing from it would fail only in a browser, and only when that
line runs."""

from __future__ import annotations

import _imp
import ast
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON_ZIP = ROOT / "static" / "runtime" / "pyodide" / "widget_python.zip"
WHOLE = PYTHON_ZIP.with_name("python_stdlib.zip")


def imported_modules() -> set[str]:
    """Every standard-library module a widget module imports, at its top or inside a function."""
    found: set[str] = set()
    for path in (ROOT / "widget").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module)
    return {name for name in found if name.split(".")[0] in sys.stdlib_module_names}


def files_of(module: str) -> set[str]:
    """Where a module's code can be in a standard-library zip (none for built-in ones)."""
    path = module.replace(".", "/")
    return {f"{path}.pyc", f"{path}/__init__.pyc"}


@pytest.fixture(scope="module")
def zips() -> tuple[set[str], set[str]]:
    if sys.platform == "emscripten" or not (PYTHON_ZIP.is_file() and WHOLE.is_file()):
        pytest.skip("the zip is built by make (static/runtime/pyodide/widget_python.zip)")
    return set(zipfile.ZipFile(PYTHON_ZIP).namelist()), set(zipfile.ZipFile(WHOLE).namelist())


def test_every_module_the_widget_imports_is_in_the_zip(zips: tuple[set[str], set[str]]) -> None:
    shipped, whole = zips
    # A module Pyodide has as a file must be shipped; built-in ones (zlib, math) have none,
    # and frozen ones (os: Python 3.13 freezes what it needs to start) load without one.
    missing = [name for name in sorted(imported_modules())
               if files_of(name) & whole and not files_of(name) & shipped
               and not _imp.is_frozen(name)]  # fmt: skip
    assert missing == [], f"not in widget_python.zip: {missing} (see tools/stdlib_subset.mjs)"


def test_every_module_of_the_widget_is_in_it_compiled(zips: tuple[set[str], set[str]]) -> None:
    shipped, _ = zips
    expected = {f"widget/{path.stem}.pyc" for path in (ROOT / "widget").glob("*.py")}
    assert sorted(expected - shipped) == []
    assert not [name for name in shipped if name.endswith(".py")]  # compiled, never sources


def test_the_zip_is_a_fraction_of_the_whole_standard_library(
    zips: tuple[set[str], set[str]],
) -> None:
    assert PYTHON_ZIP.stat().st_size < WHOLE.stat().st_size / 2
