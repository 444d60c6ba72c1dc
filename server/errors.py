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


class APIError(ChatkeepError):
    """An error to answer with; raised anywhere in a request, rendered in one place."""

    def __init__(
        self, status: int, message: str, code: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers or {}

    def body(self) -> dict[str, dict[str, str]]:
        error_type = ERROR_TYPES.get(self.status, "server_error")
        return {"error": {"message": self.message, "type": error_type, "code": self.code}}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)

    def sse_data(self) -> str:
        """The error as the `data` of the last event of a stream that had already begun."""
        return json.dumps(self.body())
