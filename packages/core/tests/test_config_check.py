"""``agentreflex config check`` and doctor's "config files" line: every problem, its line, the loader's words."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from agentreflex.core.cli.configcheck import check_file, check_text
from agentreflex.core.cli.doctor import diagnose
from agentreflex.core.config.settings import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[3]

BAD = """\
mode = "enforced"

[loop]
hard_repeat_count = 1

[judge]
api_key = "sk-not-here"

[reasoning_guard.backfill]
mode = "sometimes"

[budgets]
warn_fraction = 2
"""


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentreflex.core.cli", "config", "check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )


def _loader_message(project: Path, text: str) -> str:
    """What a hook's loader says about a project config holding ``text``."""
    (project / ".agentreflex").mkdir(parents=True, exist_ok=True)
    (project / ".agentreflex" / "config.toml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(str(project))
    return str(err.value)


def test_cli_lists_every_problem_with_file_line_and_key(tmp_path: Path) -> None:
    pytest.importorskip(
        "agentreflex.runaway", reason="needs the runaway package (its declared section)"
    )
    pytest.importorskip(
        "agentreflex.guard", reason="needs the guard package (its declared [reasoning_guard])"
    )
    path = tmp_path / "config.toml"
    path.write_text(BAD)
    done = _cli(str(path), cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"{path}:4: loop.hard_repeat_count: 1 is not an integer from 2 to 1000",
        f"{path}:7: judge.api_key: keys are never read from files; set JEV_API_KEY",
        f"{path}:10: reasoning_guard.backfill.mode: 'sometimes' is not one of recent, live, full",
        f"{path}:13: budgets.warn_fraction: 2 is not a number from 0.01 to 1.0",
    ]


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


def test_gate_rules_the_gate_would_ignore_are_reported(tmp_path: Path) -> None:
    pytest.importorskip(
        "agentreflex.gate", reason="needs the gate package (its [gate] section, its findings)"
    )
    rules = """\
[[rule]]
id = "USER-OK"
command = "psql"

[[rule]]
id = "USER-BAD-VERDICT"
command = "psql"
verdict = "deny"

[[rule]]
id = "USER-BAD-REGEX"
regex = "(unclosed"

[[rule]]
id = "USER-TYPO"
comand = "psql"
"""
    problems = check_text(rules.encode(), "rules.toml", "gate-rules")
    found = [(p.line, p.key) for p in problems]
    assert (8, "rule[1].verdict") in found
    assert (12, "rule[2].regex") in found
    assert (14, "rule[3]") in found
    typo = next(p for p in problems if p.key == "rule[3]")
    assert "matches nothing" in typo.message and "unknown keys: comand" in typo.message
    assert not any(p.key.startswith("rule[0]") for p in problems)
    regex = next(p for p in problems if p.key == "rule[2].regex")
    assert "not a valid regular expression" in regex.message


def test_allow_entries_need_a_rule_and_a_date(tmp_path: Path) -> None:
    pytest.importorskip(
        "agentreflex.gate", reason="needs the gate package (its [gate] section, its findings)"
    )
    text = (
        '[[allow]]\nrule = "GATE-GIT-RESET-HARD"\nexpires = 2026-12-31\n\n[[allow]]\nrule = "X"\n'
    )
    problems = check_text(text.encode(), "allow.toml", "gate-allow")
    assert [(p.line, p.key) for p in problems] == [(5, "allow[1].expires")]


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
