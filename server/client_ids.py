"""Client ids the operator sees (logs, metrics, `chatkeep usage`): keyed, so they never reverse.

An id is 16 hex digits of HMAC-SHA-256 over the client (its address or token subject) with a
server secret. A plain hash of an address is no secret: all of IPv4 is 2^32 guesses, a core-hour.
The secret is the same for every worker and every restart, so a client keeps its id in a day's
usage and across deploys; it comes from, in order:

1. `--id-secret` / `CHATKEEP_ID_SECRET`, when the operator gives one (several servers without
   a shared Redis give the same one);
2. the Redis the servers share (`--redis-url`), where the first server to start puts a random one;
3. a file of random bytes kept beside this user's other state
   (`$XDG_STATE_HOME/chatkeep/id-secret`, else `~/.local/state/chatkeep/id-secret`), mode 0600.

`chatkeep serve` settles it before its workers start (they get it in their settings); an app
built directly (`create_app`, mounting, tests) without one uses a random secret of its own.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

#: where the servers sharing a Redis keep their secret
REDIS_KEY = "chatkeep:id-secret"
SECRET_BYTES = 32


class ClientIds:
    """Turns a client (`address:…`, `subject:…`) into the id the operator sees."""

    def __init__(self, secret: str | bytes | None = None) -> None:
        if secret is None:
            secret = secrets.token_bytes(SECRET_BYTES)
        self._key = secret.encode() if isinstance(secret, str) else secret

    def of(self, client: str) -> str:
        return hmac.new(
            self._key, f"chatkeep-client\0{client}".encode(), hashlib.sha256
        ).hexdigest()[:16]


def lasting_secret(redis_url: str | None, environ: dict[str, str] | None = None) -> str:
    """The secret kept across restarts: in the shared Redis, else in this user's state folder."""
    if redis_url:
        return _in_redis(redis_url)
    return _in_file(_state_dir(os.environ if environ is None else environ) / "id-secret")


def _in_redis(redis_url: str) -> str:
    import redis  # the synchronous client: this runs once, before the event loop

    client = redis.Redis.from_url(redis_url, socket_timeout=5, decode_responses=True)
    try:
        client.set(REDIS_KEY, secrets.token_hex(SECRET_BYTES), nx=True)
        kept = client.get(REDIS_KEY)
    finally:
        client.close()
    assert isinstance(kept, str)
    return kept


def _in_file(path: Path) -> str:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        made = path.with_name(f".id-secret.{os.getpid()}")
        made.write_text(secrets.token_hex(SECRET_BYTES) + "\n", encoding="ascii")
        made.chmod(0o600)
        try:  # in place whole, or not at all: two servers starting at once agree on one
            os.link(made, path)
        except FileExistsError:
            pass
        finally:
            made.unlink()
    return path.read_text(encoding="ascii").strip()


def _state_dir(environ: dict[str, str] | os._Environ[str]) -> Path:
    base = environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "chatkeep"
