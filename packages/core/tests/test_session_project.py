"""A hook call belongs to its session's project, never to the nearest ``.git`` above its cwd.

Issue #28: ``touch w/.git; cd w`` made ``w`` a fresh project, with no enforced
configuration: Claude Code follows a ``cd`` into its next hook's ``cwd``, and
the hook then ran in shadow mode for the rest of the session.  These run the
real hook (core alone) on real folders; the contained command is run by bash
with the real boundary.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.contain import boundary
from agentreflex.core.decision import Mode
from agentreflex.core.events import Event, EventKind
from agentreflex.core.hook import sessionproject
from agentreflex.core.hook.runtime import HookOutcome, Plugins, run_hook
from agentreflex.core.state import userdirs

ENFORCED = "mode = 'enforced'\n"


def _env(tmp_path: Path, **more: str) -> dict[str, str]:
    """The hook's environment: no mode of its own, so the project's file decides."""
    home = tmp_path / "home"
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "AGENTREFLEX_DAEMON": "off",
        "PATH": os.environ["PATH"],
        **more,
    }


def _repo(root: Path) -> Path:
    """A git repository whose own configuration enforces."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".agentreflex").mkdir()
    (root / ".agentreflex" / "config.toml").write_text(ENFORCED)
    return root


def _claude(env: dict[str, str], cwd: Path, command: str, session: str = "s1") -> HookOutcome:
    payload = {
        "session_id": session,
        "transcript_path": "",
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": f"t{abs(hash((str(cwd), command)))}",
        "permission_mode": "default",
    }
    return run_hook("claude-code", json.dumps(payload).encode(), env, plugins=Plugins())


def _gemini(env: dict[str, str], cwd: Path, command: str, session: str = "s1") -> dict[str, Any]:
    payload = {
        "session_id": session,
        "transcript_path": "",
        "cwd": str(cwd),
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-05T08:00:00.000Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command},
    }
    outcome = run_hook("gemini", json.dumps(payload).encode(), env, plugins=Plugins())
    reply: dict[str, Any] = json.loads(outcome.reply.stdout) if outcome.reply.stdout else {}
    return reply


def _mode(outcome: HookOutcome) -> Mode:
    assert outcome.decision is not None, outcome.error
    return outcome.decision.mode


def test_a_git_made_below_and_moved_into_leaves_the_session_enforced(tmp_path: Path) -> None:
    project = _repo(tmp_path / "proj")
    env = _env(tmp_path, CLAUDE_PROJECT_DIR=str(project))
    assert _mode(_claude(env, project, "ls")) is Mode.ENFORCED
    (project / "w").mkdir()
    (project / "w" / ".git").touch()  # the agent's `touch w/.git; cd w`
    later = _claude(env, project / "w", "ls")
    assert _mode(later) is Mode.ENFORCED
    assert later.event is not None and later.event.project == str(project)


def test_a_git_made_in_the_folder_the_host_started_in_changes_nothing(tmp_path: Path) -> None:
    """Launched in a subfolder of the repository: the repository's configuration applies, and
    a ``.git`` the agent makes in that very folder does not make it a project of its own."""
    repo = _repo(tmp_path / "repo")
    sub = repo / "packages" / "app"
    sub.mkdir(parents=True)
    env = _env(tmp_path, CLAUDE_PROJECT_DIR=str(sub))
    assert _mode(_claude(env, sub, "ls")) is Mode.ENFORCED
    (sub / ".git").touch()
    assert _mode(_claude(env, sub, "ls")) is Mode.ENFORCED
    # a new session starts from what is there now: the record is per session
    assert _mode(_claude(env, sub, "ls", session="s2")) is Mode.SHADOW


def test_without_a_reported_folder_the_first_calls_cwd_is_remembered(tmp_path: Path) -> None:
    project = _repo(tmp_path / "proj")
    env = _env(tmp_path)
    assert _mode(_claude(env, project, "ls")) is Mode.ENFORCED
    (project / "w").mkdir()
    (project / "w" / ".git").touch()
    assert _mode(_claude(env, project / "w", "ls")) is Mode.ENFORCED
    records = Path(userdirs.user_state_dir(env), sessionproject.FOLDER)
    assert [p.read_text() for p in records.iterdir()] == [f"{project}\0{project}"]
    assert not list(project.rglob(sessionproject.FOLDER))  # outside the project


def test_a_call_without_a_session_finds_its_project_from_its_folder(tmp_path: Path) -> None:
    """Nothing to remember it by: the nearest marker at or above its folder, as before."""
    project = _repo(tmp_path / "proj")
    (project / "w").mkdir()
    (project / "w" / ".git").touch()
    env = _env(tmp_path)
    for cwd in (project, project / "w"):
        event = Event(kind=EventKind.PRE_TOOL, host="codex", session_id="", cwd=str(cwd))
        assert sessionproject.session_project(None, event, env) == (str(cwd), str(cwd))
    assert not Path(userdirs.user_state_dir(env), sessionproject.FOLDER).exists()


