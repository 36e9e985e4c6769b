"""What a request *is*, read from its body: the facts routing rules test.

Why markers read from every block: existing routers found sub-agents by a
marker at one fixed index of ``system`` and guessed background work from
the model name (``*haiku*``); both broke silently when the host changed.
Claude Code 2.1.328 (recorded in ``tests/fixtures``) marks a sub-agent's
request with ``cc_is_subagent=true`` in its billing block and the sub-agent
system prompt; both are looked for in *every* system block. Sub-agents there
may spawn sub-agents themselves, so "no Agent tool" is not a signal.
Background work is a request that offers no tools and asks for a title, a
summary or a topic, or, whatever tools it offers, a last user turn that asks
for a summary of the conversation and forbids tool calls: Claude Code's
compaction request offers all its tools (for the prompt cache) and says so in
words, which is how "summary requests are not routed" happens elsewhere. The features are plain data, so a recorded request can be
explained offline (``agentreflex routing explain``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# how hosts mark a sub-agent's request inside its system prompt
_SUBAGENT = re.compile(
    r"cc_is_subagent=true|^You are an agent for Claude Code|<agentreflex-subagent>", re.MULTILINE
)
_TAG = re.compile(r"\[lane:([A-Za-z0-9_.-]{1,64})\]")
_BACKGROUND = re.compile(
    r"(?i)\b(?:"
    r"(?:generate|write|create|suggest|pick)\s+(?:an?\s+)?(?:[\w,-]+\s+){0,4}?(?:title|summary|topic)"
    r"|summari[sz]e\s+(?:this|the)\s+(?:conversation|session|coding)"
    r"|isNewTopic"
    r"|detailed summary of the conversation"
    r")"
)
# a compaction request: it offers tools but forbids them and asks for a summary
_COMPACTION = (
    re.compile(r"(?i)\bsummary of the conversation\b"),
    re.compile(r"(?i)\bdo not (?:call|use) any tools?\b"),
)
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Features:
    """Everything a rule may test, and nothing else."""

    api: str  # the endpoint called: anthropic / openai-chat / openai-responses
    model: str = ""
    stream: bool = False
    thinking: bool = False
    input_tokens: int = 0  # an estimate: characters / 4
    tool_count: int = 0
    background: bool = False
    background_why: str = ""
    subagent: bool = False
    subagent_why: str = ""
    tag: str | None = None
    session: str = ""
    session_failures: int = 0  # filled by the router from its own memory

    def as_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


def extract(
    body: Mapping[str, Any], api: str = "anthropic", headers: Mapping[str, str] | None = None
) -> Features:
    """The features of a request ``body`` sent to the ``api`` endpoint."""
    if api == "anthropic":
        return _anthropic(body, headers or {})
    return _openai(body, api, headers or {})


def _anthropic(body: Mapping[str, Any], headers: Mapping[str, str]) -> Features:
    raw = body.get("messages")
    messages = raw if isinstance(raw, list) else []
    system = _texts(body.get("system"))
    last_user = _last_user_text(messages)
    tools = _tool_names(body.get("tools"))
    thinking = body.get("thinking")
    # "adaptive" (Claude Code sends it on every request) lets the model decide: not a request
    wants_thinking = isinstance(thinking, dict) and thinking.get("type") == "enabled"
    return _features(
        "anthropic",
        body,
        system=system,
        last_user=last_user,
        tools=tools,
        thinking=wants_thinking,
        size=_size(body.get("system")) + _size(messages) + _size(body.get("tools")),
        session=_session(body, headers),
    )


def _openai(body: Mapping[str, Any], api: str, headers: Mapping[str, str]) -> Features:
    key = "messages" if api == "openai-chat" else "input"
    raw = body.get(key)
    messages = (
        raw
        if isinstance(raw, list)
        else ([{"role": "user", "content": raw}] if isinstance(raw, str) else [])
    )
    system = [
        t
        for m in messages
        if isinstance(m, dict) and m.get("role") in ("system", "developer")
        for t in _texts(m.get("content"))
    ]
    if isinstance(body.get("instructions"), str):
        system.append(body["instructions"])
    reasoning = body.get("reasoning")
    effort = body.get("reasoning_effort") or (
        reasoning.get("effort") if isinstance(reasoning, dict) else None
    )
    return _features(
        api,
        body,
        system=system,
        last_user=_last_user_text(messages),
        tools=_tool_names(body.get("tools")),
        thinking=bool(effort) and effort not in ("none", "minimal"),
        size=_size(messages) + _size(body.get("tools")) + _size(body.get("instructions")),
        session=_session(body, headers),
    )


def _features(
    api: str,
    body: Mapping[str, Any],
    *,
    system: list[str],
    last_user: str,
    tools: list[str],
    thinking: bool,
    size: int,
    session: str,
) -> Features:
    model = body.get("model") if isinstance(body.get("model"), str) else ""
    background_why = _background(tools, system, last_user)
    subagent_why = _subagent(system)
    return Features(
        api=api,
        model=str(model),
        stream=body.get("stream") is True,
        thinking=thinking,
        input_tokens=size // CHARS_PER_TOKEN,
        tool_count=len(tools),
        background=bool(background_why),
        background_why=background_why,
        subagent=bool(subagent_why),
        subagent_why=subagent_why,
        tag=_tag(system, last_user),
        session=session,
    )


def _background(tools: list[str], system: list[str], last_user: str) -> str:
    head = last_user[:20000]
    if all(marker.search(head) for marker in _COMPACTION):
        return "the last user message asks for a summary of the conversation and forbids tools"
    if tools:
        return ""
    for where, text in [*(("system", s) for s in system), ("last user message", last_user)]:
        found = _BACKGROUND.search(text[:20000])
        if found:
            return f"no tools offered and the {where} asks to {found.group(0)!r}"
    return ""


def _subagent(system: list[str]) -> str:
    for index, text in enumerate(system):
        found = _SUBAGENT.search(text[:4000])
        if found:
            return f"system block {index} carries {found.group(0)!r}"
    return ""


def _tag(system: list[str], last_user: str) -> str | None:
    for text in [last_user, *system]:
        found = _TAG.search(text)
        if found:
            return found.group(1)
    return None


def _texts(content: Any) -> list[str]:
    """The text of a ``system`` or message content: a string or a list of blocks."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            str(block.get("text"))
            for block in content
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        ]
    return []


