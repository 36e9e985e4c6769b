"""Scripted upstream model servers on 127.0.0.1 (real aiohttp servers, not mocks).

Each server answers requests by popping the next step of its ``plan``
("ok" when empty): a normal reply, a tool call, an error status, a stall,
garbage, or a stream cut off part-way. Every request (headers and body) and
the client port it came from are kept for the test to inspect.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestServer


def sse(name: str | None, payload: Any) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return (f"event: {name}\n" if name else "").encode() + f"data: {data}\n\n".encode()


class Upstream:
    def __init__(self, kind: str) -> None:
        self.kind = kind  # "anthropic" | "openai-chat" | "openai-responses"
        self.plan: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.ports: list[int] = []
        app = web.Application(client_max_size=1 << 26)
        app.router.add_post("/v1/messages", self.handle)
        app.router.add_post("/v1/chat/completions", self.handle)
        app.router.add_post("/v1/responses", self.handle)
        self.server = TestServer(app, host="127.0.0.1")

    @property
    def base_url(self) -> str:
        root = f"http://127.0.0.1:{self.server.port}"
        return root if self.kind == "anthropic" else f"{root}/v1"

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        peer = request.transport.get_extra_info("peername") if request.transport else None
        self.ports.append(peer[1] if peer else 0)
        self.requests.append(
            {"path": request.path_qs, "headers": dict(request.headers), "body": body}
        )
        step = self.plan.pop(0) if self.plan else "ok"
        if step == "echo-key":  # a careless upstream that quotes the key it was sent
            key = request.headers.get("x-api-key", "")
            return web.json_response({"error": {"message": f"bad key {key}"}}, status=401)
        if step == "echo-key-stream":  # the same, as an error event inside a 200 stream
            return await self.echo_key_stream(request)
        if step.isdigit():
            return web.json_response({"error": {"message": f"scripted {step}"}}, status=int(step))
        if step == "stall":
            await asyncio.sleep(30)
        if step == "garbage" and not body.get("stream"):
            return web.Response(text="<html>not json</html>", content_type="text/html")
        if not body.get("stream"):
            return web.json_response(self.whole(step))
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await response.prepare(request)
        events = self.events(step)
        for n, event in enumerate(events):
            if step == "garbage" and n == 0:
                await response.write(b"this is not an event stream\n\n")
                return response
            if step == "malformed" and n == 3:
                await asyncio.sleep(0.05)  # the good events reach the client first
            await response.write(event)
            if n == 1 and step == "short":  # a clean end, but before the stream's last event
                await response.write_eof()
                return response
            if n == 1 and step.startswith("secret_mid:"):  # broken JSON holding a secret
                await asyncio.sleep(0.05)
                await response.write(f"data: {{broken {step[11:]}\n\n".encode())
                return response
            if n == 1 and step in ("stall_mid", "cut", "garbage_mid"):
                if step == "stall_mid":
                    await asyncio.sleep(30)
                if step == "garbage_mid":
                    await asyncio.sleep(0.05)  # the good events reach the client first
                    await response.write(b"data: {broken json\n\n")
                    return response
                assert request.transport is not None
                request.transport.close()
                return response
        await response.write_eof()
        return response

    async def echo_key_stream(self, request: web.Request) -> web.StreamResponse:
        """A stream that starts, then reports an error quoting the key it was sent.

        The error event's shape is each API's own: Anthropic's ``event: error``
        (https://docs.anthropic.com/en/api/messages-streaming#error-events), a chat
        chunk holding ``error``, and the Responses API's ``error`` event.
        """
        auth = request.headers.get("Authorization", "").removeprefix("Bearer ")
        key = request.headers.get("x-api-key") or auth
        message = f"invalid x-api-key {key}"
        if self.kind == "anthropic":
            error = {"type": "authentication_error", "message": message}
            last = sse("error", {"type": "error", "error": error})
        elif self.kind == "openai-responses":
            last = sse("error", {"type": "error", "code": "invalid_api_key", "message": message})
        else:
            last = sse(None, {"error": {"message": message, "code": "invalid_api_key"}})
        events = [self.events("ok")[0], last]
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await response.prepare(request)
        for event in events:
            await response.write(event)
        await response.write_eof()
        return response

    # ---- replies ---------------------------------------------------------------------

    def whole(self, step: str) -> dict[str, Any]:
        if self.kind == "anthropic":
            content: list[dict[str, Any]] = [{"type": "text", "text": "Hello from A"}]
            if step == "tool":
                content.append(
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "Bash",
                        "input": {"command": "ls"},
                    }
                )
            return {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "a-model",
                "content": content,
                "stop_reason": "tool_use" if step == "tool" else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 11, "output_tokens": 7},
            }
        if self.kind == "openai-responses":
            return {
                "id": "resp_1",
                "object": "response",
                "output": [],
                "usage": {"input_tokens": 3, "output_tokens": 4},
            }
        message: dict[str, Any] = {"role": "assistant", "content": "Hello from O"}
        if step == "tool":
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "Bash", "arguments": '{"command": "ls -la"}'},
                    }
                ],
            }
        return {
            "id": "chat_1",
            "object": "chat.completion",
            "model": "o-model",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if step == "tool" else "stop",
                }
            ],
            "usage": {"prompt_tokens": 13, "completion_tokens": 5, "total_tokens": 18},
        }

    def events(self, step: str) -> list[bytes]:
        if self.kind == "anthropic":
            return self.anthropic_events(step)
        if self.kind == "openai-responses":
            return [
                sse("response.created", {"type": "response.created"}),
                sse(
                    "response.output_text.delta",
                    {"type": "response.output_text.delta", "delta": "hi"},
                ),
                sse(
                    "response.completed",
                    {
                        "type": "response.completed",
                        "response": {"usage": {"input_tokens": 3, "output_tokens": 4}},
                    },
                ),
            ]
        return self.chat_events(step)

    def anthropic_events(self, step: str) -> list[bytes]:
        out = [
            sse(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_1",
                        "type": "message",
                        "role": "assistant",
                        "model": "a-model",
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 21, "output_tokens": 1},
                    },
                },
            )
        ]
        out.append(
            sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            )
        )
        if step.startswith("big:"):
            size, piece = int(step[4:]), "x" * 65536
            out += [
                sse(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": piece},
                    },
                )
            ] * (size // 65536)
        else:
            out.append(
                sse(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": "Hello from A"},
                    },
                )
            )
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
        stop = "end_turn"
        if step == "tool":
            stop = "tool_use"
            out += [
                sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": 1,
                        "content_block": {
                            "type": "tool_use",
                            "id": "toolu_1",
                            "name": "Bash",
                            "input": {},
                        },
                    },
                ),
                sse(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 1,
                        "delta": {"type": "input_json_delta", "partial_json": '{"command": '},
                    },
                ),
                sse(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 1,
                        "delta": {"type": "input_json_delta", "partial_json": '"ls"}'},
                    },
                ),
                sse("content_block_stop", {"type": "content_block_stop", "index": 1}),
            ]
        out.append(
            sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 9},
                },
            )
        )
        out.append(sse("message_stop", {"type": "message_stop"}))
        return out

    def chat_events(self, step: str) -> list[bytes]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            return sse(
                None,
                {
                    "id": "chat_1",
                    "object": "chat.completion.chunk",
                    "model": "o-model",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                },
            )

        out = [
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Hello "}),
            chunk({"content": "from O"}),
        ]
        if step == "malformed":  # valid JSON, wrong shape: usage that is not a number
            out.append(sse(None, {"id": "c", "choices": [], "usage": {"prompt_tokens": "lots"}}))
        finish = "stop"
        if step == "tool":
            finish = "tool_calls"
            out += [
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "Bash", "arguments": ""},
                            }
                        ]
                    }
                ),
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"command": '}}]}),
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"ls -la"}'}}]}),
            ]
        out.append(chunk({}, finish))
        out.append(
            sse(
                None,
                {
                    "id": "chat_1",
                    "object": "chat.completion.chunk",
                    "choices": [],
                    "usage": {"prompt_tokens": 13, "completion_tokens": 5},
                },
            )
        )
        if step != "nodone":  # some OpenAI-compatible servers end with finish_reason alone
            out.append(sse(None, "[DONE]"))
        return out
