"""Shared helpers for the widget's tests, which run on CPython and again under Pyodide."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

IN_PYODIDE = sys.platform == "emscripten"
# Pyodide is slower and single-threaded: no deadlines there, fewer examples.
settings.register_profile(
    "chatkeep",
    deadline=None,
    max_examples=60 if IN_PYODIDE else 200,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("chatkeep")


def shared_dir() -> Path:
    """`../shared` beside the repository (CHATKEEP_SHARED where the tree is mounted elsewhere)."""
    configured = os.environ.get("CHATKEEP_SHARED")
    return Path(configured) if configured else Path(__file__).resolve().parents[3] / "shared"


@pytest.fixture(scope="session")
def corpus() -> Path:
    path = shared_dir() / "corpus"
    if not path.is_dir():
        pytest.fail(f"the public test corpora were not found at {path}: ../shared must be present")
    return path