@pytest.mark.parametrize("planted", ["fifo", "garbage", "folder gone", "relative", "huge"])
def test_a_record_that_is_not_one_is_found_again(tmp_path: Path, planted: str) -> None:
    """What sits at the record's place is never waited on (a FIFO) nor believed."""
    project = _repo(tmp_path / "proj")
    env = _env(tmp_path)
    _claude(env, project, "ls")
    (record,) = Path(userdirs.user_state_dir(env), sessionproject.FOLDER).iterdir()
    record.unlink()
    if planted == "fifo":
        os.mkfifo(record)
    else:
        text = {
            "garbage": "\x00\xff",
            "folder gone": str(tmp_path / "gone"),
            "relative": "proj",
            "huge": "/" * 10_000,
        }[planted]
        record.write_bytes(text.encode("utf-8", "surrogatepass"))
    assert _mode(_claude(env, project, "ls")) is Mode.ENFORCED


def test_the_records_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sessionproject, "KEEP", 3)
    project = _repo(tmp_path / "proj")
    env = _env(tmp_path)
    for n in range(6):
        _claude(env, project, "ls", session=f"s{n}")
    assert len(list(Path(userdirs.user_state_dir(env), sessionproject.FOLDER).iterdir())) == 3


def test_the_boundary_of_a_call_from_below_is_the_sessions_project(tmp_path: Path) -> None:
    """Gemini CLI's protocol, the command run by bash as the host would: from ``w``, the
    project's own ``.agentreflex`` stays read-only (the project sits under /tmp, which the
    boundary leaves writable, so only the project's entries hold it)."""
    if boundary.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does)")
    project = _repo(tmp_path / "proj")
    env = _env(tmp_path, GEMINI_PROJECT_DIR=str(project))
    assert "hookSpecificOutput" in _gemini(env, project, "ls")
    (project / "w").mkdir()
    (project / "w" / ".git").touch()
    move = "echo \"mode = 'off'\" > ../.agentreflex/config.toml"
    reply = _gemini(env, project / "w", move)
    line = reply["hookSpecificOutput"]["tool_input"]["command"]
    assert boundary.inner_command(line) == move
    subprocess.run(["bash", "-c", line], cwd=project / "w", env=env, capture_output=True)
    assert (project / ".agentreflex" / "config.toml").read_text() == ENFORCED


def test_the_boundary_keeps_the_folder_the_host_started_in(tmp_path: Path) -> None:
    """Started in a subfolder of a repository: the repository's configuration applies, and the
    boundary keeps that folder writable, not the whole repository (as the hosts' own sandboxes
    keep the folder they started in), wherever the agent's ``cd`` took the next call."""
    if boundary.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does)")
    repo = _repo(tmp_path / "home" / "repo")  # in home: /tmp, where tests run, is writable
    sub = repo / "packages" / "app"
    (sub / "w").mkdir(parents=True)
    env = _env(tmp_path, GEMINI_PROJECT_DIR=str(sub))
    (sub / "w" / ".git").touch()
    move = "echo x > ../../../README.md; echo y > ../notes.txt"
    reply = _gemini(env, sub / "w", move)
    line = reply["hookSpecificOutput"]["tool_input"]["command"]
    subprocess.run(["bash", "-c", line], cwd=sub / "w", env=env, capture_output=True)
    assert not (repo / "README.md").exists()  # outside the folder the host started in
    assert (sub / "notes.txt").read_text() == "y\n"  # inside it


@pytest.mark.parametrize("route", ["cd ..", "a link inside leading above", "cd ../sibling"])
def test_a_call_from_elsewhere_keeps_the_sessions_project_unless_the_host_moved_it(
    tmp_path: Path, route: str
) -> None:
    """A host whose hook's cwd follows the agent's ``cd``, with no folder of its own to
    report: a call from above the project (``cd ..``, or ``proj/up`` where ``up -> ..``)
    would have made the parent the project, and the project's own files a writable
    subfolder of it; one from a sibling, a project with no configuration (not enforced)."""
    project = _repo(tmp_path / "proj")
    env = _env(tmp_path)
    assert _mode(_claude(env, project, "ls")) is Mode.ENFORCED
    if route == "cd ..":
        above = tmp_path
    elif route == "cd ../sibling":
        above = tmp_path / "sibling"
        above.mkdir()
    else:
        (project / "up").symlink_to("..")
        above = project / "up"
    outcome = _claude(env, above, "echo \"mode = 'off'\" > proj/.agentreflex/config.toml")
    assert outcome.event is not None and outcome.event.project == str(project)
    assert _mode(outcome) is Mode.ENFORCED


def test_a_session_the_host_resumes_in_another_folder_moves_with_it(tmp_path: Path) -> None:
    """``claude --resume ID`` in another project: the host reports that folder, and the session
    is that project's from then on (a ``cd`` never takes a hook's cwd out of the folder)."""
    first = _repo(tmp_path / "first")
    second = tmp_path / "second"
    subprocess.run(["git", "init", "-q", str(second)], check=True)  # no configuration: shadow
    assert _mode(_claude(_env(tmp_path, CLAUDE_PROJECT_DIR=str(first)), first, "ls")) is (
        Mode.ENFORCED
    )
    moved = _claude(_env(tmp_path, CLAUDE_PROJECT_DIR=str(second)), second, "ls")
    assert _mode(moved) is Mode.SHADOW
    assert moved.event is not None and moved.event.project == str(second)
