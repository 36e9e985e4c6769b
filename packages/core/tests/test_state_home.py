"""Where a hook may write session state: only under a real project root, never where a payload points."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from agentreflex.core.hook.runtime import run_hook


def _env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "AGENTREFLEX_DAEMON": "off",
        "REFLEX_MODE": "enforced",
    }


def _payload(cwd: str, event: str = "PreToolUse", **extra: Any) -> bytes:
    base: dict[str, Any] = {"session_id": "s-home", "cwd": cwd, "hook_event_name": event}
    if event == "PreToolUse":
        base.update({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"})
    base.update(extra)
    return json.dumps(base).encode()


def test_a_git_project_gets_a_private_state_dir(tmp_path: Path) -> None:
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    out = run_hook("claude-code", _payload(str(tmp_path / "proj")), _env(tmp_path))
    state = tmp_path / "proj" / ".agentreflex"
    assert out.reply.exit_code == 0
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    logs = list((state / "sessions").glob("*.jsonl"))
    assert len(logs) == 1 and stat.S_IMODE(logs[0].stat().st_mode) == 0o600


def test_a_payload_cwd_that_does_not_exist_creates_nothing(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    ghost = tmp_path / "does" / "not" / "exist"
    out = run_hook("claude-code", _payload(str(ghost)), _env(tmp_path))
    assert out.reply.exit_code == 0 and '"deny"' not in out.reply.stdout  # a safe answer: ls
    assert "does not exist" in out.reply.stderr
    assert not (tmp_path / "does").exists()
    assert not (tmp_path / ".agentreflex").exists()


def test_no_project_root_means_no_state_written(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    out = run_hook("claude-code", _payload(str(bare)), _env(tmp_path))
    assert "not a project" in out.reply.stderr
    assert not (bare / ".agentreflex").exists()


def _tree(path: str) -> list[tuple[str, int, int]]:
    if not os.path.isdir(path):
        return []
    return sorted((n, os.stat(os.path.join(path, n)).st_size, 0) for n in os.listdir(path))


def test_the_filesystem_root_never_gets_state(tmp_path: Path) -> None:
    before = _tree("/.agentreflex")  # an older version may have left one: it must not grow
    out = run_hook("claude-code", _payload("/"), _env(tmp_path))
    assert out.reply.exit_code == 0
    assert "not a project" in out.reply.stderr
    assert _tree("/.agentreflex") == before


def test_an_explicit_config_marks_a_project(tmp_path: Path) -> None:
    proj = tmp_path / "cfgproj"
    (proj / ".agentreflex").mkdir(parents=True)
    (proj / ".agentreflex" / "config.toml").write_text("")
    run_hook("claude-code", _payload(str(proj)), _env(tmp_path))
    assert list((proj / ".agentreflex" / "sessions").glob("*.jsonl"))


def test_a_state_symlink_leaving_the_project_is_refused(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (proj / ".agentreflex").symlink_to(elsewhere)
    pre = run_hook("claude-code", _payload(str(proj)), _env(tmp_path))
    assert '"deny"' in pre.reply.stdout or pre.reply.exit_code == 2  # pre-tool fails closed
    assert "symlink" in pre.reply.stdout + pre.reply.stderr
    post = run_hook(
        "claude-code",
        _payload(str(proj), "UserPromptSubmit", prompt="hello"),
        _env(tmp_path),
    )
    assert post.reply.exit_code == 0 and "block" not in post.reply.stdout  # open elsewhere
    assert list(elsewhere.iterdir()) == []  # nothing written through the link
