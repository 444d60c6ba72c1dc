"""Who a request comes from: a signed client token's subject, or the client's address.

Behind a load balancer the socket's address is the balancer's, so `--forwarded-allow-ips`
names the proxies whose `X-Forwarded-For` is believed (every line of it, in order): the client
is the right-most address there that is not itself a trusted proxy; with `*` every hop is
trusted and the client is the left-most address. From anyone else the header is ignored,
since any client can set it. IPv6 clients count by their /64.

With `CHATKEEP_CLIENT_SECRET`, API calls need a token the host's backend made with
`sign_client_token(secret, subject, ttl_seconds)`: itsdangerous's URL-safe signed JSON
(`<payload>.<signature>`, an HMAC-SHA256 under a salt of Chatkeep's own), the payload
`{"sub", "exp"}`. The token is reusable until it expires and never goes upstream.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterable
from hashlib import sha256

from itsdangerous import BadSignature, URLSafeSerializer
from starlette.requests import Request

from .errors import APIError

#: what makes these signatures Chatkeep's client tokens and nothing else signed with the secret
TOKEN_SALT = "chatkeep.client-token"


def sign_client_token(secret: str, subject: str, ttl_seconds: int) -> str:
    """A token that lets `subject` use the API for `ttl_seconds`, for the widget's `token`."""
    if not secret:
        raise ValueError("the client secret must not be empty")
    payload = {"sub": str(subject), "exp": int(time.time()) + int(ttl_seconds)}
    return _serializer(secret).dumps(payload)


def verify_client_token(secret: str, token: str, now: float | None = None) -> str:
    """The token's subject, or `APIError` 401 saying why it is refused."""
    try:
        payload = _serializer(secret).loads(token)
        subject, expires = str(payload["sub"]), int(payload["exp"])
    except (BadSignature, ValueError, KeyError, TypeError) as exc:
        raise _unauthorized("invalid_client_token") from exc
    if expires <= (time.time() if now is None else now):
        raise _unauthorized("invalid_client_token.expired")
    return subject


class ClientIdentity:
    """Names the client of a request, for limits and budgets."""

    def __init__(self, trusted_proxies: Iterable[str], secret: str | None) -> None:
        self.trusted = [ipaddress.ip_network(p, strict=False) for p in trusted_proxies if p != "*"]
        self.trust_all = "*" in trusted_proxies
        self.secret = secret

    def of(self, request: Request) -> str:
        if self.secret:
            header = request.headers.get("authorization", "")
            token = header[7:].strip() if header[:7].lower() == "bearer " else ""
            if not token:
                raise _unauthorized("invalid_client_token.missing")
            return "subject:" + verify_client_token(self.secret, token)
        return "address:" + self.address(request)

    def address(self, request: Request) -> str:
        """The client's address as limits count it: an IPv6 client by its /64, since one
        host is handed a whole /64 and can take a new address from it for every request."""
        return _counted(self._address(request))

    def _address(self, request: Request) -> str:
        peer = request.client.host if request.client else "unknown"
        if not self._is_trusted(peer):
            return peer
        # Every header line, in order: a proxy may add its own line rather than extend one,
        # and then reading the first would believe what the client wrote.
        lines = request.headers.getlist("x-forwarded-for")
        forwarded = [a.strip() for line in lines for a in line.split(",") if a.strip()]
        if self.trust_all:  # every hop is a proxy of ours: the first address is the client
            return forwarded[0] if forwarded else peer
        for address in reversed(forwarded):
            if not self._is_trusted(address):
                return address
        return peer

    def _is_trusted(self, address: str) -> bool:
        if self.trust_all:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted)


def _counted(address: str) -> str:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _serializer(secret: str) -> URLSafeSerializer:
    return URLSafeSerializer(secret, salt=TOKEN_SALT, signer_kwargs={"digest_method": sha256})


def _unauthorized(text: str) -> APIError:
    return APIError.said(401, text, {"WWW-Authenticate": "Bearer"})
