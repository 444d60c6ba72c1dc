"""The Python the worker boots (`widget_python.zip`, made by tools/stdlib_subset.mjs) holds
every standard-library module the widget imports, anywhere in its code, and every module of
the widget itself: a module missing from it would fail only in a browser, and only when that
line runs. The same for reading PDFs: pypdf with `pdf_stdlib.zip` has every text codec it
names."""

from __future__ import annotations

import _imp
import ast
import codecs
import encodings
import gzip
import json
import marshal
import re
import shutil
import subprocess
import sys
import types
import zipfile
from encodings.aliases import aliases
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON_ZIP = ROOT / "static" / "runtime" / "pyodide" / "widget_python.zip"
WHOLE = PYTHON_ZIP.with_name("python_stdlib.zip")
PYPDF = ROOT / "static" / "runtime" / "pdf" / "pypdf.whl"
PDF_ZIP = PYPDF.with_name("pdf_stdlib.zip")


def imported_modules() -> set[str]:
    """Every standard-library module a widget module imports, at its top or inside a function."""
    found: set[str] = set()
    for path in (ROOT / "widget").rglob("*.py"):
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
    expected = {f"widget/{path.relative_to(ROOT / 'widget').with_suffix('.pyc').as_posix()}"
                for path in (ROOT / "widget").rglob("*.py")}  # fmt: skip
    assert sorted(expected - shipped) == []
    assert not [name for name in shipped if name.endswith(".py")]  # compiled, never sources


def test_the_zip_is_a_fraction_of_the_whole_standard_library(
    zips: tuple[set[str], set[str]],
) -> None:
    def content(path: Path) -> int:
        return sum(info.file_size for info in zipfile.ZipFile(path).infolist())

    assert content(PYTHON_ZIP) < content(WHOLE) / 2


def test_the_zip_is_inflated_by_the_browser_not_by_python(
    zips: tuple[set[str], set[str]],
) -> None:
    # Python inflated every deflated module it imported, in WebAssembly, as it started: a
    # first visit in Chromium was ready 0.2x of bare Pyodide's time later. Stored, the zip is
    # sent gzip-compressed (the .gz beside it), and the browser inflates it as it arrives.
    deflated = [info.filename for info in zipfile.ZipFile(PYTHON_ZIP).infolist()
                if info.compress_type != zipfile.ZIP_STORED]  # fmt: skip
    assert deflated == []
    sent = PYTHON_ZIP.with_name(PYTHON_ZIP.name + ".gz")
    assert gzip.decompress(sent.read_bytes()) == PYTHON_ZIP.read_bytes()  # never a stale one
    assert sent.stat().st_size < WHOLE.stat().st_size / 2


#: Pyodide, booted under Node as the worker boots it
BOOT = """
const [pyodideDir, zip, statement] = process.argv.slice(1);
const { loadPyodide } = await import(`${pyodideDir}/pyodide.mjs`);
const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/`, stdLibURL: zip, packages: [] });
pyodide.runPython(statement);
console.log(pyodide.runPython(`import json, sys
def loader(name):
    return type(sys.modules[name].__loader__).__name__
loaders = {name: loader(name) for name in ("asyncio", "pyodide.webloop", "widget.bridge")}
json.dumps({"made": widget.precompiled.made, "loaders": loaders})`));
"""


def test_the_worker_imports_the_widget_reading_each_module_once_and_compiling_nothing(
    zips: tuple[set[str], set[str]],
) -> None:
    # Compiling the records' methods took most of a first visit's import (widget/precompiled.py);
    # reading each module twice, most of what was left, and of Python's own start's imports
    # (widget/zip_import.py, run by the zip's sitecustomize as Python starts).
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node runs Pyodide here: it is not installed")
    worker_code = (ROOT / "static" / "python-runtime.js").read_text()
    found = re.search(
        r'function importWidget\(.*\n\s*pyodide\.runPython\("([^"]+)"\);\n\}', worker_code
    )
    assert found, "importWidget in static/python-runtime.js runs one statement"
    statement = found.group(1).replace("\\n", "\n")
    assert "install_shipped()" in statement
    pyodide = ROOT / "static" / "node_modules" / "pyodide"
    command = [node, "--input-type=module", "-e", BOOT, str(pyodide), str(PYTHON_ZIP), statement]
    booted = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert booted.returncode == 0, booted.stderr
    found = json.loads(booted.stdout.strip().splitlines()[-1])
    made = found["made"]
    assert made.get("now", 0) == 0 and made["ahead"] >= 6, made
    # Pyodide's own start imported the first two: the zip's sitecustomize ran before it did.
    assert set(found["loaders"].values()) == {"ZipImporter"}, found["loaders"]


def text_codecs_named(wheel: zipfile.ZipFile) -> dict[str, str]:
    """Every text encoding the wheel's compiled code names, with the module that holds it."""
    strings: set[str] = set()

    def constants(code: types.CodeType) -> None:
        for value in code.co_consts:
            if isinstance(value, types.CodeType):
                constants(value)
            elif isinstance(value, (tuple, frozenset)):
                strings.update(item for item in value if isinstance(item, str))
            elif isinstance(value, str):
                strings.add(value)

    for name in wheel.namelist():
        if name.endswith(".pyc"):
            constants(marshal.loads(wheel.read(name)[16:]))  # Pyodide's Python is 3.13 too
    named: dict[str, str] = {}
    for name in strings:
        try:
            text = codecs.lookup(name)._is_text_encoding
        except (LookupError, TypeError, ValueError):
            continue
        if text:
            normal = encodings.normalize_encoding(name.lower())
            named[name] = f"encodings/{aliases.get(normal, normal)}.pyc"
    return named


def test_every_text_codec_pypdf_names_is_shipped_with_it(
    zips: tuple[set[str], set[str]],
) -> None:
    # pypdf decodes by name (UTF-16BE strings, Windows, Mac and CJK code pages), each only
    # when a PDF needs it: a locked PDF was said to be unreadable or to have no text 7 times
    # in 400 under Pyodide (pypdf decoded one of its strings as UTF-16BE, a codec not shipped).
    if not (PYPDF.is_file() and PDF_ZIP.is_file()):
        pytest.skip("pypdf and its modules are fetched and built by make (static/runtime/pdf/)")
    shipped = zips[0] | set(zipfile.ZipFile(PDF_ZIP).namelist())
    named = text_codecs_named(zipfile.ZipFile(PYPDF))
    assert "utf-16-be" in named  # the wheel was read
    missing = sorted({f"{name} ({module})" for name, module in named.items()
                      if module not in shipped})  # fmt: skip
    assert missing == [], f"pypdf names codecs not shipped: {missing} (tools/stdlib_subset.mjs)"
