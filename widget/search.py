"""Finding kept conversations by the words in their titles and messages."""

from __future__ import annotations

from collections.abc import Sequence

from .history import Entry, Kept
from .messages import Message


class SearchIndex:
    """Each kept conversation's text is read once, then kept in memory as plain text, so
    searching as a person types reads nothing."""

    def __init__(self, history: Kept | None) -> None:
        self._history = history
        #: each conversation's text, with the `updated` of the version it was read from
        self._texts: dict[str, tuple[int, str]] = {}

    async def search(self, query: str, live_id: str, live: Sequence[Message]) -> list[str]:
        """The kept conversations whose title or messages hold every word of `query`, newest
        first (all of them for an empty query); `live` is the open one's messages."""
        entries = self._history.entries() if self._history else []
        terms = query.casefold().split()
        if not terms:
            return [entry.id for entry in entries]
        found = []
        for entry in entries:
            text = searchable_text(live) if entry.id == live_id else await self._text(entry)
            haystack = f"{entry.title.casefold()}\n{text}"
            if all(term in haystack for term in terms):
                found.append(entry.id)
        return found

    async def _text(self, entry: Entry) -> str:
        """Read again only when the conversation changed since (here or in another tab)."""
        cached = self._texts.get(entry.id)
        if cached is not None and cached[0] == entry.updated:
            return cached[1]
        data = await self._history.peek(entry.id) if self._history else None
        text = searchable_text(data["messages"] if data else [])
        self._texts[entry.id] = (entry.updated, text)
        return text


def searchable_text(messages: Sequence[Message]) -> str:
    """What a search looks in: the people's and the model's words, not tool output."""
    return "\n".join(
        m["content"].casefold()
        for m in messages
        if m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str)
    )
