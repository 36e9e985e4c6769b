"""OpenAI Responses <-> OpenAI chat, so a Responses client (Codex CLI) can use any lane.

Why through chat: an Anthropic lane is reached by composing this with
:mod:`agentreflex.router.translate` (Responses -> chat -> Anthropic and back),
so there is one translation per pair of formats, not one per path.
What crosses: ``instructions``, input messages (text and images), function
calls and their outputs, freeform ``custom`` tools (Codex's ``apply_patch``: a
function with one string parameter ``input`` on the way out, a
``custom_tool_call`` on the way back), streaming text and argument deltas,
usage. Reasoning items, built-in tools (web search...) and
``previous_response_id`` do not cross.
"""

from __future__ import annotations

import json
import time
from typing import Any

from agentreflex.router.translate import as_dict, chat_request, parse_arguments

CUSTOM_PARAMETERS = {
    "type": "object",
    "properties": {"input": {"type": "string", "description": "the tool's raw input"}},
    "required": ["input"],
}


def custom_tools(body: dict[str, Any]) -> frozenset[str]:
    """Names of the freeform tools a Responses request offers."""
    return frozenset(
        str(t.get("name"))
        for t in body.get("tools") or []
        if isinstance(t, dict) and t.get("type") == "custom"
    )


def responses_to_chat(body: dict[str, Any], model: str, max_tokens: int | None) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if isinstance(body.get("instructions"), str) and body["instructions"]:
        messages.append({"role": "system", "content": body["instructions"]})
    items = body.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            _add_item(messages, item)
    out = chat_request(model, messages, body, body.get("max_output_tokens"), max_tokens)
    tools = [t for t in (_chat_tool(t) for t in body.get("tools") or []) if t is not None]
    if tools:
        out["tools"] = tools
    return out


def _add_item(messages: list[dict[str, Any]], item: dict[str, Any]) -> None:
    kind = item.get("type", "message")
    if kind == "message":
        role = item.get("role")
        role = "system" if role in ("system", "developer") else role
        content = item.get("content")
        if isinstance(content, str):
            messages.append({"role": role, "content": content})
            return
        parts = [p for p in (_part(c) for c in content or [] if isinstance(c, dict)) if p]
        if role == "user":
            messages.append({"role": "user", "content": parts})
        else:
            messages.append(
                {"role": role, "content": "".join(str(p.get("text", "")) for p in parts)}
            )
    elif kind in ("function_call", "custom_tool_call"):
        arguments = (
            item.get("arguments")
            if kind == "function_call"
            else json.dumps({"input": item.get("input", "")})
        )
        call = {
            "id": str(item.get("call_id")),
            "type": "function",
            "function": {"name": str(item.get("name")), "arguments": str(arguments or "{}")},
        }
        last = messages[-1] if messages else None
        if last is not None and last.get("role") == "assistant" and "tool_calls" in last:
            last["tool_calls"].append(call)
        else:
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
    elif kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output")
        text = output if isinstance(output, str) else json.dumps(output)
        messages.append({"role": "tool", "tool_call_id": str(item.get("call_id")), "content": text})


def _part(content: dict[str, Any]) -> dict[str, Any] | None:
    kind = content.get("type")
    if kind in ("input_text", "output_text", "text"):
        return {"type": "text", "text": str(content.get("text", ""))}
    if kind == "input_image" and content.get("image_url"):
        return {"type": "image_url", "image_url": {"url": str(content["image_url"])}}
    return None


def _chat_tool(tool: Any) -> dict[str, Any] | None:
    if not isinstance(tool, dict):
        return None
    if tool.get("type") == "function":
        function = {
            "name": tool.get("name"),
            "parameters": tool.get("parameters") or {"type": "object"},
        }
    elif tool.get("type") == "custom":
        function = {"name": tool.get("name"), "parameters": CUSTOM_PARAMETERS}
    else:
        return None  # built-in tools (web_search, ...) have no chat equivalent
    if tool.get("description"):
        function["description"] = tool["description"]
    return {"type": "function", "function": function}


# ---- replies -------------------------------------------------------------------------------


def _call_item(call_id: str, name: str, arguments: str, custom: frozenset[str]) -> dict[str, Any]:
    if name in custom:
        raw = parse_arguments(arguments).get("input", "")
        return {
            "type": "custom_tool_call",
            "id": f"ctc_{call_id}",
            "call_id": call_id,
            "name": name,
            "input": str(raw),
            "status": "completed",
        }
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


