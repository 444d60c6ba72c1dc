"""Chatkeep's server: assets, the demo page, and a proxy to one OpenAI-compatible upstream."""

from .app import create_app
from .settings import Settings, SettingsError, load_settings

__all__ = ["Settings", "SettingsError", "create_app", "load_settings"]
