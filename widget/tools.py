"""Tools the model may call: a name, a JSON Schema for its arguments, and how to run it.

Tools come from two places. On CPython (and in tests) a plain Python function becomes a tool,
its schema derived from the signature and the docstring. In the browser the host page
registers tools whose handlers run on the page; the bridge wraps those as `Tool`s too, so the
session's tool loop never knows the difference.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .ui_messages import tool_output

#: a tool's result: its text, or `{"text", "ui"}` (text, and a UI spec: `widget.ui_spec`)
Runner = Callable[[dict[str, Any]], Awaitable[str | dict[str, Any]]]


@dataclass(frozen=True)
class Tool:
    """One callable tool; `run` takes the parsed arguments and returns the result text."""

    name: str
    description: str
    parameters: dict[str, Any]
    run: Runner

    def spec(self) -> dict[str, Any]:
        """The entry for the request's `tools` list."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def tool_from_callable(function: Callable[..., Any] | Tool) -> Tool:
    """Describe a Python function (sync or async) as a tool the model can call."""
    if isinstance(function, Tool):
        return function
    if not callable(function) or not getattr(function, "__name__", None):
        raise TypeError(f"a tool must be a named function, not {function!r}")
    doc = inspect.getdoc(function) or ""
    summary, arg_docs = _parse_docstring(doc)
    hints = typing.get_type_hints(function)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        schema = json_schema(hints.get(name, str))
        if name in arg_docs:
            schema["description"] = arg_docs[name]
        properties[name] = schema
        if parameter.default is parameter.empty:
            required.append(name)
    parameters = {"type": "object", "properties": properties, "required": required}

    async def run(arguments: dict[str, Any]) -> str | dict[str, Any]:
        result = function(**arguments)
        if inspect.isawaitable(result):
            result = await result
        if isinstance(result, dict) and set(result) == {"text", "ui"}:
            return result  # text, and a UI to draw
        return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)

    return Tool(function.__name__, summary, parameters, run)


def json_schema(annotation: Any) -> dict[str, Any]:
    """A JSON Schema for a type hint, as far as plain JSON can express it."""
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if origin is typing.Literal:
        return {"enum": list(arguments)}
    if origin in (typing.Union, types.UnionType):
        options = [a for a in arguments if a is not type(None)]
        return json_schema(options[0]) if len(options) == 1 else {}
    if origin in (list, tuple, set, frozenset):
        return {"type": "array", "items": json_schema(arguments[0]) if arguments else {}}
    if origin is dict or annotation is dict:
        return {"type": "object"}
    if annotation is list:
        return {"type": "array"}
    return {}


_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}
_ARG_LINE = re.compile(r"^\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The first paragraph and the `Args:` descriptions of a Google-style docstring."""
    summary = " ".join(doc.split("\n\n", 1)[0].split())
    arg_docs: dict[str, str] = {}
    in_args = False
    for line in doc.splitlines():
        if line.strip().lower() in ("args:", "arguments:", "parameters:"):
            in_args = True
        elif in_args and line.strip() and not line.startswith(" "):
            in_args = False
        elif in_args and (match := _ARG_LINE.match(line)):
            arg_docs[match.group(1)] = match.group(2).strip()
    return summary, arg_docs


async def run_call(tools: Mapping[str, Tool], call: dict[str, Any]) -> dict[str, Any]:
    """Run one of the model's tool calls: its result message, an error the model can read
    when the tool is unknown, the arguments are not a JSON object, or the tool fails."""
    name = call["function"]["name"]
    result: dict[str, Any] = {"role": "tool", "tool_call_id": call["id"], "name": name}
    tool = tools.get(name)
    if tool is None:
        result["content"] = f'Error: there is no tool named "{name}".'
        return result
    try:
        arguments = json.loads(call["function"]["arguments"] or "{}")
        if not isinstance(arguments, dict):
            raise ValueError("arguments must be a JSON object")
    except ValueError as exc:
        result["content"] = f"Error: the arguments are not valid JSON ({exc})."
        return result
    try:
        output: object = await tool.run(arguments)
    except Exception as exc:  # a tool's failure is the model's to read, not the session's
        output = f"Error: {exc}"
    return result | tool_output(output)


def unrun(call: dict[str, Any], why: str) -> dict[str, Any]:
    """The result of a call that was not run, saying why (the model reads it)."""
    name = call["function"]["name"]
    return {"role": "tool", "tool_call_id": call["id"], "name": name, "content": why}
