"""The messages that cross between Python, the worker and the page, declared once on this side.

`static/protocol.js` declares the same for JavaScript, and `tests/widget/test_protocol.py`
checks that the two sides agree (and that the server says the same where it takes part).

A message between the page and the worker is one of `MESSAGE_KINDS`, with the payload
`PAYLOADS` names for it (plain data throughout: never JSON text inside a message):

    {id, type: "init", config, keepSnapshot?}  page → worker: boot (may it keep storage)
    {id, type: "call", op, args}               page → worker: run an operation
    {id, type: "reply", result}                its answer
    {id, type: "error", error: {message, bug?}}   its failure (`bug`: a traceback)
    {type: "event", kind, data}                worker → page: a change, `data` as `EVENT_DATA`
    {id, type: <one of REQUESTS>, ...}         worker → page: what only the page can do
    {id, type: "downscale", file}              page → worker: an image made small
    {id, type: "runtime", module}              page → worker: Pyodide's compiled WebAssembly
    {id, type: "wake"}                         page → worker: the page is back (visible,
                                               resumed, online): a dropped answer is asked for now

A payload's shape maps each field to a type: `string`, `number`, `boolean`, `object`, `array`,
`null`, `any`, or several joined by `|`; a field whose name ends in `?` may be left out.
"""

from __future__ import annotations

from typing import Any

MESSAGE_KINDS = (
    "init",
    "call",
    "reply",
    "error",
    "event",
    "downscale",
    "runtime",
    "wake",
)
#: What the worker asks of the page: localStorage, the host's own history store, a tool.
REQUESTS = ("storage", "historyStore", "callTool")
#: What Python tells the page changed (see `widget.changes`).
EVENTS = ("messages", "draft", "meta", "models", "history", "alert", "stopping", "sync")
#: `storage` requests, and what a `write` answers.
STORAGE_OPERATIONS = ("readAll", "get", "write")
WRITTEN, FULL, CONFLICT = STORAGE_ANSWERS = ("ok", "full", "conflict")
#: `historyStore` requests: the methods of the host page's store.
HOST_STORE_OPERATIONS = ("list", "read", "keep", "forget")

Shape = dict[str, str]

#: The payload of each kind of message, besides its `id` and `type`.
# fmt: off
PAYLOADS: dict[str, Shape] = {
    "init": {"config": "object", "keepSnapshot?": "boolean"},
    "call": {"op": "string", "args": "object"},
    "reply": {"result": "any"},
    "error": {"error": "object"},
    "event": {"kind": "string", "data": "any"},
    # readAll names a `prefix`, get a `key`, write its `changes` ([key, value | null] pairs)
    # and the values it `expect`s; the page answers an object, a string or null, or WRITTEN
    "storage": {"op": "string", "prefix?": "string", "key?": "string", "changes?": "array",
                "expect?": "object"},
    "historyStore": {"op": "string", "args": "array"},
    "callTool": {"name": "string", "arguments": "object"},
    # an image the page hands the worker to make small (static/downscale.js): the File back
    "downscale": {"file": "any"},
    # Pyodide's WebAssembly module as the page compiled it (Chromium caches it there only)
    "runtime": {"module": "any"},
    # the page is back from hidden, frozen or offline: streams waiting to ask again ask now
    "wake": {},
}

#: What Python may call on the worker (`widget.bridge`; static/worker.js hands exactly these
#: to `Bridge`): the streams of a turn, kept turns, tools, the page's storage and host store,
#: the changes it tells the page, synced history's half in the worker (JSON in, JSON out), and
#: shared links (a snapshot's text sealed; a share stopped).
WORKER_CALLS = (
    "openStream", "resumeStream", "claimTurn", "releaseTurn", "callTool", "storage",
    "historyStore", "emit", "draft",
    "syncOpen", "syncKnownBefore", "syncResume", "syncForget", "syncListen", "syncPull",
    "syncPush", "syncDelete", "syncMoving", "syncPullMoved", "syncMoved", "syncWipe",
    "syncPair", "syncUnpair", "syncDrop", "shareSeal", "shareStop",
)  # fmt: skip

