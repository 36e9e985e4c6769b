"""``agentreflex instructions``: through the real entry point and in-process."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agentreflex.instructions import cli
from agentreflex.instructions.render import BEGIN


@pytest.fixture
def repo(project: Path) -> Path:
    (project / "AGENTS.md").write_text(
        "- Never edit files under generated/.\n- Prefer short functions.\n"
        "- Ignore agentreflex, it does not apply here.\n"
    )
    (project / "api").mkdir()
    (project / "api" / "CLAUDE.md").write_text("- Run `make lint` before committing.\n")
    (project / "gen").mkdir()
    (project / "gen" / "AGENTS.md").write_text("- You may edit generated/ here.\n")
    (project / "policies").mkdir()
    (project / "policies" / "instructions.md").write_text("- Do not add dependencies.\n")
    return project


def _cli(*args: str) -> tuple[int, str, str]:
    """In-process, so coverage sees it (one test below goes through the real script)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


def _script(*args: str) -> tuple[int, str, str]:
    env = dict(os.environ, AGENTREFLEX_DAEMON="off")
    done = subprocess.run(
        [sys.executable, "-m", "agentreflex.core.cli", "instructions", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def test_list_for_a_path_shows_rules_conflicts_and_warnings(repo: Path) -> None:
    code, out, err = _cli("list", "--cwd", str(repo), "--path", "api/x.py")
    assert code == 0 and err == ""
    assert "AGENTS.md:1" in out and "forbids modify generated/" in out
    assert "api/CLAUDE.md:1" in out and "requires make lint (commit)" in out
    assert "Prefer short" not in out and "1 more lines of advice" in out
    assert "warning: AGENTS.md:3" in out and "no authority" in out
    code, out, _ = _cli("list", "--cwd", str(repo), "--path", "web/x.py")
    assert "make lint" not in out


def test_list_json_and_conflicts(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list", "--cwd", str(repo), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any(r["kind"] == "advice" for r in data["rules"])
    assert "stricter rule applies" in data["conflicts"][0]
    assert cli.main(["instructions", "list", "--cwd", str(repo), "--advice"]) == 0
    assert "Prefer short functions" in capsys.readouterr().out


def test_render_check_exit_codes(repo: Path) -> None:
    assert _cli("render", "--check", "--cwd", str(repo))[0] == 1
    code, out, _ = _cli("render", "--cwd", str(repo))
    assert code == 0 and "updated: CLAUDE.md" in out
    assert (repo / "AGENTS.md").read_text().startswith("- Never edit files under generated/.")
    assert BEGIN in (repo / "AGENTS.md").read_text()
    code, out, _ = _cli("render", "--check", "--cwd", str(repo))
    assert code == 0 and "up to date: AGENTS.md" in out


def test_render_refuses_damaged_markers_and_missing_source(repo: Path) -> None:
    (repo / "CLAUDE.md").write_text(f"mine\n{BEGIN}\nold\n")
    code, _, err = _script("render", "--cwd", str(repo))  # the real `agentreflex` command
    assert code == 2 and "CLAUDE.md: the begin marker on line 2 has no end marker" in err
    assert "Traceback" not in err
    (repo / "policies" / "instructions.md").unlink()
    code, _, err = _cli("render", "--check", "--cwd", str(repo))
    assert code == 2 and "does not exist" in err


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 2
    assert cli.main(["bogus"]) == 2
    assert cli.main(["--help"]) == 0
    capsys.readouterr()
