"""Where the real hook processes (every installed reflex) may write: never where a payload points.

Item 7 of issue 21, through ``agentreflex hook claude-code EVENT`` processes:
a directory that is not a project gets no ``.agentreflex``, a payload ``cwd``
that does not exist is not created (and the floors still answer), and a
``.agentreflex`` symlinked out of the project is refused on pre-tool with
nothing written through it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

AGENTREFLEX = str(Path(sys.executable).with_name("agentreflex"))
EVENTS = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


def hook(home: Path, cwd: Path, event: str, command: str = "ls") -> dict[str, Any]:
    payload = {
        "session_id": "s-files",
        "cwd": str(cwd),
        "hook_event_name": event,
        "prompt": "hello",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "t1",
        "tool_response": {"stdout": "ok"},
        "stop_hook_active": False,
    }
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "AGENTREFLEX_DAEMON": "off",
        "REFLEX_MODE": "enforced",
    }
    done = subprocess.run(
        [AGENTREFLEX, "hook", "claude-code", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return {"stdout": done.stdout, "stderr": done.stderr, "code": done.returncode}


def test_a_directory_that_is_not_a_project_gets_no_state(tmp_path: Path) -> None:
    bare, home = tmp_path / "bare", tmp_path / "home"
    bare.mkdir()
    home.mkdir()
    for event in EVENTS:
        reply = hook(home, bare, event)
        assert "not a project" in reply["stderr"]
    assert list(bare.iterdir()) == []


def test_a_payload_cwd_that_does_not_exist_is_not_created(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    ghost = tmp_path / "ghost" / "deeper"
    for event in EVENTS:
        hook(home, ghost, event)
    denied = hook(home, ghost, "PreToolUse", "rm -rf ~/")  # the floors still answer
    assert '"deny"' in denied["stdout"]
    assert "does not exist" in denied["stderr"]
    assert not (tmp_path / "ghost").exists()


def test_a_state_symlink_leaving_the_project_is_refused(tmp_path: Path) -> None:
    proj, home, elsewhere = tmp_path / "proj", tmp_path / "home", tmp_path / "elsewhere"
    for path in (home, elsewhere):
        path.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    (proj / ".agentreflex").symlink_to(elsewhere)
    pre = hook(home, proj, "PreToolUse")
    assert '"deny"' in pre["stdout"] and "symlink" in pre["stdout"]
    for event in ("UserPromptSubmit", "PostToolUse", "Stop"):
        assert '"deny"' not in hook(home, proj, event)["stdout"]  # open elsewhere
    assert list(elsewhere.iterdir()) == []
