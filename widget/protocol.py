"""The names that cross between Python, the worker and the page, declared once on this side.

`static/protocol.js` declares the same names for JavaScript, and `tests/widget/test_protocol.py`
checks that the two sides agree (and that the server says the same where it takes part).

A message between the page and the worker is one of `MESSAGE_KINDS`:

    {id, type: "call", op, args}         page → worker: run an operation
    {id, type: "reply", result}          its answer
    {id, type: "error", error: {name, message, bug?}}    its failure (`bug`: a traceback)
    {type: "event", kind, data}          worker → page: a change (one of `EVENTS`)
    {id, type: <one of REQUESTS>, ...}   worker → page: what only the page can do
"""

from __future__ import annotations

MESSAGE_KINDS = ("init", "call", "reply", "error", "event")
#: What the worker asks of the page: localStorage, the host's own history store, a tool.
REQUESTS = ("storage", "historyStore", "callTool")
#: What Python tells the page changed (see `widget.changes`).
EVENTS = ("messages", "draft", "meta", "models", "history", "alert", "stopping")
#: `storage` requests, and what a `write` answers.
STORAGE_OPERATIONS = ("readAll", "get", "write")
WRITTEN, FULL, CONFLICT = STORAGE_ANSWERS = ("ok", "full", "conflict")
#: `historyStore` requests: the methods of the host page's store.
HOST_STORE_OPERATIONS = ("list", "read", "keep", "forget")

#: The worker puts `{TURN_KEY: "<id>"}` before an answer's first chunk when the server keeps
#: the answer under that turn id (the response header `TURN_HEADER`), for a reload to pick up.
TURN_KEY = "chatkeep_turn"
TURN_HEADER = "x-chatkeep-turn"

#: Sentences more than one side says: the page recognises them (a stop is not an error).
STOPPED = "Stopped before the answer was finished."
BUSY = "An answer is still being written: stop it or wait for it to finish."
