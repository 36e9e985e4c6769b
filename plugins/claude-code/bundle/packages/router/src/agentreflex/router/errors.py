"""Errors in the client's own API shape, so its SDK shows them properly.

Anthropic clients expect ``{"type":"error","error":{"type":...,"message":...}}``
(and, inside a stream, an ``event: error``); OpenAI clients expect
``{"error":{"message":...,"type":...,"code":...}}``.
"""

from __future__ import annotations

from typing import Any

from agentreflex.router.sse import encode
from aiohttp import web

_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "overloaded_error",
    504: "api_error",
    529: "overloaded_error",
}


def anthropic_payload(status: int, message: str) -> dict[str, Any]:
    kind = _ANTHROPIC_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def openai_payload(status: int, message: str) -> dict[str, Any]:
    kind = "invalid_request_error" if status < 500 else "server_error"
    if status == 429:
        kind = "rate_limit_exceeded"
    return {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}


def error_response(api: str, status: int, message: str) -> web.Response:
    payload = (
        anthropic_payload(status, message)
        if api == "anthropic"
        else openai_payload(status, message)
    )
    return web.json_response(payload, status=status)


def stream_error(api: str, message: str) -> bytes:
    """The last event of a stream that broke after its first byte."""
    if api == "anthropic":
        return encode("error", anthropic_payload(502, message))
    return encode(None, openai_payload(502, message))
