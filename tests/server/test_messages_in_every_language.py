"""What Python and the server say to a person shows in the widget's language, by code.

The notices (`{message, code, params}`) are produced here by the code that says them (a rate
limit reached, a budget used up, an upstream that fails, a conversation that cannot be read,
...), then handed to the widget's own translator (static/strings.js, under Node) with
`lang="de"`: every one must come out in German, filled with its values, and every German
template must be one the code says; en.js must hold each English template word for word.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import types
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from localclient import TestClient
from sample_pdf import locked_pdf, sample_pdf
from spaces import keyed

from server import Settings, create_app
from server.clients import sign_client_token, verify_client_token
from server.counters import LocalCounters
from server.errors import TEXTS as SERVER_TEXTS
from server.errors import APIError
from server.limits import Budgets, RateLimiter, StreamSlots
from server.redaction import Redactor
from server.sync.access import HEADER
from server.testing import free_port
from server.turn_readers import SILENT
from server.turns import BROKEN, STOPPED, TOO_LONG
from server.upstream_errors import bad_answer, error_from_upstream, upstream_error
from widget import Session, WidgetError
from widget.conversations import Conversations
from widget.history import History
from widget.hosted_history import HostedHistory
from widget.keeper import Unheard
from widget.key_value import Conflict, MemoryKeyValue, StorageFull
from widget.models import Offer
from widget.pdf_text import pdf_text
from widget.share_operations import ShareOperations
from widget.snapshots import SnapshotError
from widget.sync.codes import read_code
from widget.tool_operations import ToolOperations

if "pyodide" not in sys.modules:  # widget.bridge imports Pyodide's FFI, absent on CPython
    ffi = types.ModuleType("pyodide.ffi")
    ffi.JsException = type("JsException", (Exception,), {})  # type: ignore[attr-defined]
    sys.modules.update({"pyodide": types.ModuleType("pyodide"), "pyodide.ffi": ffi})
from widget.texts import TEXTS as WIDGET_TEXTS
from widget.texts import Notice, notice

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")

# Said by the page's JavaScript (static/sse.js, worker.js, pdf-reader.js), with sample values.
JS_TEXTS = {
    "connection_closed": "The connection closed before the answer was complete.",
    "server_unreachable": "The chat server could not be reached ({detail}).",
    "server_answered": "The chat server answered {status}.",
    "starting": "The chat is still starting.",
    "pdf_too_large": "“{file}” is larger than the {limit} MB a PDF may be, so it was not read.",
    "pdf_too_slow": "“{file}” took longer than {seconds} s to read, so reading it was stopped.",
}
SAID_IN_JAVASCRIPT: list[Notice] = [
    {"message": JS_TEXTS["connection_closed"], "code": "connection_closed", "params": {}},
    {"message": "The chat server could not be reached (Failed to fetch).",
     "code": "server_unreachable", "params": {"detail": "Failed to fetch"}},
    {"message": "The chat server answered 502 Bad Gateway.", "code": "server_answered",
     "params": {"status": "502 Bad Gateway"}},
    {"message": JS_TEXTS["starting"], "code": "starting", "params": {}},
    {"message": "“big.pdf” is larger than the 20 MB a PDF may be, so it was not read.",
     "code": "pdf_too_large", "params": {"file": "big.pdf", "limit": "20"}},
    {"message": "“slow.pdf” took longer than 30 s to read, so reading it was stopped.",
     "code": "pdf_too_slow", "params": {"file": "slow.pdf", "seconds": "30"}},
    notice("host_store_failed", detail="the quota is exceeded"),
]  # fmt: skip


def of(error: APIError | WidgetError) -> Notice:
    if isinstance(error, WidgetError):
        return error.notice()
    return {"message": error.message, "code": error.code, "params": dict(error.params)}


def failed(message: dict[str, Any]) -> Notice:
    """A failed answer's error, as the page reads it back."""
    return {"message": message["error"], "code": message.get("error_code", ""),
            "params": message.get("error_params", {})}  # fmt: skip


