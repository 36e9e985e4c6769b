"""Gemini CLI and Copilot CLI through the real CLI with every reflex: the gate blocks, the
user's constraint is kept and recalled.

Moved from ``packages/core/tests/test_hosts_gemini_copilot.py`` (which tests the
adapters' payloads and answers with core alone); the payload shapes are cited there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.testing import copilot_payload as cop
from agentreflex.core.testing import gemini_payload as gem


def _hook(
    project: Path,
    state: Path,
    host: str,
    event: str,
    payload: dict[str, Any],
    **extra_env: str,
) -> dict[str, Any]:
    env = dict(os.environ, AGENTREFLEX_STATE_DIR=str(state), HOME=str(project.parent / "home"))
    env.update(extra_env)
    payload = {
        k: v for k, v in payload.items() if not (host == "copilot" and k == "hook_event_name")
    }
    done = subprocess.run(
        [sys.executable, "-m", "agentreflex.core.cli", "hook", host, event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def _inner(command: str) -> str:
    """How Gemini's contained line starts ``command`` (the host's shell runs bwrap, bwrap this)."""
    import shlex
    import shutil

    return shlex.join([shutil.which("bash") or "/bin/sh", "-c", command])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".agentreflex").mkdir(parents=True)
    (root / "tests").mkdir()
    (tmp_path / "home").mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
    return root


def test_gemini_hook_blocks_rm_home_and_keeps_the_users_constraint(
    project: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    cwd = str(project)
    deny = _hook(
        project,
        state,
        "gemini",
        "BeforeTool",
        gem(
            "BeforeTool",
            cwd=cwd,
            tool_name="run_shell_command",
            tool_input={"command": "rm -rf ~/"},
        ),
    )
    assert deny["decision"] == "deny" and "GATE-RM-ROOT" in deny["reason"]
    listing = gem(
        "BeforeTool", cwd=cwd, tool_name="run_shell_command", tool_input={"command": "ls -la"}
    )
    contained = _hook(project, state, "gemini", "BeforeTool", listing)["hookSpecificOutput"]
    assert set(contained) == {"hookEventName", "tool_input"}  # allowed, and contained
    assert contained["tool_input"]["command"].split(" -- ")[1].startswith(_inner("ls -la"))
    _hook(
        project,
        state,
        "gemini",
        "BeforeAgent",
        gem("BeforeAgent", cwd=cwd, prompt="Fix the parser. Do not modify tests."),
    )
    edit = {"file_path": f"{cwd}/tests/test_p.py", "old_string": "a", "new_string": "b"}
    blocked = _hook(
        project,
        state,
        "gemini",
        "BeforeTool",
        gem("BeforeTool", cwd=cwd, tool_name="replace", tool_input=edit),
    )
    assert blocked["decision"] == "deny" and "do not modify tests" in blocked["reason"].lower()
    start = _hook(
        project, state, "gemini", "SessionStart", gem("SessionStart", cwd=cwd, source="resume")
    )
    assert "do not modify tests" in start["hookSpecificOutput"]["additionalContext"].lower()


def test_copilot_hook_blocks_rm_home_and_keeps_the_users_constraint(
    project: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    cwd = str(project)
    deny = _hook(
        project,
        state,
        "copilot",
        "preToolUse",
        cop("preToolUse", cwd=cwd, toolName="bash", toolArgs=json.dumps({"command": "rm -rf ~/"})),
    )
    assert (
        deny["permissionDecision"] == "deny" and "GATE-RM-ROOT" in deny["permissionDecisionReason"]
    )
    listing = cop("preToolUse", cwd=cwd, toolName="bash", toolArgs='{"command": "ls", "x": 1}')
    # Copilot asks about, or matches allowed tools against, what it runs: left as written
    assert _hook(project, state, "copilot", "preToolUse", listing) == {}
    contained = _hook(project, state, "copilot", "preToolUse", listing, COPILOT_ALLOW_ALL="yes")
    assert set(contained) == {"modifiedArgs"}  # allowed, and contained
    assert contained["modifiedArgs"]["x"] == 1  # the tool's other arguments kept
    # a lone plain command: bwrap starts it itself, no shell inside (contain/direct.py)
    assert contained["modifiedArgs"]["command"].split(" -- ")[1].startswith("ls 9< ")
    _hook(
        project,
        state,
        "copilot",
        "userPromptSubmitted",
        cop("userPromptSubmitted", cwd=cwd, prompt="Fix it. Do not modify tests."),
    )
    args = json.dumps({"path": f"{cwd}/tests/test_p.py", "file_text": "x"})
    blocked = _hook(
        project,
        state,
        "copilot",
        "preToolUse",
        cop("preToolUse", cwd=cwd, toolName="create", toolArgs=args),
    )
    assert blocked["permissionDecision"] == "deny"
    assert "do not modify tests" in blocked["permissionDecisionReason"].lower()
