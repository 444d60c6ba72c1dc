"""Static files with the right types, caching and precompressed `.gz` siblings.

The build writes `name.gz` next to every large text or wasm file; when the browser accepts
gzip the server sends that instead of compressing the 10 MB runtime on every request.
"""

from __future__ import annotations

import functools
import gzip
import mimetypes
import os

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from .offline import is_asset

ON_THE_FLY_LIMIT = 512 * 1024

mimetypes.add_type("application/wasm", ".wasm")
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("application/zip", ".whl")


class Assets(StaticFiles):
    """`StaticFiles` that prefers a precompressed `.gz` file.

    Every file is revalidated on each load (`no-cache` with an ETag, answered by a 304), so
    a rebuilt wheel or an upgraded runtime shows up on the next reload, never a stale copy.
    """

    def __init__(self, *, directory: str) -> None:
        super().__init__(directory=directory, check_dir=False)

    async def get_response(self, path: str, scope: Scope) -> Response:
        # Only assets: a checkout's static folder also holds node_modules (55 MB, with pages
        # that load scripts from public CDNs into this origin) and development files.
        if not is_asset(path.replace(os.sep, "/")):
            raise HTTPException(status_code=404)
        # The service worker's scope is the app's root (so it can keep the page for offline
        # use), which the browser allows only when the script says so.
        response = await super().get_response(path, scope)
        if path.endswith("service-worker.js"):
            # root_path here ends with the /static mount; the app's own root is above it.
            root = scope.get("root_path", "").rstrip("/").removesuffix("/static")
            response.headers["service-worker-allowed"] = f"{root}/"
        return response

    def file_response(
        self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope,
        status_code: int = 200,
    ) -> Response:  # fmt: skip
        path = os.fspath(full_path)
        media_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
        headers = {
            "cache-control": "no-cache",
            "vary": "accept-encoding",
        }
        compressed = path + ".gz"
        accepts_gzip = "gzip" in _header(scope, b"accept-encoding")
        response: Response
        if accepts_gzip and os.path.isfile(compressed):
            response = FileResponse(
                compressed, stat_result=os.stat(compressed), media_type=media_type, headers=headers
            )
            response.headers["content-encoding"] = "gzip"
        elif accepts_gzip and _compressible(media_type) and stat_result.st_size < ON_THE_FLY_LIMIT:
            # Small source files (the element, the worker, CSS) are compressed once and kept:
            # a returning visitor's browser revalidates each of them on every load.
            original = FileResponse(
                path, stat_result=stat_result, media_type=media_type, headers=headers
            )
            if self.is_not_modified(original.headers, _request_headers(scope)):
                return Response(status_code=304, headers=_cache_headers(original))
            compressed_headers = {**original.headers, "content-encoding": "gzip"}
            compressed_headers.pop("content-length", None)
            body = _compressed(path, stat_result.st_mtime_ns, stat_result.st_size)
            response = Response(body, media_type=media_type, headers=compressed_headers)
        else:
            response = FileResponse(
                path, stat_result=stat_result, media_type=media_type, headers=headers
            )
        if self.is_not_modified(response.headers, _request_headers(scope)):
            return Response(status_code=304, headers=_cache_headers(response))
        return response


@functools.lru_cache(maxsize=256)
def _compressed(path: str, mtime_ns: int, size: int) -> bytes:
    """The gzip of a small file, once per version of it (its time and size are the key)."""
    with open(path, "rb") as file:
        return gzip.compress(file.read(), compresslevel=6)


def _compressible(media_type: str) -> bool:
    return media_type.startswith("text/") or media_type in ("application/json", "image/svg+xml")


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return ""


def _request_headers(scope: Scope) -> Headers:
    return Headers(scope=scope)


def _cache_headers(response: Response) -> dict[str, str]:
    keep = ("cache-control", "etag", "last-modified", "vary")
    return {k: v for k, v in response.headers.items() if k in keep}
