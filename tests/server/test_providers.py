"""Several providers from a TOML config: listing, routing, keys kept apart, start-up errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from localclient import TestClient
from upstreams import Upstream

from server import Settings, SettingsError, create_app, load_settings

CONFIG = """
[providers.openai]
base_url = "https://api.openai.example/v1"
api_key_env = "OPENAI_KEY"
models = ["gpt-4o-mini", "gpt-4o"]

[providers.openai.context]
"gpt-4o-mini" = 128000

[providers.local]
base_url = "http://127.0.0.1:11434/v1/"
models = ["llama3.2", "Qwen/Qwen2.5-7B"]
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "chatkeep.toml"
    path.write_text(CONFIG)
    return path


def client(config: Path, runtime_dir: Path, upstream: Upstream) -> TestClient:
    settings = load_settings(["--config", str(config)], environ={"OPENAI_KEY": "sk-OPENAI"})
    return TestClient(create_app(settings, transport=httpx.MockTransport(upstream),
                                 runtime_dir=runtime_dir))  # fmt: skip


def ask(http: TestClient, model: str) -> httpx.Response:
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}],
            "stream": True, "base_url": "https://evil.example"}  # fmt: skip
    return http.post("/api/chat/completions", json=body, headers={"x-api-key": "client-key"})


def test_models_are_listed_as_provider_slash_model_in_the_file_s_order(
    config: Path, runtime_dir: Path
) -> None:
    with client(config, runtime_dir, Upstream()) as http:
        data = http.get("/api/models").json()["data"]
    assert [m["id"] for m in data] == ["openai/gpt-4o-mini", "openai/gpt-4o",
                                       "local/llama3.2", "local/Qwen/Qwen2.5-7B"]  # fmt: skip
    assert [m["provider"] for m in data] == ["openai", "openai", "local", "local"]
    # the context meter's window, where the file gives one
    assert [m.get("context_window") for m in data] == [128000, None, None, None]


def test_the_demo_model_s_context_window_is_8192(runtime_dir: Path) -> None:
    with TestClient(create_app(Settings(), runtime_dir=runtime_dir)) as http:
        data = http.get("/api/models").json()["data"]
    assert data == [{"id": "demo", "object": "model", "owned_by": "chatkeep",
                     "context_window": 8192}]  # fmt: skip


def test_each_request_goes_only_to_its_provider_with_its_key(
    config: Path, runtime_dir: Path
) -> None:
    upstream = Upstream()
    with client(config, runtime_dir, upstream) as http:
        assert ask(http, "openai/gpt-4o").status_code == 200
        assert ask(http, "local/Qwen/Qwen2.5-7B").status_code == 200
    to_openai, to_local = upstream.requests
    assert str(to_openai.url) == "https://api.openai.example/v1/chat/completions"
    assert to_openai.headers["authorization"] == "Bearer sk-OPENAI"
    assert str(to_local.url) == "http://127.0.0.1:11434/v1/chat/completions"
    assert "authorization" not in to_local.headers  # no api_key_env: called without a key
    assert [b["model"] for b in upstream.bodies] == ["gpt-4o", "Qwen/Qwen2.5-7B"]
    for request in upstream.requests:  # nothing of the client's routing reaches an upstream
        assert "x-api-key" not in request.headers
        assert "base_url" not in json.loads(request.content)


@pytest.mark.parametrize("model", ["local/gpt-4o", "openai/llama3.2", "gpt-4o", "nope/x", ""])
def test_a_model_its_provider_does_not_list_is_refused_before_any_call(
    config: Path, runtime_dir: Path, model: str
) -> None:
    upstream = Upstream()
    with client(config, runtime_dir, upstream) as http:
        response = ask(http, model)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "model_not_allowed"
    assert "openai/gpt-4o-mini" in response.json()["error"]["message"]
    assert upstream.requests == []


def test_the_default_model_is_the_first_listed(config: Path, runtime_dir: Path) -> None:
    upstream = Upstream()
    with client(config, runtime_dir, upstream) as http:
        http.post("/api/chat/completions", json={"messages": [{"role": "user", "content": "x"}]})
    assert upstream.bodies[0]["model"] == "gpt-4o-mini"
    assert str(upstream.requests[0].url).startswith("https://api.openai.example/")


