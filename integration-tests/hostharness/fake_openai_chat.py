"""A scripted stand-in for OpenAI chat completions (``/v1/chat/completions``), on loopback.

The same script model as :mod:`hostharness.fakemodel` (a list of :class:`Turn`, each
one assistant reply of the agent's main loop, chosen by how many assistant turns
the conversation already holds, so a retried request gets the same answer), in
the chat-completions wire format Hermes Agent speaks: streamed
``chat.completion.chunk`` events (with ``stream_options.include_usage``) or one
JSON object.  Tool arguments go out as JSON text, as the real API sends them.

Requests that offer no ``terminal`` tool (titles, summaries, compression) get a
short text reply and do not advance the script.  ``GET .../models`` (including
Hermes' ``/api/v1/models`` probe) lists the one fake model.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

from hostharness.fakemodel import END_OF_SCRIPT_TEXT, SIDE_REPLY_TEXT, Turn, assistant_turns, say

MODEL = "fake-model"
MAIN_LOOP_TOOL = "terminal"


def is_main_loop(body: dict[str, Any], main_tool: str = MAIN_LOOP_TOOL) -> bool:
    """The agent's own loop offers its shell tool; side requests offer none.

    ``main_tool`` is that shell tool's name: Hermes' ``terminal``, OpenCode's
    and pi's ``bash``.
    """
    for entry in body.get("tools") or []:
        function = entry.get("function") if isinstance(entry, dict) else None
        if isinstance(function, dict) and function.get("name") == main_tool:
            return True
    return False


class ChatScript:
    def __init__(self, turns: Sequence[Turn], main_tool: str = MAIN_LOOP_TOOL) -> None:
        self.turns = list(turns)
        self.main_tool = main_tool

    def reply_for(self, body: dict[str, Any]) -> Turn:
        if not is_main_loop(body, self.main_tool):
            return say(SIDE_REPLY_TEXT)
        index = assistant_turns(body.get("messages") or [])
        if index < len(self.turns):
            return self.turns[index]
        return say(END_OF_SCRIPT_TEXT)


def _tool_calls(turn: Turn, call_id: str) -> list[dict[str, Any]]:
    if not turn.tool:
        return []
    arguments = json.dumps(turn.tool_input)
    return [
        {
            "index": 0,
            "id": call_id,
            "type": "function",
            "function": {"name": turn.tool, "arguments": arguments},
        }
    ]


def _finish(turn: Turn) -> str:
    return "tool_calls" if turn.tool else "stop"


USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}


def completion(turn: Turn, completion_id: str, call_id: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text}
    calls = _tool_calls(turn, call_id)
    if calls:
        message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in calls]
    elif not turn.text:
        message["content"] = END_OF_SCRIPT_TEXT
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(turn)}],
        "usage": USAGE,
    }


def chunks(turn: Turn, completion_id: str, call_id: str) -> Iterator[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    yield chunk({"role": "assistant", "content": ""})
    text = turn.text if (turn.text or turn.tool) else END_OF_SCRIPT_TEXT
    if text:
        yield chunk({"content": text})
    for call in _tool_calls(turn, call_id):
        yield chunk({"tool_calls": [call]})
    yield chunk({}, _finish(turn))
    yield {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": MODEL,
        "choices": [],
        "usage": USAGE,
    }


class FakeOpenAIChat:
    """The server: ``start()`` binds 127.0.0.1 on a free port; ``requests`` logs every body."""

    def __init__(self, script: ChatScript) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._counter = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """What a client puts before ``/chat/completions`` (OpenAI's ``base_url``)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

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


def _handler_for(fake: FakeOpenAIChat) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            fake.record("GET", self.path, None)
            if self.path.split("?")[0].endswith("/models"):
                model = {
                    "id": MODEL,
                    "object": "model",
                    "owned_by": "fake",
                    "context_length": 128000,
                }
                self._send_json(200, {"object": "list", "data": [model]})
                return
            self._send_json(404, {"error": {"message": self.path, "type": "not_found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"unparsed": raw.decode("utf-8", "replace")}
            number = fake.record("POST", self.path, body)
            if not self.path.split("?")[0].endswith("/chat/completions") or not isinstance(
                body, dict
            ):
                self._send_json(404, {"error": {"message": self.path, "type": "not_found"}})
                return
            turn = fake.script.reply_for(cast(dict[str, Any], body))
            completion_id = f"chatcmpl-fake{number:04d}"
            call_id = f"call_fake{number:04d}"
            if body.get("stream"):
                self._stream(turn, completion_id, call_id)
                return
            self._send_json(200, completion(turn, completion_id, call_id))

        def _stream(self, turn: Turn, completion_id: str, call_id: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for data in chunks(turn, completion_id, call_id):
                self.wfile.write(f"data: {json.dumps(data)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler
