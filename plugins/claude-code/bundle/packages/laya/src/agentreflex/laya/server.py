"""The HTTP server: judge2's System One wire on aiohttp, hardened for a local backend.

Routes: ``POST /v1/systemone``, ``POST /v1/systemone/batch``,
``GET /v1/models`` and ``GET /healthz``.  Every error is a JSON body
``{"error": {"status", "code", "message", "fields"?}}``:

- 400 body is not JSON (or not UTF-8), or the client went away mid-body;
- 401 a bearer token is configured and the request does not carry it;
- 404 unknown model (or route), 405 wrong method;
- 408 the body took longer than ``body_timeout_s`` to arrive (slow-loris);
- 413 the body is over ``max_body_bytes`` (refused from ``Content-Length``
  before reading, or as soon as the streamed body passes the limit);
- 415 the content type is not ``application/json`` (UTF-8);
- 422 the JSON does not follow the contract; ``fields`` names each field;
- 429 (or 503, configurable) ``max_concurrent`` requests are already in
  flight; ``Retry-After`` says when to come back.

The admission slot is taken before the body is read and released in a
``finally``, so slow or vanished clients hold a slot at most
``body_timeout_s`` and never leak one.  A non-loopback bind without a token
is refused (:func:`check_bind`): the server answers anyone who can reach it.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from agentreflex.laya import models
from agentreflex.laya.batcher import Batcher
from agentreflex.laya.engine import Answers, Engine
from aiohttp import ClientError, web
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError, to_json

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8787
DEFAULT_ALIASES = ("jev-latest", "laya")
VERSION = "0.1.0"

_TAGS = ("noul", "choice", "score")

Handler = Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class ServerConfig:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str = field(default="", repr=False)
    max_body_bytes: int = 1 << 20
    body_timeout_s: float = 10.0
    max_concurrent: int = 64
    overload_status: int = 429
    aliases: tuple[str, ...] = DEFAULT_ALIASES


class BindRefused(Exception):
    """The bind address is not loopback and no token is configured."""


class ApiError(Exception):
    """An error answer: status, a stable code, a message and maybe the fields at fault."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        fields: list[dict[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        close: bool = False,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.fields = fields
        self.headers = dict(headers or {})
        self.close = close

    def response(self) -> web.Response:
        error: dict[str, Any] = {"status": self.status, "code": self.code, "message": self.message}
        if self.fields is not None:
            error["fields"] = self.fields
        resp = _json(self.status, {"error": error}, self.headers)
        if self.close:
            resp.force_close()
        return resp


