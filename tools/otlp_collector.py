"""A minimal OTLP/HTTP logs collector on 127.0.0.1 for tests and benchmarks.

It decodes every ``POST /v1/logs`` with the official protobuf definitions
(``opentelemetry-proto``'s ``ExportLogsServiceRequest``) and keeps the raw
bytes too, so a test can search them for secrets.  ``behaviour`` makes it a
healthy collector (``ok``), a broken one (``fail``: HTTP 500) or a slow one
(``slow``: answers after ``delay`` seconds).

Usage: python tools/otlp_collector.py   (listens on a free port, prints each log record as JSON)
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in any_value.kvlist_value.values}
    return getattr(any_value, kind)


def flatten(request: Any) -> list[dict[str, Any]]:
    """One dict per log record: its resource, attributes, event name, severity and body."""
    out: list[dict[str, Any]] = []
    for rl in request.resource_logs:
        resource = {kv.key: _value(kv.value) for kv in rl.resource.attributes}
        for sl in rl.scope_logs:
            for lr in sl.log_records:
                out.append(
                    {
                        "resource": resource,
                        "scope": sl.scope.name,
                        "event_name": lr.event_name,
                        "severity_number": lr.severity_number,
                        "severity_text": lr.severity_text,
                        "time_unix_nano": lr.time_unix_nano,
                        "body": _value(lr.body),
                        "attributes": {kv.key: _value(kv.value) for kv in lr.attributes},
                    }
                )
    return out


class Collector:
    """A real HTTP server on 127.0.0.1; ``records`` holds every decoded log record."""

    def __init__(self, behaviour: str = "ok", delay: float = 0.0) -> None:
        self.behaviour = behaviour
        self.delay = delay
        self.raw: list[bytes] = []
        self.records: list[dict[str, Any]] = []
        self.posts = 0
        self.lock = threading.Lock()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                # the exporter may give up waiting on a slow collector: nothing to answer then
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    collector.handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
            ExportLogsServiceRequest,
            ExportLogsServiceResponse,
        )

        body = h.rfile.read(int(h.headers.get("Content-Length", "0")))
        with self.lock:
            self.posts += 1
        if self.behaviour == "slow":
            time.sleep(self.delay)
        if self.behaviour == "fail" or h.path != "/v1/logs":
            h.send_response(500 if self.behaviour == "fail" else 404)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        request = ExportLogsServiceRequest.FromString(body)
        with self.lock:
            self.raw.append(bytes(h.headers) + body)
            self.records.extend(flatten(request))
        reply = ExportLogsServiceResponse().SerializeToString()
        h.send_response(200)
        h.send_header("Content-Type", "application/x-protobuf")
        h.send_header("Content-Length", str(len(reply)))
        h.end_headers()
        h.wfile.write(reply)

    def __enter__(self) -> Collector:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def main(argv: list[str]) -> int:
    with Collector() as c:
        print(f"listening on {c.url}/v1/logs", flush=True)
        seen = 0
        try:
            while True:
                time.sleep(0.5)
                with c.lock:
                    new = c.records[seen:]
                    seen = len(c.records)
                for record in new:
                    print(json.dumps(record, default=str), flush=True)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
