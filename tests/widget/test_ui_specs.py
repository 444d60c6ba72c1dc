"""UI specs (`widget.ui_spec`), checked over generated specs: every spec built by the rules is
taken, every one broken in any of the ways the contract lists is refused whole, and the page's
own check (static/ui-spec.js, run in Node) gives the same verdict on each."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from widget.ui_messages import components
from widget.ui_spec import (
    COMPONENTS,
    ICONS,
    MAX_DEPTH,
    MAX_ROWS,
    UiSpecError,
    check_spec,
)

STATIC = Path(__file__).resolve().parents[2] / "static"
words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
names = st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True)
https = st.from_regex(r"https://[a-z]{1,10}\.example(/[a-z0-9]{0,8})?", fullmatch=True)
numbers = st.floats(allow_nan=False, allow_infinity=False, width=32) | st.integers(-(10**6), 10**6)
actions = st.one_of(
    st.fixed_dictionaries({"kind": st.just("message"), "text": words}),
    st.fixed_dictionaries({"kind": st.just("tool"), "tool": names},
                          optional={"args": st.dictionaries(names, words, max_size=3)}),
    st.fixed_dictionaries({"kind": st.just("link"), "url": https}),
)  # fmt: skip
button = st.fixed_dictionaries({"type": st.just("Button"), "label": words, "action": actions})
leaves = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["Heading", "Text", "Markdown"]),
                           "text": words}),
    st.fixed_dictionaries({"type": st.just("Badge"), "text": st.text(max_size=10)}),
    st.fixed_dictionaries({"type": st.just("Icon"), "name": st.sampled_from(ICONS)},
                          optional={"label": words}),
    st.fixed_dictionaries({"type": st.just("Image"), "url": https, "alt": words}),
    st.fixed_dictionaries({"type": st.just("Divider")}),
    st.fixed_dictionaries({"type": st.just("Link"), "label": words, "url": https}),
    st.fixed_dictionaries({"type": st.just("Facts"), "items": st.lists(
        st.fixed_dictionaries({"label": words, "value": words | numbers}), max_size=4)}),
    button,
    st.fixed_dictionaries({"type": st.just("Table"), "caption": words,
                           "columns": st.just([{"key": "a", "label": "A"},
                                               {"key": "b", "label": "B", "type": "number"}]),
                           "rows": st.lists(st.fixed_dictionaries(
                               {"a": words, "b": numbers | st.none()}), max_size=5)}),
)  # fmt: skip


def containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    items = st.lists(children, max_size=3)
    return st.one_of(
        st.fixed_dictionaries({"type": st.just("Stack"), "children": items},
                              optional={"direction": st.sampled_from(["row", "column"])}),
        st.fixed_dictionaries({"type": st.just("Card")}, optional={
            "title": words, "children": items, "actions": st.lists(button, max_size=2)}),
        st.fixed_dictionaries({"type": st.just("List"), "children": st.lists(
            st.fixed_dictionaries({"type": st.just("ListItem"), "children": items}), max_size=3)}),
    )  # fmt: skip


form = st.fixed_dictionaries({
    "type": st.just("Form"), "id": st.just("the-form"), "submit": button,
    "children": st.lists(st.one_of(
        st.fixed_dictionaries({"type": st.just("Field"), "name": names, "label": words},
                              optional={"kind": st.sampled_from(["text", "email", "date"]),
                                        "required": st.booleans()}),
        st.fixed_dictionaries({"type": st.just("Field"), "name": names, "label": words,
                               "kind": st.sampled_from(["select", "radio"]),
                               "options": st.lists(words, min_size=1, max_size=4)}),
        st.fixed_dictionaries({"type": st.just("Field"), "name": names, "label": words,
                               "kind": st.just("checkbox"), "value": st.booleans()}),
    ), max_size=4),
})  # fmt: skip
roots = st.recursive(leaves, containers, max_leaves=12) | form
specs = st.fixed_dictionaries({"v": st.just(1), "text": words, "root": roots})


def nodes(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Every component of a spec, the root first."""
    found, todo = [], [spec["root"]]
    while todo:
        node = todo.pop()
        found.append(node)
        todo += [*node.get("children", []), *node.get("actions", [])]
        todo += [node["submit"]] if "submit" in node else []
    return found


