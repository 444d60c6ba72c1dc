"""Building a UI spec for a tool's result, in Python: each function returns one component, and
`result` the tool's answer, text for the model and the UI for the person, checked now (a spec
the widget would refuse fails here, naming why, rather than in a person's browser).

    from widget import ui

    def find_jackets(size: str) -> dict:
        rows = [{"name": "Alder", "price": 89}, {"name": "Birch", "price": 120}]
        return ui.result("Alder 89 EUR, Birch 120 EUR", ui.card(
            "Jackets in " + size,
            ui.table("Jackets", [ui.column("name", "Name"), ui.column("price", "EUR", "number")],
                     rows),
            actions=[ui.button("Order Alder", message="Order the Alder jacket")]))

The format and its limits: docs/features.md ("Answers that act"); static/ui.js builds the same
in a page.
"""

from __future__ import annotations

from typing import Any

from .ui_spec import VERSION, check_spec

Node = dict[str, Any]


def result(text: str, root: Node) -> dict[str, Any]:
    """A tool's answer: `text` for the model (and drawn when the UI cannot be), and the UI."""
    return {"text": text, "ui": check_spec({"v": VERSION, "text": text, "root": root})}


def _node(component: str, node_id: str | None, **properties: Any) -> Node:
    node: Node = {"type": component, **{k: v for k, v in properties.items() if v is not None}}
    return node | ({"id": node_id} if node_id else {})


def card(title: str | None = None, *children: Node, actions: list[Node] | None = None,
         id: str | None = None) -> Node:  # fmt: skip
    return _node("Card", id, title=title, children=list(children) or None, actions=actions)


def stack(*children: Node, row: bool = False, id: str | None = None) -> Node:
    return _node("Stack", id, children=list(children), direction="row" if row else None)


def list_of(*items: list[Node] | Node, id: str | None = None) -> Node:
    """A list: each item one component or a list of them."""
    entries = [item if isinstance(item, list) else [item] for item in items]
    return _node("List", id, children=[{"type": "ListItem", "children": e} for e in entries])


def heading(text: str, id: str | None = None) -> Node:
    return _node("Heading", id, text=text)


def text(words: str, id: str | None = None) -> Node:
    return _node("Text", id, text=words)


def markdown(words: str, id: str | None = None) -> Node:
    return _node("Markdown", id, text=words)


def badge(words: str, id: str | None = None) -> Node:
    return _node("Badge", id, text=words)


def icon(name: str, label: str | None = None, id: str | None = None) -> Node:
    return _node("Icon", id, name=name, label=label)


def image(url: str, alt: str, id: str | None = None) -> Node:
    return _node("Image", id, url=url, alt=alt)


def divider(id: str | None = None) -> Node:
    return _node("Divider", id)


def facts(items: dict[str, str | int | float], id: str | None = None) -> Node:
    return _node("Facts", id, items=[{"label": k, "value": v} for k, v in items.items()])


def column(key: str, label: str, kind: str | None = None) -> dict[str, str]:
    """A table's column: `kind` "number" or "date" is written in the person's language."""
    return {"key": key, "label": label} | ({"type": kind} if kind else {})


def table(caption: str, columns: list[dict[str, str]], rows: list[dict[str, Any]],
          id: str | None = None) -> Node:  # fmt: skip
    return _node("Table", id, caption=caption, columns=columns, rows=rows)


def button(label: str, *, message: str | None = None, tool: str | None = None,
           args: dict[str, Any] | None = None, url: str | None = None,
           id: str | None = None) -> Node:  # fmt: skip
    """A button that sends `message`, calls `tool` (with `args`, always asking), or opens `url`."""
    if [message, tool, url].count(None) != 2:
        raise ValueError("a button does one thing: message=, tool= or url=")
    if message is not None:
        action: dict[str, Any] = {"kind": "message", "text": message}
    elif tool is not None:
        action = {"kind": "tool", "tool": tool} | ({"args": args} if args else {})
    else:
        action = {"kind": "link", "url": url}
    return _node("Button", id, label=label, action=action)


def form(id: str, *fields: Node, submit: Node) -> Node:
    return _node("Form", id, children=list(fields), submit=submit)


def field(name: str, label: str, kind: str = "text", *, options: list[Any] | None = None,
          required: bool | None = None, value: str | bool | None = None,
          id: str | None = None) -> Node:  # fmt: skip
    return _node("Field", id, name=name, label=label, kind=None if kind == "text" else kind,
                 options=options, required=required, value=value)  # fmt: skip


def link(label: str, url: str, id: str | None = None) -> Node:
    return _node("Link", id, label=label, url=url)
