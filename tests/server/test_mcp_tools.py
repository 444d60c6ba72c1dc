"""The operator's MCP servers: their tools listed for the model and called on the server, with
the configured headers, against a real MCP server (the `mcp` SDK's own)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from server.testing import ChatkeepServer, free_port

pytest.importorskip("mcp", reason="the mcp SDK is not installed (pip install chatkeep[mcp])")
from mcp_shop import JACKETS, ShopRecord, serve_shop

pytestmark = pytest.mark.slow
SHOP_TOKEN = "shop-secret-token-123"


def config(tmp_path: Path, shop_url: str, down_url: str) -> Path:
    path = tmp_path / "chatkeep.toml"
    path.write_text(f"""
[providers.local]
base_url = "http://127.0.0.1:9/v1"
models = ["m"]

[mcp.shop]
url = "{shop_url}/mcp"
headers = {{ Authorization = "Bearer ${{SHOP_TOKEN}}" }}
tools = ["find_product", "slow", "huge", "open_sale", "sale_items", "show_jackets"]

[mcp.down]
url = "{down_url}/mcp"
approval = "never"
""")
    return path


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ShopRecord, ChatkeepServer]]:
    record = ShopRecord()
    with serve_shop(record) as mcp_server:
        path = config(
            tmp_path_factory.mktemp("mcp"), mcp_server.url, f"http://127.0.0.1:{free_port()}"
        )
        with ChatkeepServer("--config", str(path), "--tool-timeout", "1", "--metrics",
                            "--metrics-public", "--rate-limit", "0",
                            env={"SHOP_TOKEN": SHOP_TOKEN}) as chat:  # fmt: skip
            yield record, chat


def call(chat: ChatkeepServer, tool: str, arguments: object) -> httpx.Response:
    return httpx.post(f"{chat.url}/api/tools/{tool}", json=arguments, timeout=30)


def test_the_tools_are_listed_for_the_model_without_their_headers(
    shop: tuple[ShopRecord, ChatkeepServer],
) -> None:
    _, chat = shop
    response = httpx.get(f"{chat.url}/api/models", timeout=30)
    tools = {tool["name"]: tool for tool in response.json()["tools"]}
    # the allow-list: not delete_everything (and sale_items is not there yet)
    assert sorted(tools) == ["shop__find_product", "shop__huge", "shop__open_sale",
                             "shop__show_jackets", "shop__slow"]  # fmt: skip
    found = tools["shop__find_product"]
    assert found["server"] == "shop" and found["approval"] == "ask"
    assert "catalogue" in found["description"]
    assert found["parameters"]["required"] == ["query"]
    assert SHOP_TOKEN not in response.text and "/mcp" not in response.text


def test_a_call_reaches_the_mcp_server_with_the_configured_headers(
    shop: tuple[ShopRecord, ChatkeepServer],
) -> None:
    record, chat = shop
    response = call(chat, "shop__find_product", {"query": "red jacket"})
    assert response.status_code == 200, response.text
    assert response.json() == {
        "content": "3 jackets match red jacket: Alder (89 EUR), Birch (120 EUR), Cedar (149 EUR)"
    }
    assert record.calls[-1] == ("find_product", {"query": "red jacket"})
    assert record.authorizations[-1] == f"Bearer {SHOP_TOKEN}"
    assert SHOP_TOKEN not in response.text


def test_arguments_that_fail_the_schema_are_400_and_reach_no_mcp_server(
    shop: tuple[ShopRecord, ChatkeepServer],
) -> None:
    record, chat = shop
    before = len(record.calls)
    for arguments in ({"q": "red"}, {"query": 7}):
        response = call(chat, "shop__find_product", arguments)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "tool_arguments_invalid"
    assert "query" in call(chat, "shop__find_product", {}).json()["error"]["message"]
    assert call(chat, "shop__find_product", ["red"]).status_code == 400  # not an object
    assert len(record.calls) == before


def test_a_tool_outside_the_allow_list_is_not_found(
    shop: tuple[ShopRecord, ChatkeepServer],
) -> None:
    record, chat = shop
    response = call(chat, "shop__delete_everything", {})
    assert response.status_code == 404 and response.json()["error"]["code"] == "tool_not_found"
    assert ("delete_everything", {}) not in record.calls


def test_a_slow_tool_ends_at_the_timeout_and_the_next_call_works(
    shop: tuple[ShopRecord, ChatkeepServer],
) -> None:
    _, chat = shop
    slow = call(chat, "shop__slow", {"seconds": 10})
    assert slow.status_code == 504
    assert "longer than 1 seconds" in slow.json()["error"]["message"]
    assert call(chat, "shop__find_product", {"query": "boots"}).status_code == 200


def test_a_huge_result_is_cut_to_64_kb(shop: tuple[ShopRecord, ChatkeepServer]) -> None:
    _, chat = shop
    content = call(chat, "shop__huge", {}).json()["content"]
    assert len(content) < 64 * 1024 + 100
    assert content.endswith("[cut: the result was 280,000 characters long]")


def test_a_server_that_is_down_is_a_clear_502(shop: tuple[ShopRecord, ChatkeepServer]) -> None:
    _, chat = shop
    response = call(chat, "down__anything", {})
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "tool_server_failed" and '"down"' in error["message"]
    assert call(chat, "shop__find_product", {"query": "hats"}).status_code == 200


def test_tools_are_listed_again_when_the_server_says_they_changed(
    shop: tuple[ShopRecord, ChatkeepServer],
) -> None:
    _, chat = shop
    assert call(chat, "shop__open_sale", {}).json() == {"content": "The sale is open."}
    names = [tool["name"] for tool in httpx.get(f"{chat.url}/api/models").json()["tools"]]
    assert "shop__sale_items" in names
    assert call(chat, "shop__sale_items", {}).json() == {"content": "Scarves, 20 % off"}


def test_tool_calls_are_counted_by_tool_and_status(shop: tuple[ShopRecord, ChatkeepServer]) -> None:
    _, chat = shop
    call(chat, "shop__find_product", {"query": "scarf"})
    metrics = httpx.get(f"{chat.url}/metrics").text
    assert 'chatkeep_tool_calls_total{status="ok",tool="shop__find_product"}' in metrics
    assert 'status="tool_arguments_invalid",tool="shop__find_product"' in metrics
    assert SHOP_TOKEN not in metrics


def test_a_restarted_mcp_server_is_reached_again(tmp_path: Path) -> None:
    record = ShopRecord()
    port = free_port()
    with serve_shop(record, port) as mcp_server:
        path = config(tmp_path, mcp_server.url, f"http://127.0.0.1:{free_port()}")
        with ChatkeepServer("--config", str(path), "--rate-limit", "0",
                            env={"SHOP_TOKEN": SHOP_TOKEN}) as chat:  # fmt: skip
            assert call(chat, "shop__find_product", {"query": "a"}).status_code == 200
            mcp_server.__exit__()
            with serve_shop(record, port):  # the same address, a new process's sessions
                again = call(chat, "shop__find_product", {"query": "b"})
    assert again.status_code == 200, again.text
    assert record.calls[-1] == ("find_product", {"query": "b"})


def test_images_and_resources_become_text_the_model_reads_never_fetched() -> None:
    import mcp_types as types

    from server.mcp_results import result_text

    content = [
        types.TextContent(type="text", text="Alder jacket"),
        types.ImageContent(type="image", data="aGk=", mime_type="image/png"),
        types.ResourceLink(type="resource_link", name="Size chart",
                           uri="https://shop.example/sizes"),
        types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
            uri="https://shop.example/care", text="Wash cold.")),
        types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
            uri="https://shop.example/photo.jpg", blob="aGk=")),
    ]  # fmt: skip
    assert result_text(content).splitlines() == [
        "Alder jacket",
        "[image: image/png]",
        "[resource: Size chart https://shop.example/sizes]",
        "Wash cold.",
        "[resource: https://shop.example/photo.jpg]",
    ]


def test_with_client_tokens_a_tool_call_needs_one(tmp_path: Path) -> None:
    from server.clients import sign_client_token

    record = ShopRecord()
    with serve_shop(record) as mcp_server:
        path = config(tmp_path, mcp_server.url, f"http://127.0.0.1:{free_port()}")
        secret = "client-secret-for-tools"
        env = {"SHOP_TOKEN": SHOP_TOKEN, "CHATKEEP_CLIENT_SECRET": secret}
        with ChatkeepServer("--config", str(path), "--rate-limit", "0", env=env) as chat:
            anonymous = call(chat, "shop__find_product", {"query": "a"})
            token = sign_client_token(secret, "ada", 600)
            signed = httpx.post(
                f"{chat.url}/api/tools/shop__find_product",
                json={"query": "b"},
                headers={"authorization": f"Bearer {token}"},
                timeout=30,
            )
    assert anonymous.status_code == 401 and signed.status_code == 200
    assert record.calls == [("find_product", {"query": "b"})]


def test_a_ui_in_a_result_s_structured_content_reaches_the_page(
    shop: tuple[ShopRecord, ChatkeepServer],
) -> None:
    _, chat = shop
    response = call(chat, "shop__show_jackets", {})
    assert response.status_code == 200, response.text
    assert response.json() == {"content": JACKETS["text"], "ui": JACKETS}
