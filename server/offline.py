"""What a service worker needs to load the page, the widget and the runtime offline.

`GET /static/offline.json` lists every file the widget may need, with a build id: a digest of
their names, sizes and times, so a new build has a new id. The service worker
(`static/service-worker.js`) caches one build whole under that id before it serves any of it
offline, and drops an older build only once a newer one is complete: never a mix.
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

#: what a checkout's folders hold besides assets: never served, never listed
DEVELOPMENT = {"node_modules", "package.json", "package-lock.json", "tsconfig.json",
               "tsconfig.worker.json", ".stamp"}  # fmt: skip
ASSET_SUFFIXES = (".js", ".mjs", ".css", ".svg", ".json", ".wasm", ".zip", ".whl", ".bin",
                  ".d.ts")  # fmt: skip
# python_stdlib.zip is the whole standard library (bare Pyodide, for the benchmarks): served,
# but never needed offline, where the widget ships its own third of it.
NOT_OFFLINE = {"python_stdlib.zip"}


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
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            relative = path.relative_to(base)
            if (
                path.is_file()
                and is_asset(relative.as_posix())
                and path.name not in NOT_OFFLINE
                and not path.name.endswith(".d.ts")
                and not (prefix == "" and relative.parts[0] == "runtime")
            ):
                found.append((prefix + relative.as_posix(), path))
    return found


def build_id(files: list[tuple[str, Path]]) -> str:
    digest = hashlib.sha256()
    for name, path in files:
        stat = path.stat()
        digest.update(f"{name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


class OfflineManifest:
    """The `/static/offline.json` endpoint, computed once per process."""

    def __init__(self, static_dir: Path, runtime_dir: Path) -> None:
        self.static_dir = static_dir
        self.runtime_dir = runtime_dir
        self._body: dict[str, object] | None = None

    def body(self) -> dict[str, object]:
        if self._body is None:
            files = offline_files(self.static_dir, self.runtime_dir)
            self._body = {"build": build_id(files), "files": [name for name, _ in files]}
        return self._body

    async def endpoint(self, request: Request) -> Response:
        return JSONResponse(self.body(), headers={"cache-control": "no-cache"})
