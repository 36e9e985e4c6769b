"""The loopback HTTP server every scripted model API shares; each API says how it answers.

The three fakes (Anthropic Messages, OpenAI chat, OpenAI Responses) differ only
in their paths and reply shapes.  Binding, logging every request, reading and
parsing the body, JSON and server-sent-event replies are the same, and live here.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar


class FakeServer:
    """``start()`` binds 127.0.0.1 on a free port; ``requests`` logs every body.

    Subclasses set ``url_suffix`` (what a client puts after host and port) and
    implement :meth:`on_get` and :meth:`on_post`.
    """

    url_suffix = ""
    # headers on every reply (Anthropic's clients read ``request-id``)
    reply_headers: ClassVar[Mapping[str, str]] = {}

    def __init__(self, script: Any) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._counter = 0
        handler = type("Handler", (ModelHandler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self.url_suffix}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def record(self, method: str, path: str, body: Any) -> int:
        """Log one request; its number (from 1) makes the reply's ids unique."""
        with self._lock:
            self._counter += 1
            self.requests.append({"method": method, "path": path, "body": body})
            return self._counter

    def on_get(self, handler: ModelHandler, path: str) -> None:
        raise NotImplementedError

    def on_post(self, handler: ModelHandler, path: str, body: Any, number: int) -> None:
        raise NotImplementedError


class ModelHandler(BaseHTTPRequestHandler):
    """Reads and logs each request, then lets the fake answer it."""

    fake: FakeServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in self.fake.reply_headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_events(self, frames: Iterable[bytes]) -> None:
        """A server-sent-event stream of ready-made ``frames``; the connection closes after."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for name, value in self.fake.reply_headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True
        for frame in frames:
            self.wfile.write(frame)
        self.wfile.flush()

    def do_GET(self) -> None:
        self.fake.record("GET", self.path, None)
        self.fake.on_get(self, self.path.split("?")[0])

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        number = self.fake.record("POST", self.path, body)
        self.fake.on_post(self, self.path.split("?")[0], body, number)


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event: ``data`` as JSON, with an ``event:`` line when named."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()
