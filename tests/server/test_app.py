"""Routes around the proxy: page, health, models, static assets, CORS."""

from __future__ import annotations

import gzip
from pathlib import Path

from localclient import TestClient

from server import Settings, create_app


def client(runtime_dir: Path, settings: Settings | None = None) -> TestClient:
    return TestClient(create_app(settings or Settings(), runtime_dir=runtime_dir))


def test_health_and_models(runtime_dir: Path) -> None:
    with client(runtime_dir) as http:
        assert http.get("/healthz").json() == {"status": "ok"}
        models = http.get("/api/models").json()
    assert models == {
        "object": "list",
        # the demo model's context window, for the widget's "Context" meter
        "data": [{"id": "demo", "object": "model", "owned_by": "chatkeep", "context_window": 8192}],
        "chatkeep": {"max_tool_calls": 16, "sync": False},
    }


def test_models_are_the_allow_list_in_order(runtime_dir: Path, upstream_settings: Settings) -> None:
    with client(runtime_dir, upstream_settings) as http:
        ids = [m["id"] for m in http.get("/api/models").json()["data"]]
    assert ids == ["gpt-a", "gpt-b"]


def test_the_demo_page_embeds_one_widget_with_history_and_titles(runtime_dir: Path) -> None:
    with client(runtime_dir) as http:
        page = http.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.text.count("<chat-widget") == 1
    assert '<chat-widget history="local" generate-title sync>' in page.text
    assert 'src="/static/chat-widget.js"' in page.text


def test_static_files_have_the_right_types(runtime_dir: Path) -> None:
    with client(runtime_dir) as http:
        script = http.get("/static/chat-widget.js")
        wasm = http.get(
            "/static/runtime/pyodide/pyodide.asm.wasm", headers={"accept-encoding": "identity"}
        )
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert wasm.headers["content-type"] == "application/wasm"
    assert "content-encoding" not in wasm.headers
    assert wasm.content.startswith(b"\0asm")


def raw_get(http: TestClient, url: str) -> tuple[dict[str, str], bytes]:
    request = http.build_request("GET", url, headers={"accept-encoding": "gzip"})
    response = http.send(request, stream=True)
    return dict(response.headers), b"".join(response.iter_raw())


def test_precompressed_files_are_sent_to_browsers_that_accept_gzip(runtime_dir: Path) -> None:
    with client(runtime_dir) as http:
        headers, body = raw_get(http, "/static/runtime/pyodide/pyodide.asm.wasm")
    assert headers["content-encoding"] == "gzip"
    assert headers["content-type"] == "application/wasm"
    assert headers["vary"].startswith("accept-encoding")
    assert gzip.decompress(body).startswith(b"\0asm")


def test_source_scripts_are_compressed_as_they_are_served(runtime_dir: Path) -> None:
    source = (Path(__file__).parents[2] / "static" / "client.js").read_bytes()
    with client(runtime_dir) as http:
        headers, body = raw_get(http, "/static/client.js")
    assert headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == source
    assert len(body) < len(source)


def test_unchanged_files_answer_304(runtime_dir: Path) -> None:
    with client(runtime_dir) as http:
        python = "/static/runtime/pyodide/widget_python.zip"
        first = http.get(python)
        again = http.get(python, headers={"if-none-match": first.headers["etag"]})
    assert first.headers["cache-control"] == "no-cache"
    assert again.status_code == 304


def test_missing_files_are_404(runtime_dir: Path) -> None:
    with client(runtime_dir) as http:
        missing = http.get("/static/nope.js")
        api_missing = http.get("/api/nope")
    assert missing.status_code == 404
    assert api_missing.status_code == 404
    assert api_missing.json()["error"]["type"] == "not_found_error"


def test_the_public_api_is_exactly_the_exported_names() -> None:
    import server

    assert server.__all__ == sorted(server.__all__)
    for name in server.__all__:
        assert hasattr(server, name), name
    assert callable(server.create_app)