def is_loopback_host(host: str) -> bool:
    """``localhost``, 127.0.0.0/8 or ::1.  Anything else (0.0.0.0, a LAN address) is not."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str) -> None:
    """Refuse to listen beyond this machine without a bearer token."""
    if not is_loopback_host(host) and not token:
        raise BindRefused(
            f"refusing to bind {host}: it is not loopback and no token is set "
            "(set AGENTREFLEX_LAYA_TOKEN or pass --token-file)"
        )


def _json(status: int, data: Any, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.Response(
        status=status, body=encode_json(data), content_type="application/json", headers=headers
    )


def encode_json(data: Any) -> bytes:
    """Compact UTF-8 JSON.  pydantic-core's encoder (already here for validation) is about
    three times as fast as the standard library's on a reply; anything it refuses (a lone
    surrogate in an echoed name) falls back to ``json`` with ASCII escapes."""
    try:
        return to_json(data)
    except PydanticSerializationError:
        return json.dumps(data, separators=(",", ":")).encode("ascii")


def _field_errors(exc: ValidationError) -> list[dict[str, str]]:
    out = []
    for err in exc.errors(include_url=False, include_input=False)[:20]:
        parts = [str(part) for part in err["loc"]]
        if len(parts) > 2 and parts[0] == "questions" and parts[2] in _TAGS:
            del parts[2]  # the discriminated union's tag: the id already names the question
        loc = ".".join(parts)
        out.append({"field": loc or "(body)", "message": err["msg"]})
    return out


def validation_error(exc: ValidationError) -> ApiError:
    """JSON that does not parse is a 400; JSON that breaks the contract is a 422 naming fields."""
    errors = exc.errors(include_url=False, include_input=False)
    if any(e["type"] == "json_invalid" for e in errors):
        msg = next(e["msg"] for e in errors if e["type"] == "json_invalid")
        return ApiError(400, "invalid_json", f"the body is not valid UTF-8 JSON ({msg})")
    fields = _field_errors(exc)
    where = ", ".join(f["field"] for f in fields[:3])
    return ApiError(
        422, "invalid_request", f"the request does not follow the contract: {where}", fields
    )


class Server:
    """One engine behind the four routes.  Served by :func:`start`."""

    def __init__(self, engine: Engine, config: ServerConfig | None = None) -> None:
        self.engine = engine
        self.config = config or ServerConfig()
        self.in_flight = 0
        self.served = 0
        self.started = time.time()
        self._pool: ThreadPoolExecutor | None = None
        self._batcher: Batcher | None = None
        self._token = self.config.token.encode("utf-8")
        self._routes = self.routes()

    def routes(self) -> dict[str, dict[str, Handler]]:
        """Path, then method, to handler: four exact paths need no router."""
        return {
            "/v1/systemone": {"POST": self.systemone},
            "/v1/systemone/batch": {"POST": self.batch},
            "/v1/models": {"GET": self.models, "HEAD": self.models},
            "/healthz": {"GET": self.healthz, "HEAD": self.healthz},
        }

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        """Every request, on aiohttp's low-level server: the route by exact path and method,
        and every error as a JSON answer.  (An ``Application`` adds a router, a middleware
        chain and app signals to each request: about a tenth of the server's CPU per
        request, measured, for nothing these four routes need.)"""
        try:
            methods = self._routes.get(request.path)
            if methods is None:
                raise ApiError(404, "not_found", "Not Found")
            handler = methods.get(request.method)
            if handler is None:
                allow = ",".join(sorted(methods))
                raise ApiError(
                    405, "method_not_allowed", "Method Not Allowed", headers={"Allow": allow}
                )
            return await handler(request)
        except ApiError as exc:
            return exc.response()
        except web.HTTPException as exc:
            return ApiError(exc.status, "http_error", exc.reason).response()

    def close(self) -> None:
        """Stop the engine's worker thread, if one was started."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    # --- routes ------------------------------------------------------------

    async def healthz(self, request: web.BaseRequest) -> web.Response:
        return _json(
            200,
            {
                "status": "ok",
                "engine": self.engine.name,
                "model": self.engine.model_id,
                "in_flight": self.in_flight,
                "max_concurrent": self.config.max_concurrent,
                "served": self.served,
                "uptime_s": round(time.time() - self.started, 3),
                "version": VERSION,
            },
        )

    async def models(self, request: web.BaseRequest) -> web.Response:
        self._check_auth(request)
        entry = {
            "id": self.engine.model_id,
            "object": "model",
            "engine": self.engine.name,
            "aliases": list(self.config.aliases),
        }
        return _json(200, {"object": "list", "data": [entry]})

    async def systemone(self, request: web.BaseRequest) -> web.Response:
        async def run(raw: bytes) -> dict[str, Any]:
            body = _validate(models.SystemOneRequest, raw)
            model = self.resolve(body.model)
            [answers] = await self._answer([body.state], body.questions)
            return {"model": model, "answers": answers, "usage": _usage(body.state)}

        return await self._admit(request, run)

    async def batch(self, request: web.BaseRequest) -> web.Response:
        async def run(raw: bytes) -> dict[str, Any]:
            body = _validate(models.BatchRequest, raw)
            model = self.resolve(body.model)
            results = await self._answer(body.states, body.questions)
            usages = [_usage(state) for state in body.states]
            return {
                "results": [
                    {"model": model, "answers": answers, "usage": usage}
                    for answers, usage in zip(results, usages, strict=True)
                ],
                "total_usage": {
                    "input_tokens": sum(u["input_tokens"] for u in usages),
                    "output_tokens": 0,
                },
            }

        return await self._admit(request, run)

    # --- the pipeline ----------------------------------------------------------

    async def _admit(
        self, request: web.BaseRequest, run: Callable[[bytes], Awaitable[dict[str, Any]]]
    ) -> web.Response:
        self._check_auth(request)
        _check_content_type(request)
        if self.in_flight >= self.config.max_concurrent:
            raise ApiError(
                self.config.overload_status,
                "overloaded",
                f"{self.config.max_concurrent} requests already in flight; retry shortly",
                headers={"Retry-After": "1"},
            )
        self.in_flight += 1
        try:
            raw = await self._read_body(request)
            started = time.perf_counter()
            data = await run(raw)
            self.served += 1
            took = (time.perf_counter() - started) * 1000.0
            return _json(200, data, {"Server-Timing": f"engine;dur={took:.3f}"})
        finally:
            self.in_flight -= 1

    def _check_auth(self, request: web.BaseRequest) -> None:
        if not self._token:
            return
        header = request.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            given.strip().encode(), self._token
        ):
            raise ApiError(
                401,
                "unauthorized",
                "missing or wrong bearer token",
                headers={"WWW-Authenticate": 'Bearer realm="laya"'},
            )

    async def _read_body(self, request: web.BaseRequest) -> bytes:
        limit = self.config.max_body_bytes
        if request.content_length is not None and request.content_length > limit:
            raise _too_large(limit)
        if request.content.is_eof():
            # The whole body came with the headers (the usual case for a few KB on
            # loopback): take it as it is, with no timer to arm and cancel.
            raw = request.content.read_nowait()
            if len(raw) > limit:
                raise _too_large(limit)
            return raw
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.config.body_timeout_s):
                while chunk := await request.content.readany():
                    size += len(chunk)
                    if size > limit:
                        raise _too_large(limit)
                    chunks.append(chunk)
        except TimeoutError:
            raise ApiError(
                408,
                "body_timeout",
                f"the body did not arrive within {self.config.body_timeout_s:g} s",
                close=True,
            ) from None
        except (ClientError, ConnectionError):
            raise ApiError(400, "incomplete_body", "the body ended early", close=True) from None
        return b"".join(chunks)

    def resolve(self, name: str) -> str:
        """The engine's model id for ``name``: its id, an alias, or empty for the default."""
        if not name or name == self.engine.model_id or name in self.config.aliases:
            return self.engine.model_id
        known = ", ".join([self.engine.model_id, *self.config.aliases])
        raise ApiError(
            404, "unknown_model", f"unknown model {name[:64]!r}; this server has: {known}"
        )

    async def _answer(self, states: Sequence[str], questions: Mapping[str, Any]) -> list[Answers]:
        if not self.engine.blocking:
            return self.engine.answer_batch(states, questions)
        if self._batcher is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="laya-engine")
            self._batcher = Batcher(self.engine, self._pool)
        try:
            return await self._batcher.submit(states, questions)
        except Exception as exc:  # never a traceback or a weight path to the client
            raise ApiError(
                500, "engine_failed", f"the engine failed ({type(exc).__name__})"
            ) from None


