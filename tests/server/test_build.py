"""The build named by its contents: assets under the digest are kept a year, the entry that
names the digest is asked again on each load, and a new build is a new name."""

from __future__ import annotations

import gzip
import os
import time
from pathlib import Path

import pytest
from localclient import TestClient

from server import create_app
from server.build import IMMUTABLE, Build


@pytest.fixture
def site(tmp_path: Path) -> tuple[Path, Path]:
    """A static folder with two scripts and a runtime folder with the widget's Python."""
    static, runtime = tmp_path / "static", tmp_path / "runtime"
    static.mkdir()
    (runtime / "pyodide").mkdir(parents=True)
    (static / "chat-widget.js").write_text(
        'import { client } from "./client.js";\nimport "./client.js";\n'
        "export class ChatWidget {}\n// a comment\n"
    )
    (static / "client.js").write_text("export const client = 1;\n")
    (runtime / "pyodide" / "widget_python.zip").write_bytes(b"PK python")
    return static, runtime


def newer_copy(site: tuple[Path, Path], name: str, text: str) -> int:
    """Writes `name` into the minified folder a second newer than the sources (as `make setup`
    leaves it); returns its time."""
    static, runtime = site
    (runtime / "min").mkdir(exist_ok=True)
    copy = runtime / "min" / name
    copy.write_text(text)
    made = (static / "client.js").stat().st_mtime_ns + 10**9
    os.utime(copy, ns=(made, made))
    return made


def client(site: tuple[Path, Path]) -> TestClient:
    static, runtime = site
    return TestClient(create_app(static_dir=static, runtime_dir=runtime))


def test_the_entry_names_the_build_and_is_asked_again_each_load(site: tuple[Path, Path]) -> None:
    with client(site) as http:
        entry = http.get("/static/chat-widget.js")
        digest = http.get("/static/offline.json").json()["build"]
        again = http.get("/static/chat-widget.js", headers={"if-none-match": entry.headers["etag"]})
    assert entry.headers["cache-control"] == "no-cache"
    assert entry.headers["content-type"].startswith("text/javascript")
    assert f'export {{ ChatWidget }} from "./v/{digest}/chat-widget.js";' in entry.text
    assert f'import "./v/{digest}/worker-start.js";' in entry.text
    # what the element imports is asked for with it, at once (once each)
    assert entry.text.count(f'import "./v/{digest}/client.js";') == 1
    assert "//" not in entry.text.replace("./v/", "")  # its comments stay in the template
    assert again.status_code == 304


def test_assets_under_the_digest_are_kept_a_year(site: tuple[Path, Path]) -> None:
    with client(site) as http:
        digest = http.get("/static/offline.json").json()["build"]
        script = http.get(f"/static/v/{digest}/client.js")
        python = http.get(f"/static/v/{digest}/runtime/pyodide/widget_python.zip")
        plain = http.get("/static/client.js")
    assert script.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
    assert script.text == "export const client = 1;\n"
    assert python.headers["cache-control"] == IMMUTABLE
    assert python.content == b"PK python"
    assert plain.headers["cache-control"] == "no-cache"


def test_a_page_of_an_older_build_is_answered_but_never_told_to_keep_it(
    site: tuple[Path, Path],
) -> None:
    with client(site) as http:
        old = http.get("/static/v/0123456789abcdef01234567/client.js")
        missing = http.get("/static/v/0123456789abcdef01234567/nope.js")
        tooling = http.get("/static/v/0123456789abcdef01234567/package.json")
    assert old.status_code == 200
    assert old.headers["cache-control"] == "no-cache"
    assert missing.status_code == 404
    assert tooling.status_code == 404


