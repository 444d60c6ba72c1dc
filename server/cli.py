"""The command line: `chatkeep serve [flags]`, also `python -m server [flags]` in a checkout."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import uvicorn

from .app import SETTINGS_VARIABLE, create_app
from .errors import SettingsError
from .settings import load_settings

USAGE = """usage: chatkeep serve [--host HOST] [--port PORT] [--upstream URL] [--model NAME] ...

Serves the Chatkeep demo page, the widget and the model proxy.
Run "chatkeep serve --help" for every setting."""


def main(argv: Sequence[str] | None = None) -> int:
    """`chatkeep serve ...`; the subcommand may be left out, as `python -m server` does."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "serve":
        args = args[1:]
    elif args and not args[0].startswith("-"):
        print(f"chatkeep: unknown command {args[0]!r}\n\n{USAGE}", file=sys.stderr)
        return 2
    return serve(args)


def serve(argv: Sequence[str]) -> int:
    try:
        settings = load_settings(argv)
    except SettingsError as exc:
        print(f"chatkeep: {exc}", file=sys.stderr)
        return 2
    if settings.uses_demo_model:
        print("chatkeep: no upstream configured, answering with the built-in demo model")
    # Chatkeep reads X-Forwarded-For itself, from the proxies --forwarded-allow-ips names;
    # uvicorn's own reading would trust 127.0.0.1 and hand any local client a fresh address.
    if settings.workers > 1:
        # Each worker process builds its own app from the same settings.
        os.environ[SETTINGS_VARIABLE] = settings.to_json()
        uvicorn.run(
            f"{__package__}.app:from_environment", factory=True, workers=settings.workers,
            host=settings.host, port=settings.port, log_level="info", proxy_headers=False,
        )  # fmt: skip
        return 0
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info",
                proxy_headers=False)  # fmt: skip
    return 0
