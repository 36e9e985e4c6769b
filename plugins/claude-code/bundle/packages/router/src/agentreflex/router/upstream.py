"""How one request is sent to one lane: URL, headers, body in that lane's API.

Keys come from the environment variable the lane names, at send time, and
go only into the upstream request's headers; they are never logged, stored
or echoed. A lane without ``key_env`` receives the client's own credentials
when it speaks the client's API (Claude Code's key reaches Anthropic).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentreflex.router import responses, translate
from agentreflex.routing import Lane

ANTHROPIC_VERSION = "2023-06-01"
FORWARDED_ANTHROPIC = ("anthropic-version", "anthropic-beta")


class LaneUnusable(Exception):
    """The lane cannot take this request (no key, an API the router cannot translate to)."""


def compatible(client_api: str, lane_api: str) -> bool:
    """Every client reaches every lane, except that Responses lanes take Responses only."""
    return client_api == lane_api or lane_api != "openai-responses"


def build(
    client_api: str,
    body: dict[str, Any],
    lane: Lane,
    client_headers: Mapping[str, str],
    query: str,
    env: Mapping[str, str],
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """``(url, headers, body)`` for sending ``body`` (in ``client_api``) to ``lane``."""
    if not compatible(client_api, lane.api):
        raise LaneUnusable(f"cannot translate {client_api} to {lane.api}")
    headers = {"content-type": "application/json"}
    key = _key(lane, env)
    if client_api == "openai-responses" and lane.api != "openai-responses":
        body = responses.responses_to_chat(body, lane.model, lane.max_tokens)
        client_api = "openai-chat"  # from here on, as a chat request
    if lane.api == "anthropic":
        out = (
            dict(body)
            if client_api == "anthropic"
            else translate.chat_to_anthropic(body, lane.model, lane.max_tokens)
        )
        out["model"] = lane.model
        if lane.max_tokens and isinstance(out.get("max_tokens"), int):
            out["max_tokens"] = min(out["max_tokens"], lane.max_tokens)
        if lane.thinking_budget:
            out["thinking"] = {"type": "enabled", "budget_tokens": lane.thinking_budget}
        headers["anthropic-version"] = client_headers.get("anthropic-version", ANTHROPIC_VERSION)
        if client_api == "anthropic" and "anthropic-beta" in client_headers:
            headers["anthropic-beta"] = client_headers["anthropic-beta"]
        _auth(headers, key, client_api == "anthropic", client_headers, anthropic=True)
        suffix = f"?{query}" if query and client_api == "anthropic" else ""
        return f"{lane.base_url}/v1/messages{suffix}", headers, out
    if lane.api == "openai-chat":
        if client_api == "anthropic":
            out = translate.anthropic_to_chat(body, lane.model, lane.max_tokens)
        else:
            out = dict(body)
            out["model"] = lane.model
        if lane.effort:
            out["reasoning_effort"] = lane.effort
        _auth(headers, key, client_api == "openai-chat", client_headers, anthropic=False)
        return f"{lane.base_url}/chat/completions", headers, out
    out = dict(body)
    out["model"] = lane.model
    if lane.effort:
        out["reasoning"] = {**(out.get("reasoning") or {}), "effort": lane.effort}
    _auth(headers, key, True, client_headers, anthropic=False)
    return f"{lane.base_url}/responses", headers, out


def _key(lane: Lane, env: Mapping[str, str]) -> str | None:
    if lane.key_env is None:
        return None
    key = env.get(lane.key_env)
    if not key:
        raise LaneUnusable(f"the key variable {lane.key_env} is not set")
    return key


def _auth(
    headers: dict[str, str],
    key: str | None,
    same_api: bool,
    client_headers: Mapping[str, str],
    *,
    anthropic: bool,
) -> None:
    if key is not None:
        if anthropic:
            headers["x-api-key"] = key
        else:
            headers["authorization"] = f"Bearer {key}"
        return
    if not same_api:
        return
    for name in ("x-api-key", "authorization"):
        if name in client_headers:
            headers[name] = client_headers[name]
