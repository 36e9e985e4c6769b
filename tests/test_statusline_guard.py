"""``agentreflex statusline`` with the Reasoning Guard installed: a Stop whose message
carries an Evidence-Check directive opens a blocking obligation (real hook process),
and the status line shows it with the clearance."""

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


def test_statusline_shows_open_obligations_and_clearance(tmp_path: Path) -> None:
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
    message = "Done. Evidence-Check: " + json.dumps(EXAMPLE_DIRECTIVE)
    stop = {
        "session_id": "sl-guard",
        "cwd": str(project),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": message,
    }
    cli(["hook", "claude-code", "Stop"], env, stop, project)
    line = cli(
        ["statusline"],
        env,
        {"session_id": "sl-guard", "cwd": str(project), "workspace": {"project_dir": str(project)}},
        project,
    ).strip()
    assert line.startswith("agentreflex enforced · last "), line
    assert line.endswith("· 1 open obligation · Blocked"), line
