"""Server configuration: every setting, its default and the checks that hold it together.

It is read once from flags and the environment (`server.options`, `load_settings`).
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import APIError, SettingsError
from .mcp_config import McpServer
from .providers import Destination, Provider, destination

DEMO_MODEL = "demo"
#: the built-in demo model's context window, in tokens, as small models have
DEMO_CONTEXT = 8192


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
    #: days a shared conversation is kept (`PUT /api/share/{id}`)
    share_days: int = 30
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
    #: the operator's MCP servers, from `config` (server/mcp_config.py)
    mcp_servers: tuple[McpServer, ...] = ()
    #: seconds an MCP tool call may take (then 504)
    tool_timeout: float = 30.0

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
                     "sync_client_bytes", "share_days"):  # fmt: skip
            if getattr(self, name) < 1:
                raise SettingsError(f"{name} must be at least 1")
        if not self.tool_timeout > 0:
            raise SettingsError("tool_timeout must be more than 0 seconds")
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
                p.get("context", {}),
            )
            for p in data.pop("providers", [])
        )
        mcp_servers = tuple(
            McpServer(m["name"], m["url"], m["headers"],
                      tuple(m["tools"]) if m["tools"] is not None else None, m["approval"])
            for m in data.pop("mcp_servers", [])
        )  # fmt: skip
        values: dict[str, Any] = {
            key: tuple(value) if isinstance(value, list) else value for key, value in data.items()
        }
        return cls(**values, providers=providers, mcp_servers=mcp_servers)

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


def is_loopback(host: str) -> bool:
    """Whether only this machine reaches `host` (`localhost`, 127.0.0.0/8, ::1)."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve to any address
