"""The programs the guard runs outside any boundary are the system's (issue #28).

A host started in an activated virtualenv has the project's ``.venv/bin`` at
the front of ``PATH``, and the project is the agent's to write.  A ``git``
or ``bwrap`` planted there ran as the user, outside the boundary, at the next
hook call.  Each test plants one that leaves a mark when run, and checks the
mark never appears while the real work still happens.  (The gate's ``bash -n``
is tested with the gate: ``packages/gate/tests/test_routes_through_other_tools.py``.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from agentreflex.core.contain import boundary
from agentreflex.core.util import sysprog
from agentreflex.core.worktree import safegit


def _plant(folder: Path, name: str, mark: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text(f"#!/bin/sh\ntouch {mark}\nexit 0\n")
    program.chmod(0o755)
    return program


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A project whose .venv/bin comes first on PATH, with a git, bwrap and bash planted there."""
    project = tmp_path / "proj"
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    mark = tmp_path / "planted-ran"
    for name in ("git", "bwrap", "bash"):
        _plant(project / ".venv" / "bin", name, mark)
    monkeypatch.setenv("PATH", f"{project / '.venv' / 'bin'}:{os.environ['PATH']}")
    return project, mark


def test_the_guards_git_is_the_systems(planted: tuple[Path, Path]) -> None:
    project, mark = planted
    assert shutil.which("git") == str(project / ".venv" / "bin" / "git")  # first on PATH
    done = safegit.git(str(project), ["status", "--porcelain"])
    assert done is not None and done.returncode == 0
    assert not mark.exists()


def test_the_boundarys_engine_is_the_systems(planted: tuple[Path, Path]) -> None:
    project, mark = planted
    engine = boundary.engine_path()
    assert engine is not None and engine.startswith(sysprog.SYSTEM_PREFIXES)
    line = boundary.rewrite("echo contained", str(project))
    # the host runs the line with its own shell: the system one here
    done = subprocess.run(["/bin/bash", "-c", line], cwd=project, capture_output=True, text=True)
    assert done.stdout == "contained\n" and not mark.exists()


def test_a_program_only_in_a_folder_the_user_writes_is_not_found(tmp_path: Path) -> None:
    _plant(tmp_path / "bin", "only-here", tmp_path / "mark")
    assert sysprog.system_program("only-here", str(tmp_path / "bin")) is None
    assert sysprog.system_program("sh", f"{tmp_path / 'bin'}:/usr/bin:/bin") is not None


def test_a_relative_path_entry_is_passed_over(tmp_path: Path) -> None:
    assert sysprog.system_program("git", "relative/bin") is None
