"""Modules found by `ZipImporter` (widget/zip_import.py) are the modules `zipimporter` makes,
each read from the zip once instead of twice."""

from __future__ import annotations

import importlib
import importlib.util
import marshal
import sys
import zipfile
import zipimport
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from widget import zip_import

#: a package, a module in it, a module at the top, a module shipped as source, and data
SOURCES = {
    "shelf/__init__": "TITLE = 'Shelf'\n",
    "shelf/book": "from . import TITLE\n\ndef cover() -> str:\n    return TITLE + ': a book'\n",
    "loose": "import shelf.book\nWHOLE = shelf.book.cover()\n",
}
NAMES = ("shelf", "shelf.book", "loose")


def compiled(source: str, name: str) -> bytes:
    """A .pyc as the zip's build writes it: no source beside it, so nothing to check it against."""
    header = importlib.util.MAGIC_NUMBER + bytes(12)
    return header + marshal.dumps(compile(source, name, "exec", dont_inherit=True))


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A zip on `sys.path`, its modules not imported yet, the import system's state restored."""
    path = tmp_path / "python.zip"
    with zipfile.ZipFile(path, "w") as zipped:
        for name, source in SOURCES.items():
            zipped.writestr(f"{name}.pyc", compiled(source, f"{path}/{name}.pyc"))
        zipped.writestr("plain_source.py", "KIND = 'compiled from source'\n")
        zipped.writestr("shelf/notes.txt", "dusty")
        zipped.writestr("loose_folder/", "")  # a folder with no __init__: a namespace package
        zipped.writestr("loose_folder/part.pyc", compiled("PART = 1\n", "part"))
    monkeypatch.setattr(sys, "path", [str(path), *sys.path])
    monkeypatch.setattr(sys, "path_hooks", list(sys.path_hooks))
    monkeypatch.setattr(sys, "path_importer_cache", dict(sys.path_importer_cache))
    yield path
    forget()


def forget() -> None:
    for name in [*NAMES, "plain_source", "loose_folder", "loose_folder.part"]:
        sys.modules.pop(name, None)
    for path in [key for key in sys.path_importer_cache if "python.zip" in key]:
        del sys.path_importer_cache[path]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each file is read from a zip."""
    counted: Counter[str] = Counter()
    read = zipimport._get_data  # type: ignore[attr-defined]

    def counting(archive: str, entry: tuple[Any, ...]) -> bytes:
        counted[entry[0].rpartition("python.zip/")[2]] += 1
        return read(archive, entry)

    monkeypatch.setattr(zipimport, "_get_data", counting)
    return counted


def described(name: str) -> dict[str, Any]:
    """What a module is, as the import system and its users see it."""
    module = importlib.import_module(name)
    spec = module.__spec__
    assert spec is not None
    return {
        "file": module.__file__,
        "cached": getattr(module, "__cached__", None),
        "path": getattr(module, "__path__", None),
        "package": module.__package__,
        "origin": spec.origin,
        "locations": spec.submodule_search_locations,
        "has_location": spec.has_location,
        "a_zipimporter": isinstance(module.__loader__, zipimport.zipimporter),
        "loader_at": (module.__loader__.archive, module.__loader__.prefix),  # type: ignore[union-attr]
        "same_loader": module.__loader__ is spec.loader,
        "values": {key: value for key, value in vars(module).items() if key.isupper()},
    }


def test_each_module_is_read_once_and_comes_out_as_zipimporter_makes_it(
    archive: Path, reads: Counter[str]
) -> None:
    plain = {name: described(name) for name in NAMES}
    assert set(reads.values()) == {2}, reads  # Python 3.13's zipimporter: found, then loaded
    forget()
    reads.clear()

    zip_import.install()
    once = {name: described(name) for name in NAMES}

    assert once == plain
    assert once["loose"]["values"] == {"WHOLE": "Shelf: a book"}
    assert reads == {"shelf/__init__.pyc": 1, "shelf/book.pyc": 1, "loose.pyc": 1}
    assert type(sys.modules["shelf.book"].__loader__) is zip_import.ZipImporter


def test_a_module_shipped_as_source_or_a_bare_folder_is_imported_as_before(archive: Path) -> None:
    zip_import.install()
    assert importlib.import_module("plain_source").KIND == "compiled from source"
    assert importlib.import_module("loose_folder.part").PART == 1  # a namespace package
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("shelf.missing")


def test_data_beside_the_modules_reads_as_before(archive: Path) -> None:
    # widget/precompiled.py reads its file beside itself through its module's loader.
    zip_import.install()
    book = importlib.import_module("shelf.book")
    assert book.__loader__.get_data(f"{archive}/shelf/notes.txt") == b"dusty"  # type: ignore[union-attr]


def test_install_takes_the_place_of_zipimporter_for_zips_imported_from(archive: Path) -> None:
    importlib.import_module("shelf")
    assert type(sys.path_importer_cache[str(archive)]) is zipimport.zipimporter

    assert zip_import.install() >= 1
    assert type(sys.path_importer_cache[str(archive)]) is zip_import.ZipImporter
    assert zipimport.zipimporter not in sys.path_hooks
    assert zip_import.install() == 0  # nothing left to replace
    assert sys.path_hooks.count(zip_import.ZipImporter) == 1
