"""The methods `@dataclass` writes for the widget's records, compiled when the zip was built.

For each record, `dataclasses` writes `__init__`, `__repr__`, `__eq__`, `__setattr__`… as
Python source and has Python's compiler compile it, as the class is made, at import. Nothing
else on a first visit's way to ready runs the compiler (every module is compiled already), and
on a runtime whose code has barely run, compiling is slow: in Pyodide under Node, importing
the widget in a new runtime took 135 ms with the methods compiled then, and 52 ms (plus 6 ms to
read them) with them compiled ahead (median of 8 runtimes each).

`tools/stdlib_subset.mjs` records each source `dataclasses` writes and its code while it
imports the widget under the same Pyodide (`recording`), and writes them beside the widget's
modules in the zip the worker boots (`SHIPPED`); the worker installs them before it imports
the widget (`install_shipped`, static/python-runtime.js). The code run is always that of the
exact source `dataclasses` wrote: a source not found (a record changed since the zip was
built) is compiled as before.
"""

from __future__ import annotations

import builtins
import dataclasses
import marshal
import os
from collections import Counter
from collections.abc import Mapping
from types import CodeType
from typing import Any

#: the file beside the widget's modules that holds them (source → code, marshalled)
SHIPPED = "precompiled.marshal"


def _compiled(source: str) -> CodeType:
    # As `exec(source)` in dataclasses.py compiles it: not with this module's future imports.
    return compile(source, "<string>", "exec", dont_inherit=True)


def recording() -> dict[str, CodeType]:
    """From now on every record's methods are compiled here and kept, source → code, in the
    dict returned (filled as classes are made)."""
    codes: dict[str, CodeType] = {}

    def compile_and_keep(source: str, /, *namespaces: Any) -> None:
        code = codes[source] = _compiled(source)
        builtins.exec(code, *namespaces)

    dataclasses.exec = compile_and_keep  # type: ignore[attr-defined]
    return codes


#: since the last `install`: the records made from code compiled `"ahead"` and `"now"`
made: Counter[str] = Counter()


def install(codes: Mapping[str, CodeType]) -> Counter[str]:
    """From now on records run the code in `codes` for the source `dataclasses` writes;
    counts the records made `"ahead"` (found) and `"now"` (compiled then), in `made`."""
    made.clear()

    def exec_compiled(source: str, /, *namespaces: Any) -> None:
        code = codes.get(source)
        made["now" if code is None else "ahead"] += 1
        builtins.exec(_compiled(source) if code is None else code, *namespaces)

    dataclasses.exec = exec_compiled  # type: ignore[attr-defined]
    return made


def install_shipped() -> Counter[str] | None:
    """Installs the code shipped beside this module (in the zip), if there is any."""
    path = os.path.join(os.path.dirname(__file__), SHIPPED)
    try:
        data = __loader__.get_data(path)  # type: ignore[name-defined]  # from the zip, or a file
    except OSError:
        return None  # a source checkout, or a wheel: compiled as classes are made
    return install(marshal.loads(data))
