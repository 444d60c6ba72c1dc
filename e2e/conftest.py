"""Browser tests: the real server in a subprocess on a free port, driven by Chromium.

The server is Chatkeep's own pytest plugin's `chatkeep_server`, answering with its
`chatkeep_model` (the demo model unless a test queues answers): the testing kit that pages
embedding Chatkeep use, tested here by being used.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser
from postgres import needs_postgres
from servers import CHROMIUM_FLAGS, RunningServer
from synced_store import Synced

DEBIAN_CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Debian's Chromium where it is installed, else Playwright's own browser."""
    args = {**browser_type_launch_args, "args": list(CHROMIUM_FLAGS)}
    if os.path.exists(DEBIAN_CHROMIUM):
        args["executable_path"] = DEBIAN_CHROMIUM
    return args


@pytest.fixture(scope="session")
def chatkeep_server_args() -> list[str]:
    return ["--model", "demo", "--model", "demo-mini"]


@pytest.fixture(scope="session")
def server(chatkeep_server: RunningServer) -> RunningServer:
    return chatkeep_server


@pytest.fixture(scope="session")
def base_url(server: RunningServer) -> str:
    return server.url


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    """Service workers off: most pages here are served by Playwright (`page.route`), which a
    service worker, going to the network itself, would not see. test_offline_page.py turns
    them on in a context of its own."""
    return {**browser_context_args, "service_workers": "block"}


# Synced history and shared links (test_synced_history.py, test_shared_links.py).


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=needs_postgres)])
def synced(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Synced]:
    server = Synced(request.param, tmp_path_factory.mktemp("sync"))
    yield server
    server.close()


@pytest.fixture
def devices_closed(browser: Browser) -> Iterator[None]:
    """Every device a test opened goes with it, passed or failed: an open one goes on syncing
    (events, rounds every 30 s) through the tests after it."""
    before = set(browser.contexts)
    yield
    for context in browser.contexts:
        if context not in before:
            context.close()
