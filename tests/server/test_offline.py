"""The offline manifest: every asset the widget may need, and a build id that follows them."""

from __future__ import annotations

import os
from pathlib import Path

from localclient import TestClient

from server import create_app
from server.offline import build_id, offline_files


def test_the_manifest_lists_the_widget_and_the_runtime_not_the_tooling(runtime_dir: Path) -> None:
    with TestClient(create_app(runtime_dir=runtime_dir)) as http:
        manifest = http.get("/static/offline.json").json()
        assert {"chat-widget.js", "worker.js", "service-worker.js", "runtime/widget.whl",
                "runtime/pyodide/pyodide.asm.wasm"} <= set(manifest["files"])  # fmt: skip
        assert not [f for f in manifest["files"] if "node_modules" in f or f.endswith(".gz")]
        assert "package.json" not in manifest["files"]
        script = http.get("/static/service-worker.js")
        assert script.headers["service-worker-allowed"] == "/"


def test_a_new_build_has_a_new_id(tmp_path: Path) -> None:
    (tmp_path / "static").mkdir()
    asset = tmp_path / "static" / "chat-widget.js"
    asset.write_text("one")
    before = build_id(offline_files(tmp_path / "static", tmp_path / "runtime"))
    asset.write_text("two!")
    os.utime(asset, ns=(10**18, 10**18))
    assert build_id(offline_files(tmp_path / "static", tmp_path / "runtime")) != before
