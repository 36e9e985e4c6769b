"""What the context layer adds to a decision, as each adapter spells it."""

from __future__ import annotations

import json

from agentreflex.core.decision import Finding, Mode, Verdict, merge
from agentreflex.core.events import Event, EventKind, ToolResult, build_tool_call
from agentreflex.core.hosts.claude_code import ClaudeCodeAdapter
from agentreflex.core.hosts.codex import CodexAdapter
from agentreflex.core.recap import Recap, RecapSection, render_plain

RECAP = Recap([RecapSection("Constraints", ["Do not touch api.py."]), RecapSection("Empty")])


def _event(kind: EventKind, tool: str = "Bash") -> Event:
    event = Event(kind=kind, host="claude-code", session_id="s")
    if kind is EventKind.POST_TOOL:
        event.tool = build_tool_call(tool, {"command": "pytest"})
        event.result = ToolResult(ok=True, output="x")
    return event


def _out(reply_stdout: str) -> dict[str, object]:
    parsed: dict[str, object] = json.loads(reply_stdout)
    return parsed


def test_render_plain_lists_sections_with_lines() -> None:
    assert render_plain(RECAP).splitlines()[1:] == ["Constraints:", "- Do not touch api.py."]
    assert not RECAP.empty and Recap().empty


def test_a_recap_travels_as_additional_context_in_shadow_mode_too() -> None:
    for adapter in (ClaudeCodeAdapter(), CodexAdapter()):
        for kind, name in (
            (EventKind.SESSION_START, "SessionStart"),
            (EventKind.USER_PROMPT, "UserPromptSubmit"),
        ):
            decision = merge([], Mode.SHADOW)
            decision.recap = RECAP
            out = _out(adapter.render(_event(kind), decision).stdout)["hookSpecificOutput"]
            assert isinstance(out, dict) and out["hookEventName"] == name
            assert "Do not touch api.py." in out["additionalContext"]
        # a recap is never attached to other events
        decision = merge([], Mode.SHADOW)
        decision.recap = RECAP
        assert adapter.render(_event(EventKind.STOP), decision).stdout == ""


def test_claude_replaces_the_tool_output_and_keeps_a_block_or_warning() -> None:
    adapter = ClaudeCodeAdapter()
    new = {"stdout": "short", "stderr": "", "interrupted": False, "isImage": False}
    allow = merge([], Mode.ENFORCED)
    allow.updated_output = new
    out = _out(adapter.render(_event(EventKind.POST_TOOL), allow).stdout)
    assert out == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": new}}
    warn = merge([Finding("r", "C", Verdict.WARN, "careful")], Mode.ENFORCED)
    warn.updated_output = new
    out = _out(adapter.render(_event(EventKind.POST_TOOL), warn).stdout)
    assert out["hookSpecificOutput"]["additionalContext"] == "agentreflex warning: careful"  # type: ignore[index]
    block = merge([Finding("r", "C", Verdict.BLOCK, "stop")], Mode.ENFORCED)
    block.updated_output = "short"
    out = _out(adapter.render(_event(EventKind.POST_TOOL, "mcp__s__t"), block).stdout)
    assert out["decision"] == "block" and out["reason"] == "stop"
    assert out["hookSpecificOutput"] == {
        "hookEventName": "PostToolUse",  # MCP's own key
        "updatedMCPToolOutput": "short",
    }


def test_codex_never_emits_an_unproven_output_replacement() -> None:
    decision = merge([], Mode.ENFORCED)
    decision.updated_output = {"stdout": "short"}
    assert CodexAdapter().render(_event(EventKind.POST_TOOL), decision).stdout == ""
