"""``agentreflex statusline`` with Claude Code's real statusLine payload, after real hook
processes (the workspace venv, every installed reflex) have run in the project."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core import registry
from agentreflex.core.cli import statusline as command
from agentreflex.core.decision import Finding, Mode, Verdict, merge
from agentreflex.core.reflex import Note
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


# The same command in this process, for what the subprocess tests above do not reach:
# the undo hint, a sibling's failing declaration, an over-long line.


@pytest.fixture()
def here(project: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(os.environ):
        if key.startswith(("AGENTREFLEX_", "REFLEX_")):
            monkeypatch.delenv(key)
    for key in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(key, env[key])
    monkeypatch.chdir(project)
    enforced(project)
    return project


def test_a_snapshot_in_the_log_gives_the_undo_hint(here: Path) -> None:
    store = SessionStore(str(here / ".agentreflex"), "s-u")
    event = pre_tool("Bash", {"command": "git reset --hard"}, cwd=str(here), session_id="s-u")
    note = Note("core", "worktree_snapshot", {"n": 3, "files": 2})
    store.record(event, merge([], Mode.ENFORCED), notes=[note])
    assert command.last_snapshot(store.log_path) == 3
    line = command.render(status_payload(here, "s-u"))
    assert "last allow · undo with `agentreflex undo 3`" in line


def test_the_log_tail_without_a_decision_or_snapshot_says_none(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    assert command.last_decision(str(log)) is None  # no log yet
    assert command.last_snapshot(str(log)) is None
    log.write_text('{"worktree_snapshot": torn\n{"notes": [{"key": "worktree_snapshot"}]}\n[]\n')
    assert command.last_decision(str(log)) is None
    assert command.last_snapshot(str(log)) is None


def test_a_siblings_failing_status_is_named_and_the_rest_stays(
    here: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(state_dir: str, session: str) -> list[str]:
        raise RuntimeError("boom")

    monkeypatch.setattr(
        registry,
        "entries",
        lambda group: [("sibling", "x:y")] if group == registry.STATUSLINE else [],
    )
    monkeypatch.setattr(registry, "load_object", lambda spec: broken)
    line = command.render(status_payload(here, "s-b"))
    assert line == "agentreflex enforced · no hook seen yet · sibling status unavailable"
    monkeypatch.setattr(registry, "load_object", lambda spec: lambda d, s: ["word " * 60])
    monkeypatch.setattr(
        "sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(status_payload(here, "s-b")).encode()))
    )
    assert command.main([]) == 0
    shown = capsys.readouterr().out.strip()
    assert len(shown) == command.MAX_LEN and shown.endswith("…")


def test_anything_unexpected_is_one_line_not_a_traceback(
    here: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def explode(payload: object) -> str:
        raise MemoryError

    monkeypatch.setattr(command, "render", explode)
    monkeypatch.setattr("sys.stdin", None)
    assert command.main([]) == 0
    assert capsys.readouterr().out == "agentreflex: status unavailable (MemoryError)\n"