BREAKS = {
    "a newer version": lambda spec, node: spec.update(v=2),
    "an unknown component": lambda spec, node: node.update(type="Carousel"),
    "an extra property": lambda spec, node: node.update(style="color:red"),
    "a __proto__ key": lambda spec, node: node.update({"__proto__": {"admin": True}}),
    "a lone surrogate": lambda spec, node: spec.update(text="broken \ud800 text"),
    "a javascript: link": lambda spec, node: spec.update(
        root={"type": "Link", "label": "x", "url": "javascript:alert(1)"}),
    "an http image": lambda spec, node: spec.update(
        root={"type": "Image", "url": "http://plain.example/a.png", "alt": "a"}),
    "a duplicate id": lambda spec, node: spec.update(root={"type": "Stack", "children": [
        {"type": "Divider", "id": "x"}, {"type": "Divider", "id": "x"}]}),
    "too deep": lambda spec, node: spec.update(root=_deep(MAX_DEPTH + 1)),
    "too many rows": lambda spec, node: spec.update(root={
        "type": "Table", "caption": "c", "columns": [{"key": "a", "label": "A"}],
        "rows": [{"a": "x"}] * (MAX_ROWS + 1)}),
    "too large": lambda spec, node: spec.update(text="x" * 7000, root={
        "type": "Stack", "children": [{"type": "Markdown", "text": "y" * 8000}] * 9}),
    "a missing alt": lambda spec, node: spec.update(root={"type": "Image", "url": "https://a.example"}),
}  # fmt: skip


def _deep(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "Divider"}
    for _ in range(levels - 1):
        node = {"type": "Stack", "children": [node]}
    return node


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(specs)
def test_every_spec_built_by_the_rules_is_taken(spec: dict[str, Any]) -> None:
    assert check_spec(spec) is spec


@SETTINGS
@given(specs, st.sampled_from(sorted(BREAKS)), st.data())
def test_every_broken_spec_is_refused_whole(spec: dict[str, Any], way: str, data: Any) -> None:
    broken = copy.deepcopy(spec)
    BREAKS[way](broken, data.draw(st.sampled_from(nodes(broken))))
    with pytest.raises(UiSpecError):
        check_spec(broken)


def test_numbers_that_are_not_finite_are_refused() -> None:
    for number in (float("nan"), float("inf")):
        spec = {"v": 1, "text": "t", "root": {"type": "Facts", "items": [
            {"label": "a", "value": number}]}}  # fmt: skip
        with pytest.raises(UiSpecError, match="finite"):
            check_spec(spec)


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed here")
def test_the_page_gives_every_generated_spec_the_same_verdict() -> None:
    batch: list[Any] = []

    @settings(max_examples=200, deadline=None, database=None)
    @given(specs, st.sampled_from(["none", *sorted(BREAKS)]), st.data())
    def collect(spec: dict[str, Any], way: str, data: Any) -> None:
        if way != "none":
            BREAKS[way](spec, data.draw(st.sampled_from(nodes(spec))))
        batch.append(spec)

    collect()
    verdicts = [_verdict(spec) for spec in batch]
    assert True in verdicts and False in verdicts
    script = (
        "import { checkSpec } from './ui-spec.js';"
        "const specs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(specs.map(s => { try { checkSpec(s); return true; }"
        " catch { return false; } })));"
    ).replace("require('fs')", "(await import('node:fs'))")
    page = subprocess.run(["node", "--input-type=module", "-e", script], cwd=STATIC, check=True,
                          input=json.dumps(batch), capture_output=True, text=True)  # fmt: skip
    for spec, python, node in zip(batch, verdicts, json.loads(page.stdout), strict=True):
        assert python == node, json.dumps(spec)[:400]


def _verdict(spec: dict[str, Any]) -> bool:
    try:
        check_spec(spec)
    except UiSpecError:
        return False
    return True


def test_a_python_tool_answers_with_a_ui_the_model_reads_only_its_text() -> None:
    from scripted import ScriptedTransport, answer, call_chunk, run

    from widget import Session, ui

    def jackets() -> dict[str, Any]:
        """The jackets in stock."""
        table = ui.table("Jackets", [ui.column("name", "Name"), ui.column("eur", "EUR", "number")],
                         [{"name": "Alder", "eur": 89}])  # fmt: skip
        return ui.result("Alder, 89 EUR", ui.card("In stock", table))

    def broken() -> dict[str, Any]:
        """A UI this build does not draw."""
        return {"text": "Just text", "ui": {"v": 1, "text": "Fallback", "root": {"type": "Blink"}}}

    session = Session(tools=[jackets, broken])
    calls = [[call_chunk("c1", "jackets", "{}")]], [[call_chunk("c2", "broken", "{}")]]
    transport = ScriptedTransport(*calls, answer("Done."))
    run(session.send("Jackets?", transport))
    tools = [m for m in session.get_history() if m["role"] == "tool"]
    assert tools[0]["content"] == "Alder, 89 EUR" and tools[0]["ui"]["root"]["title"] == "In stock"
    assert tools[1] == {"role": "tool", "tool_call_id": "c2", "name": "broken",
                        "content": "Just text", "ui_fallback": "Fallback"}  # fmt: skip
    sent = transport.requests[-1]["messages"]
    assert [m["content"] for m in sent if m["role"] == "tool"] == ["Alder, 89 EUR", "Just text"]
    assert '"ui"' not in json.dumps(sent)  # the model never sees the spec
    with pytest.raises(UiSpecError, match="https"):
        ui.result("x", ui.link("Shop", "http://shop.example"))


