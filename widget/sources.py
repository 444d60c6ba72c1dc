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


#: what WHATWG's URL parser refuses in a host (its "forbidden domain code points"), percent
#: decoded first; C0 controls and DEL are refused with them
FORBIDDEN_IN_HOST = frozenset(" #%/:<>?@[\\]^|\x7f")


def is_safe_link(url: object) -> bool:
    """An http(s) URL that a browser's URL parser (WHATWG) also reads: one that only Python
    refused (`http://[::1`) ended the whole turn, one that only the browser refuses would be
    a broken link."""
    if not isinstance(url, str) or len(url) > MAX_URL or any(c.isspace() for c in url):
        return False
    # Imported when first used: with ipaddress, it was a tenth of the widget's imports at start,
    # on a first visit's critical path (widget/conversations.py, LAZY).
    from urllib.parse import unquote, urlsplit

    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port  # a port past 65535, or not a number: ValueError
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not host:
        return False
    if parts.netloc.rpartition("@")[2].startswith("["):
        return _is_ipv6(host)
    return _is_domain(unquote(host))


def _is_ipv6(host: str) -> bool:
    import ipaddress

    try:
        return "%" not in host and ipaddress.IPv6Address(host) is not None  # no zone ids
    except ValueError:
        return False


def _is_domain(host: str) -> bool:
    """A domain or an IPv4 address as WHATWG reads it: no forbidden code point, one that
    ends in a number is a valid IPv4 address, non-ASCII names encode to ASCII (IDNA)."""
    if any(c in FORBIDDEN_IN_HOST or ord(c) < 0x20 for c in host):
        return False
    labels = host.removesuffix(".").split(".")
    last = labels[-1].lower()
    if last.isascii() and (last.isdigit() or (last.startswith("0x") and all(
            c in "0123456789abcdef" for c in last[2:]))):  # fmt: skip
        return _is_ipv4(labels)
    if host.isascii():  # an "xn--" label must decode (UTS 46)
        return all(_is_punycode(label[4:]) for label in labels if label.startswith("xn--"))
    try:
        host.encode("idna")
    except UnicodeError:
        return False
    return True


def _is_punycode(encoded: str) -> bool:
    try:
        decoded = encoded.encode().decode("punycode")
    except UnicodeError:
        return False
    return decoded.isprintable() and not decoded.isascii()


def _is_ipv4(labels: list[str]) -> bool:
    """WHATWG's IPv4 forms: 1 to 4 parts, each decimal, 0x-hex or 0-octal, the last filling
    the bytes that remain."""
    if len(labels) > 4 or not all(labels):
        return False
    numbers = []
    for label in labels:
        base, digits = (
            (16, label[2:])
            if label.lower().startswith("0x")
            else ((8, label[1:]) if len(label) > 1 and label.startswith("0") else (10, label))
        )
        try:
            numbers.append(int(digits or "0", base) if len(digits) < 40 else 1 << 64)
        except ValueError:
            return False
    if any(n > 255 for n in numbers[:-1]):
        return False
    return numbers[-1] < 1 << (8 * (5 - len(numbers)))


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
        url = source.get("url") if isinstance(source, dict) else None
        if (
            isinstance(url, str)
            and url.startswith(("http://", "https://"))
            and not is_safe_link(url)
        ):
            continue  # kept by an older version that read links less strictly: only it goes
        if not isinstance(source, dict) or not is_safe_link(url):
            raise error(f"message at index {index} has a source that is not an http(s) link")
        title: Any = source.get("title", "")
        if not isinstance(title, str) or len(title) > MAX_TITLE:
            raise error(f"message at index {index} has a source whose title is not short text")
        cleaned.append({"url": source["url"], "title": title})
    return cleaned
