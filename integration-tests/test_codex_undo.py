"""Discards inside the real Codex CLI, undone by ``agentreflex undo`` byte for byte.

The second real host for issue 29 (the first: test_claude_code_undo.py).  The
scripted model runs real discards through Codex's ``exec_command`` on a
project with uncommitted work; agentreflex, installed the user's way
(``agentreflex install codex``), snapshots the work before each shell call.
``git reset --hard`` runs because ``[worktree] allow_undoable = "discards"``
lets a discard the snapshot holds run, and the model's next request carries
"undo with `agentreflex undo 1`"; without it the call is refused and nothing
is lost.  Then the test runs ``agentreflex undo N`` as the user would.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from hostharness.codex import CodexProject, CodexRun
from hostharness.fakemodel import say
from hostharness.project import GIT
from test_claude_code_undo import ISSUE_DISCARDS
from test_codex_host import BLOCKED, codex_binary, codex_project, exec_command, installed

pytestmark = pytest.mark.integration
__all__ = ["codex_binary", "codex_project", "installed"]  # fixtures used by name


def uncommitted_work(project: CodexProject) -> dict[str, bytes]:
    """Commit src/, then edit it, add an untracked and a binary file; the tree's bytes."""
    project.write(".gitignore", ".agentreflex/\n")
    project.write("src/app.py", "VERSION = 1\n")
    project.write("src/util.py", "def helper():\n    return 1\n")
    subprocess.run([*GIT, "add", "-A"], cwd=project.project, check=True)
    subprocess.run([*GIT, "commit", "-qm", "src"], cwd=project.project, check=True)
    project.write("src/app.py", "VERSION = 2  # an hour of uncommitted work\n")
    project.write("src/new_module.py", "NEW = True\n")
    (project.project / "src" / "data.bin").write_bytes(bytes(range(256)) * 8)
    return tree_bytes(project.project)


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {".git", ".agentreflex"} & set(p.relative_to(root).parts)
    }


def user_config(project: CodexProject, text: str) -> None:
    folder = project.home / ".config" / "agentreflex"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def told(run: CodexRun, text: str) -> bool:
    return text in json.dumps(run.main_requests)


def test_git_reset_hard_runs_with_the_hint_and_is_undone(installed: CodexProject) -> None:
    user_config(installed, '[worktree]\nallow_undoable = "discards"\n')
    before = uncommitted_work(installed)

    run = installed.run(
        "reset the work tree", [exec_command("git reset --hard"), say("Reset.")], timeout=180
    )

    assert BLOCKED not in "".join(run.tool_outputs()), run.describe()
    assert (installed.project / "src" / "app.py").read_text() == "VERSION = 1\n", run.describe()
    assert told(run, "undo with `agentreflex undo 1`"), run.describe()
    listed = installed.agentreflex("undo")
    assert "git reset --hard" in listed.stdout, listed.stdout + listed.stderr
    done = installed.agentreflex("undo", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert tree_bytes(installed.project) == before


def test_refused_then_silent_discards_lose_nothing(installed: CodexProject) -> None:
    """Default (balanced): ``git reset --hard`` is refused; ``find -delete`` runs and is undone."""
    before = uncommitted_work(installed)

    run = installed.run(
        "clean up",
        [
            exec_command("git reset --hard"),
            exec_command("find . -name '*.py' -delete"),
            say("Cleaned up."),
        ],
        timeout=180,
    )

    outputs = run.tool_outputs()
    assert BLOCKED in outputs[0] and "GATE-GIT-RESET-HARD" in outputs[0], run.describe()
    assert not (installed.project / "src" / "app.py").exists(), run.describe()
    listed = installed.agentreflex("undo").stdout
    n = re.search(r"^\s*(\d+)\s.*find \. -name", listed, re.MULTILINE)
    assert n is not None, listed
    assert installed.agentreflex("undo", n.group(1)).returncode == 0
    assert tree_bytes(installed.project) == before


def test_a_stash_made_and_dropped_in_the_session_is_undone(installed: CodexProject) -> None:
    """``git stash -u`` then ``git stash drop``: the stash is saved before it goes, and
    undoing the drop puts the stashed work back (as in Claude Code)."""
    user_config(installed, '[worktree]\nallow_undoable = "discards"\n')
    before = uncommitted_work(installed)

    run = installed.run(
        "put that work away",
        [
            exec_command("git stash -u -q"),
            exec_command("git stash drop -q"),
            say("Stashed and dropped."),
        ],
        timeout=180,
    )

    assert BLOCKED not in "".join(run.tool_outputs()), run.describe()
    stashes = subprocess.run(
        [*GIT, "stash", "list"], cwd=installed.project, capture_output=True, text=True
    )
    assert stashes.stdout == "", run.describe()  # the drop ran
    assert tree_bytes(installed.project) != before, run.describe()
    listed = installed.agentreflex("undo").stdout
    n = re.search(r"^\s*(\d+)\s.*git stash drop", listed, re.MULTILINE)
    assert n is not None, listed
    assert told(run, f"undo with `agentreflex undo {n.group(1)}`"), run.describe()
    done = installed.agentreflex("undo", n.group(1))
    assert done.returncode == 0, done.stdout + done.stderr
    assert tree_bytes(installed.project) == before


# Codex 0.169 refuses ``rm -rf`` itself ("rm -f style commands are not permitted")
CODEX_REFUSES = {"rm -rf src"}


@pytest.mark.parametrize(("command", "outcome"), ISSUE_DISCARDS)
def test_each_discard_of_the_issue_is_undone_in_codex(
    installed: CodexProject, command: str, outcome: str
) -> None:
    """Issue #29's list in Codex, as in Claude Code (``test_claude_code_undo.py``); what
    Codex refuses itself loses nothing either."""
    outcome = "refused by codex" if command in CODEX_REFUSES else outcome
    user_config(installed, '[worktree]\nallow_undoable = "discards"\n')
    before = uncommitted_work(installed)

    run = installed.run("clean up", [exec_command(command), say("Cleaned up.")], timeout=180)

    if outcome == "refused by codex":
        assert "not permitted" in run.tool_outputs()[0], run.describe()
        assert tree_bytes(installed.project) == before, run.describe()
        return
    if outcome == "refused":
        assert BLOCKED in run.tool_outputs()[0], run.describe()
        assert tree_bytes(installed.project) == before, run.describe()
        return
    assert BLOCKED not in "".join(run.tool_outputs()), run.describe()
    assert tree_bytes(installed.project) != before, run.describe()  # it ran
    listed = installed.agentreflex("undo").stdout
    n = re.search(r"^\s*(\d+)\s", listed, re.MULTILINE)
    assert n is not None, listed
    done = installed.agentreflex("undo", n.group(1))
    assert done.returncode == 0, done.stdout + done.stderr
    assert tree_bytes(installed.project) == before


def test_git_clean_fdx_let_run_in_shadow_mode_is_undone(installed: CodexProject) -> None:
    """As in Claude Code: shadow mode lets ``git clean -fdx`` run; undo brings the
    untracked, non-ignored files back byte for byte."""
    installed.set_mode("shadow")
    before = uncommitted_work(installed)

    run = installed.run("clean up", [exec_command("git clean -fdx"), say("Done.")], timeout=180)

    assert BLOCKED not in "".join(run.tool_outputs()), run.describe()
    assert tree_bytes(installed.project) != before, run.describe()
    assert "git clean -fdx" in installed.agentreflex("undo").stdout
    assert installed.agentreflex("undo", "1").returncode == 0
    assert tree_bytes(installed.project) == before
