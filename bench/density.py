"""How much conversation a browser's localStorage holds: stored (packed) characters against
the plain JSON of realistic, varied conversations, and the time to pack and unpack one.

The text is real prose and code: the documentation of Python's standard library, asked about
and answered module by module, so no two messages repeat."""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from bench import row

MODULES = ["json", "argparse", "asyncio", "collections", "csv", "datetime", "email",
           "http.client", "logging", "pathlib", "re", "sqlite3", "statistics", "string",
           "textwrap", "typing", "unittest", "urllib.parse", "uuid", "zipfile", "heapq",
           "shutil", "fractions"]  # fmt: skip


def documentation(module_name: str) -> list[tuple[str, str]]:
    module = importlib.import_module(module_name)
    pairs = [(f"What is the {module_name} module for?", inspect.getdoc(module) or "")]
    for name, member in sorted(vars(module).items()):
        doc = inspect.getdoc(member) if not name.startswith("_") else None
        if doc and len(doc) > 80 and getattr(member, "__module__", "").startswith(module_name):
            pairs.append((f"How do I use {module_name}.{name}?", doc))
    return pairs


def conversations() -> list[str]:
    texts = []
    for index, module_name in enumerate(MODULES):
        messages: list[dict[str, Any]] = []
        for question, answer in documentation(module_name)[:40]:
            messages += [{"role": "user", "content": question},
                         {"role": "assistant", "content": answer}]  # fmt: skip
        snapshot = {"version": 1, "id": f"c{index}", "title": module_name,
                    "created": index, "updated": index, "model": "demo", "thinking": "off",
                    "messages": messages}  # fmt: skip
        texts.append(json.dumps(snapshot, ensure_ascii=False, separators=(",", ":")))
    return texts


def bench_density() -> list[dict[str, Any]]:
    texts = conversations()
    messages = [m for text in texts for m in json.loads(text)["messages"]]
    while len(json.dumps(messages)) > 200 * 1024:  # whole turns, about 200 KB
        messages = messages[:-2]
    big = json.dumps(json.loads(texts[0]) | {"messages": messages}, ensure_ascii=False)
    plain = stored = 0
    timing: dict[str, Any] = {}
    for text in [*texts, big]:
        with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            measured = json.loads(subprocess.run(
                ["node", str(Path(__file__).with_name("codec_timing.mjs")), file.name],
                capture_output=True, text=True, check=True, timeout=300).stdout)  # fmt: skip
        if text is big:
            timing = measured
        else:
            plain, stored = plain + measured["plain"], stored + measured["stored"]
    size = len(big) // 1024
    return [
        row(f"conversation text per localStorage character ({len(texts)} conversations, "
            f"{plain // 1024} KB of JSON)", plain / stored, 4, "x", at_least=True),
        row(f"pack a {size} KB conversation (Pyodide zlib + 15 bits, Node)", timing["pack"],
            10, "ms"),
        row(f"unpack a {size} KB conversation (same)", timing["unpack"], 20, "ms"),
    ]  # fmt: skip
