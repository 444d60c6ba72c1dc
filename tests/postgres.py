"""A PostgreSQL server of the tests' own: initdb in a temporary folder, on a free port.

Debian's `postgresql` package gives the programs; PostgreSQL refuses to run as root, so
there they run as the `postgres` user (`runuser`). Tests that need it are skipped, saying
why, where the programs are missing (`make test` installs them).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from server.testing import free_port


def _bin_dir() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    return Path(versions[-1]) if versions else None


BIN = _bin_dir()
needs_postgres = pytest.mark.skipif(
    BIN is None or (os.geteuid() == 0 and shutil.which("runuser") is None),
    reason="PostgreSQL is not installed (make test installs Debian's postgresql)",
)


class PostgresServer:
    """`url` reaches its `postgres` database; `database()` makes a fresh one."""

    def __init__(self) -> None:
        assert BIN is not None
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="chatkeep-pg-"))
        self.data = self.folder / "data"
        as_root = os.geteuid() == 0
        if as_root:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "chatkeep", "--no-sync",
                  "-E", "UTF8")  # fmt: skip
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")  # fmt: skip
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-w", "-t", "30",
                  "-l", str(self.folder / "log"), "start")  # fmt: skip
        self.url = f"postgresql://chatkeep@127.0.0.1:{self.port}/postgres"

    def database(self) -> str:
        """The URL of a new, empty database."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url.rsplit("/", 1)[0] + "/" + name

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, program: str, *args: str, check: bool = True) -> None:
        assert BIN is not None
        command = [str(BIN / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=check, capture_output=True, timeout=60)
