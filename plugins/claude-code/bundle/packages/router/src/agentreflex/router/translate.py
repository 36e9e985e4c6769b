"""Anthropic Messages <-> OpenAI Chat Completions, requests, replies and streams.

Why in the router: a lane may speak the other API than the client (Claude
Code speaks Anthropic; a cheap lane may be an OpenAI-compatible server).
What crosses: system text, user/assistant/tool turns, images (base64 and
URLs), tool definitions and tool choice, tool calls and their results,
stop reasons and usage. Thinking blocks do not cross (neither API accepts
the other's); cache-control hints are dropped.
"""

from __future__ import annotations

import json
import time
from typing import Any

STOP_TO_ANTHROPIC = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}
STOP_TO_OPENAI = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "pause_turn": "stop",
}
DEFAULT_ANTHROPIC_MAX_TOKENS = 8192


# ---- Anthropic request -> OpenAI chat request ---------------------------------------------


def anthropic_to_chat(body: dict[str, Any], model: str, max_tokens: int | None) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    system = _text_of(body.get("system"))
    if system:
        messages.append({"role": "system", "content": system})
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            messages.extend(_chat_messages(message))
    out = chat_request(model, messages, body, body.get("max_tokens"), max_tokens)
    if isinstance(body.get("stop_sequences"), list):
        out["stop"] = body["stop_sequences"]
    tools = [
        _chat_tool(t)
        for t in body.get("tools") or []
        if isinstance(t, dict) and "input_schema" in t
    ]
    if tools:
        out["tools"] = tools
        choice = _chat_tool_choice(body.get("tool_choice"))
        if choice is not None:
            out["tool_choice"] = choice
    return out


def chat_request(
    model: str,
    messages: list[dict[str, Any]],
    body: dict[str, Any],
    wanted: Any,
    max_tokens: int | None,
) -> dict[str, Any]:
    """The chat request's settings every source format shares.

    ``wanted`` is the client's own output limit (``max_tokens`` or
    ``max_output_tokens``); the lane's ``max_tokens`` caps it.  A streamed
    request asks for usage in the last chunk, which the budgets count.
    """
    out: dict[str, Any] = {"model": model, "messages": messages}
    if isinstance(wanted, int):
        out["max_tokens"] = min(wanted, max_tokens) if max_tokens else wanted
    elif max_tokens:
        out["max_tokens"] = max_tokens
    for key in ("temperature", "top_p"):
        if isinstance(body.get(key), int | float):
            out[key] = body[key]
    if body.get("stream") is True:
        out["stream"] = True
        out["stream_options"] = {"include_usage": True}
    return out


def _chat_messages(message: dict[str, Any]) -> list[dict[str, Any]]:
    role = message.get("role")
    content = message.get("content")
    if isinstance(content, str):
        return [
            {
                "role": role if role in ("user", "assistant", "system") else "user",
                "content": content,
            }
        ]
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if role == "assistant":
        text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        calls = [
            {
                "id": str(b.get("id")),
                "type": "function",
                "function": {
                    "name": str(b.get("name")),
                    "arguments": json.dumps(b.get("input") or {}),
                },
            }
            for b in blocks
            if b.get("type") == "tool_use"
        ]
        out: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            out["tool_calls"] = calls
        return [out]
    results: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": str(b.get("tool_use_id")), "content": _tool_result_text(b)}
        for b in blocks
        if b.get("type") == "tool_result"
    ]
    parts = [p for p in (_chat_part(b) for b in blocks) if p is not None]
    if role == "system":
        return [*results, {"role": "system", "content": "".join(p.get("text", "") for p in parts)}]
    if parts:
        results.append({"role": "user", "content": parts})
    return results


def _chat_part(block: dict[str, Any]) -> dict[str, Any] | None:
    if block.get("type") == "text":
        return {"type": "text", "text": str(block.get("text", ""))}
    if block.get("type") == "image" and isinstance(block.get("source"), dict):
        source = block["source"]
        if source.get("type") == "base64":
            url = f"data:{source.get('media_type')};base64,{source.get('data')}"
        else:
            url = str(source.get("url", ""))
        return {"type": "image_url", "image_url": {"url": url}}
    return None


def _tool_result_text(block: dict[str, Any]) -> str:
    text = _text_of(block.get("content"))
    return f"Error: {text}" if block.get("is_error") else text


def _chat_tool(tool: dict[str, Any]) -> dict[str, Any]:
    function = {
        "name": tool.get("name"),
        "parameters": tool.get("input_schema") or {"type": "object"},
    }
    if tool.get("description"):
        function["description"] = tool["description"]
    return {"type": "function", "function": function}


