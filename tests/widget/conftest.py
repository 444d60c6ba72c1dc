"""Shared helpers for the widget's tests, which run on CPython and again under Pyodide."""

from __future__ import annotations

import os
import sys

from hypothesis import HealthCheck, settings

IN_PYODIDE = sys.platform == "emscripten"
# Pyodide is slower and single-threaded: no deadlines there, fewer examples. In CI the
# examples are derandomized, so a run is repeatable; locally each run explores new ones.
settings.register_profile(
    "chatkeep",
    deadline=None,
    max_examples=60 if IN_PYODIDE else 200,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=bool(os.environ.get("CI")),
)
settings.load_profile("chatkeep")
