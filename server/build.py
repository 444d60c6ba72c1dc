"""The served build, named by its contents.

Every asset the widget loads is served under `/static/v/<digest>/`, where the digest is a
SHA-256 of every asset's name and bytes: such a URL can only ever mean one content, so the
browser keeps it for a year without asking again (`immutable`). The one file a page includes,
`/static/chat-widget.js`, is a small entry asked anew on each load; it names the digest, and
every module it loads resolves its neighbours (`./client.js`, `./runtime/…`) under it. A new
build is a new digest, so a returning visitor's browser asks the server for one small file.

Under the digest, a script is served minified (`make setup` writes the copies with esbuild,
tools/minify.mjs, each with a source map naming the plain source) as long as its copy is newer
than its source: an edited source is served as written until the next build. The same holds for
the element bundled into one file, `bundle.js`: the entry loads it while it is current, else
the modules one by one. The plain paths (`/static/client.js`) always answer with the source,
revalidated on each load.
"""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from .assets import Assets
from .offline import MINIFIED, offline_files

#: how long an asset whose URL carries the digest may be kept without asking
IMMUTABLE = "public, max-age=31536000, immutable"
#: the element and everything it imports in one file (tools/minify.mjs), beside the copies
BUNDLE = "bundle.js"
#: how often (seconds) the files' names, sizes and times are looked at again for a new build
RECHECK = 1.0


class Build:
    """The assets of one static folder and one runtime folder, and the digest naming them."""

    def __init__(self, static_dir: Path, runtime_dir: Path) -> None:
        self.static_dir = static_dir
        self.runtime_dir = runtime_dir
        self._files: list[tuple[str, Path]] = []
        #: the names whose bytes the digest covers (and so may be kept a year)
        self._covered: frozenset[str] = frozenset()
        self._signature: tuple[tuple[str, int, int], ...] | None = None
        self._digest = ""
        self._checked = float("-inf")
        #: the time of the newest script of the static folder (minified copies must be newer)
        self._newest = 0

    def files(self) -> list[tuple[str, Path]]:
        """(path under /static/, file) for every asset of the build, as of the last look."""
        self._refresh()
        return self._files

    def digest(self) -> str:
        """24 hex digits of the SHA-256 over every asset's name and bytes."""
        self._refresh()
        return self._digest

    def covers(self, name: str) -> bool:
        """Whether the digest covers the bytes served for `name` (its `.gz` copy included):
        only those may be kept a year under it. A source map, the type declarations or the
        standard library's zip are served under the digest too, but their bytes may change
        without it."""
        self._refresh()
        return name in self._covered

    def minified(self, name: str) -> Path | None:
        """The minified copy of a script of the static folder (or its map), if it is current."""
        if name.startswith("runtime/") or not name.endswith((".js", ".js.map")):
            return None
        copy = self.runtime_dir / MINIFIED / name
        try:
            # Newer than every script: a bundle (the worker) holds others' code too.
            current = copy.stat().st_mtime_ns >= self._newest_script()
        except OSError:
            return None
        return copy if current else None

    def bundled(self) -> bool:
        """Whether the element's bundle is current (newer than every script)."""
        self._refresh()
        return any(name == BUNDLE for name, _ in self._files)

    def _newest_script(self) -> int:
        return self._newest  # as of the last look (`digest()` looks again)

    def _refresh(self) -> None:
        # A rebuild while the server runs (`make setup` beside `make serve`) is seen within a
        # second; the bytes are read again only when a name, size or time changed.
        now = time.monotonic()
        if now - self._checked < RECHECK:
            return
        self._checked = now
        listed = offline_files(self.static_dir, self.runtime_dir)
        self._newest = max(
            (path.stat().st_mtime_ns for name, path in listed
             if name.endswith(".js") and not name.startswith("runtime/")),
            default=0,
        )  # fmt: skip
        files = [(name, self.minified(name) or path) for name, path in listed]
        bundle = self.minified(BUNDLE)
        if bundle:
            files.append((BUNDLE, bundle))
        # A file's precompressed copy is what most browsers get: the digest covers it too.
        covered = [*files, *((name + ".gz", gz) for name, path in files
                             if (gz := path.with_name(path.name + ".gz")).is_file())]  # fmt: skip
        signature = tuple(
            (name, stat.st_size, stat.st_mtime_ns)
            for name, stat in ((name, path.stat()) for name, path in covered)
        )
        if signature == self._signature:
            return
        digest = hashlib.sha256()
        for name, path in covered:
            with path.open("rb") as file:
                digest.update(f"{name}\0".encode() + hashlib.file_digest(file, "sha256").digest())
        self._files, self._signature, self._digest = files, signature, digest.hexdigest()[:24]
        self._covered = frozenset(name for name, _ in files)


class VersionedAssets:
    """`GET /static/v/{build}/{path}`: an asset, kept a year when `build` is this build."""

    def __init__(self, build: Build) -> None:
        self.build = build
        self.static = Assets(directory=str(build.static_dir))
        self.runtime = Assets(directory=str(build.runtime_dir))
        self.minified = Assets(directory=str(build.runtime_dir / MINIFIED))

    async def endpoint(self, request: Request) -> Response:
        path: str = request.path_params["path"]
        digest = self.build.digest()  # looks at the files again, at most once a second
        if path.startswith("runtime/"):
            assets, path = self.runtime, path.removeprefix("runtime/")
        else:
            assets = self.minified if self.build.minified(path) else self.static
        response = await assets.get_response(path, request.scope)
        # A page of an older build (open across a deploy) is answered with what there is now,
        # but never told to keep it: that URL's bytes are not the ones its name promised.
        # So is a file whose bytes the digest does not cover (a map, the type declarations).
        if request.path_params["build"] == digest and self.build.covers(
            request.path_params["path"]
        ):
            response.headers["cache-control"] = IMMUTABLE
        else:
            response.headers["cache-control"] = "no-cache"
        return response


class Entry:
    """`GET /static/chat-widget.js`: the entry that names this build (revalidated each load)."""

    def __init__(self, build: Build, template: str) -> None:
        self.build = build
        # Every page load asks for this file: its comments stay in the template.
        self.template = "\n".join(
            line for line in template.splitlines() if line and not line.startswith("//")
        )
        self._rendered = ("", "")

    def body(self) -> str:
        digest = self.build.digest()
        if self._rendered[0] != digest:
            if self.build.bundled():
                loads = f'export {{ ChatWidget }} from "./v/{{build}}/{BUNDLE}";'
            else:
                element = (self.build.static_dir / "chat-widget.js").read_text(encoding="utf-8")
                loads = "\n".join(
                    [
                        'import "./v/{build}/worker-start.js";',
                        *(f'import "./v/{{build}}/{name}";' for name in imports(element)),
                        'export { ChatWidget } from "./v/{build}/chat-widget.js";',
                    ]
                )
            body = self.template.replace("{loads}", loads).replace("{build}", digest)
            self._rendered = (digest, body)
        return self._rendered[1]

    async def endpoint(self, request: Request) -> Response:
        etag = f'"{self.build.digest()}"'
        headers = {"cache-control": "no-cache", "etag": etag}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(self.body(), media_type="text/javascript", headers=headers)


#: `import … from "./x.js";` or `import "./x.js";`, one per line, as the element writes them
_IMPORT = re.compile(r'^import (?:[^;"]+ from )?"\./([\w./-]+\.js)";$', re.MULTILINE)


def imports(module: str) -> list[str]:
    """The relative modules a script imports statically, in order, each once."""
    return list(dict.fromkeys(_IMPORT.findall(module)))
