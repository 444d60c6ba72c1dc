"""The offline manifest: every asset the widget may need, and a build id that follows them."""

from __future__ import annotations

from pathlib import Path

from localclient import TestClient

from server import create_app
from server.offline import offline_files


def test_the_manifest_lists_the_widget_and_the_runtime_not_the_tooling(runtime_dir: Path) -> None:
    with TestClient(create_app(runtime_dir=runtime_dir)) as http:
        manifest = http.get("/static/offline.json").json()
        build = f"v/{manifest['build']}/"
        assert {"chat-widget.js", f"{build}chat-widget.js", f"{build}worker.js",
                f"{build}runtime/pyodide/widget_python.zip",
                f"{build}runtime/pyodide/pyodide.asm.wasm",
                } <= set(manifest["files"])  # fmt: skip
        assert not [f for f in manifest["files"] if "node_modules" in f or f.endswith(".gz")]
        assert "package.json" not in manifest["files"]
        script = http.get("/static/service-worker.js")
        assert script.headers["service-worker-allowed"] == "/"


def test_the_listing_never_enters_development_folders(tmp_path: Path) -> None:
    static = tmp_path / "static"
    (static / "node_modules" / "pkg").mkdir(parents=True)
    (static / "node_modules" / "pkg" / "index.js").write_text("x")
    (static / ".cache").mkdir()
    (static / ".cache" / "a.js").write_text("x")
    (static / "i18n").mkdir()
    (static / "i18n" / "de.js").write_text("x")
    (static / "chat-widget.js").write_text("x")
    (static / "chat-widget.d.ts").write_text("x")
    runtime = static / "runtime"
    (runtime / "min").mkdir(parents=True)
    (runtime / "min" / "chat-widget.js").write_text("x")
    (runtime / "widget_python.zip").write_text("x")
    names = [name for name, _ in offline_files(static, runtime)]
    assert names == ["chat-widget.js", "i18n/de.js", "runtime/widget_python.zip"]


def test_pdf_support_is_served_under_the_build_but_not_kept_ahead(runtime_dir: Path) -> None:
    """pypdf is fetched when a person attaches a PDF, never ahead for offline use; yet it is
    part of the build, so a new pypdf is a new digest (never an old file kept a year)."""
    (runtime_dir / "pdf").mkdir()
    (runtime_dir / "pdf" / "pypdf.whl").write_bytes(b"PK pypdf")
    (runtime_dir / "pdf" / "pdf_stdlib.zip").write_bytes(b"PK stdlib")
    with TestClient(create_app(runtime_dir=runtime_dir)) as http:
        manifest = http.get("/static/offline.json").json()
        assert not [name for name in manifest["files"] if "/pdf/" in name]
        wheel = http.get(f"/static/v/{manifest['build']}/runtime/pdf/pypdf.whl")
        assert wheel.status_code == 200 and wheel.content == b"PK pypdf"
        assert "immutable" in wheel.headers["cache-control"]
    (runtime_dir / "pdf" / "pypdf.whl").write_bytes(b"PK pypdf, a newer one")
    with TestClient(create_app(runtime_dir=runtime_dir)) as http:
        assert http.get("/static/offline.json").json()["build"] != manifest["build"]
