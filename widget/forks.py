"""A fork: a new conversation holding the turns before one of the person's messages."""

from __future__ import annotations

from . import versions
from .conversation import Conversation
from .ids import new_id
from .messages import copy_message
from .snapshots import Snapshot


def fork(conversation: Conversation, index: int) -> tuple[Snapshot, str]:
    """The turns before the user message at `index`, as a new conversation, and its text."""
    messages = conversation.settled
    message = versions.user_message(list(messages), index, "fork from")
    now = conversation.now() if index else 0
    forked = Snapshot(
        id=new_id(),
        created=now,
        updated=now,
        model=conversation.model,
        thinking=conversation.thinking,
        provider=conversation.provider,
        messages=tuple(copy_message(m) for m in messages[:index]),
    )
    return forked, message["content"] or ""
