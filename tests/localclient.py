"""Starlette's test client, speaking to the app as a browser on this machine does: at
http://127.0.0.1 (the server answers IP addresses and localhost unless told other names)."""

from __future__ import annotations

from typing import Any

from starlette import testclient


class TestClient(testclient.TestClient):
    __test__ = False  # not a test class for pytest

    def __init__(self, app: Any, base_url: str = "http://127.0.0.1", **options: Any) -> None:
        super().__init__(app, base_url=base_url, **options)