def caught(action: Any) -> Notice:
    """The notice of the error `action()` (a coroutine or a function) raises."""
    try:
        result = action()
        if asyncio.iscoroutine(result):
            asyncio.run(result)
    except (APIError, WidgetError) as exc:
        return of(exc)
    raise AssertionError("nothing was raised")


def said_by_limits() -> list[Notice]:
    said = [of(APIError.said(408, "body_timeout", seconds="10"))]
    slots = StreamSlots(1)
    slots.take("ann")
    said.append(caught(lambda: slots.take("ann")))
    limiter = RateLimiter(1, LocalCounters())
    asyncio.run(limiter.check("ann"))
    said.append(caught(lambda: limiter.check("ann")))
    for per_client, per_server in ((10, 0), (0, 10)):
        budgets = Budgets(per_client, per_server, LocalCounters())
        asyncio.run(budgets.reserve("ann", 25))
        said.append(caught(lambda b=budgets: b.check("ann")))  # type: ignore[misc]
    return said


def said_by_tools() -> list[Notice]:
    """What calling an operator's MCP tool says: an unknown tool, arguments that do not fit,
    a server that is down (a real call to a closed port), and the timeout."""
    from server.mcp_config import McpServer
    from server.mcp_tools import McpTool, McpTools, check_arguments

    down = McpServer("down", f"http://127.0.0.1:{free_port()}/mcp")
    tool = McpTool(down, "find", "", {"type": "object", "required": ["query"]})
    tools = McpTools([down], 10)
    return [
        caught(lambda: McpTools([], 1).call("shop__find", {})),
        caught(lambda: check_arguments(tool, {})),
        caught(lambda: tools.call("down__find", {})),
        of(APIError.said(504, "tool_timeout", tool="shop__slow", seconds=30)),
        of(APIError.said(404, "share_gone")),
    ]


async def said_by_upstreams() -> list[Notice]:
    said = [
        of(upstream_error(httpx.ConnectTimeout("slow"))),
        of(upstream_error(httpx.ConnectError("down"))),
        of(upstream_error(httpx.ReadError("cut"), started=True)),
        of(bad_answer()),
    ]
    for status in (401, 429, 400, 500):
        response = httpx.Response(status, json={"error": {"message": "max_tokens is too large"}})
        said.append(of(await error_from_upstream(response, Redactor(()))))
    return said


def said_by_the_app(runtime_dir: Path) -> list[Notice]:
    def cut_off(request: httpx.Request) -> httpx.Response:
        chunk = {"choices": [{"index": 0, "delta": {"content": "Half"}, "finish_reason": None}]}
        body = f"data: {json.dumps(chunk)}\n\n"  # no finish reason, no [DONE]
        return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})

    def error_event(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text='data: {"error": {}}\n\n',
                              headers={"content-type": "text/event-stream"})  # fmt: skip

    def said_event(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text='data: {"error": {"message": "overloaded"}}\n\n',
                              headers={"content-type": "text/event-stream"})  # fmt: skip

    question = {"model": "demo", "messages": [{"role": "user", "content": "hi"}]}
    said = []
    settings = Settings(max_body_bytes=300)
    with TestClient(create_app(settings, runtime_dir=runtime_dir)) as http:
        said.append(http.post("/api/chat/completions", content=b"x" * 400).json())
        said.append(http.post("/api/chat/completions", json={**question, "model": "gpt-9"}).json())
        said.append(http.post("/api/chat/completions", json=question,
                              headers={"origin": "https://elsewhere.example"}).json())  # fmt: skip
        said.append(http.get("/api/chat/turns/some-turn").json())
        said.append(http.get("/api/models", headers={"host": "evil.example"}).json())
    for upstream in (cut_off, error_event, said_event):
        app = create_app(settings, transport=httpx.MockTransport(upstream), runtime_dir=runtime_dir)
        with TestClient(app) as http:
            events = http.post("/api/chat/completions", json={**question, "stream": True}).text
            said.append(json.loads(events.split("data: ")[-1]))
    with TestClient(create_app(Settings(client_secret="s3cret"), runtime_dir=runtime_dir)) as http:
        said.append(http.post("/api/chat/completions", json=question).json())
    said += said_by_sync(runtime_dir)
    return [{"message": body["error"]["message"], "code": body["error"]["code"],
             "params": body["error"].get("params", {})} for body in said]  # fmt: skip


