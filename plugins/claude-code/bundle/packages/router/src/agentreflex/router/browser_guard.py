"""Refuse what a web page can send: the router holds the user's provider keys.

Binding loopback is not enough. A page in the user's browser can POST to
``http://127.0.0.1:8787/v1/messages`` (a "simple" cross-origin request: ``text/plain``
needs no preflight) and spend the key; with DNS rebinding (a name the attacker
controls re-pointed at 127.0.0.1) it can also read the replies. So, before anything
reaches a handler or the upstream:

- the ``Host`` header must name loopback (127.0.0.1, localhost, [::1], any port), or
  the host the user exposed with ``--allow-remote``: a rebound name is refused (421);
- a request with an ``Origin`` header came from a browser page: refused (403);
- a body must be ``application/json``: the content types a page can send without a
  preflight are refused (415), as the laya server does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from agentreflex.router.errors import error_response
from aiohttp import web
from aiohttp.typedefs import Middleware

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def host_name(header: str) -> str:
    """The name in a Host header, without its port ("[::1]:8787" -> "::1")."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else ""
    name, _, port = value.partition(":")
    if port and not port.isdigit():
        return ""
    return name.rstrip(".")


def _api(path: str) -> str:
    return "openai" if path.startswith(("/v1/chat", "/v1/responses")) else "anthropic"


def refusal(request: web.Request, allowed: frozenset[str]) -> web.Response | None:
    """The 4xx answer for a request a browser page could have made, or None."""
    api = _api(request.path)
    if host_name(request.headers.get("Host", "")) not in allowed:
        return error_response(api, 421, "the Host header must name this machine (loopback)")
    if "Origin" in request.headers:
        return error_response(api, 403, "requests from web pages (an Origin header) are refused")
    if request.method == "POST":
        charset = (request.charset or "utf-8").lower()
        if request.content_type != "application/json" or charset not in ("utf-8", "utf8"):
            return error_response(api, 415, "send the body as application/json (UTF-8)")
    return None


def browser_guard(
    extra_hosts: Iterable[str] = (),
) -> Middleware:
    """An aiohttp middleware applying :func:`refusal` to every request."""
    allowed = LOOPBACK_NAMES | {h.strip("[]").lower() for h in extra_hosts}

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        refused = refusal(request, allowed)
        return refused if refused is not None else await handler(request)

    return guard
