"""The sources an answer cites: `url_citation` annotations, kept on the answer as `sources`.

Only http and https links are kept (a `javascript:` or `data:` URL never becomes a link), each
once, at most `MAX_SOURCES`; a title is text, shortened. What the page draws is this list,
numbered, under the answer.
"""

from __future__ import annotations

from typing import Any

from .errors import WidgetError

MAX_SOURCES = 20
MAX_URL = 2000
MAX_TITLE = 300

Source = dict[str, str]


def is_safe_link(url: object) -> bool:
    if not isinstance(url, str) or len(url) > MAX_URL or any(c.isspace() for c in url):
        return False
    # Imported when first used: with ipaddress, it was a tenth of the widget's imports at start,
    # on a first visit's critical path (widget/conversations.py, LAZY).
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def from_annotations(annotations: object, into: list[Source]) -> None:
    """Add the safe `url_citation`s of a delta's (or a message's) `annotations` to `into`."""
    if not isinstance(annotations, list):
        return
    for annotation in annotations:
        cited = annotation.get("url_citation") if isinstance(annotation, dict) else None
        if not isinstance(cited, dict) or annotation.get("type") != "url_citation":
            continue
        url, title = cited.get("url"), cited.get("title")
        if not isinstance(url, str) or not is_safe_link(url) or len(into) >= MAX_SOURCES:
            continue
        if all(source["url"] != url for source in into):
            into.append({"url": url, "title": title[:MAX_TITLE] if isinstance(title, str) else ""})


def clean_sources(value: object, index: int, error: type[WidgetError]) -> list[Source]:
    """A stored answer's `sources`, checked whole: a list of `{url, title}` with safe links."""
    if not isinstance(value, list) or len(value) > MAX_SOURCES:
        raise error(f"message at index {index} has invalid sources (expected a short array)")
    cleaned = []
    for source in value:
        if not isinstance(source, dict) or not is_safe_link(source.get("url")):
            raise error(f"message at index {index} has a source that is not an http(s) link")
        title: Any = source.get("title", "")
        if not isinstance(title, str) or len(title) > MAX_TITLE:
            raise error(f"message at index {index} has a source whose title is not short text")
        cleaned.append({"url": source["url"], "title": title})
    return cleaned
