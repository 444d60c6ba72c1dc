"""The testing kit's failures read well: what was waited for, and what was on screen."""

from __future__ import annotations

import pytest
from pages import host_page
from playwright.sync_api import Page

from server.testing import ChatkeepModel, ChatWidget


def test_an_expectation_that_does_not_hold_says_what_it_saw(
    page: Page, chatkeep_model: ChatkeepModel
) -> None:
    host_page(page, 'history="memory"')
    chat = ChatWidget(page)
    chatkeep_model.reply("The capital of France is Lyon.")
    chat.send("Capital of France?")
    with pytest.raises(AssertionError) as failure:
        chat.expect_answer("Paris", timeout=1_000)
    said = str(failure.value)
    assert "expected the newest answer to contain 'Paris' within 1 s" in said
    assert "assistant: The capital of France is Lyon." in said and "no alert" in said
    with pytest.raises(AssertionError, match=r"expected an alert within 0\.5 s"):
        chat.expect_error(timeout=500)


def test_a_launcher_is_opened_to_send(page: Page, chatkeep_model: ChatkeepModel) -> None:
    host_page(page, 'history="memory" mode="launcher"')
    chatkeep_model.reply("Hello from the corner.")
    chat = ChatWidget(page)
    chat.send("Hi")
    chat.expect_answer("from the corner")
    assert chat.answers.count() == 1