def test_the_python_helper_builds_every_component_the_widget_draws() -> None:
    from widget import ui

    made = ui.result("All of them", ui.stack(
        ui.card("Card", ui.heading("H"), ui.text("T"), ui.markdown("*M*"), ui.badge("B"),
                ui.icon("star", "Star"), ui.image("https://a.example/i.png", "An image"),
                ui.divider(), ui.facts({"Price": 89, "Size": "M"}),
                ui.table("T", [ui.column("d", "Day", "date")], [{"d": "2026-12-06"}]),
                actions=[ui.button("Go", url="https://a.example"), ui.button("Ask", tool="t")]),
        ui.list_of(ui.text("One"), [ui.text("Two"), ui.badge("2")]),
        ui.form("f", ui.field("size", "Size", "radio", options=["S", "M"], required=True),
                ui.field("news", "News", "checkbox", value=False),
                submit=ui.button("Send", message="Sent")),
        ui.link("Shop", "https://shop.example"), row=True))  # fmt: skip
    kinds = {node["type"] for node in components(made["ui"]["root"])}
    assert kinds == set(COMPONENTS)
    with pytest.raises(ValueError, match="one thing"):
        ui.button("Both", message="a", url="https://a.example")


def _with_ui(ui_field: Any, **extra: Any) -> dict[str, Any]:
    call = {"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}}
    return {"version": 1, "id": "s", "messages": [
        {"role": "user", "content": "Book?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "name": "t", "content": "A form", "ui": ui_field,
         **extra}]}  # fmt: skip


FORM = {"v": 1, "text": "A form", "root": {"type": "Form", "id": "book", "children": [
    {"type": "Field", "name": "guest", "label": "Name"}],
    "submit": {"type": "Button", "label": "Book",
               "action": {"kind": "message", "text": "Book"}}}}  # fmt: skip


def test_a_stored_ui_is_checked_strictly_on_import_and_dropped_when_read_forgivingly() -> None:
    from widget.snapshots import from_dict, read_snapshot

    assert from_dict(_with_ui(FORM)).messages[2]["ui"] == FORM
    bad = {**FORM, "root": {"type": "Blink"}}
    with pytest.raises(ValueError, match="UI that cannot be drawn"):
        from_dict(_with_ui(bad))
    with pytest.raises(ValueError, match="ui_state"):
        from_dict(_with_ui(FORM, ui_state={"book": {"guest": ["not", "text"]}}))
    forgiven = read_snapshot(_with_ui(bad))
    assert forgiven is not None and "ui" not in forgiven["messages"][2]
    assert forgiven["messages"][2]["content"] == "A form"  # the conversation stays


def test_a_form_is_sent_once_and_what_it_sent_is_kept() -> None:
    from test_bridge import FakeHost, call, started

    bridge = started(FakeHost())
    call(bridge, "restore", snapshot=_with_ui(FORM))
    assert call(bridge, "sendForm", index=2, form="book", values={"guest": "Ada"}) == {
        "result": True}  # fmt: skip
    assert call(bridge, "sendForm", index=2, form="book", values={"guest": "Bob"}) == {
        "result": False}  # a form sends once  # fmt: skip
    assert call(bridge, "save")["result"]["messages"][2]["ui_state"] == {"book": {"guest": "Ada"}}
    for index, form, values in [(2, "other", {}), (0, "book", {}), (2, "book", {"x": "1"})]:
        call(bridge, "restore", snapshot=_with_ui(FORM))
        error = call(bridge, "sendForm", index=index, form=form, values=values)["error"]
        assert error["code"] == "form_gone"


def test_the_present_tool_s_arguments_are_the_spec() -> None:
    from scripted import run

    from widget.ui_present import PARAMETERS, PRESENT

    assert "oneOf" not in json.dumps(PARAMETERS) and PARAMETERS["required"] == ["text", "root"]
    root = {"type": "Text", "text": "Hello"}
    assert run(PRESENT.run({"text": "Hello", "root": root})) == {
        "text": "Shown to the person.", "ui": {"v": 1, "text": "Hello", "root": root}}  # fmt: skip
    assert run(PRESENT.run({"v": 2, "text": "Hi", "root": root}))["ui"]["v"] == 2  # (refused later)
