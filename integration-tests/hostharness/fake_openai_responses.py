"""A scripted stand-in for the OpenAI Responses API (``POST /v1/responses``, SSE), on loopback.

Codex CLI 0.169 talks to a custom provider with ``wire_api = "responses"``: it
posts the whole conversation as ``input`` items with ``stream: true`` and reads
server-sent events whose JSON ``type`` is ``response.created``,
``response.output_item.added`` / ``.done`` (one per output item: a ``reasoning``
item with a visible summary when the turn has one, an assistant ``message``, a
``function_call`` or a ``custom_tool_call``) and
``response.completed`` (see ``codex-rs/codex-api/src/sse/responses.rs``).

The script is the same list of :class:`hostharness.fakemodel.Turn` as for the
Anthropic fake: a turn is one assistant reply (text and/or one tool call).
Which turn a request gets follows from the request (how many assistant turns
its ``input`` already holds), so a retried request gets the same answer.  A
tool Codex offers as a freeform ``custom`` tool (``apply_patch``) is called
with ``tool_input["input"]`` as its raw input; a function tool gets
``tool_input`` as JSON arguments.  Requests offering no tools (side requests)
get a short text and do not advance the script.  Every request is recorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, cast

from hostharness.fakemodel import END_OF_SCRIPT_TEXT, SIDE_REPLY_TEXT, Script, Turn, say
from hostharness.fakeserver import FakeServer, ModelHandler, sse

MODEL = "fake-model"
_ASSISTANT_ITEMS = ("function_call", "custom_tool_call", "local_shell_call", "reasoning")


def item_role(item: Any) -> str:
    """``assistant`` for what the model produced, else the item's role or type."""
    if not isinstance(item, dict):
        return ""
    kind = item.get("type")
    if kind in _ASSISTANT_ITEMS:
        return "assistant"
    if kind == "message" or "role" in item:
        return str(item.get("role", ""))
    return str(kind)


def assistant_turns(items: Sequence[Any]) -> int:
    """How many assistant replies a Responses ``input`` holds (consecutive items count once)."""
    count = 0
    previous = ""
    for item in items:
        role = item_role(item)
        if role == "assistant" and previous != "assistant":
            count += 1
        previous = role
    return count


NAMESPACED = "namespace:"  # tool type of a function inside a namespace (Codex's MCP servers)


def offered_tools(body: dict[str, Any]) -> dict[str, str]:
    """``{tool name: tool type}`` of the tools a request offers.

    Codex offers each MCP server's tools inside a ``namespace`` tool named
    ``mcp__<server>``; its functions are listed as ``mcp__<server>__<tool>``
    with the type ``namespace:mcp__<server>``, the name hooks see.
    """
    offered: dict[str, str] = {}
    for t in body.get("tools") or []:
        if not isinstance(t, dict) or not t.get("name"):
            continue
        name, kind = str(t["name"]), str(t.get("type", "function"))
        offered[name] = kind
        if kind == "namespace":
            for inner in t.get("tools") or []:
                if isinstance(inner, dict) and inner.get("name"):
                    offered[f"{name}__{inner['name']}"] = NAMESPACED + name
    return offered


SESSION = "{SESSION_ID}"  # in a tool input: the id of the exec session last reported
_SESSION_ID = re.compile(r"session ID (\d+)")


def last_session_id(items: Sequence[Any]) -> int | None:
    """The exec session id Codex last told the model about (``Process running with ...``)."""
    found = None
    for item in items:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            match = _SESSION_ID.search(json.dumps(item.get("output")))
            found = int(match.group(1)) if match else found
    return found


class ResponsesScript(Script):
    def reply_for(self, body: dict[str, Any]) -> Turn:
        if not offered_tools(body):
            return say(SIDE_REPLY_TEXT)
        items = body.get("input") or []
        items = items if isinstance(items, list) else []
        index = assistant_turns(items)
        if index >= len(self.turns):
            return say(END_OF_SCRIPT_TEXT)
        turn = self.turns[index]
        if SESSION in turn.tool_input.values():
            session = last_session_id(items)
            filled = {k: session if v == SESSION else v for k, v in turn.tool_input.items()}
            return Turn(turn.text, turn.tool, filled, turn.reasoning)
        return turn


def output_items(turn: Turn, number: int, tools: dict[str, str]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if turn.reasoning:
        items.append(
            {
                "type": "reasoning",
                "id": f"rs_fake{number:04d}",
                "summary": [{"type": "summary_text", "text": turn.reasoning}],
            }
        )
    if turn.text or not turn.tool:
        items.append(
            {
                "type": "message",
                "id": f"msg_fake{number:04d}",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "text": turn.text or END_OF_SCRIPT_TEXT,
                        "annotations": [],
                    }
                ],
            }
        )
    if turn.tool:
        call_id = f"call_fake{number:04d}"
        if tools.get(turn.tool) == "custom":
            items.append(
                {
                    "type": "custom_tool_call",
                    "id": f"ctc_fake{number:04d}",
                    "status": "completed",
                    "call_id": call_id,
                    "name": turn.tool,
                    "input": str(turn.tool_input.get("input", "")),
                }
            )
        else:
            call: dict[str, Any] = {
                "type": "function_call",
                "id": f"fc_fake{number:04d}",
                "status": "completed",
                "call_id": call_id,
                "name": turn.tool,
                "arguments": json.dumps(turn.tool_input),
            }
            kind = tools.get(turn.tool, "")
            if kind.startswith(NAMESPACED):  # a namespaced function is called by its own name
                namespace = kind[len(NAMESPACED) :]
                call["namespace"] = namespace
                call["name"] = turn.tool[len(namespace) + 2 :]
            items.append(call)
    return items


def sse_events(items: list[dict[str, Any]], number: int) -> Iterator[dict[str, Any]]:
    response = {"id": f"resp_fake{number:04d}", "object": "response", "model": MODEL}
    yield {"type": "response.created", "response": {**response, "status": "in_progress"}}
    for index, item in enumerate(items):
        yield {"type": "response.output_item.added", "output_index": index, "item": item}
        yield {"type": "response.output_item.done", "output_index": index, "item": item}
    usage = {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 110,
    }
    yield {
        "type": "response.completed",
        "response": {**response, "status": "completed", "output": items, "usage": usage},
    }


class FakeResponses(FakeServer):
    """OpenAI Responses: ``/models`` (empty) and ``/responses``, always streamed."""

    url_suffix = "/v1"  # a provider's ``base_url`` (Codex appends ``/responses``)
    script: Script

    def on_get(self, handler: ModelHandler, path: str) -> None:
        if path.endswith("/models"):
            handler.send_json(200, {"object": "list", "data": [], "models": []})
            return
        handler.send_json(404, {"error": {"message": handler.path, "type": "not_found"}})

    def on_post(self, handler: ModelHandler, path: str, body: Any, number: int) -> None:
        if not path.endswith("/responses") or not isinstance(body, dict):
            handler.send_json(404, {"error": {"message": handler.path, "type": "not_found"}})
            return
        request = cast(dict[str, Any], body)
        turn = self.script.reply_for(request)
        items = output_items(turn, number, offered_tools(request))
        handler.send_events(sse(event, event["type"]) for event in sse_events(items, number))
