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
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentreflex.core.hook import runtime
from agentreflex.core.testing import daemon_env, daemon_probe, serve_daemon


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
    time.sleep(1.2 + runtime._BACKSTOP_AFTER)  # past the signal's backstop: nothing fires


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


MANY = {"path": "x", "paths": [f"p{i}" for i in range(30000)]}  # ~25 s of the gate's checks


def test_the_floors_stop_in_time_without_the_signal(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate checks the reflexes' deadline itself: the main thread's signal may land in a
    garbage collector's callback, where its exception is swallowed and the gate goes on."""
    monkeypatch.setattr(runtime, "FLOOR_HARD_LIMIT", 1.0, raising=False)
    monkeypatch.setattr(runtime, "_floor_timer", lambda limit: None)  # no signal at all
    answer, took = _pre(project, "mcp__fs__write_file", MANY)
    assert '"permissionDecision": "deny"' in answer and "OutOfTime" in answer, answer
    assert took < 8, took


def test_the_wait_for_a_daemon_counts_against_the_reflexes(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook that waited for a daemon that did not answer gives its reflexes that much less,
    so the wait, the reflexes and the work tree's look together stay inside the host's 30 s."""
    monkeypatch.setattr(runtime, "FLOOR_HARD_LIMIT", 8.0, raising=False)
    payload = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project)}
    payload |= {"tool_name": "mcp__fs__write_file", "tool_input": MANY}
    started = time.monotonic()
    outcome = runtime.run_hook(
        "claude-code", json.dumps(payload).encode(), event_hint="PreToolUse", spent=7.0
    )
    took = time.monotonic() - started
    assert "OutOfTime" in outcome.reply.stdout and "within 1 s" in outcome.reply.stdout
    assert took < 6, took  # 1 s left of the 8, not 8


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Path]:
    yield from serve_daemon(tmp_path)


def test_the_warm_daemon_stops_the_floors_in_time(tmp_path: Path, daemon: Path) -> None:
    """A real daemon answers on a thread of its own, where no signal arrives: its floors
    stop at their deadline (lowered in the hook's environment, which the client forwards)."""
    project = tmp_path / "project"
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = dict(daemon_env(tmp_path), AGENTREFLEX_FLOOR_LIMIT="1")
    payload = {"session_id": "bounded", "cwd": str(project), "hook_event_name": "PreToolUse"}
    payload |= {"tool_name": "mcp__fs__write_file", "tool_input": MANY, "tool_use_id": "t1"}
    answer = daemon_probe(tmp_path, json.dumps(payload).encode(), 120.0, env)
    assert answer["answered"], answer  # the daemon answered, not the client
    assert '"permissionDecision": "deny"' in answer["out"], answer
    assert "OutOfTime" in answer["out"], answer
    assert answer["seconds"] < 8, answer


def test_a_hook_that_gave_up_on_the_daemon_has_less_time_left(tmp_path: Path, daemon: Path) -> None:
    """The hook waits 5 s for a daemon busy past it, then evaluates the call itself: its
    reflexes get what is left of theirs, so that the wait, the reflexes and the look stay
    inside the host's 30 s together."""
    from agentreflex.core.hook.client import TIMEOUT
    from agentreflex.core.testing import AGENTREFLEX_BIN

    project = tmp_path / "project"
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    limit = TIMEOUT + 2  # the daemon is still at it when the hook gives up waiting
    env = dict(daemon_env(tmp_path), AGENTREFLEX_FLOOR_LIMIT=str(limit))
    payload = {"session_id": "waited", "cwd": str(project), "hook_event_name": "PreToolUse"}
    payload |= {"tool_name": "mcp__fs__write_file", "tool_input": MANY, "tool_use_id": "t2"}
    started = time.monotonic()
    done = subprocess.run(
        [AGENTREFLEX_BIN, "hook", "claude-code", "PreToolUse"],
        input=json.dumps(payload).encode(),
        env=env,
        capture_output=True,
        timeout=120,
        check=True,
    )
    took = time.monotonic() - started
    reason = json.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    given = float(reason.partition("OutOfTime: no answer within ")[2].split(" s")[0])
    assert given < limit - TIMEOUT + 0.5, reason  # the wait was taken off
    assert took < TIMEOUT + limit, took
