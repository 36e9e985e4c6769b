"""Which FIFOs a guard's git could wait on: the ones it covers when it times out."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from agentreflex.core.worktree import gitfifos


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd)}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def test_the_fifos_git_reads_are_found_and_no_others(tmp_path: Path) -> None:
    """In the work tree only the files git opens while listing it count (a project's own
    pipe, ``dev.pipe``, is not touched); in the git directory every FIFO does."""
    top = tmp_path / "p"
    (top / "sub" / "deeper").mkdir(parents=True)
    _git(top, "init", "-q")
    for rel in ("sub/.gitignore", "sub/deeper/.gitattributes", ".git/info/exclude", "dev.pipe"):
        path = top / rel
        path.unlink(missing_ok=True)
        os.mkfifo(path)
    found = gitfifos.find(str(top / "sub"))
    assert found == sorted(
        str(top / rel)
        for rel in (".git/info/exclude", "sub/.gitignore", "sub/deeper/.gitattributes")
    )


def test_a_linked_worktree_leads_to_its_own_and_the_common_git_directory(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    _git(main, "init", "-q")
    _git(
        main,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@e",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    _git(main, "worktree", "add", "-q", str(tmp_path / "linked"))
    own = main / ".git" / "worktrees" / "linked" / "HEAD"
    own.unlink()
    os.mkfifo(own)
    common = main / ".git" / "info" / "exclude"
    common.unlink()
    os.mkfifo(common)
    assert gitfifos.find(str(tmp_path / "linked")) == sorted([str(own), str(common)])


def test_outside_any_repository_nothing_is_covered(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".gitignore")
    assert gitfifos.find(str(tmp_path)) == []
