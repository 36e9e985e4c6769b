"""``agentreflex statusline`` with every package installed, after real hook processes:
the gate's block is the last decision, and a Stop whose message carries an
Evidence-Check directive opens a blocking obligation the line shows with the clearance."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agentreflex.guard.examples import EXAMPLE_DIRECTIVE


def cli(args: list[str], env: dict[str, str], payload: dict[str, object], cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "agentreflex.core.cli", *args],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


def setup(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".agentreflex").mkdir()
    (project / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTREFLEX_", "REFLEX_"))}
    env.pop("PYTHONWARNINGS", None)
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "home" / ".config"),
        XDG_CACHE_HOME=str(tmp_path / "home" / ".cache"),
        XDG_STATE_HOME=str(tmp_path / "home" / ".local" / "state"),
        AGENTREFLEX_DAEMON="off",
        AGENTREFLEX_SOCKET=str(tmp_path / "no.sock"),
        AGENTREFLEX_REASONING_GUARD="on",
        CLAUDE_CODE_ENTRYPOINT="cli",
    )
    return project, env


def status(project: Path, env: dict[str, str], session: str) -> str:
    payload = {
        "session_id": session,
        "cwd": str(project),
        "workspace": {"project_dir": str(project)},
    }
    return cli(["statusline"], env, payload, project).strip()


def test_statusline_shows_the_gates_block(tmp_path: Path) -> None:
    project, env = setup(tmp_path)
    pre = {
        "session_id": "sl-gate",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf ~/"},
        "tool_use_id": "t1",
    }
    cli(["hook", "claude-code", "PreToolUse"], env, pre, project)
    assert status(project, env, "sl-gate").startswith("agentreflex enforced · last BLOCK GATE-RM-")


def test_statusline_shows_open_obligations_and_clearance(tmp_path: Path) -> None:
    project, env = setup(tmp_path)
    message = "Done. Evidence-Check: " + json.dumps(EXAMPLE_DIRECTIVE)
    stop = {
        "session_id": "sl-guard",
        "cwd": str(project),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": message,
    }
    cli(["hook", "claude-code", "Stop"], env, stop, project)
    line = status(project, env, "sl-guard")
    assert line.startswith("agentreflex enforced · last "), line
    assert line.endswith("· 1 open obligation · Blocked"), line
