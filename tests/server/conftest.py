"""Server tests: the app in process, its upstream replaced by an httpx transport."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres import PostgresServer, needs_postgres

from server import Settings
from server.testing import RedisServer


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    """A redis-server of the test's own, on a free port."""
    with RedisServer() as server:
        yield server


@pytest.fixture
def runtime_dir(tmp_path: Path) -> Path:
    """A stand-in for the built runtime folder, with a precompressed file."""
    folder = tmp_path / "runtime"
    (folder / "pyodide").mkdir(parents=True)
    wasm = b"\0asm" + b"\1" * 1000
    (folder / "pyodide" / "pyodide.asm.wasm").write_bytes(wasm)
    (folder / "pyodide" / "pyodide.asm.wasm.gz").write_bytes(gzip.compress(wasm))
    (folder / "pyodide" / "widget_python.zip").write_bytes(b"PK python")
    return folder


@pytest.fixture
def upstream_settings() -> Settings:
    return Settings(
        upstream="https://models.example/v1/",
        api_key="sk-SECRET-KEY-123",
        models=("gpt-a", "gpt-b"),
    )


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the run; each test takes a database of its own."""
    server = PostgresServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=needs_postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty sync store of each kind (`--sync-store`)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'data' / 'sync.db'}"
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.database()
