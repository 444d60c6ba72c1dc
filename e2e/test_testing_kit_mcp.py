"""The testing kit with a page's own MCP servers: a stranger's test overrides
`chatkeep_mcp_servers`, scripts the model's call to one of the server's tools, and sees the
answer come back, through their MCP server (here the `mcp` SDK's own, started for them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install chatkeep[mcp])")
from mcp_shop import ShopRecord, serve_shop
from test_install import STRANGERS_CONFTEST

pytestmark = pytest.mark.slow

#: the stranger's conftest.py of e2e/test_install.py, and their MCP servers
CONFTEST = (
    STRANGERS_CONFTEST
    + """
import os

@pytest.fixture(scope="session")
def chatkeep_mcp_servers():
    return {"shop": {"url": os.environ["SHOP_MCP_URL"], "approval": "never",
                     "headers": {"Authorization": "Bearer ${SHOP_TOKEN}"}}}
"""
)
TEST = """
from chatkeep.testing import ChatWidget

PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8">' \\
    '<script type="module" src="URL/static/chat-widget.js"></script></head>' \\
    '<body><h1>My shop</h1><chat-widget history="memory"></chat-widget></body></html>'

def test_my_shop_finds_a_hat(page, chatkeep_server, chatkeep_model):
    url = chatkeep_server.url
    page.route(f"{url}/my-page", lambda route: route.fulfill(body=PAGE.replace("URL", url)))
    page.goto(f"{url}/my-page")
    chat = ChatWidget(page)
    chatkeep_model.reply(tool_call=("shop__find_product", {"query": "hat"}))
    chatkeep_model.reply("Three hats.")
    chat.send("Find me a hat")
    chat.expect_answer("Three hats.")
    assert "3 jackets match hat" in chatkeep_model.requests[1]["messages"][-1]["content"]
"""


def test_a_stranger_scripts_a_call_to_their_own_mcp_tool(tmp_path: Path) -> None:
    record = ShopRecord()
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_my_shop.py").write_text(TEST)
    with serve_shop(record) as shop:
        env = {"SHOP_MCP_URL": f"{shop.url}/mcp", "SHOP_TOKEN": "their-token",
               "PATH": "/usr/bin:/bin"}  # fmt: skip
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"],
            cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env,
        )  # fmt: skip
    assert "1 passed" in run.stdout + run.stderr, (run.stdout + run.stderr)[-3000:]
    assert record.calls == [("find_product", {"query": "hat"})]
    assert record.authorizations == ["Bearer their-token"]
