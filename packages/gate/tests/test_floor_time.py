"""A proposed call the floors can't judge before the host gives up fails closed (red-team rt36).

A host stops a hook that runs past its timeout (30 s as installed for Claude Code)
and then runs the tool: an MCP call naming 30 000 paths kept the gate busy for
40 s, and the call went through.  The reflexes now have a hard limit, after which
the floors answer "could not be evaluated" (closed).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from agentreflex.core.hook import runtime


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / ".agentreflex").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AGENTREFLEX_DAEMON", "off")
    monkeypatch.setenv("AGENTREFLEX_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.chdir(root)
    return root


def _pre(project: Path, tool: str, tool_input: dict[str, object]) -> tuple[str, float]:
    payload = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project)}
    payload |= {"tool_name": tool, "tool_input": tool_input}
    started = time.monotonic()
    outcome = runtime.run_hook("claude-code", json.dumps(payload).encode(), event_hint="PreToolUse")
    return outcome.reply.stdout, time.monotonic() - started


def test_floors_out_of_time_fail_closed(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "FLOOR_HARD_LIMIT", 1.0, raising=False)
    many = {"path": "x", "paths": [f"p{i}" for i in range(30000)]}
    answer, took = _pre(project, "mcp__fs__write_file", many)
    assert '"permissionDecision": "deny"' in answer and "OutOfTime" in answer, answer
    assert took < 10, took
    # an ordinary call is untouched, and leaves no timer behind
    answer, _ = _pre(project, "Bash", {"command": "ls -la"})
    assert "deny" not in answer
    time.sleep(1.2)


def test_a_timer_already_set_runs_on(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test runner's (pytest-timeout's) alarm is neither taken nor cancelled."""
    import signal

    fired: list[int] = []

    def theirs(*_: object) -> None:
        fired.append(1)

    previous = signal.signal(signal.SIGALRM, theirs)
    try:
        signal.setitimer(signal.ITIMER_REAL, 3.0)
        _pre(project, "Bash", {"command": "ls -la"})
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < left <= 3.0
        assert signal.getsignal(signal.SIGALRM) is theirs
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not fired