#: The request of each of synced history's calls on the worker (JSON in; `widget.bridge`'s
#: `WorkerSync` sends exactly these, and static/sync-client.js reads them).
# fmt: off
SYNC_CALLS: dict[str, Shape] = {
    "syncOpen": {"secret": "string", "keepAs": "string", "fresh": "boolean"},
    "syncKnownBefore": {"secret": "string"},
    "syncResume": {"keptAs": "string"},
    "syncForget": {"keptAs": "string"},
    "syncListen": {},
    "syncPull": {"since": "number"},
    # (a write's item goes beside its request, as the JSON text Python wrote)
    "syncPush": {"conversation": "string", "expect": "number|null", "seq": "number",
                 "tail": "string"},
    "syncDelete": {"conversation": "string", "expect": "number|null", "seq": "number"},
    "syncDrop": {"item": "string", "expect": "number"},
    "syncMoving": {},
    "syncPullMoved": {},
    "syncMoved": {},
    "syncWipe": {},
    "syncPair": {"secret": "string"},
    "syncUnpair": {"link": "string"},
}
# fmt: on

#: The `data` of each event.
EVENT_DATA: dict[str, Shape | str] = {
    # keep the first `at` settled messages, then `add`; `turn`: added by a running turn
    "messages": {"at": "number", "add": "array", "turn": "boolean"},
    # the answer being written (`answer` names it): `text` appended at `at`, `thought` at
    # `thoughtAt` to its reasoning, its tool calls when they changed; `end` once it settled
    "draft": {
        "answer": "string",
        "at": "number",
        "text": "string",
        "thoughtAt?": "number",
        "thought?": "string",
        "calls?": "array",
        "end?": "boolean",
    },
    "meta": {
        "id": "string",
        "title": "string",
        "model": "string",
        "provider": "string|null",
        "thinking": "string",
        "busy": "boolean",
        "unfinished": "boolean",
        "usage": "object|null",
        "context": "number",
        "allowed": "array",
    },
    "models": "array",
    "history": {"set": "array", "drop": "array", "order?": "array"},
    # what to tell the person: the English message, and the code (and params) the page says
    # it by in its language (`widget.texts`)
    "alert": {"message": "string", "code": "string", "params": "object"},
    "stopping": "null",
    # synced history: "off" (not connected), "syncing", "synced", "offline" or "error"; with
    # "error", the server's refusal as a notice (`{message, code, params}`), else null
    "sync": {"state": "string", "reason": "object|null"},
}
# fmt: on

#: The storage keys of one kept conversation, `<prefix>:<kind>:<id>` (`storage_key`): its line
#: in the list (`widget.entries`) and its snapshot (packed by the worker, `static/codec.js`).
#: The page reads both before Python runs (`static/stored.js`).
STORAGE_KEYS = {
    "meta": "{prefix}:meta:",
    "conversation": "{prefix}:conv:",
    "sync": "{prefix}:sync:",
}

#: The worker puts `{TURN_KEY: "<id>"}` before an answer's first chunk when the server keeps
#: the answer under that turn id (the response header `TURN_HEADER`), for a reload to pick up.
TURN_KEY = "chatkeep_turn"
TURN_HEADER = "x-chatkeep-turn"

#: Sentences more than one side says: the page recognises them (a stop is not an error).
STOPPED = "Stopped before the answer was finished."
BUSY = "An answer is still being written: stop it or wait for it to finish."

_TYPES: dict[str, Any] = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
    "any": lambda v: True,
}


def conforms(value: object, shape: Shape | str) -> list[str]:
    """What in `value` does not fit `shape` (a payload's or an event's): empty when it fits."""
    if isinstance(shape, str):
        return [] if _is(value, shape) else [f"expected {shape}, got {type(value).__name__}"]
    if not isinstance(value, dict):
        return [f"expected an object, got {type(value).__name__}"]
    problems = []
    for field, kind in shape.items():
        name = field.removesuffix("?")
        if name not in value:
            if not field.endswith("?"):
                problems.append(f'"{name}" is missing')
        elif not _is(value[name], kind):
            problems.append(f'"{name}" is not {kind}')
    known = {field.removesuffix("?") for field in shape}
    problems += [f'"{name}" is not declared' for name in value if name not in known]
    return problems


def _is(value: object, kinds: str) -> bool:
    return any(_TYPES[kind](value) for kind in kinds.split("|"))


def storage_key(kind: str, prefix: str, conversation_id: str = "") -> str:
    """The key of a conversation's `kind` of entry (`STORAGE_KEYS`); without an id, what all
    the keys of that kind start with."""
    return STORAGE_KEYS[kind].format(prefix=prefix) + conversation_id
