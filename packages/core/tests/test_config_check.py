"""``agentreflex config check`` and doctor's "config files" line: every problem, its line, the loader's words.

The tests that need a sibling reflex package run where it is installed:
``tests/core_with_reflexes/test_config_check.py`` and the gate's own files in
``packages/gate/tests/test_policy_files_check.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agentreflex.core.cli.configcheck import check_file
from agentreflex.core.cli.doctor import diagnose
from agentreflex.core.config.settings import ConfigError, load_config
from agentreflex.core.testing import config_check_cli as _cli

ROOT = Path(__file__).resolve().parents[3]


def _loader_message(project: Path, text: str) -> str:
    """What a hook's loader says about a project config holding ``text``."""
    (project / ".agentreflex").mkdir(parents=True, exist_ok=True)
    (project / ".agentreflex" / "config.toml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(str(project))
    return str(err.value)


def test_each_message_is_the_loaders_own(tmp_path: Path) -> None:
    """Each problem, alone in a project's config, is what a hook's loader reports."""
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    for line in ("[loop]\nhard_repeat_count = 1\n", "mode = 'loud'\n", "colour = 1\n"):
        expected = _loader_message(project, line)
        problems = check_file(str(project / ".agentreflex" / "config.toml"))
        assert [p.message for p in problems] == [expected]


def test_invalid_toml_names_its_line_with_the_loaders_message(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    expected = _loader_message(project, 'mode = "shadow"\n\n[loop\n')
    (problem,) = check_file(str(project / ".agentreflex" / "config.toml"))
    assert problem.message == expected
    assert problem.line == 3


def test_default_files_are_the_users_and_the_projects(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / ".agentreflex").mkdir()
    (project / ".agentreflex" / "config.toml").write_text('profile = "lean"\n')
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "agentreflex" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("[thresholds]\ndestructive_block = 0.9\n")
    done = _cli(cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"ok   {user}",
        f"ok   {project / '.agentreflex' / 'config.toml'}",
    ]
    (project / ".agentreflex" / "config.toml").write_text('profile = "fast"\n')
    done = _cli(cwd=project)
    assert done.returncode == 1
    assert done.stderr.startswith(f"{project / '.agentreflex' / 'config.toml'}:1: profile: ")


def test_no_files_means_the_defaults(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    done = _cli(cwd=tmp_path)
    assert done.returncode == 0
    assert "defaults" in done.stdout


def test_the_shipped_policy_files_are_valid() -> None:
    for name in ("thresholds.toml", "gate/rules.toml", "gate/allow.example.toml"):
        assert check_file(str(ROOT / "policies" / name)) == [], name


def test_doctor_reports_each_problem_with_its_line(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / ".agentreflex").mkdir()
    path = project / ".agentreflex" / "config.toml"
    path.write_text("[hook]\nfloor_budget_ms = 5\n[daemon]\nidle_seconds = 'soon'\n")
    report = diagnose(str(project))
    (line,) = [c for c in report["checks"] if c["check"] == "config files"]
    assert not line["ok"]
    assert f"{path}:2: hook.floor_budget_ms: 5 is not an integer from 10 to 60000" in line["detail"]
    assert f"{path}:4: daemon.idle_seconds: 'soon'" in line["detail"]
    assert not report["ok"]
    path.write_text("[hook]\nfloor_budget_ms = 50\n")
    (line,) = [c for c in diagnose(str(project))["checks"] if c["check"] == "config files"]
    assert line["ok"], line
