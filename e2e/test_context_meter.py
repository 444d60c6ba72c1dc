"""The header's "Context" meter reads the upstream's token counts against the model's window
from the providers file; past 80 % it says "Context nearly full" with a hint; a model whose
window is unknown shows no meter; the demo model's window is 8192."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from live import FakeUpstream, LiveServer
from pages import host_page, widget
from playwright.sync_api import Page, expect
from servers import RunningServer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def windowed(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[FakeUpstream, RunningServer]]:
    fake = FakeUpstream(mode="ok", interval=0.01, count=3,
                        usage={"prompt_tokens": 700, "completion_tokens": 150})  # fmt: skip
    with LiveServer(fake.app()) as upstream:
        config = Path(tmp_path_factory.mktemp("meter")) / "providers.toml"
        config.write_text(f"""
[providers.fake]
base_url = "{upstream.url}/v1"
models = ["small", "unknown"]

[providers.fake.context]
"small" = 1000
""")
        chat = RunningServer("--config", str(config))
        chat.wait_until_up()
        yield fake, chat
        chat.stop()


def test_the_meter_reads_the_upstream_s_counts_against_the_configured_window(
    page: Page, windowed: tuple[FakeUpstream, RunningServer]
) -> None:
    _, chat = windowed
    host_page(page, base=chat.url)
    meter = page.get_by_role("meter", name="Context")
    expect(meter).to_have_attribute("aria-valuenow", "0")
    nearly_full = page.get_by_role("status").filter(has_text="Context nearly full")
    expect(nearly_full).to_be_hidden()

    widget(page).send("Tell me about tides")
    widget(page).settled(at_least=2)
    expect(meter).to_have_attribute("aria-valuenow", "85")  # 850 of 1,000 tokens, as reported
    expect(meter).to_have_attribute("aria-valuetext", "Context nearly full: 85% of the model's "
                                    "context used (850 of 1000 tokens)")  # fmt: skip
    expect(nearly_full).to_be_visible()
    expect(nearly_full).to_contain_text("start a new conversation")

    page.get_by_role("combobox", name="Model").select_option("fake/unknown")
    expect(meter).to_be_hidden()  # no window known: no guess
    expect(nearly_full).to_be_hidden()


def test_the_demo_model_has_a_window_of_8192(page: Page) -> None:
    with RunningServer("--rate-limit", "0") as demo:  # no upstream: the built-in demo model
        demo_meter(page, demo)


def demo_meter(page: Page, demo: RunningServer) -> None:
    host_page(page, base=demo.url)
    widget(page).send("What is the weather in Paris?")
    widget(page).settled(at_least=2)
    meter = page.get_by_role("meter", name="Context")
    said = re.search(r"\((\d+) of 8192 tokens\)", meter.get_attribute("aria-valuetext") or "")
    assert said and int(said[1]) > 0  # as the demo model reported them
    assert int(meter.get_attribute("aria-valuenow") or "-1") == round(int(said[1]) / 8192 * 100)
    expect(page.get_by_role("status").filter(has_text="Context nearly full")).to_be_hidden()