def said_by_sync(folder: Path) -> list[Any]:
    """Synced history's refusals: off, a stale write, a full space, a space of too many items,
    a client's day of spaces or bytes used up, a store that is away, a space id without its
    token or with another's, a wiped space."""
    (space, token), (t_space, t_token), (u_space, u_token) = map(keyed, "SUT")
    create = {"if-none-match": "*"}
    said = []
    with TestClient(create_app(Settings(), runtime_dir=folder), headers=token) as http:
        said.append(http.get(f"/api/sync/{space}").json())
    store = Settings(sync_store=f"sqlite:///{folder}/sync/sync.db", sync_space_bytes=600,
                     sync_space_items=2, sync_client_spaces=2, sync_client_bytes=2000)  # fmt: skip
    with TestClient(create_app(store, runtime_dir=folder)) as http:
        http.headers.update(token)
        http.put(f"/api/sync/{space}/a", content=b"1", headers=create)
        said.append(http.put(f"/api/sync/{space}/a", content=b"2", headers=create).json())
        said.append(http.put(f"/api/sync/{space}/b", content=b"x" * 400, headers=create).json())
        http.put(f"/api/sync/{space}/b", content=b"x", headers=create)
        said.append(http.put(f"/api/sync/{space}/c", content=b"x", headers=create).json())
        http.put(f"/api/sync/{t_space}/a", content=b"1", headers=create | t_token)
        said.append(http.put(f"/api/sync/{u_space}/a", content=b"1", headers=create | u_token)
                    .json())  # fmt: skip
        said.append(http.put(f"/api/sync/{t_space}/b", content=b"x" * 1300,
                             headers=create | t_token).json())  # fmt: skip
        said.append(http.get(f"/api/sync/{space}", headers={HEADER: ""}).json())
        said.append(http.get(f"/api/sync/{space}", headers=t_token).json())
        http.delete(f"/api/sync/{t_space}", headers=t_token)
        said.append(http.get(f"/api/sync/{t_space}", headers=t_token).json())
    anonymous = Settings(sync_store=f"sqlite:///{folder}/sync/sync.db")
    with TestClient(create_app(anonymous, runtime_dir=folder)) as http:
        said.append(http.get(f"/api/sync/{space}").json())
    away = Settings(sync_store=f"sqlite:///{folder}/pyodide/pyodide.asm.wasm/sync.db")
    with TestClient(create_app(away, runtime_dir=folder), headers=token) as http:
        said.append(http.get(f"/api/sync/{space}").json())
    return said


def said_about_sync() -> list[Notice]:
    """What synced history says in the widget: no code, a mistyped code, items that fail
    their tag, a site's key too short, no room here for another device's version, a server
    whose pages never end, or that altered an item; a pairing link spent."""
    return [caught(lambda: read_code("ABCD-EFGH")), notice("sync_unreadable", count=2),
            notice("sync_unreadable_one"), notice("sync_storage_full"),
            WidgetError.said("sync_key_short", length=32, distinct=16).notice(),
            WidgetError.said("sync_stalled").notice(), WidgetError.said("sync_code_mistyped")
            .notice(), notice("sync_altered"),
            WidgetError.said("sync_too_large", title="Plans").notice(),
            of(APIError.said(410, "sync_pairing_gone", minutes=10))]  # fmt: skip


def said_by_tokens() -> list[Notice]:
    expired = sign_client_token("s3cret", "ann", -10)
    return [
        caught(lambda: verify_client_token("s3cret", "not.valid")),
        caught(lambda: verify_client_token("s3cret", expired)),
    ]


class Scripted:
    """A transport whose answers are the given lists of batches; `during` runs mid-answer."""

    def __init__(self, *answers: list[list[Any]], during: Any = None) -> None:
        self.answers = list(answers)
        self.during = during

    async def complete(self, request: dict[str, Any]) -> AsyncIterator[list[Any]]:
        if self.during is not None:
            self.during()
        for batch in self.answers.pop(0) if self.answers else [[]]:
            yield batch

    async def resume(self, turn: str) -> AsyncIterator[list[Any]]:
        yield []

    def cancel(self) -> None:
        pass


