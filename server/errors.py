"""The server's errors, under one base:

    ChatkeepError          anything the server raises on purpose
    ├── APIError           an error response, OpenAI-shaped: {"error": {"message", "type", "code"}}
    ├── SettingsError      a setting the server cannot use (also a ValueError)
    │   └── ConfigError    the providers file cannot be used
    └── ServerDidNotStart  a server the testing kit started did not come up (also a RuntimeError)

Each message is a sentence a person can act on.
"""

from __future__ import annotations

import json

from starlette.responses import JSONResponse

ERROR_TYPES = {
    400: "invalid_request_error",
    403: "permission_error",
    401: "authentication_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
    502: "upstream_error",
    503: "service_unavailable",
    504: "upstream_timeout",
}


class ChatkeepError(Exception):
    """The base of the errors the server raises on purpose."""


class SettingsError(ChatkeepError, ValueError):
    """A setting has a value the server cannot use; the message says which and why."""


class ConfigError(SettingsError):
    """The config file cannot be used; the message names the file and the problem."""


class ServerDidNotStart(ChatkeepError, RuntimeError):
    """A server the testing kit started exited or did not listen in time; the message holds
    its output."""


#: What the server says to a person, by code: English templates filled from `params`. A code
#: the API answers with may say one of several sentences: `code.variant` (the variant is sent
#: as the param `variant`). The page has each in every language (`static/i18n/<lang>.js`, key
#: `error.<code>` or `error.<code>.<variant>`); errors without an entry here (a malformed
#: request: for developers) are shown as they are.
TEXTS = {
    "upstream_timeout": "The model service took too long to answer. Try again.",
    "upstream_dropped": "The connection to the model service broke off mid-answer.",
    "upstream_unreachable": "The model service could not be reached. Try again later.",
    "upstream_auth": "The model service refused this server's credentials.",
    "upstream_rate_limited": "The model service is busy or over its quota. Try again shortly.",
    "upstream_rejected": "The model service rejected the request: {detail}",
    "upstream_failed": "The model service failed to answer. Try again later.",
    "upstream_error": "{detail}",
    "upstream_error.unexplained": "The model service reported an error.",
    "upstream_dropped.cut_off": "The model's answer was cut off. Try again.",
    "upstream_dropped.silent": "The answer stopped arriving. Try again.",
    "bad_upstream_response": "The model service sent an answer this server cannot read.",
    "rate_limited": "Too many requests: the limit is {limit} a minute. Try again in {seconds} "
    "seconds.",
    "too_many_streams": "Too many answers at once: at most {limit} for one client. Wait for one "
    "to finish.",
    "budget_exhausted.client": "The daily budget of {budget} tokens is used up (your budget). "
    "It renews at midnight UTC, in {hours} h {minutes} min.",
    "budget_exhausted": "The daily budget of {budget} tokens is used up (this server's budget). "
    "It renews at midnight UTC, in {hours} h {minutes} min.",
    "body_too_large": "The request body is larger than the limit of {limit} bytes.",
    "body_timeout": "The request body did not arrive within {seconds} seconds.",
    "model_not_allowed": 'The model "{model}" is not available here. Use one of: {models}.',
    "origin_not_allowed": "The origin {origin} may not use this chat server.",
    "host_not_allowed": "This chat server does not answer for that host name.",
    "invalid_client_token": "The client token is not valid.",
    "invalid_client_token.expired": "The client token has expired: ask the page for a new one.",
    "invalid_client_token.missing": "This chat server needs a client token (the widget's token).",
    "turn_not_found": "This answer is no longer kept on the chat server (answers are kept for "
    "{minutes} minutes), so the rest of it cannot be shown.",
    "store_unavailable": "Answers cannot be picked up right now: the chat server's store is away.",
    "share_gone": "This shared conversation is no longer available.",
    "tool_not_found": 'This chat server has no tool "{tool}".',
    "tool_arguments_invalid": 'The arguments for "{tool}" do not fit what it takes: {detail}',
    "tool_timeout": 'The tool "{tool}" took longer than {seconds} seconds and was stopped.',
    "tool_server_failed": 'The tool server "{server}" could not be reached or failed: {detail}',
    "sync_off": "This chat server does not keep synced history.",
    "sync_conflict": "This conversation changed on another device meanwhile.",
    "sync_space_full": "Your synced history is full: this server keeps at most {limit} bytes "
    "of it. Forget some conversations to sync again.",
    "sync_space_items": "Your synced history holds the most conversations this server keeps "
    "({limit}, deleted ones included). Forget some conversations to sync again.",
    "sync_client_spaces": "Too many synced histories were started from here today (at most "
    "{limit} a day). Try again tomorrow.",
    "sync_client_bytes": "Too much was synced from here today (at most {limit} bytes a day). "
    "Your changes stay here and sync tomorrow.",
    "sync_unavailable": "Synced history cannot be reached right now: the chat server's store "
    "is away. Your changes stay here and sync later.",
    "sync_forbidden": "This sync code does not open that synced history.",
    "sync_token_required": "A synced history opens only with the token its sync code gives "
    "(the header Chatkeep-Sync-Token).",
    "sync_space_wiped": "This sync code was changed on another device. Use the new code.",
    "sync_pairing_gone": "This link to connect a device has expired or was used already (a "
    "link works once, for {minutes} minutes). Ask your other device for a new one.",
    "turn_too_long": "The answer took too long and was ended.",
    "server_error": "The chat server failed while writing this answer.",
    "stopped": "Stopped before the answer was finished.",
}


class APIError(ChatkeepError):
    """An error to answer with; raised anywhere in a request, rendered in one place."""

    def __init__(
        self,
        status: int,
        message: str,
        code: str,
        headers: dict[str, str] | None = None,
        params: dict[str, str | int] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers or {}
        #: the values the message was filled with, for the page to say it in its language
        self.params = params or {}

    @classmethod
    def said(
        cls, status: int, text: str, headers: dict[str, str] | None = None, **params: str | int
    ) -> APIError:
        """The error whose message is the template `text` names (`TEXTS`: a code, or
        `code.variant`), filled with `params`."""
        code, _, variant = text.partition(".")
        if variant:
            params = {**params, "variant": variant}
        return cls(status, TEXTS[text].format(**params), code, headers, params)

    def body(self) -> dict[str, dict[str, object]]:
        error_type = ERROR_TYPES.get(self.status, "server_error")
        error: dict[str, object] = {"message": self.message, "type": error_type,
                                    "code": self.code}  # fmt: skip
        if self.params:
            error["params"] = self.params
        return {"error": error}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)

    def sse_data(self) -> str:
        """The error as the `data` of the last event of a stream that had already begun."""
        return json.dumps(self.body())
