"""The proxy: endpoints, the fallback loop, streaming pass-through and translation.

Before the first byte reaches the client, any upstream failure (a fallback
status, a timeout, a refused connection, garbage) moves on to the lane's
next fallback. After the first byte the response is the client's: a broken
upstream ends it with the API's own error event and a logged reason, and
nothing else is affected. Upstream connections are pooled (one
``aiohttp.ClientSession`` with keep-alive) for the router's life.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiohttp
from agentreflex.core.redaction.redact import redact, redact_head
from agentreflex.router import responses, translate
from agentreflex.router.errors import error_response, stream_error
from agentreflex.router.recorder import Recorder
from agentreflex.router.sse import Event, SSEError, SSEParser, encode
from agentreflex.router.status import Record, Status
from agentreflex.router.upstream import LaneUnusable, build
from agentreflex.routing import Decision, Lane, Policy, extract, route
from agentreflex.routing.features import CHARS_PER_TOKEN
from aiohttp import web

log = logging.getLogger("agentreflex.router")
MAX_BODY = 64 * 1024 * 1024
STATUS_KEY = web.AppKey("status", Status)
LIMIT_KEY = web.AppKey("max_body", int)
ROUTER_KEY: web.AppKey[Router] = web.AppKey("router")
# what translating JSON of an unexpected shape can raise
MALFORMED = (ValueError, TypeError, AttributeError, KeyError, IndexError)
SSE_HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache"}


class Failed(Exception):
    """One lane failed before the client saw a byte: try the next."""

    def __init__(self, why: str, fallback: bool = True) -> None:
        super().__init__(why)
        self.fallback = fallback


class Router:
    def __init__(
        self,
        policy: Policy,
        env: Mapping[str, str] | None = None,
        record_dir: Path | None = None,
    ) -> None:
        self.policy = policy
        self.env = os.environ if env is None else env
        self.status = Status(policy)
        self.session: aiohttp.ClientSession | None = None
        self.recorder = Recorder(record_dir) if record_dir is not None else None

    async def start(self, app: web.Application) -> None:
        connector = aiohttp.TCPConnector(limit=256, keepalive_timeout=60)
        self.session = aiohttp.ClientSession(connector=connector, trust_env=False)

    async def stop(self, app: web.Application) -> None:
        if self.session is not None:
            await self.session.close()

    # ---- endpoints -------------------------------------------------------------------

    async def messages(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, "anthropic")

    async def chat(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, "openai-chat")

    async def responses(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, "openai-responses")

    async def count_tokens(self, request: web.Request) -> web.StreamResponse:
        body = await _read_json(request, "anthropic")
        if isinstance(body, web.Response):
            return body
        return web.json_response({"input_tokens": extract(body).input_tokens})

    async def models(self, request: web.Request) -> web.StreamResponse:
        data = [
            {
                "id": lane.model,
                "object": "model",
                "type": "model",
                "display_name": f"{name} ({lane.provider})",
                "owned_by": lane.provider,
            }
            for name, lane in self.policy.lanes.items()
        ]
        return web.json_response({"object": "list", "data": data, "has_more": False})

    async def show_status(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.status.as_dict())

    # ---- the fallback loop -------------------------------------------------------------

    async def _handle(self, request: web.Request, api: str) -> web.StreamResponse:
        body = await _read_json(request, api)
        if isinstance(body, web.Response):
            return body
        features = extract(body, api, request.headers)
        features = replace(features, session_failures=self.status.failures(features.session))
        decision = route(self.policy, features, self.status.spent())
        record = self.status.begin(features, decision)
        if self.recorder is not None:
            record.recorded = await asyncio.to_thread(self.recorder.save, request.path, api, body)
        log.info("route %s %r -> %s (%s)", api, features.model, decision.lane, decision.reason)
        if decision.lane is None:
            self.status.finish(record, 429, decision.reason)
            return error_response(api, 429, f"agentreflex router: {decision.reason}")
        try:
            return await self._lanes(request, api, body, features.stream, decision, record)
        except asyncio.CancelledError:  # the server cancels a handler whose client went away
            if not record.status:
                self.status.finish(record, 499, "client disconnected")
            raise

    async def _lanes(
        self,
        request: web.Request,
        api: str,
        body: dict[str, Any],
        stream: bool,
        decision: Decision,
        record: Record,
    ) -> web.StreamResponse:
        """The chosen lane, then its fallbacks, until one answers."""
        last = "no lane was tried"
        for name in (decision.lane, *decision.fallbacks):
            if name is None:
                continue
            try:
                return await self._try(request, api, body, stream, name, record)
            except Failed as exc:
                last = f"{name}: {exc}"
                self.status.attempt_failed(record, name, str(exc))
                log.warning("lane %s failed before the first byte: %s", name, exc)
                if not exc.fallback:
                    break
        self.status.finish(record, 502, last)
        return error_response(api, 502, f"agentreflex router: every lane failed; last: {last}")

    async def _try(
        self,
        request: web.Request,
        api: str,
        body: dict[str, Any],
        stream: bool,
        name: str,
        record: Record,
    ) -> web.StreamResponse:
        lane = self.policy.lanes[name]
        custom = responses.custom_tools(body)
        try:
            url, headers, out = build(
                api, body, lane, request.headers, request.query_string, self.env
            )
        except LaneUnusable as exc:
            raise Failed(str(exc)) from None
        assert self.session is not None
        timeout = aiohttp.ClientTimeout(
            total=lane.timeout_s, sock_connect=10, sock_read=lane.first_byte_timeout_s
        )
        fallback = self.policy.fallback
        try:
            upstream = await self.session.post(url, json=out, headers=headers, timeout=timeout)
        except TimeoutError:
            raise Failed("timed out before answering", fallback.on_timeout) from None
        except aiohttp.ClientError as exc:
            raise Failed(
                f"connection failed: {type(exc).__name__}", fallback.on_connect_error
            ) from None
        try:
            if upstream.status >= 400:
                return await self._upstream_error(api, lane, upstream, name, record)
            record.served_by = name
            if stream:
                return await self._stream(request, api, lane, upstream, record, custom)
            return await self._whole(api, lane, upstream, record, custom)
        except Failed:
            record.served_by = None
            raise
        finally:
            upstream.release()

    async def _send(
        self,
        request: web.Request,
        response: web.StreamResponse | None,
        data: bytes,
        record: Record,
    ) -> web.StreamResponse:
        response, opened = await _open_and_write(request, response, data)
        if opened:
            self.status.first_byte(record)
        return response

    def _lane_key(self, lane: Lane) -> str | None:
        """The key the router sends for ``lane`` (None: the client's own is passed on)."""
        return self.env.get(lane.key_env) if lane.key_env else None

    async def _upstream_error(
        self, api: str, lane: Lane, upstream: aiohttp.ClientResponse, name: str, record: Record
    ) -> web.StreamResponse:
        text = (await _read_limited(upstream, 65536)).decode("utf-8", "replace")
        text = scrub(text, self._lane_key(lane))
        if upstream.status in self.policy.fallback.on_status:
            raise Failed(f"HTTP {upstream.status}")
        # a client error (bad request, bad key): the next lane would refuse it too; pass it on
        record.served_by = name
        self.status.finish(record, upstream.status, f"HTTP {upstream.status} from {name}")
        same_family = (api == "anthropic") == (lane.api == "anthropic")
        if same_family:
            try:
                return web.json_response(json.loads(text), status=upstream.status)
            except ValueError:
                pass
        return error_response(
            api, upstream.status, f"upstream {name} answered HTTP {upstream.status}: {text[:500]}"
        )

    # ---- whole replies -----------------------------------------------------------------

    async def _whole(
        self,
        api: str,
        lane: Lane,
        upstream: aiohttp.ClientResponse,
        record: Record,
        custom: frozenset[str],
    ) -> web.StreamResponse:
        try:
            reply = json.loads(await _read_limited(upstream, MAX_BODY))
        except (ValueError, aiohttp.ClientError, TimeoutError) as exc:
            raise Failed(f"unusable reply: {type(exc).__name__}") from None
        if not isinstance(reply, dict):
            raise Failed("unusable reply: not a JSON object")
        try:
            if api == "anthropic" and lane.api == "openai-chat":
                reply = translate.chat_to_anthropic_message(reply, lane.model)
            elif api == "openai-chat" and lane.api == "anthropic":
                reply = translate.anthropic_to_chat_reply(reply, lane.model)
            elif api == "openai-responses" and lane.api != "openai-responses":
                if lane.api == "anthropic":
                    reply = translate.anthropic_to_chat_reply(reply, lane.model)
                reply = responses.chat_to_responses_reply(reply, lane.model, custom)
        except MALFORMED as exc:
            raise Failed(f"unusable reply: {type(exc).__name__}") from None
        with contextlib.suppress(*MALFORMED):
            _count_usage(record, reply.get("usage"))
        self.status.finish(record, 200)
        return web.json_response(reply)

    # ---- streams -----------------------------------------------------------------------

    async def _stream(
        self,
        request: web.Request,
        api: str,
        lane: Lane,
        upstream: aiohttp.ClientResponse,
        record: Record,
        custom: frozenset[str],
    ) -> web.StreamResponse:
        if "text/event-stream" not in upstream.headers.get("content-type", ""):
            raise Failed(
                f"asked for a stream, got {upstream.headers.get('content-type', 'no content type')}"
            )
        convert = _Converter(api, lane, record, custom, self._lane_key(lane))
        parser = SSEParser()
        response: web.StreamResponse | None = None
        try:
            async for chunk in upstream.content.iter_any():
                out = b"".join(convert.event(e) for e in parser.feed(chunk))
                if out:
                    response = await self._send(request, response, out, record)
            tail = convert.end()
            if tail:
                response = await self._send(request, response, tail, record)
        except _ClientGone:  # the client went away: nothing left to tell it, no lane to blame
            self.status.finish(record, 499, "client disconnected")
            return response or web.StreamResponse()

        except (SSEError, aiohttp.ClientError, TimeoutError) as exc:
            why = str(exc) or type(exc).__name__
            if isinstance(exc, TimeoutError):
                why = f"the upstream stalled for {lane.first_byte_timeout_s} s"
            elif isinstance(exc, aiohttp.ClientError):
                why = f"the upstream disconnected mid-stream ({type(exc).__name__})"
            if response is None:
                raise Failed(why) from None
            log.warning("stream from %s broken after the first byte: %s", record.served_by, why)
            self.status.finish(record, 200, f"stream broken: {why}")
            await _safe_write(
                response, stream_error(api, f"agentreflex router: upstream stream broken: {why}")
            )
            return response
        self.status.finish(record, 200)
        assert response is not None
        await response.write_eof()
        return response


async def _open_and_write(
    request: web.Request, response: web.StreamResponse | None, data: bytes
) -> tuple[web.StreamResponse, bool]:
    """Write ``data`` to the client, sending the headers first if not yet sent."""
    opened = response is None
    try:
        if response is None:
            response = web.StreamResponse(headers=SSE_HEADERS)
            await response.prepare(request)
        await response.write(data)
    except (ConnectionResetError, RuntimeError) as exc:  # RuntimeError: transport closed
        raise _ClientGone(str(exc)) from None
    return response, opened


class _ClientGone(Exception):
    """Writing to the client failed: it disconnected."""


class _Converter:
    """Turns each upstream event into the bytes the client gets, counting usage.

    Translation goes through the chat format: an Anthropic lane's events become
    chat chunks (``from_anthropic``), and chat chunks become what the client
    speaks (``to_anthropic`` / ``to_responses``, or themselves for a chat client).
    """

    def __init__(
        self, api: str, lane: Lane, record: Record, custom: frozenset[str], key: str | None
    ) -> None:
        self.api, self.lane, self.record, self.key = api, lane, record, key
        self.complete = False
        self.finished = False  # a chat stream's finish_reason was seen
        self.passthrough = api == lane.api
        self.from_anthropic = (
            translate.AnthropicToChatStream(lane.model)
            if lane.api == "anthropic" and not self.passthrough
            else None
        )
        self.to_anthropic = (
            translate.ChatToAnthropicStream(lane.model)
            if api == "anthropic" and not self.passthrough
            else None
        )
        self.to_responses = (
            responses.ChatToResponsesStream(lane.model, custom)
            if api == "openai-responses" and not self.passthrough
            else None
        )

    def event(self, event: Event) -> bytes:
        """The bytes for one upstream event; SSEError when it cannot be used."""
        if self.complete:
            return b""
        try:
            return self._event(event)
        except SSEError:
            raise
        except MALFORMED as exc:  # JSON of the wrong shape (a list where a dict belongs, ...)
            raise SSEError(f"a malformed upstream event ({type(exc).__name__})") from None

    def _event(self, event: Event) -> bytes:
        if event.data == "[DONE]":
            self.complete = True
            return event.raw if self.passthrough else self._closing()
        payload = event.json()
        if not isinstance(payload, dict):
            raise SSEError("an event whose data is not a JSON object")
        if self.lane.api == "openai-chat" and any(
            isinstance(c, dict) and c.get("finish_reason") for c in payload.get("choices") or []
        ):
            self.finished = True
        if self.passthrough:
            with contextlib.suppress(*MALFORMED):  # odd usage only loses the count
                self._observe(event.name, payload)
            if _is_error(event.name, payload):  # may quote the key, as an error reply may
                return scrub(event.raw.decode("utf-8", "replace"), self.key).encode()
            return event.raw
        if self.from_anthropic is None:  # a chat lane
            return self._emit([payload])
        chunks = self.from_anthropic.feed(event.name, payload)
        kind = payload.get("type", event.name)
        if kind == "error":
            error = scrub(str(payload.get("error")), self.key, 200)
            raise SSEError(f"the upstream reported an error: {error}")
        out = self._emit(chunks)
        if kind == "message_stop":
            self.complete = True
            out += self._closing()
        return out

    def _emit(self, chunks: list[dict[str, Any]]) -> bytes:
        """Chat chunks, in the client's format."""
        if self.to_anthropic is not None:
            return b"".join(encode(n, p) for c in chunks for n, p in self.to_anthropic.feed(c))
        if self.to_responses is not None:
            return b"".join(encode(e["type"], e) for c in chunks for e in self.to_responses.feed(c))
        return b"".join(encode(None, c) for c in chunks)

    def _closing(self) -> bytes:
        """The end of a translated stream, in the client's format; usage recorded."""
        source: Any = self.from_anthropic or self.to_anthropic or self.to_responses
        if source is not None:
            self._usage(source.input_tokens, source.output_tokens)
        if self.to_anthropic is not None:
            return b"".join(encode(n, p) for n, p in self.to_anthropic.finish())
        if self.to_responses is not None:
            return b"".join(encode(e["type"], e) for e in self.to_responses.finish())
        return encode(None, "[DONE]")

    def end(self) -> bytes:
        """The upstream closed the stream: what the client still needs, or SSEError.

        A chat stream that gave its ``finish_reason`` but no ``[DONE]`` (some
        OpenAI-compatible servers) is complete; anything else that stops early is not.
        """
        if self.complete:
            return b""
        if not self.finished:
            raise SSEError("the upstream closed the stream before its end")
        self.complete = True
        return encode(None, "[DONE]") if self.passthrough else self._closing()

    def _observe(self, name: str, payload: dict[str, Any]) -> None:
        """Pass-through: note usage and the end of the stream."""
        kind = str(payload.get("type", name))
        if kind == "message_start":
            usage = (payload.get("message") or {}).get("usage") or {}
            self.record.spent.input_tokens = int(usage.get("input_tokens") or 0)
        elif kind == "message_delta":
            self.record.spent.output_tokens = int(
                (payload.get("usage") or {}).get("output_tokens") or 0
            )
        elif kind in (
            "message_stop",
            "error",
            "response.completed",
            "response.failed",
            "response.incomplete",
        ):
            self.complete = True
            response = payload.get("response")
            if isinstance(response, dict):
                _count_usage(self.record, response.get("usage"))
        elif isinstance(payload.get("usage"), dict):  # the chat stream's usage chunk
            _count_usage(self.record, payload["usage"])

    def _usage(self, tokens_in: int, tokens_out: int) -> None:
        self.record.spent.input_tokens, self.record.spent.output_tokens = tokens_in, tokens_out


def scrub(text: str, key: str | None, limit: int | None = None) -> str:
    """What an upstream said, fit for the client: the lane's key and any secret redacted.

    One function for both paths: an error reply (a status of 400 or more) and an
    error event inside a stream, either of which a careless upstream fills with
    the key it was sent.  ``limit``: only the first so many characters are wanted
    (cut after redaction, never before, so no head of a secret survives the cut).
    """
    if key:
        text = text.replace(key, "[REDACTED]")
    return redact(text) if limit is None else redact_head(text, limit)


def _is_error(name: str, payload: dict[str, Any]) -> bool:
    """An error event: Anthropic's and the Responses API's ``error`` / ``response.failed``
    events, or a chat chunk carrying ``error``."""
    kind = payload.get("type", name)
    return kind in ("error", "response.failed") or name == "error" or "error" in payload


def _count_usage(record: Record, usage: Any) -> None:
    if not isinstance(usage, dict):
        return
    spent = record.spent
    spent.input_tokens = int(usage.get("input_tokens") or usage.get("prompt_tokens") or 0)
    spent.output_tokens = int(usage.get("output_tokens") or usage.get("completion_tokens") or 0)


async def _read_json(request: web.Request, api: str) -> dict[str, Any] | web.Response:
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        limit = request.app[LIMIT_KEY]
        return error_response(api, 413, f"request body over {limit} bytes")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        return error_response(api, 400, f"request body is not valid JSON: {exc}")
    if not isinstance(body, dict):
        return error_response(api, 400, "request body must be a JSON object")
    key = "input" if api == "openai-responses" else "messages"
    if not isinstance(body.get(key), list | str) or (
        api != "openai-responses" and not isinstance(body.get(key), list)
    ):
        return error_response(api, 400, f"{key}: a list of messages is required")
    return body


async def _read_limited(upstream: aiohttp.ClientResponse, limit: int) -> bytes:
    data = await upstream.content.read(limit + 1)
    if len(data) > limit:
        raise Failed(f"reply over {limit} bytes")
    return data


async def _safe_write(response: web.StreamResponse, data: bytes) -> None:
    try:
        await response.write(data)
        await response.write_eof()
    except (ConnectionResetError, RuntimeError):
        pass


def make_app(
    policy: Policy,
    env: Mapping[str, str] | None = None,
    max_body: int = MAX_BODY,
    record_dir: Path | None = None,
    extra_hosts: Sequence[str] = (),
) -> web.Application:
    """The proxy; ``extra_hosts`` are Host names accepted beside loopback (--allow-remote)."""
    from agentreflex.router.browser_guard import browser_guard

    router = Router(policy, env, record_dir)
    app = web.Application(client_max_size=max_body, middlewares=[browser_guard(extra_hosts)])
    app[LIMIT_KEY] = max_body
    app[ROUTER_KEY] = router
    app[STATUS_KEY] = router.status
    app.on_startup.append(router.start)
    app.on_cleanup.append(router.stop)
    app.router.add_post("/v1/messages", router.messages)
    app.router.add_post("/v1/messages/count_tokens", router.count_tokens)
    app.router.add_post("/v1/chat/completions", router.chat)
    app.router.add_post("/v1/responses", router.responses)
    app.router.add_get("/v1/models", router.models)
    app.router.add_get("/status", router.show_status)
    return app


__all__ = ["CHARS_PER_TOKEN", "Router", "make_app"]
