"""Which Host names the server answers: the defence against DNS rebinding.

A page on `evil.example` can point that name at 127.0.0.1 and drive a `chatkeep serve` running
on a laptop, with its key, because to the browser the requests stay on the page's own origin.
They still say `Host: evil.example`: unless named, such a request gets 400. By default the
server answers IP addresses and `localhost`; `--allowed-host` names the public ones (`*` for any,
`*.example.com` for a domain and its subdomains).

Not Starlette's `TrustedHostMiddleware`: it has no way to say "any IP address" (the default
here, so that a server reached by its address works), and it refuses in plain text, where
every refusal of this server's API is an OpenAI-shaped JSON error.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import APIError
from .metrics import count_refusal


class HostGuard:
    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = tuple(host.lower().rstrip(".") for host in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not self.allows(
            Headers(scope=scope).get("host", "")
        ):
            count_refusal(scope, "host_not_allowed")
            refused = APIError.said(400, "host_not_allowed")
            await refused.response()(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def allows(self, header: str) -> bool:
        host = hostname(header)
        if not host:
            return False
        if "*" in self.allowed or host == "localhost" or host.endswith(".localhost"):
            return True
        if is_ip(host):
            return True
        return any(
            host == pattern or (pattern.startswith("*.") and host.endswith(pattern[1:]))
            for pattern in self.allowed
        )


def hostname(header: str) -> str:
    """The name in a Host header, without its port: `[::1]:8000` is `::1`."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else ""
    return header.rsplit(":", 1)[0].rstrip(".") if header.count(":") == 1 else header.rstrip(".")


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