def test_a_changed_byte_is_a_new_build_and_a_touched_file_is_not(
    site: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    static, runtime = site
    monkeypatch.setattr("server.build.RECHECK", 0.0)
    build = Build(static, runtime)
    first = build.digest()
    later = time.time_ns() + 10**9
    os.utime(static / "client.js", ns=(later, later))
    assert build.digest() == first  # same bytes: same name, browsers keep what they have
    (static / "client.js").write_text("export const client = 2;\n")
    assert build.digest() != first
    assert len(first) == 24


def test_a_current_minified_copy_is_served_and_a_stale_one_is_not(
    site: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    static, runtime = site
    monkeypatch.setattr("server.build.RECHECK", 0.0)
    made = newer_copy(
        site, "client.js", "export const client=1;\n//# sourceMappingURL=client.js.map\n"
    )
    (runtime / "min" / "client.js.map").write_text('{"version":3}')
    with client(site) as http:
        digest = http.get("/static/offline.json").json()["build"]
        minified = http.get(f"/static/v/{digest}/client.js")
        source_map = http.get(f"/static/v/{digest}/client.js.map")
        plain = http.get("/static/client.js")
        # The source edited after the copy was made: the source is served, under a new name.
        (static / "client.js").write_text("export const client = 'edited';\n")
        os.utime(static / "client.js", ns=(made + 10**9, made + 10**9))
        edited_digest = http.get("/static/offline.json").json()["build"]
        edited = http.get(f"/static/v/{edited_digest}/client.js")
    assert minified.text.startswith("export const client=1;")
    assert source_map.json() == {"version": 3}
    assert plain.text == "export const client = 1;\n"
    assert edited_digest != digest
    assert edited.text == "export const client = 'edited';\n"


def test_the_entry_loads_the_bundle_while_it_is_current_and_the_modules_after_an_edit(
    site: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    static, _ = site
    monkeypatch.setattr("server.build.RECHECK", 0.0)
    made = newer_copy(site, "bundle.js", "export class ChatWidget{}\n")
    with client(site) as http:
        manifest = http.get("/static/offline.json").json()
        digest = manifest["build"]
        entry = http.get("/static/chat-widget.js").text
        served = http.get(f"/static/v/{digest}/bundle.js")
        # A source edited after the bundle was made: the modules one by one, under a new name.
        os.utime(static / "client.js", ns=(made + 10**9, made + 10**9))
        edited_manifest = http.get("/static/offline.json").json()
        edited_entry = http.get("/static/chat-widget.js").text
    assert entry.strip() == f'export {{ ChatWidget }} from "./v/{digest}/bundle.js";'
    assert served.text == "export class ChatWidget{}\n"
    assert f"v/{digest}/bundle.js" in manifest["files"]  # kept for offline use, in the digest
    edited_digest = edited_manifest["build"]
    assert edited_digest != digest
    assert not any(name.endswith("/bundle.js") for name in edited_manifest["files"])
    assert f'import "./v/{edited_digest}/worker-start.js";' in edited_entry
    assert f'export {{ ChatWidget }} from "./v/{edited_digest}/chat-widget.js";' in edited_entry


def test_only_bytes_the_digest_covers_are_kept_a_year(
    site: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `.gz` copy, the type declarations, a source map and the standard library's zip were
    served `immutable` under a digest that did not cover their bytes: a browser kept a stale
    copy for a year."""
    static, runtime = site
    monkeypatch.setattr("server.build.RECHECK", 0.0)
    (static / "chat-widget.d.ts").write_text("export {};\n")
    (runtime / "pyodide" / "python_stdlib.zip").write_bytes(b"PK stdlib")
    (runtime / "pyodide" / "widget_python.zip.gz").write_bytes(gzip.compress(b"PK python"))
    newer_copy(site, "client.js.map", '{"version": 3}')
    build = Build(static, runtime)
    before = build.digest()
    with client(site) as http:
        digest = http.get("/static/offline.json").json()["build"]
        kept = {
            path: http.get(f"/static/v/{digest}/{path}").headers["cache-control"]
            for path in ("client.js", "runtime/pyodide/widget_python.zip", "chat-widget.d.ts",
                         "client.js.map", "runtime/pyodide/python_stdlib.zip")
        }  # fmt: skip
        zipped = http.get(f"/static/v/{digest}/runtime/pyodide/widget_python.zip",
                          headers={"accept-encoding": "gzip"})  # fmt: skip
    assert kept == {"client.js": IMMUTABLE, "runtime/pyodide/widget_python.zip": IMMUTABLE,
                    "chat-widget.d.ts": "no-cache", "client.js.map": "no-cache",
                    "runtime/pyodide/python_stdlib.zip": "no-cache"}  # fmt: skip
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.headers["cache-control"] == IMMUTABLE
    # The .gz copy rebuilt alone (another compressor, a partial copy): a new build.
    (runtime / "pyodide" / "widget_python.zip.gz").write_bytes(gzip.compress(b"PK python", 1))
    assert build.digest() != before
