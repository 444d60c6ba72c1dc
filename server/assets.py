"""Static files with the right types, caching and precompressed `.gz` siblings.

The build writes `name.gz` next to every large text or wasm file; when the browser accepts
gzip the server sends that instead of compressing the 10 MB runtime on every request.
"""

from __future__ import annotations

import mimetypes
import os

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

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
        if accepts_gzip and os.path.isfile(compressed):
            response = FileResponse(
                compressed, stat_result=os.stat(compressed), media_type=media_type, headers=headers
            )
            response.headers["content-encoding"] = "gzip"
        else:
            response = FileResponse(
                path, stat_result=stat_result, media_type=media_type, headers=headers
            )
        if self.is_not_modified(response.headers, _request_headers(scope)):
            return Response(status_code=304, headers=_cache_headers(response))
        return response


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