def _message_item(item_id: str, text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _response(
    response_id: str,
    model: str,
    status: str,
    output: list[dict[str, Any]],
    usage: dict[str, int] | None,
) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": model,
        "output": output,
        "usage": usage,
    }


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": prompt + completion,
    }


def chat_to_responses_reply(
    reply: dict[str, Any], model: str, custom: frozenset[str]
) -> dict[str, Any]:
    choices = reply.get("choices")
    choice = (
        choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    )
    message = as_dict(choice.get("message"))
    output: list[dict[str, Any]] = []
    if isinstance(message.get("content"), str) and message["content"]:
        output.append(_message_item(f"msg_{reply.get('id', 'router')}", message["content"]))
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        output.append(
            _call_item(
                str(call.get("id")),
                str(function.get("name")),
                str(function.get("arguments") or "{}"),
                custom,
            )
        )
    usage = as_dict(reply.get("usage"))
    tokens = _usage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
    return _response(f"resp_{reply.get('id', 'router')}", model, "completed", output, tokens)


class ChatToResponsesStream:
    """OpenAI chat chunks in, Responses stream events out."""

    def __init__(self, model: str, custom: frozenset[str]) -> None:
        self.model = model
        self.custom = custom
        self.id = "resp_router"
        self.started = False
        self.sequence = 0
        self.output: list[dict[str, Any]] = []
        self.text: str | None = None  # the open message's text so far
        self.calls: dict[int, dict[str, str]] = {}  # chat tool index -> call_id, name, arguments
        self.input_tokens = 0
        self.output_tokens = 0

    def feed(self, chunk: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if not self.started:
            self.started = True
            self.id = f"resp_{chunk.get('id', 'router')}"
            out.append(
                self._event(
                    "response.created",
                    response=_response(self.id, self.model, "in_progress", [], None),
                )
            )
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.input_tokens = int(usage.get("prompt_tokens") or 0)
            self.output_tokens = int(usage.get("completion_tokens") or 0)
        for choice in chunk.get("choices") or []:
            delta = as_dict(choice.get("delta")) if isinstance(choice, dict) else {}
            if isinstance(delta.get("content"), str) and delta["content"]:
                out += self._text(delta["content"])
            for call in delta.get("tool_calls") or []:
                if isinstance(call, dict):
                    out += self._call(call)
        return out

    def finish(self) -> list[dict[str, Any]]:
        out = self._close_text()
        for index in sorted(self.calls):
            call = self.calls[index]
            item = _call_item(call["call_id"], call["name"], call["arguments"] or "{}", self.custom)
            self.output.append(item)
            out.append(
                self._event(
                    "response.output_item.done", output_index=len(self.output) - 1, item=item
                )
            )
        response = _response(
            self.id,
            self.model,
            "completed",
            self.output,
            _usage(self.input_tokens, self.output_tokens),
        )
        out.append(self._event("response.completed", response=response))
        return out

    def _text(self, text: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        item_id = f"msg_{self.id}"
        if self.text is None:
            self.text = ""
            item = {
                "type": "message",
                "id": item_id,
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            }
            out.append(
                self._event("response.output_item.added", output_index=len(self.output), item=item)
            )
            part = {"type": "output_text", "text": "", "annotations": []}
            out.append(
                self._event(
                    "response.content_part.added",
                    item_id=item_id,
                    output_index=len(self.output),
                    content_index=0,
                    part=part,
                )
            )
        self.text += text
        out.append(
            self._event(
                "response.output_text.delta",
                item_id=item_id,
                output_index=len(self.output),
                content_index=0,
                delta=text,
            )
        )
        return out

    def _close_text(self) -> list[dict[str, Any]]:
        if self.text is None:
            return []
        item = _message_item(f"msg_{self.id}", self.text)
        index = len(self.output)
        self.output.append(item)
        self.text = None
        return [
            self._event(
                "response.output_text.done",
                item_id=item["id"],
                output_index=index,
                content_index=0,
                text=item["content"][0]["text"],
            ),
            self._event("response.output_item.done", output_index=index, item=item),
        ]

    def _call(self, call: dict[str, Any]) -> list[dict[str, Any]]:
        index = call.get("index", 0)
        index = index if isinstance(index, int) else 0
        function = as_dict(call.get("function"))
        out: list[dict[str, Any]] = []
        if index not in self.calls:
            out += self._close_text()
            self.calls[index] = {
                "call_id": str(call.get("id") or f"call_{index}"),
                "name": str(function.get("name")),
                "arguments": "",
            }
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            self.calls[index]["arguments"] += arguments
        return out

    def _event(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.sequence += 1
        return {"type": kind, "sequence_number": self.sequence, **fields}
