"""Chatkeep in your own tests: a real server on a free port, the model it answers with, and
a page object for the widget.

Installed with Chatkeep, this module is a pytest plugin (entry point `pytest11`), so every
test can ask for `chatkeep_server`, a running server whose `.url` a page embeds the widget
from, and `chatkeep_model`, the model that server answers with during the test: answers
queued with `reply(...)`, the demo model's beyond them, and the `requests` sent upstream.
`ChatWidget(page)` drives the widget on a Playwright page. Name another upstream by
overriding the fixture `chatkeep_server_args` with the flags `chatkeep serve` takes (then
`chatkeep_model` is not the model answering, and says so).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import httpx
import pytest

from .errors import ServerDidNotStart
from .page_object import ChatWidget
from .scripted_model import ChatkeepModel

__all__ = ["CHROMIUM_FLAGS", "ChatWidget", "ChatkeepModel", "ChatkeepServer", "RedisServer",
           "ServerDidNotStart", "free_port"]  # fmt: skip

#: Flags for a headless Chromium in a container or CI: no sandbox, GPU or background traffic.
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
_LISTENING = re.compile(r"Uvicorn running on (http://\S+)")


def free_port() -> int:
    """A loopback port free right now (for servers that cannot be given port 0)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ChatkeepServer:
    """`chatkeep serve` in a subprocess on a free port, its output kept to explain failures.

    The port is chosen by the server itself (port 0) and read from its log, so two servers
    started at once never race for the same port.
    """

    def __init__(
        self, *args: str, env: dict[str, str] | None = None, command: Sequence[str] = ()
    ) -> None:
        """`args` are `chatkeep serve` flags; `command` replaces `python -m chatkeep serve`."""
        serve = list(command) or [sys.executable, "-m", __package__ or "chatkeep", "serve"]
        self.process = subprocess.Popen(
            [*serve, "--port", "0", *args],
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
        self.url = ""
        self._lines: list[str] = []
        self._listening = threading.Event()
        self._reader = threading.Thread(target=self._read_output, daemon=True)
        self._reader.start()

    @property
    def output(self) -> str:
        return "".join(self._lines)

    def wait_until_up(self, timeout: float = 30.0) -> ChatkeepServer:
        """Wait until `/healthz` answers; raise `ServerDidNotStart` with the output if not."""
        deadline = time.monotonic() + timeout
        if self._listening.wait(timeout):
            while time.monotonic() < deadline and self.process.poll() is None:
                try:
                    if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                        return self
                except httpx.HTTPError:
                    time.sleep(0.05)
        self.stop()
        raise ServerDidNotStart(f"chatkeep serve did not come up; its output:\n{self.output}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=5)

    def __enter__(self) -> ChatkeepServer:
        return self.wait_until_up()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _read_output(self) -> None:
        assert self.process.stdout is not None
        with self.process.stdout:
            for line in self.process.stdout:
                self._lines.append(line)
                if not self.url and (match := _LISTENING.search(line)):
                    self.url = match.group(1)
                    self._listening.set()
        self._listening.set()  # exited: wake the waiter, which sees no URL


class RedisServer:
    """A `redis-server` of the test's own on a free port, keeping nothing on disk, for
    `--redis-url`. Needs `redis-server` on the PATH (Debian's package)."""

    def __init__(self, executable: str = "redis-server") -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = subprocess.Popen(
            [executable, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while not self._answers():
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                raise ServerDidNotStart(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)

    def __enter__(self) -> RedisServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture(scope="session")
def chatkeep_server_args() -> Sequence[str]:
    """Flags for `chatkeep serve`; override to name an upstream (`--upstream`, `--model`)."""
    return ()


@pytest.fixture(scope="session")
def chatkeep_upstream() -> Iterator[ChatkeepModel]:
    """The scripted model of the whole session; each test gets it reset as `chatkeep_model`."""
    with ChatkeepModel() as model:
        yield model


@pytest.fixture(scope="session")
def chatkeep_mcp_servers() -> Mapping[str, Mapping[str, Any]]:
    """Your MCP servers, for `chatkeep_server` to offer their tools while it answers with
    `chatkeep_model`: name → `[mcp.NAME]` table (`url`, and `headers`, `tools`, `approval` as
    in the providers file). None by default; override it to script calls to your tools."""
    return {}


@pytest.fixture(scope="session")
def chatkeep_server(
    chatkeep_server_args: Sequence[str],
    chatkeep_upstream: ChatkeepModel,
    chatkeep_mcp_servers: Mapping[str, Mapping[str, Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[ChatkeepServer]:
    """A running Chatkeep server, stopped afterwards. Unless its flags name an upstream, it
    answers with `chatkeep_model` (the demo model until a test queues answers), and offers
    the tools of `chatkeep_mcp_servers`."""
    args = list(chatkeep_server_args)
    names_upstream = any(arg.split("=")[0] in ("--upstream", "--config") for arg in args) or any(
        os.environ.get(name) for name in ("CHATKEEP_UPSTREAM", "CHATKEEP_CONFIG")
    )
    if not names_upstream and chatkeep_mcp_servers:
        # MCP servers live in a providers file: the kit's model is its one provider ("kit").
        models, rest = _models_out_of(args)
        config = tmp_path_factory.mktemp("chatkeep-kit") / "chatkeep.toml"
        config.write_text(kit_config(chatkeep_upstream.url, models, chatkeep_mcp_servers))
        args = ["--config", str(config), "--rate-limit", "0", *rest]
        env = {KIT_KEY: chatkeep_upstream.key}
    elif not names_upstream:
        models = [] if "--model" in args else ["--model", "demo"]
        args = ["--upstream", chatkeep_upstream.url, *models, "--rate-limit", "0", *args]
        # The key reaches the server through its environment, where `ps` does not show it.
        env = {"CHATKEEP_API_KEY": chatkeep_upstream.key}
    else:
        env = {}
    server = ChatkeepServer(*args, env=env)
    server.answers_with_kit = not names_upstream  # type: ignore[attr-defined]
    try:
        server.wait_until_up()
    except ServerDidNotStart as exc:
        pytest.fail(str(exc), pytrace=False)
    yield server
    server.stop()


#: the variable the kit's providers file names for its model's key
KIT_KEY = "CHATKEEP_KIT_KEY"


def kit_config(url: str, models: Sequence[str], mcp: Mapping[str, Mapping[str, Any]]) -> str:
    """A providers file whose one provider is the kit's model, with `mcp`'s tables."""
    lines = ["[providers.kit]", f"base_url = {json.dumps(url)}", f'api_key_env = "{KIT_KEY}"',
             f"models = {json.dumps(list(models))}"]  # fmt: skip
    for name, table in mcp.items():
        lines.append(f"\n[mcp.{name}]")
        for key, value in table.items():
            if isinstance(value, Mapping):
                pairs = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in value.items())
                lines.append(f"{key} = {{ {pairs} }}")
            else:
                lines.append(
                    f"{key} = {json.dumps(list(value) if isinstance(value, tuple) else value)}"
                )
    return "\n".join(lines) + "\n"


def _models_out_of(args: list[str]) -> tuple[list[str], list[str]]:
    """The `--model` values of `args` (the demo model when none), and the other flags."""
    models, rest, taking = [], [], False
    for arg in args:
        if taking:
            models.append(arg)
        elif arg.startswith("--model="):
            models.append(arg.split("=", 1)[1])
        elif arg != "--model":
            rest.append(arg)
        taking = arg == "--model"
    return models or ["demo"], rest


@pytest.fixture
def chatkeep_model(
    chatkeep_server: ChatkeepServer, chatkeep_upstream: ChatkeepModel
) -> Iterator[ChatkeepModel]:
    """The model `chatkeep_server` answers with during this test: empty queue, empty record."""
    if not getattr(chatkeep_server, "answers_with_kit", False):
        reason = ("chatkeep_model answers only when chatkeep_server uses it, and the "
                  "chatkeep_server_args fixture names another upstream.")  # fmt: skip
        pytest.fail(reason, pytrace=False)
    chatkeep_upstream.reset()
    yield chatkeep_upstream
    chatkeep_upstream.reset()
