"""Secrets out of relayed text: the operator's keys and the client secret become `[redacted]`.

An upstream or a gateway may quote the credential it received in an error message, and any
visitor can provoke an error (the client picks the fields). Every text this server relays,
keeps or logs from an upstream passes through `Redactor` first. The common case, no secret in
the text, costs one substring search per secret.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from .settings import Settings

REDACTED = "[redacted]"


class Redactor:
    """Replaces every configured secret in a text; the longest first, so a key that holds
    another is never half-replaced."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        found = {s for s in secrets if s}
        found |= {json.dumps(s)[1:-1] for s in found}  # as quoted inside JSON text
        self.secrets = tuple(sorted(found, key=len, reverse=True))

    @classmethod
    def of(cls, settings: Settings) -> Redactor:
        keys = [settings.api_key, settings.client_secret]
        keys += [provider.api_key for provider in settings.providers]
        return cls(keys)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text
