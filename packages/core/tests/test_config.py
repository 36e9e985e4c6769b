"""Configuration: defaults, profiles, files, environment, and clear errors.

The tests that need a sibling reflex package run where it is installed:
``tests/core_with_reflexes/test_config.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agentreflex.core.config import trust
from agentreflex.core.config.settings import (
    DEFAULT_THRESHOLDS,
    ConfigError,
    load_config,
    with_mode,
)
from agentreflex.core.decision import Mode
from agentreflex.core.testing import approved_project_config as _approved_config
from agentreflex.core.testing import check_bad_value_named
from agentreflex.core.testing import config_env as _env
from agentreflex.core.testing import load_project_config as _load
from agentreflex.core.testing import project_config as _project_config


def _user_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "home" / ".config" / "agentreflex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults(project: Path, tmp_path: Path) -> None:
    cfg = _load(project, tmp_path)
    assert cfg.mode is Mode.SHADOW
    assert not cfg.enforced
    assert cfg.profile == "balanced"
    assert cfg.reflexes_enabled
    assert cfg.thresholds == DEFAULT_THRESHOLDS
    assert cfg.thresholds is not DEFAULT_THRESHOLDS  # a copy: mutating it is safe
    assert cfg.hard_loop_repeat_count == 3
    assert cfg.recent_action_window == 20
    assert cfg.judge.mode == "auto"
    assert cfg.judge.api_key == ""
    assert not cfg.judge.has_key
    assert cfg.project_dir == str(project)
    assert cfg.state_dir == os.path.join(str(project), ".agentreflex")
    assert cfg.sources == []


def test_seed_threshold_values_are_the_documented_ones() -> None:
    assert DEFAULT_THRESHOLDS["constraint_violation_block"] == 0.70
    assert DEFAULT_THRESHOLDS["destructive_block"] == 0.75
    assert DEFAULT_THRESHOLDS["destructive_warn"] == 0.50
    assert DEFAULT_THRESHOLDS["more_verification_helpful_block"] == 0.90
    assert len(DEFAULT_THRESHOLDS) == 14


@pytest.mark.parametrize("name", sorted(DEFAULT_THRESHOLDS))
def test_every_reflex_thresh_env_var(name: str, project: Path, tmp_path: Path) -> None:
    var = "REFLEX_THRESH_" + name.upper()
    cfg = _load(project, tmp_path, **{var: "0.42"})
    assert cfg.threshold(name) == 0.42
    others = {k: v for k, v in cfg.thresholds.items() if k != name}
    assert others == {k: v for k, v in DEFAULT_THRESHOLDS.items() if k != name}


@pytest.mark.parametrize("bad", ["1.5", "-0.1", "nan", "inf", "high", "0,5"])
def test_bad_threshold_env_names_key_and_range(bad: str, project: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        _load(project, tmp_path, REFLEX_THRESH_DESTRUCTIVE_BLOCK=bad)
    msg = str(info.value)
    assert "REFLEX_THRESH_DESTRUCTIVE_BLOCK" in msg
    assert "between 0 and 1" in msg


def test_unknown_threshold_env_var_is_an_error(project: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        _load(project, tmp_path, REFLEX_THRESH_DESTRUCTIV_BLOCK="0.5")
    msg = str(info.value)
    assert "REFLEX_THRESH_DESTRUCTIV_BLOCK" in msg
    assert "REFLEX_THRESH_DESTRUCTIVE_BLOCK" in msg  # lists the known names


@pytest.mark.parametrize(
    ("value", "mode"),
    [
        ("shadow", Mode.SHADOW),
        ("enforced", Mode.ENFORCED),
        ("ENFORCED", Mode.ENFORCED),
        (" enforced ", Mode.ENFORCED),
    ],
)
def test_reflex_mode(value: str, mode: Mode, project: Path, tmp_path: Path) -> None:
    assert _load(project, tmp_path, REFLEX_MODE=value).mode is mode


def test_reflex_mode_typo(project: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        _load(project, tmp_path, REFLEX_MODE="enforcd")
    msg = str(info.value)
    assert "REFLEX_MODE" in msg and "'enforcd'" in msg
    assert "shadow" in msg and "enforced" in msg


def test_loop_env_vars(project: Path, tmp_path: Path) -> None:
    cfg = _load(
        project, tmp_path, REFLEX_HARD_LOOP_REPEAT_COUNT="5", REFLEX_RECENT_ACTION_WINDOW="40"
    )
    assert cfg.hard_loop_repeat_count == 5
    assert cfg.recent_action_window == 40


@pytest.mark.parametrize(
    ("var", "bad", "allowed"),
    [
        ("REFLEX_HARD_LOOP_REPEAT_COUNT", "1", "from 2 to 1000"),
        ("REFLEX_HARD_LOOP_REPEAT_COUNT", "three", "from 2 to 1000"),
        ("REFLEX_HARD_LOOP_REPEAT_COUNT", "3.5", "from 2 to 1000"),
        ("REFLEX_RECENT_ACTION_WINDOW", "4", "from 5 to 500"),
        ("REFLEX_RECENT_ACTION_WINDOW", "100000", "from 5 to 500"),
    ],
)
def test_bad_loop_env_vars(var: str, bad: str, allowed: str, project: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        _load(project, tmp_path, **{var: bad})
    assert var in str(info.value)
    assert allowed in str(info.value)


def test_jev_key_and_mode(project: Path, tmp_path: Path) -> None:
    cfg = _load(project, tmp_path, JEV_API_KEY="  jev-test-key-0000  ", JEV_MODE="mock")
    assert cfg.judge.api_key == "jev-test-key-0000"
    assert cfg.judge.has_key
    assert cfg.judge.mode == "mock"
    assert "jev-test-key-0000" not in repr(cfg.judge)  # never printed by accident


def test_bad_jev_mode(project: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        _load(project, tmp_path, JEV_MODE="fake")
    msg = str(info.value)
    assert "JEV_MODE" in msg
    for allowed in ("auto", "mock", "jev", "off"):
        assert allowed in msg


@pytest.mark.parametrize(
    ("profile", "enabled", "judge"),
    [
        ("off", False, "off"),
        ("lean", True, "off"),
        ("balanced", True, "auto"),
        ("thorough", True, "auto"),
    ],
)
def test_profiles(profile: str, enabled: bool, judge: str, project: Path, tmp_path: Path) -> None:
    cfg = _load(project, tmp_path, AGENTREFLEX_PROFILE=profile)
    assert cfg.profile == profile
    assert cfg.reflexes_enabled is enabled
    assert cfg.judge.mode == judge
    assert cfg.reflex_enabled("gate") is enabled


def test_profile_from_file_and_env_wins(project: Path, tmp_path: Path) -> None:
    _approved_config(project, tmp_path, 'profile = "lean"\n')
    assert _load(project, tmp_path).profile == "lean"
    assert _load(project, tmp_path, AGENTREFLEX_PROFILE="thorough").profile == "thorough"


def test_bad_profile(project: Path, tmp_path: Path) -> None:
    path = _project_config(project, 'profile = "paranoid"\n')
    with pytest.raises(ConfigError) as info:
        _load(project, tmp_path)
    msg = str(info.value)
    assert str(path) in msg and "profile" in msg and "'paranoid'" in msg
    for allowed in ("off", "lean", "balanced", "thorough"):
        assert allowed in msg
    path.unlink()
    with pytest.raises(ConfigError, match="AGENTREFLEX_PROFILE: 'max' is not one of off"):
        _load(project, tmp_path, AGENTREFLEX_PROFILE="max")


def test_precedence_user_then_project_then_env(project: Path, tmp_path: Path) -> None:
    user = _user_config(
        tmp_path,
        'mode = "enforced"\n[thresholds]\ndestructive_block = 0.5\nredundant_warn = 0.5\n',
    )
    proj = _project_config(project, "[thresholds]\ndestructive_block = 0.6\n")
    cfg = _load(project, tmp_path)
    assert cfg.mode is Mode.ENFORCED  # from the user file
    assert cfg.threshold("redundant_warn") == 0.5  # from the user file
    # an unapproved project file cannot weaken the user's 0.5
    assert cfg.threshold("destructive_block") == 0.5
    assert cfg.untrusted == [f"{proj}: thresholds.destructive_block = 0.6 withheld; 0.5 applies"]
    trust.approve(str(proj), _env(tmp_path))
    cfg = _load(project, tmp_path)
    assert cfg.threshold("destructive_block") == 0.6  # approved: project beats user
    assert cfg.untrusted == []
    assert cfg.sources == [str(user), str(proj)]
    cfg = _load(project, tmp_path, REFLEX_THRESH_DESTRUCTIVE_BLOCK="0.7", REFLEX_MODE="shadow")
    assert cfg.threshold("destructive_block") == 0.7  # env beats both
    assert cfg.mode is Mode.SHADOW


def test_project_root_is_found_from_a_subdirectory(project: Path, tmp_path: Path) -> None:
    _project_config(project, 'mode = "enforced"\n')
    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    cfg = load_config(str(sub), _env(tmp_path))
    assert cfg.project_dir == str(project)
    assert cfg.mode is Mode.ENFORCED


def test_state_dir_env(project: Path, tmp_path: Path) -> None:
    cfg = _load(project, tmp_path, AGENTREFLEX_STATE_DIR=str(tmp_path / "elsewhere"))
    assert cfg.state_dir == str(tmp_path / "elsewhere")


@pytest.mark.parametrize(
    ("text", "key", "allowed"),
    [
        ('mode = "enforcd"\n', "mode", "shadow, enforced"),
        ("mode = 1\n", "mode", "shadow, enforced"),
        ("[thresholds]\ndestructive_block = 1.5\n", "destructive_block", "between 0 and 1"),
        ('[thresholds]\ndestructive_block = "nan"\n', "destructive_block", "between 0 and 1"),
        ("[thresholds]\ndestructive_block = nan\n", "destructive_block", "between 0 and 1"),
        ("[thresholds]\ndestructive_block = true\n", "destructive_block", "between 0 and 1"),
        ("[thresholds]\ndestructive_blok = 0.5\n", "destructive_blok", "destructive_block"),
        ("thresholds = 0.5\n", "thresholds", "must be a table"),
        ("[bogus]\nx = 1\n", "bogus", "worktree"),
        ("colour = true\n", "colour", "thresholds"),
        ("[loop]\nhard_repeat_count = 1\n", "hard_repeat_count", "from 2 to 1000"),
        ("[loop]\nwindow = 10\n", "window", "recent_action_window"),
        ('[judge]\nmode = "gpt"\n', "judge.mode", "auto, mock, jev, off"),
        ('[judge]\napi_key = "jev-secret-000000"\n', "api_key", "JEV_API_KEY"),
        ("[judge]\ntimeout_ms = 5\n", "timeout_ms", "from 50 to 60000"),
        ("[judge]\ntemperature = 0\n", "temperature", "timeout_ms"),
        ("[hook]\nfloor_budget_ms = 1\n", "floor_budget_ms", "from 10 to 60000"),
        ("[daemon]\nidle = 5\n", "idle", "idle_seconds"),
        ('disabled_reflexes = "gate"\n', "disabled_reflexes", "list of reflex names"),
        ("disabled_reflexes = [1]\n", "disabled_reflexes", "list of reflex names"),
        ("state_dir = 5\n", "state_dir", "directory path"),
        ("mode = [\n", "not valid TOML", "TOML"),
    ],
)
def test_bad_file_values_name_the_key_and_allowed_values(
    text: str, key: str, allowed: str, project: Path, tmp_path: Path
) -> None:
    check_bad_value_named(project, tmp_path, text, key, allowed)


def test_api_key_in_a_file_is_never_read_nor_echoed(project: Path, tmp_path: Path) -> None:
    _user_config(tmp_path, '[judge]\napi_key = "jev-live-abcdef0123456789"\n')
    with pytest.raises(ConfigError) as info:
        _load(project, tmp_path)
    assert "jev-live-abcdef0123456789" not in str(info.value)


def test_invalid_utf8_config(project: Path, tmp_path: Path) -> None:
    path = project / ".agentreflex" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'mode = "\xff\xfe"\n')
    with pytest.raises(ConfigError, match="not valid TOML"):
        _load(project, tmp_path)


def test_unreadable_config_path(project: Path, tmp_path: Path) -> None:
    path = project / ".agentreflex" / "config.toml"
    path.mkdir(parents=True)  # a directory where the file should be
    with pytest.raises(ConfigError, match="not a regular file"):
        _load(project, tmp_path)


def test_a_fifo_config_fails_closed_at_once(project: Path, tmp_path: Path) -> None:
    """``mkfifo .agentreflex/config.toml``: ``open`` would wait for a writer forever, and a hook
    that hangs until the host's timeout lets the tool call through.  The real hook answers
    at once, failing closed with what is wrong."""
    path = project / ".agentreflex" / "config.toml"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "t",
    }
    done = subprocess.run(
        [sys.executable, "-m", "agentreflex.core.cli", "hook", "claude-code", "PreToolUse"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
        env={**os.environ, "HOME": str(tmp_path / "home")},
    )
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "not a regular file" in answer["permissionDecisionReason"]


def test_with_mode_copies(project: Path, tmp_path: Path) -> None:
    cfg = _load(project, tmp_path)
    enforced = with_mode(cfg, Mode.ENFORCED)
    assert enforced.mode is Mode.ENFORCED
    assert cfg.mode is Mode.SHADOW
