"""A host's file tool and the git settings of a repository inside the project (red-team rt35).

``core.fsmonitor`` in a repository's ``config`` and a ``pre-commit`` hook run the
next time anyone runs git there: the user, their editor (VS Code finds the
repositories inside an opened folder and runs ``git status`` in each), a shell
prompt.  The project's own ``.git`` asks before a file tool writes it; a repository
inside the project (``git init sub``, a vendored checkout, one the file tool makes by
writing ``vendor/lib/.git/config``) and a ``.git`` file pointing git elsewhere were
written unasked.  Commands' changes there are undone by the look before the next
command (contain/nestedgit.py), but a file tool's write is not looked at until
then, and stays for good when no command follows.  Through the real hook entry point.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from agentreflex.core.testing import claude_pre_tool, enforced_project


def _write(project: Path, path: Path, content: str) -> str:
    return claude_pre_tool(project, "Write", {"file_path": str(path), "content": content})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "home" / "proj"
    enforced_project(root)
    subprocess.run(["git", "init", "-q", str(root / "sub")], check=True)
    (root / "src").mkdir()
    return root


MONITOR = "[core]\n\tfsmonitor = ./x\n"


@pytest.mark.parametrize(
    ("where", "content"),
    [
        ("sub/.git/config", MONITOR),
        ("sub/.git/config.worktree", MONITOR),
        ("sub/.git/hooks/pre-commit", "#!/bin/sh\n./x\n"),
        ("vendor/lib/.git/config", MONITOR),
        ("src/.git", "gitdir: ../../elsewhere\n"),
    ],
)
def test_a_repository_inside_the_project_is_asked_about(
    project: Path, where: str, content: str
) -> None:
    answer = _write(project, project / where, content)
    assert '"ask"' in answer or '"deny"' in answer, (where, answer)


@pytest.mark.parametrize("where", ["src/app.py", "sub/README.md", "docs/git/config"])
def test_ordinary_files_stay_allowed(project: Path, where: str) -> None:
    answer = _write(project, project / where, "x\n")
    assert '"ask"' not in answer and '"deny"' not in answer, (where, answer)


@pytest.mark.parametrize("where", ["g/config", "g/hooks/pre-commit", "cfg.txt"])
def test_a_repository_inside_the_project_through_a_link_is_asked_about(
    project: Path, where: str
) -> None:
    """``ln -s sub/.git g`` or ``ln -s sub/.git/config cfg.txt``, made by a contained
    command: the link leads to another place inside the project, so the write was judged
    as spelled (a file in ``g``), where the host's Write lands in ``sub/.git``."""
    (project / "g").symlink_to(project / "sub" / ".git")
    (project / "cfg.txt").symlink_to(project / "sub" / ".git" / "config")
    answer = _write(project, project / where, MONITOR)
    assert '"ask"' in answer or '"deny"' in answer, (where, answer)
