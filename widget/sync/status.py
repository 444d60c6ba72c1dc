"""What the page hears of synced history: its state, and which failures are the server's
answer (said once, and shown until a round succeeds) rather than a missing connection."""

from __future__ import annotations

#: not connected, then a round running, done, or failing
OFF, SYNCING, SYNCED, OFFLINE, ERROR = "off", "syncing", "synced", "offline", "error"
#: the codes of failures that are the server's answer, not a missing connection
REFUSALS = (
    "sync_off",
    "sync_space_full",
    "sync_space_items",
    "sync_client_spaces",
    "sync_client_bytes",
    "invalid_client_token",
    "rate_limited",
    "sync_stalled",
    "sync_forbidden",
    "sync_token_required",
)
#: the space was wiped by "Change sync code" on another device: this one stops syncing
WIPED = "sync_space_wiped"
