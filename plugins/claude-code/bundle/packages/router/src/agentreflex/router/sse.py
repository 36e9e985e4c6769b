"""Server-sent events, parsed incrementally from an upstream's byte stream.

Why our own parser: the router passes Anthropic streams through *event by
event* (never a half event, so a mid-stream failure can be closed with a
well-formed error event) and needs each event's JSON for usage and for
translation. Bytes go in as they arrive; complete events come out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agentreflex.core.redaction.redact import redact_head

MAX_EVENT_BYTES = 16 * 1024 * 1024


class SSEError(ValueError):
    """The upstream sent something that is not a well-formed event stream."""


@dataclass(frozen=True)
class Event:
    name: str
    data: str
    raw: bytes  # the event exactly as received, blank line included

    def json(self) -> Any:
        try:
            return json.loads(self.data)
        except ValueError as exc:
            raise SSEError(
                f"event {self.name or 'message'!r} carries invalid JSON: "
                f"{redact_head(self.data, 80)!r}"
            ) from exc


class SSEParser:
    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, chunk: bytes) -> list[Event]:
        """Every event completed by ``chunk``."""
        self._buffer += chunk.replace(b"\r\n", b"\n")
        events = []
        while True:
            end = self._buffer.find(b"\n\n")
            if end < 0:
                break
            raw, self._buffer = self._buffer[: end + 2], self._buffer[end + 2 :]
            event = _parse(raw)
            if event is not None:
                events.append(event)
        if len(self._buffer) > MAX_EVENT_BYTES:
            raise SSEError(f"an event longer than {MAX_EVENT_BYTES} bytes")
        return events

    @property
    def pending(self) -> bytes:
        return self._buffer


def _parse(raw: bytes) -> Event | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SSEError("an event that is not UTF-8") from exc
    name, data = "", []
    for line in text.split("\n"):
        if not line or line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
        elif field not in ("id", "retry"):
            raise SSEError(f"not an event-stream line: {redact_head(line, 80)!r}")
    if not name and not data:
        return None
    return Event(name, "\n".join(data), raw)


def encode(name: str | None, payload: Any) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {data}\n\n".encode()
