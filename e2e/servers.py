"""The chat server as a subprocess for browser tests: Chatkeep's own pytest plugin class."""

from __future__ import annotations

from pathlib import Path

from server.testing import CHROMIUM_FLAGS, ChatkeepServer, free_port

ROOT = Path(__file__).resolve().parent.parent
RunningServer = ChatkeepServer

__all__ = ["CHROMIUM_FLAGS", "ROOT", "ChatkeepServer", "RunningServer", "free_port"]