def _chat_tool_choice(choice: Any) -> Any:
    if not isinstance(choice, dict):
        return None
    kind = choice.get("type")
    if kind == "tool":
        return {"type": "function", "function": {"name": choice.get("name")}}
    return {"auto": "auto", "any": "required", "none": "none"}.get(str(kind))


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text"))
            for b in content
            if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return ""


# ---- OpenAI chat reply -> Anthropic message ----------------------------------------------


def chat_to_anthropic_message(reply: dict[str, Any], model: str) -> dict[str, Any]:
    choices = reply.get("choices")
    choice = (
        choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    )
    message = as_dict(choice.get("message"))
    content: list[dict[str, Any]] = []
    if isinstance(message.get("content"), str) and message["content"]:
        content.append({"type": "text", "text": message["content"]})
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        content.append(
            {
                "type": "tool_use",
                "id": str(call.get("id") or f"toolu_{len(content)}"),
                "name": str(function.get("name")),
                "input": parse_arguments(function.get("arguments")),
            }
        )
    usage = as_dict(reply.get("usage"))
    return {
        "id": f"msg_{reply.get('id', 'router')}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": STOP_TO_ANTHROPIC.get(str(choice.get("finish_reason")), "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": int(usage.get("prompt_tokens") or 0),
            "output_tokens": int(usage.get("completion_tokens") or 0),
        },
    }


def parse_arguments(arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, dict):
        return arguments
    try:
        parsed = json.loads(arguments or "{}")
    except (TypeError, ValueError):
        return {"_unparsed_arguments": str(arguments)}
    return parsed if isinstance(parsed, dict) else {"value": parsed}