def _validate(cls: type[models.SystemOneRequest] | type[models.BatchRequest], raw: bytes) -> Any:
    try:
        return cls.model_validate_json(raw)
    except ValidationError as exc:
        raise validation_error(exc) from None


def _check_content_type(request: web.BaseRequest) -> None:
    charset = (request.charset or "utf-8").lower()
    if request.content_type != "application/json" or charset not in ("utf-8", "utf8"):
        raise ApiError(
            415,
            "unsupported_media_type",
            "send the body as application/json (UTF-8)",
        )


def _too_large(limit: int) -> ApiError:
    return ApiError(413, "body_too_large", f"the body is over {limit} bytes", close=True)


def _usage(state: str) -> dict[str, int]:
    """An estimate (about four characters a token): the built-in engine has no tokenizer."""
    return {"input_tokens": (len(state) + 3) // 4, "output_tokens": 0}


class Runner(web.ServerRunner):
    """aiohttp's runner for a low-level server, that also closes the engine's worker."""

    def __init__(self, server: Server) -> None:
        super().__init__(
            web.Server(server.handle, access_log=None), handle_signals=False, shutdown_timeout=2.0
        )
        self.laya = server

    async def _cleanup_server(self) -> None:
        await super()._cleanup_server()
        self.laya.close()


async def start(server: Server) -> Runner:
    """Start listening on the configured host and port; returns the runner to clean up."""
    check_bind(server.config.host, server.config.token)
    runner = Runner(server)
    await runner.setup()
    site = web.TCPSite(runner, server.config.host, server.config.port, backlog=512)
    await site.start()
    return runner
