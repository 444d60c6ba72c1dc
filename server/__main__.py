"""`python -m server` (a checkout) and `python -m chatkeep` (installed): serve Chatkeep."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
