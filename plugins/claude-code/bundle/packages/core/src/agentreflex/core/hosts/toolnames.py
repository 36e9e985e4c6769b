"""Hosts whose tool names differ from the shared ones: read a call through an alias.

Gemini CLI's ``run_shell_command`` and Copilot CLI's ``create`` are a shell
and a write; the reflexes key on the shared kinds and field names, so each
adapter maps its host's names to a shared name for classification and keeps
the host's own name on the call (it is what the user and the logs see).
"""

from __future__ import annotations

from agentreflex.core.events import EventKind, ToolCall, build_tool_call
from agentreflex.core.hosts.base import require_tool_input

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def checked_input(value: Any, field: str, alias: str, kind: EventKind) -> dict[str, Any]:
    """The tool input, strictly typed on a proposed call (fails closed), lenient after."""
    payload: dict[str, Any] = {"tool_name": alias}
    if value is not None or kind is EventKind.PRE_TOOL:
        payload["tool_input"] = value
    return require_tool_input(payload, kind)


def mapped_call(host_name: str, alias: str, tool_input: dict[str, Any]) -> ToolCall:
    """A call classified as ``alias`` but named as the host names it.

    MCP tools keep the shared ``mcp__server__tool`` spelling: the gate reads
    the server and the verb from it (the host's spelling stays in ``raw``).
    """
    call = build_tool_call(alias, tool_input)
    if not alias.startswith("mcp__"):
        call.name = host_name
    return call