def _last_user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            texts = _texts(message.get("content"))
            if texts:
                return "\n".join(texts)
    return ""


def _tool_names(tools: Any) -> list[str]:
    names = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        function = tool.get("function")
        name = function.get("name") if isinstance(function, dict) else tool.get("name")
        if isinstance(name, str):
            names.append(name)
    return names


def _size(node: Any) -> int:
    """Characters of text in ``node`` (strings only; images count by their data length)."""
    if isinstance(node, str):
        return len(node)
    if isinstance(node, dict):
        return sum(_size(v) for v in node.values())
    if isinstance(node, list):
        return sum(_size(v) for v in node)
    return 0


def _session(body: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    for name in ("x-claude-code-session-id", "session_id", "x-session-id"):
        value = headers.get(name)
        if value:
            return value[:128]
    metadata = body.get("metadata")
    user = metadata.get("user_id") if isinstance(metadata, dict) else None
    if isinstance(user, str):
        return _session_of(user)[:128]
    user = body.get("user")
    return user[:128] if isinstance(user, str) else ""


def _session_of(user_id: str) -> str:
    """Claude Code's ``metadata.user_id`` is JSON holding ``session_id``; others are opaque."""
    if user_id.startswith("{"):
        import json

        try:
            parsed = json.loads(user_id)
        except ValueError:
            return user_id
        if isinstance(parsed, dict) and isinstance(parsed.get("session_id"), str):
            return str(parsed["session_id"])
    return user_id
