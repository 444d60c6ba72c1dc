from __future__ import annotations

import pytest

from server import Settings, SettingsError, load_settings
from server.options import OPTIONS


def test_defaults_use_the_demo_model() -> None:
    settings = load_settings([], {})
    assert settings == Settings()
    assert settings.uses_demo_model
    assert settings.models == ("demo",)
    assert (settings.host, settings.port, settings.max_body_bytes) == ("127.0.0.1", 8000, 1_048_576)
    assert (settings.rate_limit, settings.upstream_timeout, settings.max_tokens) == (60, 60.0, 4096)


def test_environment_then_flags() -> None:
    environ = {
        "CHATKEEP_UPSTREAM": "http://127.0.0.1:11434/v1/",
        "CHATKEEP_API_KEY": "key",
        "CHATKEEP_MODELS": "llama3, qwen2",
        "CHATKEEP_ALLOWED_ORIGINS": "https://a.example,https://b.example",
        "CHATKEEP_RATE_LIMIT": "0",
        "CHATKEEP_UPSTREAM_TIMEOUT": "2.5",
    }
    settings = load_settings([], environ)
    assert settings.upstream == "http://127.0.0.1:11434/v1"
    assert settings.models == ("llama3", "qwen2")
    assert settings.default_model == "llama3"
    assert settings.allowed_origins == ("https://a.example", "https://b.example")
    assert (settings.rate_limit, settings.upstream_timeout) == (0, 2.5)
    flags = [
        "--model",
        "m1",
        "--model",
        "m2",
        "--port",
        "9000",
        "--allowed-origin",
        "https://c.example",
    ]
    settings = load_settings(flags, environ)
    assert settings.models == ("m1", "m2")
    assert settings.port == 9000
    assert settings.allowed_origins == ("https://c.example",)


@pytest.mark.parametrize(
    ("argv", "environ", "message"),
    [
        (["--upstream", "https://api.example/v1"], {}, "name the models it may serve"),
        (["--upstream", "ftp://x", "--model", "m"], {}, "must be an http:// or https:// URL"),
        ([], {"CHATKEEP_MAX_BODY_BYTES": "lots"}, "--max-body-bytes / CHATKEEP_MAX_BODY_BYTES"),
        (["--max-tokens", "0"], {}, "max_tokens must be at least 1"),
    ],
)
def test_bad_settings_say_what_to_fix(
    argv: list[str], environ: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings(argv, environ)


def test_the_key_never_shows_in_the_settings_repr() -> None:
    settings = Settings(upstream="https://x.example", api_key="sk-SECRET", models=("m",))
    assert "sk-SECRET" not in repr(settings)


def test_every_option_has_help_and_an_environment_variable() -> None:
    for option in OPTIONS:
        assert option.help and option.env.startswith("CHATKEEP_") and option.flag.startswith("--")


def test_the_factory_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from server.app import from_environment

    monkeypatch.setenv("CHATKEEP_MODELS", "demo,demo-mini")
    app = from_environment()
    assert app.state.settings.models == ("demo", "demo-mini")


def test_settings_travel_to_worker_processes_whole() -> None:
    settings = load_settings(["--model", "a", "--model", "b", "--workers", "2",
                              "--allowed-origin", "https://shop.example"],
                             environ={"CHATKEEP_API_KEY": "sk-x"})  # fmt: skip
    assert settings.workers == 2
    assert Settings.from_json(settings.to_json()) == settings


def test_workers_must_be_at_least_one() -> None:
    with pytest.raises(SettingsError, match="workers must be at least 1"):
        load_settings(["--workers", "0"], environ={})