class ChatToAnthropicStream:
    """OpenAI chat chunks in, Anthropic stream events (name, payload) out."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.started = False
        self.block: str | None = None  # "text" or "tool:<openai index>"
        self.index = -1
        self.stop = "end_turn"
        self.input_tokens = 0
        self.output_tokens = 0

    def feed(self, chunk: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        out: list[tuple[str, dict[str, Any]]] = []
        if not self.started:
            self.started = True
            out.append(("message_start", self._start(chunk)))
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.input_tokens = int(usage.get("prompt_tokens") or 0)
            self.output_tokens = int(usage.get("completion_tokens") or 0)
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            delta = as_dict(choice.get("delta"))
            if isinstance(delta.get("content"), str) and delta["content"]:
                out += self._open("text", {"type": "text", "text": ""})
                out.append(self._delta({"type": "text_delta", "text": delta["content"]}))
            for call in delta.get("tool_calls") or []:
                out += self._tool_delta(call)
            if choice.get("finish_reason"):
                self.stop = STOP_TO_ANTHROPIC.get(str(choice["finish_reason"]), "end_turn")
        return out

    def finish(self) -> list[tuple[str, dict[str, Any]]]:
        out = self._close()
        out.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": self.stop, "stop_sequence": None},
                    "usage": {
                        "input_tokens": self.input_tokens,
                        "output_tokens": self.output_tokens,
                    },
                },
            )
        )
        out.append(("message_stop", {"type": "message_stop"}))
        return out

    def _start(self, chunk: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "message_start",
            "message": {
                "id": f"msg_{chunk.get('id', 'router')}",
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 0, "output_tokens": 0},
            },
        }

    def _tool_delta(self, call: Any) -> list[tuple[str, dict[str, Any]]]:
        if not isinstance(call, dict):
            return []
        out: list[tuple[str, dict[str, Any]]] = []
        key = f"tool:{call.get('index', 0)}"
        function = as_dict(call.get("function"))
        if key != self.block:
            block = {
                "type": "tool_use",
                "id": str(call.get("id") or key),
                "name": str(function.get("name")),
                "input": {},
            }
            out += self._open(key, block)
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            out.append(self._delta({"type": "input_json_delta", "partial_json": arguments}))
        return out

    def _open(self, key: str, block: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        if self.block == key:
            return []
        out = self._close()
        self.block = key
        self.index += 1
        out.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": self.index, "content_block": block},
            )
        )
        return out

    def _close(self) -> list[tuple[str, dict[str, Any]]]:
        if self.block is None:
            return []
        self.block = None
        return [("content_block_stop", {"type": "content_block_stop", "index": self.index})]

    def _delta(self, delta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return (
            "content_block_delta",
            {"type": "content_block_delta", "index": self.index, "delta": delta},
        )


# ---- OpenAI chat request -> Anthropic request ---------------------------------------------


def chat_to_anthropic(body: dict[str, Any], model: str, max_tokens: int | None) -> dict[str, Any]:
    system: list[str] = []
    messages: list[dict[str, Any]] = []
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role in ("system", "developer"):
            system.append(_chat_text(message.get("content")))
        elif role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": str(message.get("tool_call_id")),
                "content": _chat_text(message.get("content")),
            }
            _append(messages, "user", [block])
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            text = _chat_text(message.get("content"))
            if text:
                blocks.append({"type": "text", "text": text})
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": str(call.get("id")),
                        "name": str(function.get("name")),
                        "input": parse_arguments(function.get("arguments")),
                    }
                )
            _append(messages, "assistant", blocks or [{"type": "text", "text": ""}])
        else:
            _append(messages, "user", _anthropic_parts(message.get("content")))
    wanted = body.get("max_completion_tokens") or body.get("max_tokens")
    limit = wanted if isinstance(wanted, int) else (max_tokens or DEFAULT_ANTHROPIC_MAX_TOKENS)
    out: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "max_tokens": min(limit, max_tokens) if max_tokens else limit,
    }
    if system:
        out["system"] = "\n".join(system)
    for key in ("temperature", "top_p"):
        if isinstance(body.get(key), int | float):
            out[key] = body[key]
    stop = body.get("stop")
    if stop:
        out["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    tools = []
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            tools.append(
                {
                    "name": function.get("name"),
                    "description": function.get("description", ""),
                    "input_schema": function.get("parameters") or {"type": "object"},
                }
            )
    if tools:
        out["tools"] = tools
    if body.get("stream") is True:
        out["stream"] = True
    return out


def _append(messages: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    """Anthropic wants alternating roles: consecutive turns of one role are merged."""
    if messages and messages[-1]["role"] == role:
        messages[-1]["content"].extend(blocks)
    else:
        messages.append({"role": role, "content": list(blocks)})


def _chat_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def _anthropic_parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    parts: list[dict[str, Any]] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            parts.append({"type": "text", "text": str(part.get("text", ""))})
        elif part.get("type") == "image_url":
            url = str((part.get("image_url") or {}).get("url", ""))
            if url.startswith("data:") and ";base64," in url:
                media, data = url[5:].split(";base64,", 1)
                parts.append(
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": media, "data": data},
                    }
                )
            else:
                parts.append({"type": "image", "source": {"type": "url", "url": url}})
    return parts or [{"type": "text", "text": ""}]


# ---- Anthropic reply -> OpenAI chat reply ------------------------------------------------


def anthropic_to_chat_reply(message: dict[str, Any], model: str) -> dict[str, Any]:
    text = ""
    calls = []
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            text += str(block.get("text", ""))
        elif block.get("type") == "tool_use":
            calls.append(
                {
                    "id": str(block.get("id")),
                    "type": "function",
                    "function": {
                        "name": str(block.get("name")),
                        "arguments": json.dumps(block.get("input") or {}),
                    },
                }
            )
    reply_message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        reply_message["tool_calls"] = calls
    usage = as_dict(message.get("usage"))
    prompt, completion = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    return {
        "id": f"chatcmpl-{message.get('id', 'router')}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": reply_message,
                "finish_reason": STOP_TO_OPENAI.get(str(message.get("stop_reason")), "stop"),
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


class AnthropicToChatStream:
    """Anthropic stream events in, OpenAI chat chunks out."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.id = "chatcmpl-router"
        self.created = int(time.time())
        self.tool_index = -1
        self.input_tokens = 0
        self.output_tokens = 0

    def feed(self, name: str, event: dict[str, Any]) -> list[dict[str, Any]]:
        kind = event.get("type", name)
        if kind == "message_start":
            message = event.get("message") or {}
            self.id = f"chatcmpl-{message.get('id', 'router')}"
            self.input_tokens = int((message.get("usage") or {}).get("input_tokens") or 0)
            return [self._chunk({"role": "assistant", "content": ""})]
        if kind == "content_block_start":
            block = event.get("content_block") or {}
            if block.get("type") == "tool_use":
                self.tool_index += 1
                call = {
                    "index": self.tool_index,
                    "id": block.get("id"),
                    "type": "function",
                    "function": {"name": block.get("name"), "arguments": ""},
                }
                return [self._chunk({"tool_calls": [call]})]
            return []
        if kind == "content_block_delta":
            delta = event.get("delta") or {}
            if delta.get("type") == "text_delta":
                return [self._chunk({"content": delta.get("text", "")})]
            if delta.get("type") == "input_json_delta":
                call = {
                    "index": self.tool_index,
                    "function": {"arguments": delta.get("partial_json", "")},
                }
                return [self._chunk({"tool_calls": [call]})]
            return []
        if kind == "message_delta":
            self.output_tokens = int((event.get("usage") or {}).get("output_tokens") or 0)
            stop = STOP_TO_OPENAI.get(str((event.get("delta") or {}).get("stop_reason")), "stop")
            usage = {
                "prompt_tokens": self.input_tokens,
                "completion_tokens": self.output_tokens,
                "total_tokens": self.input_tokens + self.output_tokens,
            }
            return [self._chunk({}, stop), {**self._chunk({}), "choices": [], "usage": usage}]
        return []

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
