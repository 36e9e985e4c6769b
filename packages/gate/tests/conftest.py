"""Shared by the gate's tests that judge one command line in a project under a fresh home."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from agentreflex.core.decision import Finding, Mode, Verdict, merge
from agentreflex.gate.analyze import analyse
from agentreflex.gate.check import check_command
from agentreflex.gate.shell.paths import Where

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


# The corpus's paths (tools/gate_corpus.py, test_corpus.py): a project that need not exist.
CORPUS_CWD, CORPUS_HOME = "/home/user/project", "/home/user"


def corpus_verdict(command: str) -> str:
    """The gate's verdict on ``command`` at the corpus's paths."""
    return str(check_command(command, cwd=CORPUS_CWD, home=CORPUS_HOME, project=CORPUS_CWD)[0])


def corpus_check(command: str) -> tuple[str, list[str]]:
    """The gate's verdict on ``command`` at the corpus's paths, and its codes."""
    verdict, proposals = check_command(
        command, cwd=CORPUS_CWD, home=CORPUS_HOME, project=CORPUS_CWD
    )
    return str(verdict), [p.code for p in proposals]


def proposed_verdict(findings: list[Finding]) -> Verdict:
    """What the gate's findings propose together (the most restrictive), enforced or not:
    core's own merge, so these tests read findings the way the hook does."""
    return merge(findings, Mode.SHADOW).proposed


def fields_in_bash_and_walk(setup: str, words: str) -> tuple[str, str]:
    """The fields ``words`` make after ``setup``, as real bash passes them to
    ``printf '<%s>'`` and as the fallback walker does, each printed as ``<field>``:
    the tests that hold the walker to bash compare these two."""
    command = f"{setup}; printf '<%s>' {words}"
    bash = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=True)
    where = Where(cwd="/tmp", project="/tmp", home="/root")
    cmds = analyse(command, where, {"HOME": "/root"}, time.monotonic() + 5).cmds
    return bash.stdout, "".join(f"<{field}>" for field in cmds[-1].argv[2:])
