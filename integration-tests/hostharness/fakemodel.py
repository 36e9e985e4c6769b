"""A scripted stand-in for the Anthropic Messages API, on loopback, standard library only.

The script is a list of turns. Each turn is the whole of one assistant reply in the
agent's main loop: optional text, then optionally one tool call. Which turn a request
gets is worked out from the request itself (how many assistant turns its conversation
already holds), so a host that retries a request gets the same answer again.

Requests that offer no tools (titles, summaries and other side requests a host makes)
get a short text reply and do not advance the script. Every request body is kept, so
a test can check what the host sent the model after a block.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

MODEL = "claude-opus-fake"
END_OF_SCRIPT_TEXT = "Nothing more to do."
SIDE_REPLY_TEXT = "OK"


@dataclass(frozen=True)
class Turn:
    """One assistant reply: ``text`` and/or one tool call ``tool`` with ``tool_input``."""

    text: str | None = None
    tool: str | None = None
    tool_input: dict[str, Any] = field(default_factory=dict)
    # a visible reasoning summary (the Responses fake sends it as a ``reasoning`` item)
    reasoning: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tool": self.tool,
            "tool_input": self.tool_input,
            "reasoning": self.reasoning,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Turn:
        return cls(
            raw.get("text"),
            raw.get("tool"),
            dict(raw.get("tool_input") or {}),
            raw.get("reasoning"),
        )


def say(text: str) -> Turn:
    """A final answer: text and no tool call."""
    return Turn(text=text)


def bash(command: str, text: str | None = None) -> Turn:
    return Turn(text=text, tool="Bash", tool_input={"command": command, "description": "run"})


def tool(name: str, text: str | None = None, **tool_input: Any) -> Turn:
    return Turn(text=text, tool=name, tool_input=tool_input)


def assistant_turns(messages: Sequence[Any]) -> int:
    """How many assistant turns a conversation holds (consecutive ones count once)."""
    count = 0
    previous = None
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant" and previous != "assistant":
            count += 1
        previous = role
    return count


def is_main_loop(body: dict[str, Any]) -> bool:
    """The agent's own loop offers the shell tool; side requests offer no tools."""
    tools = body.get("tools") or []
    return any(isinstance(t, dict) and t.get("name") == "Bash" for t in tools)


class Script:
    def __init__(self, turns: Sequence[Turn]) -> None:
        self.turns = list(turns)

    def reply_for(self, body: dict[str, Any]) -> Turn:
        if not is_main_loop(body):
            return say(SIDE_REPLY_TEXT)
        index = assistant_turns(body.get("messages") or [])
        if index < len(self.turns):
            return self.turns[index]
        return say(END_OF_SCRIPT_TEXT)


def message_blocks(turn: Turn, tool_id: str) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if turn.text:
        blocks.append({"type": "text", "text": turn.text})
    if turn.tool:
        blocks.append(
            {"type": "tool_use", "id": tool_id, "name": turn.tool, "input": turn.tool_input}
        )
    if not blocks:
        blocks.append({"type": "text", "text": END_OF_SCRIPT_TEXT})
    return blocks


def stop_reason(turn: Turn) -> str:
    return "tool_use" if turn.tool else "end_turn"


def sse_events(turn: Turn, message_id: str, tool_id: str) -> Iterator[tuple[str, dict[str, Any]]]:
    usage = {"input_tokens": 100, "output_tokens": 1}
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            },
        },
    )
    for index, block in enumerate(message_blocks(turn, tool_id)):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            delta: dict[str, Any] = {"type": "text_delta", "text": block["text"]}
        else:
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {
                        "type": "tool_use",
                        "id": tool_id,
                        "name": block["name"],
                        "input": {},
                    },
                },
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason(turn), "stop_sequence": None},
            "usage": {"output_tokens": 10},
        },
    )
    yield "message_stop", {"type": "message_stop"}


class FakeAnthropic:
    """The server: ``start()`` binds 127.0.0.1 on a free port; ``requests`` logs every body."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._counter = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def record(self, method: str, path: str, body: Any) -> int:
        with self._lock:
            self._counter += 1
            self.requests.append({"method": method, "path": path, "body": body})
            return self._counter


def _handler_for(fake: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("request-id", "req_fake")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            fake.record("GET", self.path, None)
            if self.path.split("?")[0].endswith("/v1/models"):
                model = {
                    "id": MODEL,
                    "type": "model",
                    "display_name": "Fake",
                    "created_at": "2025-01-01T00:00:00Z",
                }
                self._send_json(
                    200, {"data": [model], "has_more": False, "first_id": MODEL, "last_id": MODEL}
                )
                return
            self._not_found()

        def _not_found(self) -> None:
            self._send_json(
                404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}}
            )

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"unparsed": raw.decode("utf-8", "replace")}
            number = fake.record("POST", self.path, body)
            path = self.path.split("?")[0]
            if path.endswith("/v1/messages/count_tokens"):
                self._send_json(200, {"input_tokens": 100})
                return
            if not path.endswith("/v1/messages") or not isinstance(body, dict):
                self._not_found()
                return
            turn = fake.script.reply_for(cast(dict[str, Any], body))
            message_id = f"msg_fake{number:04d}"
            tool_id = f"toolu_fake{number:04d}"
            if body.get("stream"):
                self._stream(turn, message_id, tool_id)
                return
            self._send_json(
                200,
                {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": MODEL,
                    "content": message_blocks(turn, tool_id),
                    "stop_reason": stop_reason(turn),
                    "stop_sequence": None,
                    "usage": {"input_tokens": 100, "output_tokens": 10},
                },
            )

        def _stream(self, turn: Turn, message_id: str, tool_id: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.send_header("request-id", "req_fake")
            self.end_headers()
            self.close_connection = True
            for event, data in sse_events(turn, message_id, tool_id):
                self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

    return Handler
