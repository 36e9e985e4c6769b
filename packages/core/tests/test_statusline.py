"""``agentreflex statusline`` with Claude Code's real statusLine payload, after real hook
processes (the workspace venv, every installed reflex) have run in the project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.decision import Finding, Mode, Verdict, merge
from agentreflex.core.state.store import SessionStore
from agentreflex.core.testing import pre_tool


def status_payload(project: Path, session: str) -> dict[str, Any]:
    """The JSON Claude Code pipes to a statusLine command (docs: "statusline", JSON input)."""
    return {
        "hook_event_name": "Status",
        "session_id": session,
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "model": {"id": "claude-opus-4-1", "display_name": "Opus"},
        "workspace": {"current_dir": str(project / "src"), "project_dir": str(project)},
        "version": "2.1.328",
        "output_style": {"name": "default"},
        "cost": {"total_cost_usd": 0.01, "total_duration_ms": 4500},
        "exceeds_200k_tokens": False,
    }


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    values = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTREFLEX_", "REFLEX_"))}
    home = tmp_path / "home"
    values.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        AGENTREFLEX_DAEMON="off",
        AGENTREFLEX_SOCKET=str(tmp_path / "no.sock"),
    )
    values.pop("PYTHONWARNINGS", None)
    return values


def cli(
    args: list[str], env: dict[str, str], data: bytes, cwd: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentreflex.core.cli", *args],
        input=data.decode(),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def hook(project: Path, env: dict[str, str], session: str, command: str) -> None:
    payload = {
        "session_id": session,
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": f"t-{len(command)}",
    }
    done = cli(["hook", "claude-code", "PreToolUse"], env, json.dumps(payload).encode(), project)
    assert "Traceback" not in done.stderr


def statusline(project: Path, env: dict[str, str], data: bytes) -> str:
    done = cli(["statusline"], env, data, project)
    assert done.returncode == 0
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    assert len(lines[0]) <= 160
    return lines[0]


def head(line: str) -> str:
    """Mode and last decision (an installed guard may append its clearance)."""
    return " · ".join(line.split(" · ")[:2])


def enforced(project: Path) -> None:
    (project / ".agentreflex").mkdir(exist_ok=True)
    (project / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')


def test_before_any_hook(project: Path, env: dict[str, str]) -> None:
    line = statusline(project, env, json.dumps(status_payload(project, "s-new")).encode())
    assert line == "agentreflex shadow · no hook seen yet"


def test_last_decision_from_the_real_store(project: Path, env: dict[str, str]) -> None:
    """A BLOCK recorded by the store, then an ALLOW from a real hook process (core alone)."""
    enforced(project)
    state_dir = str(project / ".agentreflex")
    event = pre_tool("Bash", {"command": "rm -rf ~/"}, cwd=str(project), session_id="s-1")
    block = Finding("gate", "GATE-RM-HOME", Verdict.BLOCK, "removes your home")
    SessionStore(state_dir, "s-1").record(event, merge([block], Mode.ENFORCED), latency_ms=3.0)
    payload = json.dumps(status_payload(project, "s-1")).encode()
    assert (
        head(statusline(project, env, payload)) == "agentreflex enforced · last BLOCK GATE-RM-HOME"
    )
    hook(project, env, "s-1", "ls -la")
    assert head(statusline(project, env, payload)) == "agentreflex enforced · last allow"
    # another session of the same project has its own last decision
    other = statusline(project, env, json.dumps(status_payload(project, "s-2")).encode())
    assert other == "agentreflex enforced · no hook seen yet"


def test_a_torn_last_line_is_skipped(project: Path, env: dict[str, str]) -> None:
    enforced(project)
    state_dir = str(project / ".agentreflex")
    event = pre_tool("Bash", {"command": "x"}, cwd=str(project), session_id="s-t")
    ask = Finding("gate", "GATE-ASK", Verdict.ASK_USER, "ask first")
    store = SessionStore(state_dir, "s-t")
    store.record(event, merge([ask], Mode.ENFORCED))
    with open(store.log_path, "a", encoding="utf-8") as fh:
        fh.write('{"ts": 1, "decision": {"verdict": "BL')  # a writer died mid-line
    line = statusline(project, env, json.dumps(status_payload(project, "s-t")).encode())
    assert head(line) == "agentreflex enforced · last ASK_USER GATE-ASK"


@pytest.mark.parametrize("data", [b"", b"not json", b"[1,2]", b'{"session_id": 7}', b"\xff\xfe"])
def test_bad_payloads_still_give_one_line(project: Path, env: dict[str, str], data: bytes) -> None:
    line = statusline(project, env, data.decode("latin-1").encode())
    assert line.startswith("agentreflex ")


def test_a_bad_config_is_named_not_a_traceback(project: Path, env: dict[str, str]) -> None:
    (project / ".agentreflex").mkdir()
    (project / ".agentreflex" / "config.toml").write_text('mode = "enforcd"\n')
    line = statusline(project, env, json.dumps(status_payload(project, "s-3")).encode())
    assert line.startswith("agentreflex: config error:") and "enforcd" in line
