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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

from hostharness.fakeserver import FakeServer, ModelHandler, sse

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
    # more tool calls in the same reply, after the first ((name, input) each; the chat
    # completions fake sends them, for hosts that run one reply's calls together)
    also: tuple[tuple[str, dict[str, Any]], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tool": self.tool,
            "tool_input": self.tool_input,
            "reasoning": self.reasoning,
            "also": [[name, args] for name, args in self.also],
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Turn:
        return cls(
            raw.get("text"),
            raw.get("tool"),
            dict(raw.get("tool_input") or {}),
            raw.get("reasoning"),
            tuple((str(name), dict(args)) for name, args in raw.get("also") or []),
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


class FakeAnthropic(FakeServer):
    """The Anthropic Messages API: ``/v1/models``, ``/v1/messages`` (streamed or not), token counts."""

    reply_headers: ClassVar[Mapping[str, str]] = {"request-id": "req_fake"}
    script: Script

    def on_get(self, handler: ModelHandler, path: str) -> None:
        if path.endswith("/v1/models"):
            model = {
                "id": MODEL,
                "type": "model",
                "display_name": "Fake",
                "created_at": "2025-01-01T00:00:00Z",
            }
            handler.send_json(
                200, {"data": [model], "has_more": False, "first_id": MODEL, "last_id": MODEL}
            )
            return
        _not_found(handler)

    def on_post(self, handler: ModelHandler, path: str, body: Any, number: int) -> None:
        if path.endswith("/v1/messages/count_tokens"):
            handler.send_json(200, {"input_tokens": 100})
            return
        if not path.endswith("/v1/messages") or not isinstance(body, dict):
            _not_found(handler)
            return
        turn = self.script.reply_for(cast(dict[str, Any], body))
        message_id = f"msg_fake{number:04d}"
        tool_id = f"toolu_fake{number:04d}"
        if body.get("stream"):
            events = sse_events(turn, message_id, tool_id)
            handler.send_events(sse(data, event) for event, data in events)
            return
        handler.send_json(
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


def _not_found(handler: ModelHandler) -> None:
    handler.send_json(
        404, {"type": "error", "error": {"type": "not_found_error", "message": handler.path}}
    )
