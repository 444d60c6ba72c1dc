"""What a line break is, once for every place that cuts text into lines.

CR, LF and CRLF end a line in CommonMark; the Unicode separators (NEL, U+2028, U+2029) end one
in other viewers and editors. The Markdown download, the page's renderer
(static/markdown.js, `LINE_BREAK`) and the checks of what is kept agree on this one rule, so no
text written with one kind of break (`"thinking\\r## You"`) becomes a heading in one of them
and stays text in another.
"""

from __future__ import annotations

import re

#: every line break, longest first (CRLF is one break, not two)
LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")


def split_lines(text: str) -> list[str]:
    """`text` cut at every line break."""
    return LINE_BREAK.split(text)


def with_newlines(text: str) -> str:
    """`text` with every line break written as LF."""
    return LINE_BREAK.sub("\n", text)
