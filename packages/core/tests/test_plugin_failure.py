"""An installed reflex that cannot be imported must not leave the gate open."""

from __future__ import annotations

import json
from pathlib import Path

from agentreflex.core.hook.runtime import Plugins, run_hook

BROKEN = Plugins(errors=["reflex gate (agentreflex.gate.reflex:GateReflex): ImportError: boom"])


def _payload(tmp: Path, event: str, **extra: object) -> bytes:
    return json.dumps(
        {"session_id": "s", "cwd": str(tmp), "hook_event_name": event, **extra}
    ).encode()


def test_a_broken_reflex_package_blocks_pre_tool_and_says_why(
    tmp_path: Path,
) -> None:
    env = {
        "HOME": str(tmp_path),
        "REFLEX_MODE": "enforced",
        "AGENTREFLEX_STATE_DIR": str(tmp_path / "state"),
    }
    payload = _payload(
        tmp_path, "PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t"
    )
    outcome = run_hook("claude-code", payload, env, plugins=BROKEN)
    answer = json.loads(outcome.reply.stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "could not load" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert "ImportError" in outcome.reply.stderr


def test_a_broken_reflex_package_does_not_block_other_events(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path),
        "REFLEX_MODE": "enforced",
        "AGENTREFLEX_STATE_DIR": str(tmp_path / "state"),
    }
    outcome = run_hook(
        "claude-code", _payload(tmp_path, "Stop", stop_hook_active=False), env, plugins=BROKEN
    )
    assert outcome.reply.stdout == ""
    assert outcome.decision is not None and outcome.decision.verdict.value == "ALLOW"
