"""Where the public hostile-input corpora are, if anywhere.

They are other projects' material and live outside the repository (`../shared/corpus` beside
it, as in CI, or wherever `CHATKEEP_CORPUS` points). A bare clone has none: tests that read
them skip with a reason that says so, and the project's own payloads always run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent


def corpus_dir() -> Path:
    configured = os.environ.get("CHATKEEP_CORPUS")
    return Path(configured) if configured else REPOSITORY.parent / "shared" / "corpus"


def corpus_path(*parts: str) -> Path:
    """A file or folder of the public corpora; skips the calling test when it is absent."""
    path = corpus_dir().joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"public corpus not found at {path} (a bare clone has none; set CHATKEEP_CORPUS "
            "to read it elsewhere): the project's own hostile inputs still run"
        )
    return path
