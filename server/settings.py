"""Server configuration, read once from flags and the environment.

Every setting has a flag and an environment variable; a flag wins over the environment,
which wins over the default. `OPTIONS` is the table the README reproduces.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from .errors import APIError, ConfigError, SettingsError
from .providers import Destination, Provider, destination, load_providers

DEMO_MODEL = "demo"


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    upstream: str | None = None
    api_key: str | None = field(default=None, repr=False)
    models: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    max_body_bytes: int = 1_048_576
    rate_limit: int = 60
    upstream_timeout: float = 60.0
    max_tokens: int = 4096
    max_choices: int = 1
    image_hosts: tuple[str, ...] = ()
    workers: int = 1
    redis_url: str | None = field(default=None, repr=False)
    forwarded_allow_ips: tuple[str, ...] = ()
    client_daily_tokens: int = 0
    daily_tokens: int = 0
    client_secret: str | None = field(default=None, repr=False)
    instructions: str = ""
    allowed_hosts: tuple[str, ...] = ()
    body_timeout: float = 10.0
    client_streams: int = 4
    max_tool_calls: int = 16
    #: synced history's store (`sqlite:///PATH` or `postgresql://…`); None: no sync
    sync_store: str | None = field(default=None, repr=False)
    sync_space_bytes: int = 20_000_000
    #: items (tombstones too) one space may hold
    sync_space_items: int = 20_000
    #: spaces one client may start in a (UTC) day, and bytes it may write across spaces
    sync_client_spaces: int = 20
    sync_client_bytes: int = 256 * 1024 * 1024
    #: `GET /metrics` (Prometheus), and the Bearer token it wants (None: none)
    metrics: bool = False
    metrics_token: str | None = field(default=None, repr=False)
    #: the key of the client ids logs, metrics and usage show (server/client_ids.py)
    id_secret: str | None = field(default=None, repr=False)
    #: `/metrics` without a token on an address others reach (the operator says so)
    metrics_public: bool = False
    #: "text" (uvicorn's access log) or "json" (one JSON line per request)
    log_format: str = "text"
    #: OpenTelemetry spans for upstream calls (server/tracing.py)
    otel: bool = False
    config: str | None = None
    #: several upstreams, from `config` (see server/providers.py); empty: one upstream
    providers: tuple[Provider, ...] = ()

    def __post_init__(self) -> None:
        if self.config is not None and (self.upstream is not None or self.models):
            raise SettingsError(
                "--config / CHATKEEP_CONFIG names the providers and their models: leave out "
                "--upstream / CHATKEEP_UPSTREAM and --model / CHATKEEP_MODELS"
            )
        if self.config is not None and not self.providers:
            raise SettingsError(f"the config {self.config} was not read: use load_settings")
        if self.providers:
            return self._check_numbers()
        if self.upstream is not None:
            upstream = self.upstream.rstrip("/")
            if not upstream.startswith(("http://", "https://")):
                raise SettingsError(
                    f"the upstream must be an http:// or https:// URL, not {upstream!r}"
                )
            object.__setattr__(self, "upstream", upstream)
        if not self.models:
            if self.upstream is not None:
                raise SettingsError(
                    "with an upstream, name the models it may serve: "
                    "--model NAME or CHATKEEP_MODELS"
                )
            object.__setattr__(self, "models", (DEMO_MODEL,))
        self._check_numbers()

    def _check_numbers(self) -> None:
        for name in ("max_body_bytes", "max_tokens", "max_choices", "workers",
                     "sync_space_bytes", "sync_space_items", "sync_client_spaces",
                     "sync_client_bytes"):  # fmt: skip
            if getattr(self, name) < 1:
                raise SettingsError(f"{name} must be at least 1")
        if self.client_daily_tokens < 0 or self.daily_tokens < 0:
            raise SettingsError("token budgets must be 0 (none) or more")
        if self.max_tool_calls < 0:
            raise SettingsError("max_tool_calls must be 0 (no tool runs) or more")
        if self.client_streams < 0:
            raise SettingsError("client_streams must be 0 (no cap) or more")
        if not self.body_timeout > 0:
            raise SettingsError("body_timeout must be more than 0 seconds")
        for proxy in self.forwarded_allow_ips:
            if proxy != "*":
                try:
                    ipaddress.ip_network(proxy, strict=False)
                except ValueError as exc:
                    raise SettingsError(
                        f"--forwarded-allow-ips: {proxy!r} is not an IP address or network"
                    ) from exc
        self._check_metrics()
        if self.log_format not in ("text", "json"):
            raise SettingsError(f"--log-format must be text or json, not {self.log_format!r}")
        if self.rate_limit < 0 or self.upstream_timeout <= 0:
            raise SettingsError("rate_limit must be 0 or more and upstream_timeout above 0")

    def _check_metrics(self) -> None:
        """An empty token left `/metrics` open, and so did `--metrics` on a public address."""
        if self.metrics_token is not None and not self.metrics_token.strip():
            raise SettingsError(
                "--metrics-token / CHATKEEP_METRICS_TOKEN is empty, which would leave /metrics "
                "open: give a token, or leave the setting out"
            )
        if self.metrics and self.metrics_token is None and not self.metrics_public \
                and not is_loopback(self.host):  # fmt: skip
            raise SettingsError(
                f"--metrics on {self.host}, an address other machines reach, needs a token: "
                "set CHATKEEP_METRICS_TOKEN (or --metrics-token). To serve /metrics without "
                "one (a private network, a firewall), add --metrics-public"
            )

    @property
    def trusts_every_proxy(self) -> bool:
        return "*" in self.forwarded_allow_ips

    def to_json(self) -> str:
        """The settings as JSON, for worker processes started by uvicorn (see `from_json`)."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Settings:
        data: dict[str, Any] = json.loads(text)
        providers = tuple(
            Provider(
                p["name"],
                p["base_url"],
                tuple(p["models"]),
                p["api_key"],
                {model: (price[0], price[1]) for model, price in p["prices"].items()},
            )
            for p in data.pop("providers", [])
        )
        values: dict[str, Any] = {
            key: tuple(value) if isinstance(value, list) else value for key, value in data.items()
        }
        return cls(**values, providers=providers)

    @property
    def uses_demo_model(self) -> bool:
        return self.upstream is None and not self.providers

    def model_ids(self) -> tuple[str, ...]:
        """The ids `/api/models` lists, in order: `<provider>/<model>` with a config."""
        if self.providers:
            return tuple(i for provider in self.providers for i in provider.ids())
        return self.models

    @property
    def default_model(self) -> str:
        return self.model_ids()[0]

    def destination(self, model_id: object) -> Destination:
        """Where a request for `model_id` goes, or `APIError` 400 before any upstream call."""
        if self.providers:
            return destination(self.providers, model_id)
        if model_id not in self.models:
            raise APIError.said(400, "model_not_allowed", model=str(model_id)[:100],
                                models=", ".join(self.models))  # fmt: skip
        base_url = self.upstream or "http://demo.invalid/v1"
        return Destination(base_url, self.api_key, str(model_id))


