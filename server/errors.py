"""OpenAI-shaped error responses: `{"error": {"message", "type", "code"}}`."""

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


class APIError(Exception):
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
