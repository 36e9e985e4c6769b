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
from collections.abc import Iterator, Sequence
from typing import Any, cast

from hostharness.fakemodel import END_OF_SCRIPT_TEXT, SIDE_REPLY_TEXT, Turn, assistant_turns, say
from hostharness.fakeserver import FakeServer, ModelHandler, sse

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
    """The turns of the agent's loop, by how many assistant turns a request holds.

    ``sub_turns``: the turns of a subagent's loop (OpenCode's ``task`` tool), for a request
    whose first user message holds ``sub_marker`` (put in the task's prompt).
    """

    def __init__(
        self,
        turns: Sequence[Turn],
        main_tool: str = MAIN_LOOP_TOOL,
        sub_turns: Sequence[Turn] = (),
        sub_marker: str = "",
    ) -> None:
        self.turns = list(turns)
        self.main_tool = main_tool
        self.sub_turns = list(sub_turns)
        self.sub_marker = sub_marker

    def reply_for(self, body: dict[str, Any]) -> Turn:
        if not is_main_loop(body, self.main_tool):
            return say(SIDE_REPLY_TEXT)
        messages = body.get("messages") or []
        turns = self.sub_turns if self._subagent(messages) else self.turns
        index = assistant_turns(messages)
        if index < len(turns):
            return turns[index]
        return say(END_OF_SCRIPT_TEXT)

    def _subagent(self, messages: Sequence[Any]) -> bool:
        if not self.sub_marker:
            return False
        first = next((m for m in messages if isinstance(m, dict) and m.get("role") == "user"), {})
        return self.sub_marker in json.dumps(first.get("content"))


def _tool_calls(turn: Turn, call_id: str) -> list[dict[str, Any]]:
    if not turn.tool:
        return []
    calls = [(turn.tool, turn.tool_input), *turn.also]
    return [
        {
            "index": n,
            "id": call_id if n == 0 else f"{call_id}_{n}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        for n, (name, args) in enumerate(calls)
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


class FakeOpenAIChat(FakeServer):
    """OpenAI chat completions: ``/models`` and ``/chat/completions`` (streamed or not)."""

    url_suffix = "/v1"  # what a client puts before ``/chat/completions`` (its ``base_url``)
    script: ChatScript

    def on_get(self, handler: ModelHandler, path: str) -> None:
        if path.endswith("/models"):
            model = {
                "id": MODEL,
                "object": "model",
                "owned_by": "fake",
                "context_length": 128000,
            }
            handler.send_json(200, {"object": "list", "data": [model]})
            return
        handler.send_json(404, {"error": {"message": handler.path, "type": "not_found"}})

    def on_post(self, handler: ModelHandler, path: str, body: Any, number: int) -> None:
        if not path.endswith("/chat/completions") or not isinstance(body, dict):
            handler.send_json(404, {"error": {"message": handler.path, "type": "not_found"}})
            return
        turn = self.script.reply_for(cast(dict[str, Any], body))
        completion_id = f"chatcmpl-fake{number:04d}"
        call_id = f"call_fake{number:04d}"
        if body.get("stream"):
            frames = [sse(data) for data in chunks(turn, completion_id, call_id)]
            handler.send_events([*frames, b"data: [DONE]\n\n"])
            return
        handler.send_json(200, completion(turn, completion_id, call_id))
