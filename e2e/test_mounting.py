"""Chatkeep mounted under a path of someone else's Starlette or FastAPI app."""

from __future__ import annotations

from collections.abc import Iterator

import chatkeep
import pytest
from fastapi import FastAPI
from live import LiveServer
from pages import BOOT_TIMEOUT, READY, log
from playwright.sync_api import Page, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Mount, Route

SHOP_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script type="module" src="/chat/static/chat-widget.js"></script></head>
<body><h1>Our shop</h1><chat-widget history="memory" style="height:80vh"></chat-widget></body>
</html>"""


async def shop(request: Request) -> HTMLResponse:
    return HTMLResponse(SHOP_PAGE)


def starlette_site() -> Starlette:
    return Starlette(routes=[Route("/", shop), Mount("/chat", chatkeep.create_app())])


def fastapi_site() -> FastAPI:
    site = FastAPI()
    site.get("/")(shop)
    site.mount("/chat", chatkeep.create_app())
    return site


@pytest.fixture(scope="module", params=["starlette", "fastapi"])
def site(request: pytest.FixtureRequest) -> Iterator[str]:
    app = starlette_site() if request.param == "starlette" else fastapi_site()
    with LiveServer(app) as server:
        yield server.url


def test_the_widget_finds_its_worker_runtime_and_api_under_the_mount(page: Page, site: str) -> None:
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(site + "/")
    page.wait_for_function(
        READY,
        timeout=BOOT_TIMEOUT,
    )
    expect(page.get_by_role("combobox", name="Model")).to_have_value("demo")
    page.get_by_role("textbox", name="Message").fill("My name is Dora")
    page.get_by_role("button", name="Send").click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Dora")
    page.get_by_role("textbox", name="Message").fill("What is my name?")
    page.get_by_role("button", name="Send").click()
    expect(log(page).locator("article[data-role=assistant]").nth(1)).to_contain_text("Dora")
    own = [url for url in requested if url.startswith(site) and url != site + "/"]
    assert own and all(url.startswith(site + "/chat/") for url in own), own
    assert f"{site}/chat/api/chat/completions" in requested


def test_the_demo_page_under_the_mount_links_its_assets_there(page: Page, site: str) -> None:
    page.goto(site + "/chat/")
    page.wait_for_function(
        READY,
        timeout=BOOT_TIMEOUT,
    )
    assert page.evaluate("document.querySelector('link[rel=stylesheet]').href") == (
        f"{site}/chat/static/demo.css"
    )
    assert page.evaluate("fetch('/chat/healthz').then(r => r.json())") == {"status": "ok"}
