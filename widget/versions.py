"""Edits with versions: an edited user message keeps what it replaced, reachable again.

A user message that was edited holds `versions`: each earlier version as `{"content",
"after"}` (`after` being the messages that followed it), plus `attachments` when it had
some; `version` is the 1-based number of the one shown. A version 1 reader sees only the
shown branch, as plain messages.
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import NoSuchMessage
from .messages import Message, copy_message


def user_message(messages: Sequence[Message], index: int, action: str) -> Message:
    """The user message at `index`, or `NoSuchMessage` saying it cannot `action` another."""
    if not 0 <= index < len(messages) or messages[index]["role"] != "user":
        raise NoSuchMessage(f"there is no user message at index {index} to {action}")
    return messages[index]


def edited(messages: Sequence[Message], index: int, edit: Message) -> list[Message]:
    """The messages up to `index`, its user message replaced by `edit` (already checked),
    shown last of its versions; the version it replaces keeps its place among them."""
    message = messages[index]
    versions = [*message.get("versions", []), _shown_version(messages, index)]
    shown = message.get("version", len(versions))
    versions.insert(shown - 1, versions.pop())
    return [*messages[:index], {**edit, "versions": versions, "version": len(versions) + 1}]


def with_version(messages: Sequence[Message], index: int, version: int) -> list[Message]:
    """The messages with version `version` (1-based) of the user message at `index` shown."""
    message = user_message(messages, index, "show a version of")
    versions = message.get("versions")
    if not versions or not 1 <= version <= len(versions) + 1:
        raise NoSuchMessage(f"the message at index {index} has no version {version}")
    every = list(versions)
    every.insert(message["version"] - 1, _shown_version(messages, index))
    chosen = every.pop(version - 1)
    shown: Message = {**message, "content": chosen["content"], "versions": every,
                      "version": version}  # fmt: skip
    shown.pop("attachments", None)
    if "attachments" in chosen:
        shown["attachments"] = chosen["attachments"]
    return [*messages[:index], shown, *chosen["after"]]


def _shown_version(messages: Sequence[Message], index: int) -> Message:
    message = messages[index]
    after = [copy_message(m) for m in messages[index + 1 :]]
    version: Message = {"content": message["content"], "after": after}
    if "attachments" in message:
        version["attachments"] = message["attachments"]
    return version
