"""Browser tests: the real server in a subprocess on a free port, driven by Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
DEBIAN_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Debian's Chromium where it is installed, else Playwright's own browser."""
    args = {**browser_type_launch_args, "args": CHROMIUM_FLAGS}
    if os.path.exists(DEBIAN_CHROMIUM):
        args["executable_path"] = DEBIAN_CHROMIUM
    return args


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RunningServer:
    """A `python -m server` process; its output is kept to explain a failure."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = ROOT / "build" / f"e2e-server-{self.port}.log"
        self.log.parent.mkdir(exist_ok=True)
        self._log_file = self.log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", str(self.port), *args],
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )

    def wait_until_up(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        output = self.log.read_text(errors="replace")
        pytest.fail(f"the server did not come up on {self.url}; its output:\n{output}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self._log_file.close()


@pytest.fixture(scope="session")
def server() -> Iterator[RunningServer]:
    running = RunningServer("--model", "demo", "--model", "demo-mini")
    running.wait_until_up()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def base_url(server: RunningServer) -> str:
    return server.url
