"""Shared helpers for the widget's tests, which run on CPython and again under Pyodide."""

from __future__ import annotations

import sys

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
