"""What a phone does to a page that is away: its line cut (a tunnel, a locked screen, a new
cell) and the page frozen, nothing of it running until it is back.

Chromium's own freezing (CDP `Page.setWebLifecycleState`) does nothing to a page it shows,
and a page driven by Playwright is always shown (checked on Chromium 156: timers ran on, no
`freeze` event): so `freeze` holds the page's main thread and its workers' busy instead,
then tells the page it is back, as the browser does (`resume`, `visibilitychange`)."""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any


class LineCutter:
    """Relays 127.0.0.1:`port` to `target_port`; `cut()` closes every open connection (the
    page sees its stream end early) while new ones are still taken."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False

    def __enter__(self) -> LineCutter:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed = True
        self._listener.close()
        self.cut()

    def cut(self) -> int:
        """Drop every connection now; how many were open."""
        with self._lock:
            dropped = list(self._open)
            self._open.clear()
        for sock in dropped:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        return len(dropped) // 2

    def _accept(self) -> None:
        while not self._closed:
            try:
                page_side, _ = self._listener.accept()
            except OSError:
                return
            server_side = socket.create_connection(("127.0.0.1", self.target_port))
            with self._lock:
                self._open |= {page_side, server_side}
            for source, sink in ((page_side, server_side), (server_side, page_side)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


#: runs on the page's main thread and in each worker: nothing else runs there until it ends
_HOLD = """ms => {
  const end = performance.now() + ms;
  setTimeout(() => { while (performance.now() < end); }, 0);
  return end;
}"""
_BACK = """() => {
  document.dispatchEvent(new Event("resume"));
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def freeze(page: Any, seconds: float) -> float:
    """Nothing of `page` (main thread, workers) runs for `seconds`; then it is told it is
    back. Returns once it is: the moment its thread was free again, on the page's clock."""
    for worker in page.workers:
        worker.evaluate(_HOLD, seconds * 1000)
    back: float = page.evaluate(_HOLD, seconds * 1000)
    page.evaluate(_BACK)  # waits for the page's thread: it runs once the hold has ended
    return back
