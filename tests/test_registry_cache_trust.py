"""A cached note may make a hook faster, never different (issue 21, item 5).

The registry remembers, in the user's cache directory, which reflexes are
installed (the entry-point table) and which events each handles (the reflex
notes).  Anyone who can write that directory can forge either file.  Before a
tool call neither may leave a safety floor out: a real hook process with a
forged table or forged notes still denies ``rm -rf ~/``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RM_HOME = "rm -rf ~/"


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENTREFLEX_"))}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        AGENTREFLEX_DAEMON="off",
        AGENTREFLEX_STATE_DIR=str(tmp_path / "state"),
        REFLEX_MODE="enforced",
        JEV_MODE="off",
    )
    return env


def _hook(tmp_path: Path, event: str, body: dict[str, object]) -> subprocess.CompletedProcess[str]:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    payload = {"session_id": "cache", "cwd": str(project), "hook_event_name": event, **body}
    return subprocess.run(
        [str(Path(sys.executable).with_name("agentreflex")), "hook", "claude-code", event],
        input=json.dumps(payload),
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _rm_home(tmp_path: Path) -> str:
    done = _hook(tmp_path, "PreToolUse", {"tool_name": "Bash", "tool_input": {"command": RM_HOME}})
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", done.stdout
    return str(out["permissionDecisionReason"])


PROBE = """
import json, sys
from agentreflex.core.events import EventKind
from agentreflex.core.hook.runtime import load_plugins
plugins = load_plugins(kind=EventKind(sys.argv[1]))
print(json.dumps(sorted(r.name for r in plugins.reflexes)))
"""


def _loaded(tmp_path: Path, kind: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, kind],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    names: list[str] = json.loads(done.stdout)
    return names


def _cache_file(tmp_path: Path, kind: str) -> Path:
    found = sorted((tmp_path / "cache").rglob(f"{kind}-*.json"))
    assert len(found) == 1, found
    return found[0]


@pytest.fixture()
def warm(tmp_path: Path) -> Path:
    """Two ordinary calls: the table and the notes are written, as any earlier call has."""
    (tmp_path / "home").mkdir()
    assert "GATE-RM-ROOT" in _rm_home(tmp_path)
    _hook(tmp_path, "Stop", {"stop_hook_active": False, "last_assistant_message": "ok"})
    return tmp_path


def test_forged_notes_cannot_make_a_tool_call_skip_the_gate(warm: Path) -> None:
    notes = _cache_file(warm, "reflex-meta")
    data = json.loads(notes.read_text())
    for entry in data["reflexes"].values():  # files and times stay current: notes look valid
        entry.update(events=["stop"], floor=False, name="off")
    notes.write_text(json.dumps(data))
    # the forged notes are read: a prompt now skips the gate (they may make a call faster) ...
    assert "gate" not in _loaded(warm, "user_prompt")
    # ... but before a tool call the gate still runs
    assert "gate" in _loaded(warm, "pre_tool")
    assert "GATE-RM-ROOT" in _rm_home(warm)


def test_a_forged_table_without_the_gate_cannot_make_a_tool_call_skip_it(warm: Path) -> None:
    table = _cache_file(warm, "entry-points")
    data = json.loads(table.read_text())
    data["groups"]["agentreflex.reflexes"] = [
        pair
        for pair in data["groups"]["agentreflex.reflexes"]
        if pair[0] not in ("gate", "runaway")
    ]
    table.write_text(json.dumps(data))
    assert "gate" not in _loaded(warm, "stop")  # the forged table is read ...
    assert {"gate", "runaway"} <= set(_loaded(warm, "pre_tool"))  # ... and cannot drop a floor
    assert "GATE-RM-ROOT" in _rm_home(warm)


def test_stale_notes_are_not_trusted(warm: Path) -> None:
    notes = _cache_file(warm, "reflex-meta")
    data = json.loads(notes.read_text())
    for entry in data["reflexes"].values():
        entry.update(events=["stop"], mtime=entry["mtime"] - 1)
    notes.write_text(json.dumps(data))
    assert "gate" in _loaded(warm, "user_prompt")
    assert "GATE-RM-ROOT" in _rm_home(warm)
