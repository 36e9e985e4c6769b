"""Shared by the gate's tests that judge one command line in a project under a fresh home."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from agentreflex.gate.check import check_command

Checked = tuple[str, set[str]]  # (the decision, the findings' codes)


@pytest.fixture
def gate_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project inside a fresh home (``HOME`` set to it); its parent is the home."""
    home, project = tmp_path / "home", tmp_path / "home" / "proj"
    (project / ".git" / "hooks").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    return project


@pytest.fixture
def gate_check(gate_project: Path) -> Callable[[str], Checked]:
    """The gate's answer for one command run in :func:`gate_project`."""

    def check(command: str) -> Checked:
        project = str(gate_project)
        verdict, findings = check_command(
            command, cwd=project, home=str(gate_project.parent), project=project, budget_s=5.0
        )
        return str(verdict), {f.code for f in findings}

    return check
