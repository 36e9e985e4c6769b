"""Where the guard's git runs for one hook call: a repository the agent may have made
runs git's file-reading commands in the project's boundary (red-team rt31)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from agentreflex.core.worktree import gitboundary, safegit


def _repo_with_a_filter(top: Path, marker: Path) -> None:
    """A repository whose clean filter touches ``marker``; its one file stat-dirty, so
    ``git status`` reads it again through the filter."""
    top.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    for cmd in (
        "git init -q && echo '* filter=x' > .gitattributes && echo hi > f",
        "git add -A && git -c user.name=t -c user.email=t@e commit -qm x",
        f"git config filter.x.clean 'sh -c \"touch {marker}; cat\"'",
    ):
        subprocess.run(cmd, shell=True, cwd=top, env=env, check=True, capture_output=True)
    os.utime(top / "f", (1, 1))


@pytest.mark.parametrize("where", ["proj/a/b", "elsewhere"])
def test_a_filter_in_a_repository_the_agent_may_have_made_runs_in_the_boundary(
    tmp_path: Path, where: str
) -> None:
    """No overrides (as when the driver came after the listing): the filter runs, and
    inside the boundary it can't write the home folder; git still answers."""
    home = Path(os.environ["HOME"])
    marker = home / f"ran-{where.replace('/', '-')}"
    project = tmp_path / "proj"
    project.mkdir()
    top = tmp_path / where
    _repo_with_a_filter(top, marker)
    with gitboundary.within(str(project)):
        res = safegit.git(str(top), ["status", "--porcelain"])
    assert res is not None and res.returncode == 0
    assert not marker.exists()
    assert gitboundary.current() == ""


def test_the_projects_own_repository_runs_as_before(tmp_path: Path) -> None:
    """Its config is held read-only in the boundary: no bwrap, and what runs is what the
    listing saw (the overrides blank it; here none are passed, so the filter runs)."""
    marker = Path(os.environ["HOME"]) / "ran-own"
    project = tmp_path / "proj"
    _repo_with_a_filter(project, marker)
    with gitboundary.within(str(project)):
        res = safegit.git(str(project), ["status", "--porcelain"])
    assert res is not None and res.returncode == 0
    assert marker.exists()
