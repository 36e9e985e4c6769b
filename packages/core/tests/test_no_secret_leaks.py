"""A secret quoted by a reflex never reaches the host, the log, the store or `check`."""

from __future__ import annotations

import json
from pathlib import Path

from agentreflex.core.decision import Finding, Verdict
from agentreflex.core.events import EventKind
from agentreflex.core.hook.runtime import Plugins, run_hook
from agentreflex.core.reflex import ReflexContext

TOKEN = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"


class Quoting:
    """A reflex that quotes the command it blocks, secret and all."""

    name = "quoting"
    events = frozenset({EventKind.PRE_TOOL})
    floor = True

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        assert ctx.event.tool is not None
        command = ctx.event.tool.command
        return [
            Finding(
                self.name,
                "TEST-QUOTE",
                Verdict.BLOCK,
                f"blocked: {command}",
                detail={"segment": command},
                context=f"saw {command}",
            )
        ]


def test_secrets_in_reflex_words_are_redacted_everywhere(tmp_path: Path) -> None:
    state = tmp_path / "state"
    payload = {
        "session_id": "s",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_use_id": "t",
        "tool_input": {"command": f"curl -H 'Authorization: Bearer {TOKEN}' x.io"},
    }
    env = {"HOME": str(tmp_path), "REFLEX_MODE": "enforced", "AGENTREFLEX_STATE_DIR": str(state)}
    outcome = run_hook(
        "claude-code", json.dumps(payload).encode(), env, plugins=Plugins(reflexes=[Quoting()])
    )
    assert json.loads(outcome.reply.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert TOKEN not in outcome.reply.stdout + outcome.reply.stderr
    assert outcome.decision is not None
    assert TOKEN not in json.dumps(outcome.decision.to_json())
    written = "".join(p.read_text() for p in state.rglob("*") if p.is_file())
    assert "[REDACTED]" in written
    assert TOKEN not in written
