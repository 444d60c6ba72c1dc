"""Modules imported from the runtime's zip, each read from it once.

The worker's Python imports its standard library and the widget from one zip (Pyodide's
`stdLibURL`, tools/stdlib_subset.mjs). Python 3.13's `zipimporter` reads each module twice: to
find it, `find_spec` asks `get_filename` for its file, which opens the zip, reads the module and
unmarshals its code; loading it then does all that again. On a first visit that was most of the
time the widget's import spent finding modules (a profile under Node: 64 reads and unmarshals
for 32 modules).

`ZipImporter` finds a compiled module from the zip's directory alone, the file named as
`zipimporter` names it, and leaves loading to `zipimporter`: the same specs, loaders, `__file__`
and `__path__`, one read each. A module that is only source in the zip, or not there, is looked
for as before. `install` puts it in place of `zipimporter` for every zip on `sys.path`; the
zip's `sitecustomize` (tools/stdlib_subset.mjs) runs it as Python starts, before Pyodide's own
start imports about 115 modules from the zip.
"""

from __future__ import annotations

import sys
import zipimport
from importlib.machinery import ModuleSpec
from importlib.util import spec_from_file_location
from types import ModuleType


class ZipImporter(zipimport.zipimporter):
    """A `zipimporter` that finds a module without reading it."""

    def find_spec(self, fullname: str, target: ModuleType | None = None) -> ModuleSpec | None:
        where = self.prefix + fullname.rpartition(".")[2]
        files = self._get_files()  # type: ignore[attr-defined]  # the zip's directory, read once
        for suffix, compiled, package in zipimport._zip_searchorder:  # type: ignore[attr-defined]
            entry = files.get(where + suffix)
            if entry is None:
                continue
            if not compiled:
                break  # source: zipimporter compiles it, and finds it so
            # entry[0] is the path zipimporter names the module's file by; a package's
            # __path__ is the folder that file is in, as zipimporter's spec has it.
            return spec_from_file_location(
                fullname, entry[0], loader=self, submodule_search_locations=[] if package else None
            )
        return super().find_spec(fullname, target)


def install() -> int:
    """From now on, modules in a zip on `sys.path` are found by `ZipImporter`; how many of the
    importers already made (one per folder of the zip imported from) it replaced."""
    if not hasattr(zipimport.zipimporter, "_get_files"):
        return 0  # not the zipimport this was written against: imports go as before
    hooks = sys.path_hooks
    hooks[:] = [ZipImporter if hook is zipimport.zipimporter else hook for hook in hooks]
    replaced = 0
    for path, importer in list(sys.path_importer_cache.items()):
        if type(importer) is zipimport.zipimporter:
            sys.path_importer_cache[path] = ZipImporter(path)
            replaced += 1
    return replaced
