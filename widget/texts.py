"""What the widget says to a person, by code: each an English template whose `{name}`s are
filled from its params.

Errors and alerts cross to the page as `{message, code, params}` (`Notice`): the page shows
its own language's template for the code (`static/i18n/<lang>.js`, key `error.<code>`) and
the English `message` only where it has none. A failed answer keeps its code and params too
(`error_code`, `error_params`), so it reads in the page's language when opened again.
`tests/widget/test_texts.py` checks that every code here, and every code the server says,
has its English template in `static/i18n/en.js` and a translation in each language.
"""

# Annotations evaluated as written (no `from __future__ import annotations`): a TypedDict
# turns deferred ones into `ForwardRef`s, each compiled by Python's compiler as the module is
# imported, on a first visit's way to ready (widget/precompiled.py says why that is slow).
from typing import Any, TypedDict

from .protocol import BUSY, STOPPED


class Notice(TypedDict):
    """What a person is told: the English `message`, and the `code` and `params` the page
    translates it by (code "": shown as it is)."""

    message: str
    code: str
    params: dict[str, Any]


TEXTS = {
    # the chat itself
    "stopped": STOPPED,
    "busy": BUSY,
    "bug": "Something went wrong inside the chat. The details are in the browser's console.",
    "answer_unreadable": "The model service sent an answer that cannot be read.",
    "empty_answer": "The model sent an empty answer. Try again.",
    "tools_loop": "The model kept calling tools without answering.",
    "model_not_offered": 'The model "{model}" is not offered here.',
    "model_gone": 'This conversation used the model "{gone}", which is no longer offered here. '
    'It continues with "{model}".',
    "no_answer_to_rate": "There is no answer at index {index} to rate.",
    "bad_rating": 'A rating is "good", "bad" or null, not "{rating}".',
    # kept conversations
    "conversation_gone": "That conversation is no longer kept.",
    "conversation_unreadable": "That conversation could not be read. It was left as it is.",
    "form_gone": "That form is no longer in the conversation.",
    "share_unreadable": "This shared conversation cannot be shown: {reason}.",
    "title_empty": "A title needs at least one character.",
    "history_off_import": "History is off, so there is nowhere to import conversations to.",
    "history_off_pin": "History is off, so there is nothing to pin.",
    "host_store_orders": "This page keeps conversations in its own store, which decides their "
    "order.",
    "changing_elsewhere": "That conversation keeps changing in another tab. Try again.",
    # synced history
    "bad_sync_code": "That is not a sync code: a sync code has {length} letters and digits, "
    "as the other device shows it.",
    "sync_off": "This chat server does not keep synced history.",
    "sync_key_short": "The site's sync key is too weak to keep a history safe: it needs at "
    "least {length} characters, of at least {distinct} different ones.",
    "sync_unreadable": "{count} synced conversations could not be read with this sync code "
    "and were left out.",
    "sync_unreadable_one": "A synced conversation could not be read with this sync code and "
    "was left out.",
    "sync_storage_full": "This browser's storage is full, so a conversation changed on another "
    "device waits on the server. Forget or export some conversations here to make room for it.",
    "sync_stalled": "The sync server kept saying more changes were waiting without sending "
    "any, so this round stopped. Changes sync later.",
    "sync_code_mistyped": "This sync code is mistyped. Check it against the code the other "
    "device shows.",
    "sync_altered": "The sync server sent an altered or older copy of a conversation. This "
    "device kept its own.",
    "sync_too_large": "“{title}” has a turn too large for the sync server, so it is not "
    "synced: it stays on this device.",
    "storage_full": "This conversation is too large for this browser's storage. It stays open "
    "here, but it will not be kept after you close the page.",
    "storage_full_of_pins": "This browser's storage is full of pinned conversations. Unpin or "
    "forget one to keep this conversation; it stays open here until then.",
    "host_store_failed": "The page's history store failed: {detail}",
    # a PDF attached to a message (widget.pdf_text)
    "pdf_locked": "“{file}” is locked with a password, so its text cannot be read.",
    "pdf_no_text": "“{file}” has no text to read: its pages are pictures (a scan, perhaps).",
    "pdf_unreadable": "“{file}” could not be read as a PDF.",
    "export_version": "this file is a Chatkeep export of version {version}, and this version of "
    "Chatkeep reads version 1 only: nothing was imported",
}


def notice(code: str, **params: Any) -> Notice:
    """The notice of `code`, its template filled with `params`."""
    return {"message": TEXTS[code].format(**params), "code": code, "params": params}
