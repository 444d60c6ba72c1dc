"""The model `chatkeep_server` answers with in a test: queued answers first, then the demo's.

An OpenAI-compatible upstream served from the test's own process (a thread), which the
session's server is started against: a test queues what the model says next (`reply`), and
reads the JSON bodies the server sent upstream (`requests`). Beyond the queue it answers as
the built-in demo model does, word by word at the demo's pace, so pages that never script an
answer see the demo they always saw.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .demo import Reply, asks_for_a_title, demo_answer
from .demo_wire import completion, reply_events

__all__ = ["ChatkeepModel"]


@dataclass(frozen=True)
class _Failure:
    status: int
    message: str


class ChatkeepModel:
    """Queued answers for the next chat requests; the demo model's beyond them."""

    def __init__(self, delay: float = 0.03) -> None:
        #: seconds between streamed words (the demo model's pace; 0 for as fast as possible)
        self.delay = delay
        self._queue: deque[Reply | _Failure] = deque()
        self._requests: list[dict[str, Any]] = []
        self._calls = 0
        self._lock = threading.Lock()
        #: the key the one Chatkeep server it serves sends (`CHATKEEP_API_KEY`): any other
        #: local process gets 403, never a queued answer, and is not recorded
        self.key = secrets.token_urlsafe(24)
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._http.daemon_threads = True
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
        #: the base URL to give `chatkeep serve --upstream`
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def reply(
        self,
        text: str = "",
        *,
        tool_call: tuple[str, dict[str, Any] | str] | None = None,
        status: int | None = None,
        reasoning: str = "",
    ) -> None:
        """Queue the next answer: `text`; a call of the page's tool `(name, arguments)`; an
        upstream failure with HTTP `status` (and `text` as its message); or `text` after a
        `reasoning`. Answers are given in the order they were queued, one per request."""
        if status is not None:
            if not 400 <= status <= 599:
                raise ValueError(f"status must be an HTTP error (400 to 599), not {status}")
            failure = _Failure(status, text or f"The scripted model failed with {status}.")
            with self._lock:
                self._queue.append(failure)
            return
        call = None
        if tool_call is not None:
            name, arguments = tool_call
            with self._lock:
                self._calls += 1
                call_id = f"call_scripted_{self._calls}"
            text_arguments = arguments if isinstance(arguments, str) else json.dumps(arguments)
            call = {"id": call_id, "name": name, "arguments": text_arguments}
        elif not text and not reasoning:
            raise ValueError("reply() needs a text, a tool_call, a status or a reasoning")
        with self._lock:
            self._queue.append(Reply(text, call, reasoning))

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of the chat requests sent upstream since the test began, oldest first."""
        with self._lock:
            copied: list[dict[str, Any]] = json.loads(json.dumps(self._requests))
        return copied

    @property
    def queued(self) -> int:
        """How many queued answers no request has taken yet."""
        with self._lock:
            return len(self._queue)

    def reset(self) -> None:
        """An empty queue and record: what every test starts with."""
        with self._lock:
            self._queue.clear()
            self._requests.clear()

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def _next(self, body: dict[str, Any]) -> Reply | _Failure:
        """What answers `body`: the next queued answer, else the demo model's. A request for a
        conversation's title (`generate-title`) is answered apart, by the demo model, so a
        test that queues two answers gets both in the conversation."""
        with self._lock:
            self._requests.append(body)
            if self._queue and not asks_for_a_title(body.get("messages") or []):
                return self._queue.popleft()
        return demo_answer(body)

    def __enter__(self) -> ChatkeepModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _handler(model: ChatkeepModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # http.server's name for it
            length = int(self.headers.get("content-length") or 0)
            given = self.headers.get("authorization") or ""
            if not hmac.compare_digest(given.encode(), f"Bearer {model.key}".encode()):
                self.close_connection = True  # its body stays unread
                self._json(403, {"error": {"message": "This model answers only the Chatkeep "
                                           "server it serves.", "type": "forbidden"}})  # fmt: skip
                return
            try:
                body = json.loads(self.rfile.read(length))
            except ValueError:
                self._json(400, {"error": {"message": "not JSON", "type": "invalid_request"}})
                return
            if not self.path.endswith("/chat/completions") or not isinstance(body, dict):
                self._json(404, {"error": {"message": "not found", "type": "not_found"}})
                return
            answer = model._next(body)
            if isinstance(answer, _Failure):
                self._json(
                    answer.status, {"error": {"message": answer.message, "type": "scripted"}}
                )
            elif body.get("stream"):
                self._stream(answer, body)
            else:
                self._json(200, completion(answer, body))

        def _stream(self, reply: Reply, body: dict[str, Any]) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                for word, event in reply_events(reply, body):
                    if word and model.delay:
                        time.sleep(model.delay)
                    self.wfile.write(event)
                    self.wfile.flush()
            except OSError:
                pass  # the server stopped reading (a Stop, a closed page): nothing to tell

        def _json(self, status: int, data: dict[str, Any]) -> None:
            text = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, *args: object) -> None:
            pass

    return Handler
