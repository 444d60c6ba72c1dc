"""Pure ASGI middleware (no `BaseHTTPMiddleware`, which would hide client disconnects):
refusing API calls from origins that are not allowed, and hardening headers."""

from __future__ import annotations

from collections.abc import Iterable

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import APIError
from .metrics import count_refusal

HARDENING_HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    # the microphone for dictation on our own pages, never for a page framed in them
    "permissions-policy": "camera=(), microphone=(self), geolocation=(), payment=()",
}


class OriginGuard:
    """API requests from a browser on another origin must come from an allowed one.

    Requests without an `Origin` header (servers, the `openai` client) and same-origin
    requests pass; CORS headers themselves are `CORSMiddleware`'s job.
    """

    def __init__(self, app: ASGIApp, allowed_origins: Iterable[str]) -> None:
        self.app = app
        self.allowed = frozenset(origin.rstrip("/") for origin in allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and route_path(scope).startswith("/api/"):
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin and origin not in self.allowed and origin != own_origin(scope, headers):
                count_refusal(scope, "origin_not_allowed")
                response = APIError.said(403, "origin_not_allowed", origin=origin[:200]).response()
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class SharedAssets:
    """Content-hashed assets (`/static/v/<build>/…`) are the same bytes for every page and kept
    a year: shared with any origin (`*`) and never varied by `Origin`, so the browser keeps one
    copy. Varied by `Origin`, the copy the service worker stored (its requests carry none) did
    not match a page's module import (which does), and every returning visit revalidated the
    bundle. Only the entry (`chat-widget.js`) is shared with allowed origins alone, as before.

    Placed outside `CORSMiddleware`: it rewrites what that middleware added."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not route_path(scope).startswith("/static/v/"):
            await self.app(scope, receive, send)
            return

        async def shared(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                vary = [v.strip() for v in ",".join(headers.getlist("vary")).split(",")]
                del headers["vary"]
                kept = [v for v in vary if v and v.lower() != "origin"]
                if kept:
                    headers["vary"] = ", ".join(kept)
                headers["access-control-allow-origin"] = "*"
            await send(message)

        await self.app(scope, receive, shared)


def route_path(scope: Scope) -> str:
    """The path inside this app: the same whether it is served at the root or mounted."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def own_origin(scope: Scope, headers: Headers) -> str:
    return f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"


class HardeningHeaders:
    """Adds the usual hardening headers to every response that does not set its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HARDENING_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def page_policy(image_hosts: Iterable[str] = ()) -> str:
    """The demo page's Content-Security-Policy: what the widget needs and nothing more.

    The page runs only our modules and starts a module worker (same origin, or a blob shim
    for a cross-origin server); Python runs in the worker. The page compiles Pyodide's
    WebAssembly for it (Chromium caches a page's compiled code, never a worker's), which
    `'wasm-unsafe-eval'` allows: without it, every visit reported a violation.
    """
    images = " ".join(["'self'", "data:", *(f"https://{host}" for host in image_hosts)])
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self' 'wasm-unsafe-eval'",
            "style-src 'self'",
            "connect-src 'self'",
            "worker-src 'self' blob:",
            f"img-src {images}",
            "font-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
            "object-src 'none'",
        ]
    )
