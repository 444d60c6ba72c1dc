"""Where the settings come from: every setting has a flag and an environment variable; a flag
wins over the environment, which wins over the default (`server.settings`). `OPTIONS` is the
table the README reproduces."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from .errors import ConfigError, SettingsError
from .mcp_config import load_mcp_servers
from .providers import load_providers
from .settings import Settings


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
    Option("share_days", "--share-days", "CHATKEEP_SHARE_DAYS",
           "days a shared conversation is kept (with --sync-store)", int),
    Option("tool_timeout", "--tool-timeout", "CHATKEEP_TOOL_TIMEOUT",
           "seconds an MCP tool call may take before it ends with 504", float),
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
            values["mcp_servers"] = load_mcp_servers(values["config"], environ)
        except ConfigError as exc:
            raise SettingsError(str(exc)) from exc
    return Settings(**values)
