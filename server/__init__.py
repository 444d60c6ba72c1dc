"""Chatkeep's server: assets, the demo page, and a proxy to OpenAI-compatible upstreams.

Installed, this package is `chatkeep` (`chatkeep.create_app`, `chatkeep serve`); in a
checkout it is also importable as `server` (`python -m server`).
"""

from .app import create_app
from .clients import sign_client_token
from .errors import SettingsError
from .options import load_settings
from .settings import Settings

__all__ = ["Settings", "SettingsError", "create_app", "load_settings", "sign_client_token"]
