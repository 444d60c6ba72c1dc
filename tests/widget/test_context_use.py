"""The context meter's count: the upstream's report for the last answer, plus four characters
a token for what came after it (or for everything, before any report)."""

from __future__ import annotations

from widget.context_use import context_tokens, estimated, reported
from widget.conversation import Conversation


def test_without_a_report_the_conversation_is_estimated_at_four_characters_a_token() -> None:
    messages = [{"role": "user", "content": "x" * 400}, {"role": "assistant", "content": "y" * 3}]
    assert context_tokens(messages, None) == 101  # 403 characters, rounded up


def test_the_upstream_s_report_counts_what_it_covers_and_the_rest_is_estimated() -> None:
    messages = [{"role": "user", "content": "x" * 4000}, {"role": "assistant", "content": "ok"}]
    report = reported({"prompt_tokens": 1200, "completion_tokens": 34}, covers=2)
    assert context_tokens(messages, report) == 1234  # not the 1,001 the estimate would say
    later = [*messages, {"role": "user", "content": "z" * 40}]
    assert context_tokens(later, report) == 1244


def test_a_report_of_nothing_is_no_report() -> None:
    assert reported(None, 2) is None and reported({}, 2) is None
    assert reported({"prompt_tokens": 0, "completion_tokens": 0}, 2) is None
    assert reported({"total_tokens": 90, "prompt_tokens": 1}, 1).tokens == 90  # as totalled


def test_tool_calls_count_as_the_model_reads_them() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    with_call = [{"role": "assistant", "content": None, "tool_calls": [call]}]
    assert estimated(with_call) > estimated([{"role": "assistant", "content": None}])


def test_a_conversation_keeps_the_last_report_and_forgets_it_when_another_opens() -> None:
    conversation = Conversation()
    conversation.add({"role": "user", "content": "Tell me about tides"})
    conversation.answered({"role": "assistant", "content": "The moon."},
                          {"prompt_tokens": 500, "completion_tokens": 20})  # fmt: skip
    assert context_tokens(conversation.settled, conversation.report) == 520
    conversation.answered({"role": "assistant", "content": "More."}, None)  # no report this time
    assert context_tokens(conversation.settled, conversation.report) == 522  # 520 + "More."
    conversation.load(None)
    assert conversation.report is None
