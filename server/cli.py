"""The command line: `chatkeep serve [flags]` (also `python -m server [flags]` in a checkout)
and `chatkeep usage` (a day's spend per client, from Redis)."""

from __future__ import annotations

import argparse
import asyncio
import atexit
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import replace

import uvicorn

from .app import SETTINGS_VARIABLE, create_app
from .client_ids import lasting_secret
from .errors import SettingsError
from .metrics import MULTIPROCESS_VARIABLE
from .options import load_settings
from .settings import Settings
from .tracing import make_tracer
from .usage import read_day, table, today

USAGE = """usage: chatkeep serve [--host HOST] [--port PORT] [--upstream URL] [--model NAME] ...
       chatkeep usage [--redis-url URL] [--day YYYY-MM-DD]

Serves the Chatkeep demo page, the widget and the model proxy; or prints a day's spend.
Run "chatkeep serve --help" for every setting."""

TRUSTING_EVERY_PROXY = (
    "chatkeep: warning: --forwarded-allow-ips '*' believes the left-most X-Forwarded-For "
    "address of every request. That is safe only when every request comes through a proxy "
    "that replaces the header; one that appends to it (nginx's "
    "$proxy_add_x_forwarded_for) lets each client choose its identity, and so its rate limit "
    "and budget. Name the proxy's address instead (see docs/deployment.md)."
)


def main(argv: Sequence[str] | None = None) -> int:
    """`chatkeep serve ...`; the subcommand may be left out, as `python -m server` does."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "usage":
        return usage(args[1:])
    if args and args[0] == "serve":
        args = args[1:]
    elif args and not args[0].startswith("-"):
        print(f"chatkeep: unknown command {args[0]!r}\n\n{USAGE}", file=sys.stderr)
        return 2
    return serve(args)


def serve(argv: Sequence[str]) -> int:
    try:
        settings = load_settings(argv)
        if settings.otel:
            make_tracer()  # says now, not in a worker, when OpenTelemetry is missing
    except SettingsError as exc:
        print(f"chatkeep: {exc}", file=sys.stderr)
        return 2
    if settings.id_secret is None:
        try:
            settings = replace(settings, id_secret=lasting_secret(settings.redis_url))
        except Exception as exc:  # Redis down, a folder not writable
            print(f"chatkeep: the key of client ids could not be kept ({exc}): ids in logs "
                  "and usage change at each restart; set CHATKEEP_ID_SECRET to keep them",
                  file=sys.stderr)  # fmt: skip
    if settings.uses_demo_model:
        print("chatkeep: no upstream configured, answering with the built-in demo model")
    for warning in start_warnings(settings):
        print(warning, file=sys.stderr)
    # Chatkeep reads X-Forwarded-For itself, from the proxies --forwarded-allow-ips names;
    # uvicorn's own reading would trust 127.0.0.1 and hand any local client a fresh address.
    if settings.workers > 1:
        # Each worker process builds its own app from the same settings.
        os.environ[SETTINGS_VARIABLE] = settings.to_json()
        if settings.metrics and not os.environ.get(MULTIPROCESS_VARIABLE):
            # The workers write their figures here and any of them adds them all up.
            shared = tempfile.mkdtemp(prefix="chatkeep-metrics-")
            atexit.register(shutil.rmtree, shared, ignore_errors=True)
            os.environ[MULTIPROCESS_VARIABLE] = shared
        uvicorn.run(
            f"{__package__}.app:from_environment", factory=True, workers=settings.workers,
            host=settings.host, port=settings.port, log_level="info", proxy_headers=False,
        )  # fmt: skip
        return 0
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info",
                proxy_headers=False)  # fmt: skip
    return 0


def start_warnings(settings: Settings) -> list[str]:
    """What the operator is told at start: settings that work, but rarely as meant."""
    return [TRUSTING_EVERY_PROXY] if settings.trusts_every_proxy else []


def usage(argv: Sequence[str]) -> int:
    """`chatkeep usage`: a day's requests, tokens and cost per client (keyed ids)."""
    parser = argparse.ArgumentParser(prog="chatkeep usage", description=usage.__doc__)
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("CHATKEEP_REDIS_URL"),
        help="the Redis the server keeps budgets in (env CHATKEEP_REDIS_URL)",
    )
    parser.add_argument("--day", default=today(), help="YYYY-MM-DD, in UTC (default: today)")
    args = parser.parse_args(argv)  # fmt: skip
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", args.day):
        print(f"chatkeep usage: --day must be YYYY-MM-DD, not {args.day!r}", file=sys.stderr)
        return 2
    if not args.redis_url:
        print(
            "chatkeep usage: the spend is kept where budgets are: give the server's Redis "
            "(--redis-url or CHATKEEP_REDIS_URL). A server without Redis keeps it in its "
            "process only; its totals show at /metrics (--metrics).",
            file=sys.stderr,
        )
        return 2
    try:
        rows = asyncio.run(read_day(args.redis_url, args.day))
    except Exception as exc:
        print(f"chatkeep usage: cannot read Redis at the given URL ({exc})", file=sys.stderr)
        return 1
    print(table(rows, args.day))
    return 0
