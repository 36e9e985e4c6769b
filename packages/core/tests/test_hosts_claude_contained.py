"""Claude Code with its own sandbox off: the hook puts each Bash command in agentreflex's boundary.

PreToolUse answers ``updatedInput`` (Claude Code 2.1 runs the tool with it, also
from hooks in the settings files: ``integration-tests/test_claude_code_install.py``);
PostToolUse reads the command back as the agent wrote it.  Where Claude Code's
sandbox is on it does that job and the command is left as it is, unless the agent
reran it with ``dangerouslyDisableSandbox``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.contain import boundary as contain
from agentreflex.core.decision import Decision, Finding, Mode, Verdict
from agentreflex.core.hosts.claude_code import ClaudeCodeAdapter


@pytest.fixture(autouse=True)
def engine() -> None:
    if contain.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does)")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / ".agentreflex").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return root


def pre(project: Path, tool: str = "Bash", **tool_input: Any) -> dict[str, Any]:
    return {
        "session_id": "c-1",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "t1",
        "permission_mode": "bypassPermissions",
    }


def allowed(mode: Mode = Mode.ENFORCED, warn: str = "") -> Decision:
    findings = [Finding("gate", "T", Verdict.WARN, warn)] if warn else []
    verdict = Verdict.WARN if warn else Verdict.ALLOW
    return Decision(verdict=verdict, proposed=verdict, mode=mode, findings=findings)


def answer(project: Path, decision: Decision, **tool_input: Any) -> dict[str, Any]:
    adapter = ClaudeCodeAdapter()
    reply = adapter.render(adapter.parse(pre(project, **tool_input)), decision)
    return json.loads(reply.stdout) if reply.stdout else {}


def test_an_allowed_bash_command_runs_in_the_boundary(project: Path) -> None:
    out = answer(project, allowed(), command="make", description="build")["hookSpecificOutput"]
    assert set(out) == {"hookEventName", "updatedInput"}  # no permission decision: Claude's own
    assert out["updatedInput"]["description"] == "build"  # the tool's other arguments kept
    assert contain.inner_command(out["updatedInput"]["command"]) == "make"
    warned = answer(project, allowed(warn="careful"), command="make")["hookSpecificOutput"]
    assert "careful" in warned["additionalContext"] and "updatedInput" in warned


def test_shadow_mode_and_other_tools_are_left_as_they_are(project: Path) -> None:
    assert answer(project, allowed(Mode.SHADOW), command="make") == {}


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan", "auto", "dontAsk", None])
def test_where_claude_matches_permission_rules_the_command_is_left_as_written(
    project: Path, mode: str | None
) -> None:
    """Claude Code matches the user's rules (``Bash(npm test:*)``) against the command it
    runs: a replacement would make every allowed command ask (seen in 2.1.328)."""
    adapter = ClaudeCodeAdapter()
    payload = {**pre(project, command="make"), "permission_mode": mode}
    assert adapter.render(adapter.parse(payload), allowed()).stdout == ""
    adapter = ClaudeCodeAdapter()
    read = adapter.parse(pre(project, "Read", file_path=str(project / "a")))
    assert adapter.render(read, allowed()).stdout == ""


@pytest.mark.parametrize(
    "where", ["claude-config/settings.json", "proj/.claude/settings.local.json"]
)
def test_claudes_own_sandbox_does_the_job_unless_the_agent_turned_it_off(
    project: Path, where: str
) -> None:
    settings = project.parent / where
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"sandbox": {"enabled": true}}')
    assert answer(project, allowed(), command="make") == {}
    rerun = answer(project, allowed(), command="make", dangerouslyDisableSandbox=True)
    assert contain.inner_command(rerun["hookSpecificOutput"]["updatedInput"]["command"]) == "make"
    settings.write_text('{"sandbox": {"enabled": false}, "x": [')  # unreadable: not on
    assert "updatedInput" in answer(project, allowed(), command="make")["hookSpecificOutput"]


def test_after_the_tool_the_reflexes_read_the_agents_own_command(project: Path) -> None:
    wrapped = contain.rewrite("pytest -q", str(project))
    payload = {
        **pre(project, command=wrapped, description="d"),
        "hook_event_name": "PostToolUse",
        "tool_response": {"stdout": "1 passed", "stderr": "", "interrupted": False},
    }
    post = ClaudeCodeAdapter().parse(payload)
    assert post.tool is not None and post.tool.input["command"] == "pytest -q"
    assert post.tool.input["description"] == "d"


def test_without_the_engine_the_command_runs_as_written_and_says_so(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    adapter = ClaudeCodeAdapter()
    reply = adapter.render(adapter.parse(pre(project, command="make")), allowed())
    assert reply.stdout == "" and "not contained" in reply.stderr


@pytest.mark.parametrize(
    "where",
    [
        "claude-config/settings.json",
        "proj/.claude/settings.json",
        "proj/.claude/settings.local.json",
    ],
)
def test_the_hook_and_doctor_read_claudes_sandbox_from_the_same_files(
    project: Path, where: str
) -> None:
    """One list of Claude Code's settings files: where the hook leaves a command to
    Claude's sandbox, doctor says that sandbox contains it (or why not)."""
    from agentreflex.core.install.sandbox import claude_contained

    env = dict(os.environ)
    assert claude_contained(str(project), env)[0] is False
    settings = project.parent / where
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"sandbox": {"enabled": true, "allowUnsandboxedCommands": false}}')
    assert answer(project, allowed(), command="make") == {}
    contained, why = claude_contained(str(project), env)
    assert contained is True and str(settings) in why


def test_the_settings_claude_reads_first_decide(project: Path) -> None:
    """A project's local file that allows unsandboxed retries outranks the user's strict one."""
    from agentreflex.core.install.sandbox import claude_contained

    user = project.parent / "claude-config" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text('{"sandbox": {"enabled": true, "allowUnsandboxedCommands": false}}')
    local = project / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text('{"sandbox": {"enabled": true}}')
    contained, why = claude_contained(str(project), dict(os.environ))
    assert contained is False and "settings.local.json lets a refused command retry" in why
