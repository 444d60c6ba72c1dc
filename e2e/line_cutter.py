"""A TCP relay in front of the chat server that can drop every connection at once: what a
phone's network does to a page's open stream (a tunnel, a locked screen, a new cell)."""

from __future__ import annotations

import contextlib
import socket
import threading


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