class Alerts(Unheard):
    """Hears the alerts a person would see."""

    def __init__(self, alerts: list[Notice]) -> None:
        self.alerts = alerts

    def alert(self, notice: Notice) -> None:
        self.alerts.append(notice)


def said_by_the_widget() -> list[Notice]:
    said: list[Notice] = [notice("bug"), notice("answer_unreadable")]
    session = Session()

    def mid_answer() -> None:
        said.append(caught(lambda: session.set_history([])))

    asyncio.run(session.send("Hi", Scripted([], during=mid_answer)))  # and an empty answer
    said.append(failed(session.get_history()[-1]))
    call = {"choices": [{"index": 0, "finish_reason": "tool_calls", "delta": {"tool_calls": [
        {"index": 0, "id": "c", "function": {"name": "clock", "arguments": "{}"}}]}}]}  # fmt: skip

    def clock() -> str:
        """The time."""
        return "noon"

    looping = Session(tools=[clock])
    asyncio.run(looping.send("Time?", Scripted(*[[[call]]] * 10)))
    said.append(failed(looping.get_history()[-1]))
    stopping = Session()
    asyncio.run(stopping.send("Hi", Scripted([[]], during=stopping.stop)))
    said.append(failed(stopping.get_history()[-1]))

    alerts: list[Notice] = []
    store = MemoryKeyValue()
    store.data["chatkeep:meta:torn"] = '{"v": 1, "title": "Torn", "updated": 1, "rev": "r"}'
    store.data["chatkeep:conv:torn"] = '{"version": 1, "id": "torn", "messages": [{"ro'
    kept = Conversations(Session(), History(store), Scripted(), listener=Alerts(alerts),
                         offer=Offer([{"id": "demo"}, {"id": "mini"}]))  # fmt: skip
    said.append(caught(lambda: kept.open("not-kept")))
    asyncio.run(kept.keeper.start())
    said.append(caught(lambda: kept.open("torn")))
    said.append(caught(lambda: kept.rename(kept.conversation.id, " ")))
    said.append(caught(lambda: kept.set_model("gpt-9")))
    shares = ShareOperations(kept, host=None)  # type: ignore[arg-type]  (refused before asking)
    said.append(caught(lambda: shares.read_shared('{"version": 1}')))
    said.append(caught(lambda: ToolOperations(kept, None).send_form(99, "f", {})))
    old = {"version": 1, "id": "c1", "title": "Old", "created": 1, "updated": 1,
           "model": "retired", "thinking": "off",
           "messages": [{"role": "user", "content": "Hi"}]}  # fmt: skip
    asyncio.run(kept.keeper.start(old))
    said += alerts
    export = '{"format": "chatkeep-history", "version": 2, "conversations": []}'
    try:
        asyncio.run(kept.import_all(export))
    except SnapshotError as exc:
        said.append(exc.notice())
    said.append(caught(lambda: Conversations(Session(), None, Scripted()).import_all("{}")))
    full = Session()
    full.set_history([{"role": "user", "content": "x" * 100}])
    try:
        asyncio.run(History(MemoryKeyValue(quota=50)).keep(full.conversation.snapshot()))
    except StorageFull as exc:
        said.append(exc.notice())
    said += said_about_pins_and_ratings(full)
    return said


