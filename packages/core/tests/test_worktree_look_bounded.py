"""The work tree's look gives up in time, so the hook still answers with the boundary (red-team rt70).

The look before a shell command (change facts, the snapshot for undo) reads every
file ``git status`` lists, and a contained command may leave as many as it likes in
the project: a million empty files made the next PreToolUse take 47 s, past the
30 s the hosts are installed with.  A hook the host stops answers nothing, and
Gemini CLI and Copilot CLI then run the command as written, outside the boundary.
The look is given up past ``runtime.WORKTREE_LIMIT`` (lowered here, so that a few
thousand files stand for the million) and the answer carries the contained line.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.contain import boundary, pidns
from agentreflex.core.hook import runtime
from agentreflex.core.hook.runtime import Plugins, run_hook
from agentreflex.core.testing import daemon_env, daemon_probe, serve_daemon


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "proj"
    (root / ".agentreflex").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".agentreflex" / "config.toml").write_text("mode = 'enforced'\n")
    (root / "app.py").write_text("print('hi')\n")
    yield root
    pidns.stop()


def _hook(project: Path, event: str, command: str, **more: Any) -> tuple[dict[str, Any], str]:
    payload = {
        "session_id": "bounded",
        "transcript_path": str(project / "chat.json"),
        "cwd": str(project),
        "hook_event_name": event,
        "timestamp": "2026-12-07T05:00:00.000Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command},
        **more,
    }
    env = dict(os.environ, REFLEX_MODE="enforced")
    outcome = run_hook("gemini", json.dumps(payload).encode(), env, plugins=Plugins())
    reply = json.loads(outcome.reply.stdout) if outcome.reply.stdout.strip() else {}
    return reply, outcome.reply.stderr


def _contained(project: Path, command: str) -> tuple[str, str]:
    """One shell call the way Gemini CLI makes it: the line the hook gave back, run by bash."""
    reply, said = _hook(project, "BeforeTool", command)
    line = reply.get("hookSpecificOutput", {}).get("tool_input", {}).get("command", "")
    assert boundary.inner_command(line) is not None, f"not contained: {reply} {said}"
    done = subprocess.run(["bash", "-c", line], cwd=project, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    response = {"llmContent": done.stdout.decode(errors="replace"), "returnDisplay": ""}
    _hook(project, "AfterTool", line, tool_response=response)
    return line, said


def test_a_work_tree_too_big_to_look_at_in_time_still_gets_the_boundary(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if boundary.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does)")
    _contained(project, "true")
    # the move: leave more files than the look can read in its time
    _contained(
        project,
        "for i in $(seq 1 60); do mkdir -p d/$i && (cd d/$i && seq 1 1000 | xargs touch); done",
    )
    monkeypatch.setattr(runtime, "WORKTREE_LIMIT", 0.2, raising=False)
    line, said = _contained(project, "echo next")
    assert "work tree not observed" in said, said
    assert "7< /proc/" in line  # and in the project's pid namespace, as every command


def _many_files(project: Path, folders: int = 40) -> None:
    """A thousand empty files a folder: more than the look reads in a lowered limit."""
    for i in range(folders):
        folder = project / "d" / str(i)
        folder.mkdir(parents=True)
        for j in range(1000):
            (folder / str(j)).touch()


def test_the_look_is_bounded_on_a_thread_with_no_timer(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm daemon answers each hook on a thread, where no SIGALRM arrives: the look
    checks its deadline itself (before each git it runs, between files)."""
    _many_files(project)
    monkeypatch.setattr(runtime, "WORKTREE_LIMIT", 0.2, raising=False)
    said: list[str] = []
    worker = threading.Thread(target=lambda: said.append(_hook(project, "BeforeTool", "ls")[1]))
    worker.start()
    worker.join(120)
    assert said and "work tree not observed" in said[0], said


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Path]:
    yield from serve_daemon(tmp_path)


def test_the_warm_daemon_gives_up_the_look_in_time(tmp_path: Path, daemon: Path) -> None:
    """A real daemon, a project of 40 000 files, the limit lowered in the hook's environment
    (forwarded to the daemon, as the client forwards every AGENTREFLEX_ variable)."""
    project = tmp_path / "project"
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    _many_files(project)
    env = dict(daemon_env(tmp_path), AGENTREFLEX_WORKTREE_LIMIT="0.2")
    payload = {
        "session_id": "bounded",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_bounded",
    }
    started = time.monotonic()
    answer = daemon_probe(tmp_path, json.dumps(payload).encode(), 120.0, env)
    assert answer["answered"], answer  # the daemon answered, not the client
    assert "work tree not observed" in answer["err"], answer
    assert time.monotonic() - started < 60
