"""The gate judges a command against the session's project, wherever its cwd has gone.

Issue #28: ``touch w/.git; cd w`` made ``w`` the project the gate judged
against, so the real project's own files (its ``policies/``) were no longer
the guard's own to it.  The real pipeline (core and the gate), Claude Code's
protocol, the host following the agent's ``cd`` into the next hook's cwd.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from agentreflex.core.hook.runtime import load_plugins, run_hook


def _pre(project: Path, cwd: Path, command: str, tool_id: str) -> Any:
    payload = {
        "session_id": "session-project",
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": tool_id,
    }
    env = {
        "HOME": str(project.parent),
        "REFLEX_MODE": "enforced",
        "CLAUDE_PROJECT_DIR": str(project),
        "AGENTREFLEX_STATE_DIR": str(project.parent / "state"),
    }
    outcome = run_hook("claude-code", json.dumps(payload).encode(), env, plugins=load_plugins())
    return outcome.decision


def test_the_projects_own_files_stay_its_own_from_a_folder_made_a_project(
    tmp_path: Path,
) -> None:
    project = tmp_path / "proj"
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "policies").mkdir()
    (project / "policies" / "routing.toml").write_text("[routes]\n")
    move = "echo 'x = 1' > ../policies/routing.toml"
    assert _pre(project, project, "ls", "t0").verdict.value == "ALLOW"
    (project / "w").mkdir()
    (project / "w" / ".git").touch()
    decision = _pre(project, project / "w", move, "t1")
    assert decision.verdict.value in ("BLOCK", "ASK_USER")
    assert "GATE-SELF-PROTECT" in {f.code for f in decision.findings}