@dataclass(frozen=True)
class Option:
    name: str
    flag: str
    env: str
    help: str
    parse: Callable[[str], Any] = str
    repeatable: bool = False
    #: a flag without a value (`--metrics`); its variable takes 1/true/yes or 0/false/no
    switch: bool = False


def is_loopback(host: str) -> bool:
    """Whether only this machine reaches `host` (`localhost`, 127.0.0.0/8, ::1)."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve to any address


def _flag(value: str) -> bool:
    if value.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if value.strip().lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{value!r} is not 1/true/yes or 0/false/no")


def _csv(value: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in value.split(",") if item.strip())


OPTIONS: tuple[Option, ...] = (
    Option("host", "--host", "CHATKEEP_HOST", "address to listen on"),
    Option("port", "--port", "CHATKEEP_PORT", "port to listen on", int),
    Option("upstream", "--upstream", "CHATKEEP_UPSTREAM",
           "base URL of an OpenAI-compatible API; none = the built-in demo model"),
    Option("api_key", "--api-key", "CHATKEEP_API_KEY",
           "sent upstream as a Bearer token, never to a browser (prefer the environment)"),
    Option("models", "--model", "CHATKEEP_MODELS",
           "allowed model ids; the first is the default", _csv, True),
    Option("allowed_origins", "--allowed-origin", "CHATKEEP_ALLOWED_ORIGINS",
           "other origins that may embed the widget and call the API", _csv, True),
    Option("allowed_hosts", "--allowed-host", "CHATKEEP_ALLOWED_HOSTS",
           "Host names answered besides IP addresses and localhost; * for any", _csv, True),
    Option("max_body_bytes", "--max-body-bytes", "CHATKEEP_MAX_BODY_BYTES",
           "largest request body accepted", int),
    Option("body_timeout", "--body-timeout", "CHATKEEP_BODY_TIMEOUT",
           "seconds a request body may take to arrive whole (then 408)", float),
    Option("rate_limit", "--rate-limit", "CHATKEEP_RATE_LIMIT",
           "requests per minute per client; 0 turns it off", int),
    Option("client_streams", "--client-streams", "CHATKEEP_CLIENT_STREAMS",
           "answers in flight per client, kept ones and their readers too; 0: no cap", int),
    Option("upstream_timeout", "--upstream-timeout", "CHATKEEP_UPSTREAM_TIMEOUT",
           "seconds to wait for the upstream to connect or send the next bytes", float),
    Option("max_tokens", "--max-tokens", "CHATKEEP_MAX_TOKENS",
           "most max_tokens / max_completion_tokens a request may ask for (or is sent with)",
           int),
    Option("instructions", "--instructions", "CHATKEEP_INSTRUCTIONS",
           "the operator's system message, first in every request sent upstream"),
    Option("max_tool_calls", "--max-tool-calls", "CHATKEEP_MAX_TOOL_CALLS",
           "tool calls the widget runs per answer; the rest get \"too many tool calls\"", int),
    Option("max_choices", "--max-choices", "CHATKEEP_MAX_CHOICES",
           "most completions (n) a request may ask for", int),
    Option("image_hosts", "--image-host", "CHATKEEP_IMAGE_HOSTS",
           "hosts whose images answers may show inline (others show as links)", _csv, True),
    Option("workers", "--workers", "CHATKEEP_WORKERS",
           "uvicorn worker processes (each keeps its own rate limit without Redis)", int),
    Option("redis_url", "--redis-url", "CHATKEEP_REDIS_URL",
           "Redis shared by every worker and server: one rate limit, one budget"),
    Option("forwarded_allow_ips", "--forwarded-allow-ips", "CHATKEEP_FORWARDED_ALLOW_IPS",
           "proxies whose X-Forwarded-For names the client (IPs or networks; * for any)",
           _csv, True),
    Option("client_daily_tokens", "--client-daily-tokens", "CHATKEEP_CLIENT_DAILY_TOKENS",
           "tokens a client may use per day (0: no budget)", int),
    Option("daily_tokens", "--daily-tokens", "CHATKEEP_DAILY_TOKENS",
           "tokens the whole server may use per day (0: no budget)", int),
    Option("client_secret", "--client-secret", "CHATKEEP_CLIENT_SECRET",
           "API calls need a token signed with it (chatkeep.sign_client_token); prefer the env"),
    Option("sync_store", "--sync-store", "CHATKEEP_SYNC_STORE",
           "synced history's store: sqlite:///PATH or postgresql://… (none: no sync)"),
    Option("sync_space_bytes", "--sync-space-bytes", "CHATKEEP_SYNC_SPACE_BYTES",
           "bytes one person's synced history may hold (then 413)", int),
    Option("sync_space_items", "--sync-space-items", "CHATKEEP_SYNC_SPACE_ITEMS",
           "conversations (and deletions) one synced history may hold", int),
    Option("sync_client_spaces", "--sync-client-spaces", "CHATKEEP_SYNC_CLIENT_SPACES",
           "synced histories one client may start in a day", int),
    Option("sync_client_bytes", "--sync-client-bytes", "CHATKEEP_SYNC_CLIENT_BYTES",
           "bytes one client may write to synced histories in a day", int),
    Option("metrics", "--metrics", "CHATKEEP_METRICS",
           "serve GET /metrics in Prometheus's format (off by default)", _flag, switch=True),
    Option("metrics_token", "--metrics-token", "CHATKEEP_METRICS_TOKEN",
           "GET /metrics wants this Bearer token (prefer the environment)"),
    Option("id_secret", "--id-secret", "CHATKEEP_ID_SECRET",
           "the key of the client ids in logs, metrics and usage (default: kept in Redis, or "
           "in ~/.local/state/chatkeep/id-secret)"),
    Option("metrics_public", "--metrics-public", "CHATKEEP_METRICS_PUBLIC",
           "serve /metrics without a token on an address other machines reach", _flag,
           switch=True),
    Option("log_format", "--log-format", "CHATKEEP_LOG_FORMAT",
           "text (uvicorn's access log) or json (one line per request, no secrets)"),
    Option("otel", "--otel", "CHATKEEP_OTEL",
           "OpenTelemetry spans for upstream calls, GenAI conventions (needs chatkeep[otel])",
           _flag, switch=True),
    Option("config", "--config", "CHATKEEP_CONFIG",
           "a TOML file of providers (several upstreams), see docs/deployment.md"),
)  # fmt: skip


def load_settings(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Settings from command-line flags over environment variables over defaults."""
    environ = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(prog="chatkeep serve", description="Serve Chatkeep.")
    for option in OPTIONS:
        if option.switch:
            parser.add_argument(option.flag, dest=option.name, action="store_const", const="1",
                                help=f"{option.help} (env {option.env})")  # fmt: skip
            continue
        parser.add_argument(
            option.flag,
            dest=option.name,
            action="append" if option.repeatable else "store",
            help=f"{option.help} (env {option.env})",
        )
    args = vars(parser.parse_args(argv))
    values: dict[str, Any] = {}
    by_name = {f.name for f in fields(Settings)}
    for option in OPTIONS:
        assert option.name in by_name
        raw = args[option.name]
        try:
            if option.repeatable and raw:
                values[option.name] = tuple(v for item in raw for v in _csv(item))
            elif raw is not None:
                values[option.name] = option.parse(raw)
            elif environ.get(option.env, "").strip():
                values[option.name] = option.parse(environ[option.env].strip())
            elif option.name == "metrics_token" and option.env in environ:
                values[option.name] = ""  # set but blank: refused, never an open /metrics
        except ValueError as exc:
            raise SettingsError(f"{option.flag} / {option.env}: {exc}") from exc
    if values.get("config"):
        try:
            values["providers"] = load_providers(values["config"], environ)
        except ConfigError as exc:
            raise SettingsError(str(exc)) from exc
    return Settings(**values)
