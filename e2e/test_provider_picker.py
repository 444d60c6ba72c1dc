"""Several providers in the browser: a grouped picker, requests routed by provider, snapshots
that keep provider and model apart and reopen on them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from live import FakeUpstream, LiveServer
from pages import host_page, log, stored_conversations
from playwright.sync_api import Page, expect
from servers import ChatkeepServer


@pytest.fixture(scope="module")
def two_providers(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, FakeUpstream, FakeUpstream]]:
    cloud, local = FakeUpstream(), FakeUpstream()
    with LiveServer(cloud.app()) as cloud_server, LiveServer(local.app()) as local_server:
        config = tmp_path_factory.mktemp("config") / "chatkeep.toml"
        config.write_text(f"""
[providers.cloud]
base_url = "{cloud_server.url}/v1"
api_key_env = "CLOUD_KEY"
models = ["big-model", "small-model"]

[providers.local]
base_url = "{local_server.url}/v1"
models = ["llama3.2"]
""")
        with ChatkeepServer("--config", str(config), env={"CLOUD_KEY": "sk-cloud-SECRET"}) as chat:
            yield chat.url, cloud, local


def test_a_conversation_goes_to_the_chosen_provider_and_reopens_on_it(
    page: Page, two_providers: tuple[str, FakeUpstream, FakeUpstream]
) -> None:
    url, cloud, local = two_providers
    host_page(page, 'history="local"', base=url)
    picker = page.get_by_role("combobox", name="Model")
    expect(picker).to_have_value("cloud/big-model")
    groups = picker.locator("optgroup")
    expect(groups).to_have_count(2)
    assert groups.evaluate_all("gs => gs.map(g => g.label)") == ["cloud", "local"]
    expect(groups.nth(0).locator("option")).to_have_text(["big-model", "small-model"])

    picker.select_option("local/llama3.2")
    cloud.received.clear()
    page.get_by_role("textbox", name="Message").fill("Hello local")
    page.get_by_role("button", name="Send").click()
    expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Hello 0 1 2")
    expect(page.get_by_role("button", name="Send")).to_be_enabled()
    assert cloud.received == []
    assert local.received[-1].body["model"] == "llama3.2"
    assert "authorization" not in local.received[-1].headers  # the cloud's key stays with it
    [stored] = stored_conversations(page)
    assert (stored["provider"], stored["model"]) == ("local", "llama3.2")

    page.get_by_role("button", name="New conversation").click()
    expect(picker).to_have_value("cloud/big-model")
    page.get_by_role("button", name="History").click()
    page.get_by_role("list", name="Conversations", exact=True).get_by_role(
        "button", name="Hello local"
    ).click()
    expect(picker).to_have_value("local/llama3.2")
