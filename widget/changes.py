"""What the page hears: the changes of the conversation's state, never the whole state again.

`ChangeFeed` listens to the conversation (and, as the `Listener` of `widget.keeper`, to its
storage) and emits one event per change, named in `widget.protocol.EVENTS`:

    messages  {at, add, turn}   keep the first `at` settled messages, then `add`; `turn`:
                                added by a running turn (news for the host)
    draft     {answer, at, text, thoughtAt?, thought?, calls?, end?}: text appended at `at`
              to the answer being written (`answer` names it) and reasoning at `thoughtAt`
              to its reasoning, its tool calls when they changed; `end` once it settled.
              Sent through `draft`, which the worker coalesces
    meta      {id, title, model, provider, thinking, busy, unfinished, usage, context}, when
              any changed (`context`: the tokens of the model's window the conversation fills)
    models    [{id, provider?, context_window?}], the offered models, when they change
    history   {set, drop, order?}: kept conversations added or changed, ids gone, and the
              order of all ids when it changed
    alert, stopping

Nothing here touches the browser: the bridge gives it `emit` and `draft`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .context_use import context_tokens
from .conversation import Conversation
from .history import Entry
from .messages import Message
from .streams import AnswerBuilder
from .texts import Notice

Emit = Callable[[str, object], None]
#: a change of the answer being written, shaped as `widget.protocol.EVENT_DATA["draft"]`
Draft = Callable[[dict[str, Any]], None]


class ChangeFeed:
    """Turns the conversation's state into events; silent until `start` has sent it whole."""

    def __init__(
        self, conversation: Conversation, emit: Emit, draft: Draft, models: Sequence[Any] = ()
    ) -> None:
        self._conversation = conversation
        self._emit = emit
        self._draft = draft
        self._started = False
        self._shown: Sequence[Message] = ()
        self._meta: dict[str, Any] = {}
        self._models = list(models)
        self._unfinished = False
        self._entries: dict[str, dict[str, Any]] = {}
        self._order: list[str] = []
        # the answer being written, as far as the page has it, and its name on the wire
        self._answer: AnswerBuilder | None = None
        self._answer_id = ""
        self._answers = 0
        self._answer_parts = 0
        self._answer_chars = 0
        self._answer_calls: list[Message] = []
        self._thought_parts = 0
        self._thought_chars = 0
        conversation.subscribe(self._changed)

    def start(self, warning: str | None = None) -> dict[str, Any]:
        """The whole state, once, as the page's start; changes follow as events."""
        self._started = True
        self._shown = self._conversation.settled
        self._meta = self._meta_now()
        return {
            "meta": self._meta,
            "messages": list(self._shown),
            "models": self._models,
            "history": [self._entries[i] for i in self._order],
            "warning": warning,
        }

    def models(self, offered: Sequence[Any]) -> None:
        if list(offered) != self._models:
            self._models = list(offered)
            self._send("models", self._models)

    # -- the keeper's Listener -------------------------------------------------------------

    def alert(self, notice: Notice) -> None:
        self._emit("alert", notice)

    def stopping(self) -> None:
        self._emit("stopping", None)

    def unfinished(self, waiting: bool) -> None:
        self._unfinished = waiting
        self._meta_changed()

    def listed(self, entries: Sequence[Entry]) -> None:
        now = {entry.id: entry.to_dict() for entry in entries}
        order = list(now)
        changed = [item for key, item in now.items() if self._entries.get(key) != item]
        dropped = [key for key in self._entries if key not in now]
        moved = order != self._order
        self._entries, self._order = now, order
        if changed or dropped or moved:
            change: dict[str, Any] = {"set": changed, "drop": dropped}
            if moved:
                change["order"] = order
            self._send("history", change)

    # -- the session -----------------------------------------------------------------------

    def _changed(self, kind: str) -> None:
        if not self._started:
            return
        if kind == "draft":
            self._draft_changed()
            return
        settled = self._conversation.settled
        at = 0
        limit = min(len(settled), len(self._shown))
        while at < limit and settled[at] is self._shown[at]:
            at += 1
        if at < len(self._shown) or at < len(settled):
            change = {"at": at, "add": self._added(settled[at:]), "turn": self._conversation.busy}
            self._emit("messages", change)
        self._shown = settled
        if self._conversation.answer is None and self._answer is not None:
            self._answer = None
            # the answer settled (or failed): no draft now
            self._draft({"answer": self._answer_id, "at": self._answer_chars, "text": "",
                         "end": True})  # fmt: skip
        self._meta_changed()

    def _added(self, messages: Sequence[Message]) -> list[Message]:
        """New messages for the page; an answer it has just seen streamed, word for word,
        comes without its text and reasoning (`"streamed": <the draft's answer>`), which the
        page takes from that draft: sent once, not twice."""
        added = list(messages)
        last = added[-1] if added else None
        answer = self._answer
        if (
            answer is not None
            and last is not None
            and last["role"] == "assistant"
            # what the page has: every part sent so far, joined once here
            and last.get("content") == "".join(answer.content[: self._answer_parts])
            and last.get("reasoning", "") == "".join(answer.reasoning[: self._thought_parts])
            and self._answer_chars + self._thought_chars > 0
        ):
            streamed = ("content", "reasoning")
            added[-1] = {key: value for key, value in last.items() if key not in streamed}
            added[-1]["streamed"] = self._answer_id
        return added

    def _draft_changed(self) -> None:
        answer = self._conversation.answer
        if answer is None:
            return
        if answer is not self._answer:
            self._answer, self._answer_parts, self._answer_chars = answer, 0, 0
            self._thought_parts = self._thought_chars = 0
            self._answer_calls = []
            self._answers += 1
            self._answer_id = f"a{self._answers}"
            self._meta_changed()  # busy from the first draft on
        text = "".join(answer.content[self._answer_parts :])
        self._answer_parts = len(answer.content)
        thought = "".join(answer.reasoning[self._thought_parts :])
        self._thought_parts = len(answer.reasoning)
        calls = answer.calls() if answer.tool_calls else []
        change: dict[str, Any] = {"answer": self._answer_id, "at": self._answer_chars,
                                  "text": text}  # fmt: skip
        if thought or self._thought_chars:  # reasoning, once the answer has any
            change |= {"thoughtAt": self._thought_chars, "thought": thought}
        if calls != self._answer_calls:
            change["calls"] = calls
        self._answer_calls = calls
        self._draft(change)
        self._answer_chars += len(text)
        self._thought_chars += len(thought)

    def _meta_changed(self) -> None:
        meta = self._meta_now()
        if meta != self._meta:
            self._meta = meta
            self._send("meta", meta)

    def _meta_now(self) -> dict[str, Any]:
        conversation = self._conversation
        return {
            "id": conversation.id,
            "title": conversation.title,
            "model": conversation.model_id,
            "provider": conversation.provider,
            "thinking": conversation.thinking,
            "busy": conversation.busy,
            "unfinished": self._unfinished,
            "usage": conversation.usage,
            "context": context_tokens(conversation.settled, conversation.report),
            "allowed": list(conversation.allowed_tools),
        }

    def _send(self, kind: str, data: object) -> None:
        if self._started:
            self._emit(kind, data)
