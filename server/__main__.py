"""`python -m server`: serve Chatkeep with settings from flags and the environment."""

from __future__ import annotations

import sys

import uvicorn

from . import SettingsError, create_app, load_settings


def main(argv: list[str] | None = None) -> int:
    try:
        settings = load_settings(argv)
    except SettingsError as exc:
        print(f"chatkeep: {exc}", file=sys.stderr)
        return 2
    if settings.uses_demo_model:
        print("chatkeep: no upstream configured, answering with the built-in demo model")
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info")
    return 0


if __name__ == "__main__":
    sys.exit(main())
