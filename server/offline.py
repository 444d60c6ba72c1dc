"""What a service worker needs to load the page, the widget and the runtime offline.

`GET /static/offline.json` lists every file the widget may need, under the build's digest
(server/build.py), which is also the build's id: a new build has a new id. The service worker
(`static/service-worker.js`) caches one build whole under that id before it serves any of it
offline, and drops an older build only once a newer one is complete: never a mix.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

if TYPE_CHECKING:
    from .build import Build

#: what a checkout's folders hold besides assets: never served, never listed
DEVELOPMENT = {"node_modules", "package.json", "package-lock.json", "tsconfig.json",
               "tsconfig.worker.json", ".stamp"}  # fmt: skip
ASSET_SUFFIXES = (".js", ".mjs", ".css", ".svg", ".json", ".wasm", ".zip", ".whl", ".bin",
                  ".d.ts", ".map")  # fmt: skip
# python_stdlib.zip is the whole standard library (bare Pyodide, for the benchmarks): served,
# but never needed offline, where the widget ships its own third of it.
NOT_OFFLINE = {"python_stdlib.zip"}
# Loaded only when a person attaches a PDF (static/pdf-reader.js): part of the build, but not
# fetched ahead for offline use, so no visit pays for them before that.
ON_DEMAND = {"pypdf.whl", "pdf_stdlib.zip"}
#: the runtime folder's copy of the element's scripts, minified (tools/minify.mjs)
MINIFIED = "min"


def is_asset(relative: str) -> bool:
    """Whether a path under a served folder is a built asset, a file the widget loads or the
    element's type declarations (never `node_modules`, package or compiler files, dotfiles)."""
    parts = PurePosixPath(relative).parts
    return (
        bool(parts)
        and not DEVELOPMENT & set(parts)
        and not any(part.startswith(".") for part in parts)
        and parts[-1].endswith(ASSET_SUFFIXES)
    )


def offline_files(static_dir: Path, runtime_dir: Path) -> list[tuple[str, Path]]:
    """(URL path under /static/, file) for every asset the widget can ask for."""
    found = []
    for base, prefix in ((static_dir, ""), (runtime_dir, "runtime/")):
        # static/runtime/ is listed as the runtime; its min/ holds copies of static/'s scripts
        for path in _walk(base, skip={"runtime"} if prefix == "" else {MINIFIED}):
            relative = path.relative_to(base)
            if (
                is_asset(relative.as_posix())
                and path.name not in NOT_OFFLINE
                and not path.name.endswith((".d.ts", ".map"))
            ):
                found.append((prefix + relative.as_posix(), path))
    return found


def _walk(base: Path, skip: set[str]) -> list[Path]:
    """Every file under `base`, in order, never entering development folders (a checkout's
    node_modules holds thousands of files: this runs whenever the build is looked at)."""
    files: list[Path] = []
    for folder, folders, names in os.walk(base):
        top = Path(folder) == base
        folders[:] = sorted(
            name for name in folders
            if name not in DEVELOPMENT and not name.startswith(".") and not (top and name in skip)
        )  # fmt: skip
        files += (Path(folder) / name for name in sorted(names))
    return sorted(files)


class OfflineManifest:
    """The `/static/offline.json` endpoint: the entry, then every asset under the build's digest."""

    def __init__(self, build: Build) -> None:
        self.build = build

    def body(self) -> dict[str, object]:
        digest = self.build.digest()
        files = [f"v/{digest}/{name}" for name, _ in self.build.files()
                 if PurePosixPath(name).name not in ON_DEMAND]  # fmt: skip
        return {"build": digest, "files": ["chat-widget.js", *files]}

    async def endpoint(self, request: Request) -> Response:
        return JSONResponse(self.body(), headers={"cache-control": "no-cache"})