def said_about_pins_and_ratings(full: Session) -> list[Notice]:
    said = [caught(lambda: Conversations(Session(), None, Scripted()).pin("x", True))]
    said.append(caught(lambda: HostedHistory(None).pin("x", True)))  # type: ignore[arg-type]
    said.append(caught(lambda: full.conversation.set_feedback(0, "good")))
    full.set_history([{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}])
    said.append(caught(lambda: full.conversation.set_feedback(1, "meh")))
    store = MemoryKeyValue(quota=800)
    pinned = History(store)
    asyncio.run(pinned.keep(full.conversation.snapshot()))
    asyncio.run(pinned.pin(full.conversation.id, True))
    big = Session()
    big.set_history([{"role": "user", "content": "x" * 600}])
    try:
        asyncio.run(pinned.keep(big.conversation.snapshot()))
    except StorageFull as exc:
        said.append(exc.notice())

    async def always_changed(*args: object) -> None:
        raise Conflict("another tab")

    store.write = always_changed  # type: ignore[method-assign]
    said.append(caught(lambda: pinned.pin(full.conversation.id, False)))
    # an attached PDF without text: locked, only pictures, not a PDF
    for pdf in (locked_pdf("Secret", "password"), sample_pdf(""), b"not a PDF"):
        said.append(caught(lambda pdf=pdf: pdf_text(pdf, "report.pdf")))
    return said


#: Every language besides English (static/i18n/), German first: it was the first.
LANGUAGES = ["de", "fr", "es", "it", "pt", "ja", "zh", "ar"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_what_python_and_the_server_say_shows_in_each_language(
    runtime_dir: Path, lang: str
) -> None:
    said = (
        said_by_limits() + said_by_tools() + asyncio.run(said_by_upstreams())
        + said_by_the_app(runtime_dir) + said_by_tokens() + said_by_the_widget()
        + [of(APIError.said(404, "turn_not_found", minutes=15)),
           of(APIError.said(503, "store_unavailable"))]
        + said_about_sync()
        + [of(e) for e in (STOPPED, TOO_LONG, BROKEN, SILENT)]
        + SAID_IN_JAVASCRIPT
    )  # fmt: skip
    assert not [n for n in said if not n["message"] or not n["code"]], "each says a code"
    script = r"""
      import { loadStrings } from "./static/strings.js";
      const lang = process.argv[1];
      const table = (await import(`./static/i18n/${lang}.js`)).default;
      const said = JSON.parse(await new Promise((resolve) => {
        let text = ""; process.stdin.on("data", (d) => (text += d)).on("end", () => resolve(text));
      }));
      const t = await loadStrings(lang);
      const key = (n) => `error.${n.code}${n.params?.variant ? `.${n.params.variant}` : ""}`;
      const plural = /\.(zero|one|two|few|many|other)$/;
      // A template nothing says: its code was renamed, or it has a typo (a plural form counts
      // as said when its code is).
      const unused = Object.keys(table).filter((k) => k.startsWith("error.")
        && !said.some((n) => key(n) === k || key(n) === k.replace(plural, "")));
      console.log(JSON.stringify({ german: said.map((n) => t.notice(n)), unused }));
    """
    run = subprocess.run(["node", "--input-type=module", "-e", script, lang],
                         input=json.dumps(said), capture_output=True, text=True, cwd=ROOT,
                         timeout=60)  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    # (an upstream's own words, `upstream_error`, are shown as they are, in any language)
    untranslated = [n["message"] for n, german in zip(said, result["german"], strict=True)
                    if (german == n["message"] and n["code"] != "upstream_error")
                    or "{" in german]  # fmt: skip
    assert untranslated == []
    assert result["unused"] == [], result["unused"]  # every template is said
    if lang != "de":
        return
    german = {n["message"]: g for n, g in zip(said, result["german"], strict=True)}
    assert german["Too many requests: the limit is 1 a minute. Try again in 60 seconds."] == (
        "Zu viele Anfragen: erlaubt sind 1 pro Minute. Versuch es in 60 Sekunden noch einmal."
    )  # the values carried over


def test_the_english_table_says_what_python_and_the_server_say() -> None:
    """static/i18n/errors.js holds each English template, word for word, under its code."""
    script = "import('./static/i18n/errors.js').then(m => console.log(JSON.stringify(m.default)))"
    run = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True,
                         text=True, cwd=ROOT, timeout=60, check=True)  # fmt: skip
    english = {k[6:]: v for k, v in json.loads(run.stdout).items() if k.startswith("error.")}
    assert english == {**SERVER_TEXTS, **WIDGET_TEXTS, **JS_TEXTS}
