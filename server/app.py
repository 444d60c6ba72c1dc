"""The Starlette application: demo page, static assets, health, models and the proxy."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route

from .access_log import hide_turn_ids
from .assets import Assets
from .build import Build, Entry, VersionedAssets
from .client_ids import ClientIds
from .clients import ClientIdentity
from .counters import Counters, LocalCounters, RedisCounters, redis_client
from .demo_wire import DemoTransport
from .errors import APIError
from .hosts import HostGuard
from .limits import Budgets, RateLimiter, StreamSlots
from .mcp_tools import McpTools
from .memory_turns import MemoryTurnStore
from .metrics import Meter, Metrics, NullMetrics, count_refusal
from .offline import OfflineManifest
from .proxy import chat_completions
from .request_log import RequestLog
from .security import HardeningHeaders, OriginGuard, SharedAssets, page_policy, route_path
from .settings import DEMO_CONTEXT, DEMO_MODEL, Settings
from .sync import open_store
from .sync.pairing import pairing_routes
from .sync.quotas import ClientQuotas
from .sync.routes import sync_routes
from .sync.shares import share_routes
from .tool_calls import call_tool
from .tracing import make_tracer
from .turn_store import TurnStore
from .turns import TURN_HEADER, Turns
from .upstream_client import UpstreamClient
from .usage import Usage

HERE = Path(__file__).resolve().parent


def _static_dir() -> Path:
    """Installed, the assets sit inside the package; in a checkout, beside it."""
    packaged = HERE / "static"
    return packaged if packaged.is_dir() else HERE.parent / "static"


STATIC_DIR = _static_dir()
TEMPLATES = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=select_autoescape(["html"]),
)


def create_app(
    settings: Settings | None = None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    static_dir: Path = STATIC_DIR,
    runtime_dir: Path | None = None,
    tracer_provider: object = None,
) -> Starlette:
    """Build the app. `transport` replaces the upstream connection (tests, the demo model);
    `tracer_provider` is OpenTelemetry's, for `--otel` (the global one when None)."""
    settings = settings or Settings()
    hide_turn_ids()  # in this process's access log, wherever the app is served from
    if transport is None and settings.uses_demo_model:
        transport = DemoTransport()

    upstream = UpstreamClient(settings, transport)
    metrics: Meter = Metrics(settings.metrics_token) if settings.metrics else NullMetrics()
    metrics_route = [Route("/metrics", metrics.endpoint)] if isinstance(metrics, Metrics) else []
    runtime = runtime_dir or static_dir / "runtime"
    build = Build(static_dir, runtime)
    manifest = OfflineManifest(build)
    entry = Entry(build, (HERE / "templates" / "entry.js").read_text(encoding="utf-8"))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await app.state.turns.aclose()
        await app.state.mcp.aclose()
        await upstream.aclose()
        if app.state.sync is not None:
            await app.state.sync.close()
        if isinstance(app.state.rate_limiter.counters, RedisCounters):
            await app.state.rate_limiter.counters.aclose()

    app = Starlette(
        routes=[
            Route("/", demo_page),
            Route("/healthz", healthz),
            Route("/api/models", list_models),
            Route("/api/chat/completions", chat_completions, methods=["POST"]),
            Route("/api/chat/turns/{turn}", turn_events, methods=["GET"]),
            Route("/api/chat/turns/{turn}", stop_turn, methods=["DELETE"]),
            Route("/api/tools/{name}", call_tool, methods=["POST"]),
            *sync_routes(),
            *pairing_routes(),
            *share_routes(),
            Route("/static/chat-widget.js", entry.endpoint),
            Route("/static/offline.json", manifest.endpoint),
            Route("/static/v/{build}/{path:path}", VersionedAssets(build).endpoint),
            Mount("/static/runtime", Assets(directory=str(runtime))),
            Mount("/static", Assets(directory=str(static_dir))),
            *metrics_route,
        ],
        middleware=[
            Middleware(RequestLog, metrics=metrics, json_lines=settings.log_format == "json"),
            Middleware(HostGuard, allowed_hosts=settings.allowed_hosts),
            Middleware(HardeningHeaders),
            Middleware(SharedAssets),
            Middleware(
                CORSMiddleware,
                allow_origins=list(settings.allowed_origins),
                allow_methods=["GET", "POST", "PUT", "DELETE"],
                allow_headers=["content-type", "authorization", "if-match", "if-none-match"],
                expose_headers=[TURN_HEADER, "etag"],
                max_age=600,
            ),
            Middleware(OriginGuard, allowed_origins=settings.allowed_origins),
        ],
        exception_handlers={APIError: _api_error, HTTPException: _http_error},
        lifespan=lifespan,
    )
    counters: Counters = (
        RedisCounters(settings.redis_url) if settings.redis_url else LocalCounters()
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.usage = Usage(counters)
    app.state.tracer = make_tracer(tracer_provider) if settings.otel else None
    app.state.upstream = upstream
    app.state.identity = ClientIdentity(settings.forwarded_allow_ips, settings.client_secret)
    app.state.client_ids = ClientIds(settings.id_secret)
    app.state.rate_limiter = RateLimiter(settings.rate_limit, counters)
    app.state.slots = StreamSlots(settings.client_streams)
    app.state.budgets = Budgets(settings.client_daily_tokens, settings.daily_tokens, counters)
    app.state.sync = (
        open_store(settings.sync_store, settings.sync_space_bytes, settings.sync_space_items)
        if settings.sync_store
        else None
    )
    app.state.sync_quotas = ClientQuotas(
        settings.sync_client_spaces, settings.sync_client_bytes, counters
    )
    app.state.mcp = McpTools(settings.mcp_servers, settings.tool_timeout)
    app.state.turns = Turns(
        TurnStore(redis_client(settings.redis_url)) if settings.redis_url else MemoryTurnStore(),
        idle_seconds=settings.upstream_timeout + 5,
    )
    return app


async def demo_page(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    html = TEMPLATES.get_template("index.html").render(
        root=request.scope.get("root_path", "").rstrip("/"),
        demo=settings.uses_demo_model,
        models=settings.model_ids(),
        image_hosts=settings.image_hosts,
    )
    headers = {
        "content-security-policy": page_policy(settings.image_hosts),
        "x-frame-options": "DENY",
        "cache-control": "no-cache",
    }
    return HTMLResponse(html, headers=headers)


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def list_models(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    request.app.state.identity.of(request)  # with a client secret, a valid token first
    data: list[dict[str, object]] = []
    for provider in settings.providers:
        for model in provider.models:
            data.append({"id": f"{provider.name}/{model}", "object": "model",
                         "owned_by": provider.name, "provider": provider.name})  # fmt: skip
            if model in provider.context:  # for the widget's context meter
                data[-1]["context_window"] = provider.context[model]
    if not settings.providers:
        data = [
            {"id": model, "object": "model", "owned_by": "chatkeep"} for model in settings.models
        ]
        for listed in data:
            if settings.uses_demo_model and listed["id"] == DEMO_MODEL:
                listed["context_window"] = DEMO_CONTEXT
    # What the widget needs to know rides along: the tool calls it runs per answer, and
    # whether this server keeps synced history.
    limits = {"max_tool_calls": settings.max_tool_calls, "sync": settings.sync_store is not None}
    listing: dict[str, object] = {"object": "list", "data": data, "chatkeep": limits}
    if settings.mcp_servers:  # the operator's MCP tools, called through POST /api/tools/NAME
        listing["tools"] = await request.app.state.mcp.listed()
    return JSONResponse(listing)


async def turn_events(request: Request) -> Response:
    """The rest of an answer still being written (or just written), by turn id and offset."""
    return await _turns(request).resume(request)


async def stop_turn(request: Request) -> Response:
    return await _turns(request).stop(request)


def _turns(request: Request) -> Turns:
    turns: Turns = request.app.state.turns
    return turns


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, APIError)
    count_refusal(request.scope, exc.code)
    return exc.response()


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if route_path(request.scope).startswith("/api/") or exc.status_code == 405:
        return APIError(exc.status_code, exc.detail, "http_error").response()
    return Response(exc.detail, status_code=exc.status_code, media_type="text/plain")


#: Settings handed from `chatkeep serve --workers N` to each worker process.
SETTINGS_VARIABLE = "CHATKEEP_SETTINGS_JSON"


def from_environment() -> Starlette:
    """The app configured from `CHATKEEP_*` variables, for `uvicorn --factory` and workers."""
    import os

    from .options import load_settings

    handed = os.environ.get(SETTINGS_VARIABLE)
    return create_app(Settings.from_json(handed) if handed else load_settings([]))
