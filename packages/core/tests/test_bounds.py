"""Huge inputs are cut to what every rule handles quickly, and say so."""

from __future__ import annotations

import json
from pathlib import Path

from agentreflex.core.decision import Verdict
from agentreflex.core.events import Event, EventKind, ToolResult, build_tool_call
from agentreflex.core.hook.runtime import (
    MAX_ANALYSED,
    MAX_OUTPUT_KEPT,
    Plugins,
    bound_event,
    run_hook,
)


def test_a_pre_tool_input_too_large_to_check_asks_the_user(tmp_path: Path) -> None:
    command = "echo " + "a" * (MAX_ANALYSED + 10)
    payload = {
        "session_id": "s",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "t",
    }
    env = {
        "HOME": str(tmp_path),
        "REFLEX_MODE": "enforced",
        "AGENTREFLEX_STATE_DIR": str(tmp_path / "state"),
    }
    outcome = run_hook("claude-code", json.dumps(payload).encode(), env, plugins=Plugins())
    assert outcome.decision is not None
    assert outcome.decision.verdict is Verdict.ASK_USER
    assert outcome.decision.findings[-1].code == "CORE-INPUT-TOO-LARGE"
    answer = json.loads(outcome.reply.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "ask"


def test_tool_output_keeps_its_head_and_tail() -> None:
    output = "START" + "x" * (5 * MAX_OUTPUT_KEPT) + "Error: the real cause"
    event = Event(
        kind=EventKind.POST_TOOL,
        host="claude-code",
        session_id="s",
        tool=build_tool_call("Bash", {"command": "make"}),
        result=ToolResult(ok=False, output=output),
    )
    bound_event(event)
    assert event.result is not None
    kept = event.result.output
    assert len(kept) < 3 * MAX_OUTPUT_KEPT
    assert kept.startswith("START") and kept.endswith("Error: the real cause")
    assert "characters not analysed" in kept
