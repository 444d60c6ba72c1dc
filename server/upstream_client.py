"""The one connection pool to the upstreams, shared by every request of a worker process.

Requests are built by an `httpx.AsyncClient` (its timeouts and default headers) and sent
straight to its transport: the client's own layers (an auth flow, redirects, a cookie jar)
cost 0.3–0.5 ms a request on the path to the first token (docs/benchmarks.md), and none of
them is wanted here. A cookie jar would even carry an upstream's cookies from one person's
request to the next person's. Where the environment names a proxy (`HTTPS_PROXY`, ...), the
client's own `send` is used, which routes through it.
"""

from __future__ import annotations

import urllib.request
from typing import Any

import httpx

from .redaction import Redactor
from .settings import Settings


class UpstreamClient:
    """The shared client and its transport, opened on first use.

    Mounted inside another app, this app's lifespan never runs (Starlette runs only the outer
    app's), so the client cannot be opened there; the lifespan still closes it when it runs.
    `transport` replaces the connection pool (tests, the demo model).
    """

    def __init__(self, settings: Settings, transport: httpx.AsyncBaseTransport | None) -> None:
        self.settings = settings
        #: what every relayed or kept text from an upstream passes through
        self.redact = Redactor.of(settings)
        self.transport = transport
        self._client: httpx.AsyncClient | None = None
        self._sending: httpx.AsyncBaseTransport | None = None
        #: no proxy from the environment to route through: straight to the transport
        self._direct = transport is not None or not urllib.request.getproxies()

    def get(self) -> httpx.AsyncClient:
        if self._client is None or self._client.is_closed:
            timeout = httpx.Timeout(
                self.settings.upstream_timeout, connect=min(10.0, self.settings.upstream_timeout)
            )
            # A small keep-alive pool: a large idle pool makes bursts of new streams slow.
            limits = httpx.Limits(max_connections=200, max_keepalive_connections=8)
            if self._direct:
                self._sending = self.transport or httpx.AsyncHTTPTransport(limits=limits)
                self._client = httpx.AsyncClient(transport=self._sending, timeout=timeout)
            else:
                self._client = httpx.AsyncClient(timeout=timeout, limits=limits)
        return self._client

    def post(self, url: str, payload: dict[str, Any], headers: dict[str, str]) -> httpx.Request:
        """A JSON POST with the client's timeouts and headers (JSON without NaN or Infinity)."""
        return self.get().build_request("POST", url, json=payload, headers=headers)

    async def send(self, request: httpx.Request) -> httpx.Response:
        """The upstream's response, its body still to be read (and closed) by the caller."""
        client = self.get()
        if self._sending is None:  # through the environment's proxy
            return await client.send(request, stream=True)
        response = await self._sending.handle_async_request(request)
        response.request = request
        return response

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
