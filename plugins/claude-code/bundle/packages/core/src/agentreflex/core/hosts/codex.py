"""Codex CLI command hooks: Claude-compatible payloads, stricter answers.

Codex validates hook output against schemas with ``additionalProperties:
false`` and rejects ``permissionDecision: "ask"``; a rejected answer marks the
hook as failed and the tool runs.  So this adapter emits only the fields
Codex accepts, and turns ASK_USER into a deny whose reason tells the agent to
ask the user.  Codex normalises its shell tools to ``tool_name: "Bash"`` and
patches to ``apply_patch`` with the body in ``tool_input.command``.
"""

from __future__ import annotations

from agentreflex.core.decision import Decision, Verdict
from agentreflex.core.events import Event, EventKind, ToolKind
from agentreflex.core.hosts import UNCHECKED_STDIN
from agentreflex.core.hosts.base import HostReply, cap, default_reason, dump_json
from agentreflex.core.hosts.claude_code import EVENTS, HOST_NAMES, parse_claude_style
from agentreflex.core.recap import Recap, render_plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_CONTEXT_EVENTS = (
    EventKind.PRE_TOOL,
    EventKind.POST_TOOL,
    EventKind.USER_PROMPT,
    EventKind.SESSION_START,
)
_RECAP_EVENTS = (EventKind.SESSION_START, EventKind.USER_PROMPT)
_BLOCKABLE = (EventKind.STOP, EventKind.SUBAGENT_STOP, EventKind.POST_TOOL, EventKind.USER_PROMPT)


# Codex's own tool names (codex-rs tools): its shells, images and sub-agents.
TOOL_KINDS: dict[str, ToolKind] = {
    "shell": ToolKind.SHELL,
    "exec_command": ToolKind.SHELL,
    "write_stdin": ToolKind.SHELL,
    "local_shell": ToolKind.SHELL,
    "view_image": ToolKind.READ,
    "read_file": ToolKind.READ,
    "web_search": ToolKind.WEB,
    "spawn_agent": ToolKind.SUBAGENT,
}


def _with_recorded_exit(event: Event) -> None:
    """A shell result's exit status, from the rollout Codex wrote before this hook ran:
    the hook's ``tool_response`` is the output alone (``codex_sessions``)."""
    result, tool = event.result, event.tool
    if result is None or tool is None or tool.kind is not ToolKind.SHELL:
        return
    if result.exit_code is not None:
        return
    import os

    from agentreflex.core.hosts.codex_sessions import command_exit_code

    code = command_exit_code(event.transcript_path, tool.tool_use_id, os.environ)
    if code is not None:
        result.exit_code = code
        result.ok = code == 0


class CodexAdapter:
    name = "codex"
    tools = TOOL_KINDS
    containment = "agentreflex.core.install.codex_sandbox:codex_contained"  # its own sandbox
    project_settings = (".codex",)
    events = EVENTS
    # hooks are usually registered without an event argument and a failed hook
    # is ignored: an unreadable payload is taken for a proposed tool call
    unknown_event: EventKind | None = EventKind.PRE_TOOL
    traits = frozenset({UNCHECKED_STDIN})  # write_stdin runs no hook

    def parse(self, payload: dict[str, Any]) -> Event:
        event = parse_claude_style(payload, self.name, TOOL_KINDS)
        if event.kind is EventKind.POST_TOOL:
            _with_recorded_exit(event)
        return event

    def render_recap(self, recap: Recap) -> str:
        """The session recap as Codex shows it (``additionalContext``).

        Codex's shortened tool output (``updatedToolOutput``) is not emitted:
        it has not been proven against a real Codex, so the context layer's
        saver stays off there (``Decision.updated_output`` is ignored).
        """
        return render_plain(recap)

    def render(self, event: Event, decision: Decision) -> HostReply:
        verdict = decision.verdict
        reason = cap(default_reason(decision))
        if verdict is Verdict.ASK_USER:
            reason = cap("Needs the user's approval before it runs; ask the user. " + reason)
        if event.kind is EventKind.PRE_TOOL and verdict in (Verdict.BLOCK, Verdict.ASK_USER):
            return HostReply(
                dump_json(
                    {
                        "hookSpecificOutput": {
                            "hookEventName": "PreToolUse",
                            "permissionDecision": "deny",
                            "permissionDecisionReason": reason,
                        }
                    }
                )
            )
        if event.kind in _BLOCKABLE and verdict in (Verdict.BLOCK, Verdict.ASK_USER):
            return HostReply(dump_json({"decision": "block", "reason": reason}))
        parts = list(decision.context)
        if decision.recap is not None and event.kind in _RECAP_EVENTS:
            parts.insert(0, self.render_recap(decision.recap))
        context = "\n".join(parts)
        if event.kind in _CONTEXT_EVENTS and (verdict is Verdict.WARN or context):
            text = cap(context or f"agentreflex warning: {reason}")
            return HostReply(
                dump_json(
                    {
                        "hookSpecificOutput": {
                            "hookEventName": HOST_NAMES[event.kind],
                            "additionalContext": text,
                        }
                    }
                )
            )
        if verdict is Verdict.WARN:
            return HostReply(dump_json({"systemMessage": cap(f"agentreflex: {reason}")}))
        return HostReply()

    def render_error(self, kind: EventKind | None, message: str, fail_closed: bool) -> HostReply:
        text = cap(f"agentreflex error: {message}")
        if fail_closed and kind is EventKind.PRE_TOOL:
            return HostReply(
                dump_json(
                    {
                        "hookSpecificOutput": {
                            "hookEventName": "PreToolUse",
                            "permissionDecision": "deny",
                            "permissionDecisionReason": text + " (failing closed)",
                        }
                    }
                ),
                text + "\n",
                0,
            )
        return HostReply(dump_json({"systemMessage": text}), text + "\n", 0)