@pytest.mark.parametrize(
    ("text", "environ", "flags", "message"),
    [
        (CONFIG, {}, [], "the environment variable OPENAI_KEY (api_key_env) is not set"),
        (CONFIG, {"OPENAI_KEY": "k"}, ["--upstream", "http://x/v1"], "leave out --upstream"),
        (CONFIG, {"OPENAI_KEY": "k"}, ["--model", "m"], "leave out --upstream"),
        ("[providers.a]\nbase_url = 'ftp://x'\nmodels = ['m']", {}, [], "base_url must be"),
        ("[providers.a]\nbase_url = 'http://x'\nmodels = []", {}, [], "models must be"),
        ("[providers.a]\nbase_url = 'http://x'\nmodels = ['m']\napi_key = 'sk'", {}, [],
         "unknown keys ['api_key']"),
        ("[providers.'a/b']\nbase_url = 'http://x'\nmodels = ['m']", {}, [], "provider name"),
        ("not toml [", {}, [], "is not valid TOML"),
        ("[other]\nx = 1", {}, [], "has no [providers.<name>] table"),
        ("[providers.a]\nbase_url = 'http://x'\nmodels = ['m']\n[mcp.shop]\nurl = 'ftp://x'", {},
         [], "url must be the http:// or https:// URL of the MCP server"),
        ("[providers.a]\nbase_url = 'http://x'\nmodels = ['m']\n[mcp.shop]\nurl = 'http://x'\n"
         "headers = { A = 'Bearer ${NOPE}' }", {}, [],
         "header A: the environment variable NOPE is not set"),
        ("[providers.a]\nbase_url = 'http://x'\nmodels = ['m']\n[mcp.a_b]\nurl = 'http://x'", {},
         [], "an MCP server's name is letters, digits or '-'"),
        ("[providers.a]\nbase_url = 'http://x'\nmodels = ['m']\n[mcp.shop]\nurl = 'http://x'\n"
         "approval = 'sometimes'", {}, [], 'approval must be "ask" or "never"'),
        ("[providers.a]\nbase_url = 'http://x'\nmodels = ['m']\n[providers.a.context]\nn = 9",
         {}, [], "context names 'n', which is not in models"),
        ("[providers.a]\nbase_url = 'http://x'\nmodels = ['m']\n[providers.a.context]\nm = 0",
         {}, [], "the context of 'm' must be its window in tokens"),
        ("[providers.a]\nbase_url = 'http://x'\nmodels = ['m']\n[providers.a.context]\nm = '8k'",
         {}, [], "the context of 'm' must be its window in tokens"),
    ],
)  # fmt: skip
def test_a_bad_config_stops_the_server_naming_the_problem(
    tmp_path: Path, text: str, environ: dict[str, str], flags: list[str], message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SettingsError, match=re.escape(message)):
        load_settings(["--config", str(path), *flags], environ=environ)


def test_a_missing_config_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="cannot read the config file"):
        load_settings(["--config", str(tmp_path / "missing.toml")], environ={})


def test_mcp_servers_and_their_headers_travel_to_workers(tmp_path: Path) -> None:
    path = tmp_path / "mcp.toml"
    shop_table = "headers = { Authorization = 'Bearer ${SHOP}' }\ntools = ['find']\n"
    path.write_text(CONFIG + "\n[mcp.shop]\nurl = 'https://shop.example/mcp'\n" + shop_table)
    settings = load_settings(["--config", str(path)], environ={"OPENAI_KEY": "k", "SHOP": "s3"})
    [shop] = settings.mcp_servers
    assert (shop.name, shop.tools, shop.approval) == ("shop", ("find",), "ask")
    assert shop.headers == {"Authorization": "Bearer s3"} and "s3" not in repr(settings)
    assert Settings.from_json(settings.to_json()) == settings


def test_settings_with_providers_travel_to_workers(config: Path) -> None:
    settings = load_settings(["--config", str(config)], environ={"OPENAI_KEY": "sk-OPENAI"})
    assert Settings.from_json(settings.to_json()) == settings
