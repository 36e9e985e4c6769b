"""Discards inside the real Claude Code, undone by ``agentreflex undo`` byte for byte.

The scripted model runs real discards through Claude Code's Bash tool on a
project with uncommitted work (an edited tracked file, an untracked file, a
binary one).  The plugin (``AGENTREFLEX_BIN``: this workspace's agentreflex,
with the real gate) snapshots the work before each shell call.  Where
``[worktree] allow_undoable`` lets the discard run, the model's next request
carries "undo with `agentreflex undo N`"; where the gate's answer stands, the
host refuses the call and nothing is lost.  Afterwards the test runs
``agentreflex undo`` and ``agentreflex undo N`` as the user would and compares
every file's bytes with what was there before.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from hostharness.claude import AGENTREFLEX_SCRIPT, ClaudeProject, RunResult
from hostharness.fakemodel import bash, say
from hostharness.project import GIT

pytestmark = pytest.mark.integration


def uncommitted_work(project: ClaudeProject) -> dict[str, bytes]:
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


def user_config(project: ClaudeProject, text: str) -> None:
    """The user's own config (``~/.config/agentreflex``): it applies without approval."""
    folder = project.home / ".config" / "agentreflex"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def undo(project: ClaudeProject, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**project.env(), "AGENTREFLEX_DAEMON": "off"}
    return subprocess.run(
        [str(AGENTREFLEX_SCRIPT), "undo", *args],
        cwd=project.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def status_line(project: ClaudeProject, session_id: str) -> str:
    """What Claude Code's status line (``agentreflex statusline``) shows for the session."""
    payload = {"session_id": session_id, "cwd": str(project.project)}
    done = subprocess.run(
        [str(AGENTREFLEX_SCRIPT), "statusline"],
        input=json.dumps(payload),
        cwd=project.project,
        env={**project.env(), "AGENTREFLEX_DAEMON": "off"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.stdout


def model_was_told(run: RunResult, text: str) -> bool:
    return text in json.dumps(run.main_requests)


@pytest.mark.parametrize(
    ("command", "level"),
    [("rm -rf src", "asks"), ("git reset --hard", "discards")],
)
def test_a_discard_the_agent_ran_is_undone_byte_for_byte(
    claude_project: ClaudeProject, command: str, level: str
) -> None:
    claude_project.set_mode("enforced")
    user_config(claude_project, f'[worktree]\nallow_undoable = "{level}"\n')
    before = uncommitted_work(claude_project)

    run = claude_project.run(
        "clean up the work tree", [bash(command), say("Cleaned up.")], timeout=180
    )

    assert run.denials == [], run.describe()
    assert tree_bytes(claude_project.project) != before, run.describe()  # the discard ran
    assert model_was_told(run, "undo with `agentreflex undo 1`"), run.describe()
    shown = status_line(claude_project, str(run.result["session_id"]))
    assert "undo with `agentreflex undo 1`" in shown, shown
    listed = undo(claude_project)
    assert listed.returncode == 0 and command in listed.stdout, listed.stdout + listed.stderr
    restored = undo(claude_project, "1")
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert tree_bytes(claude_project.project) == before
    assert "undone " in undo(claude_project).stdout  # the listing says it was undone


def test_a_discard_the_gate_refuses_loses_nothing_and_a_silent_one_is_still_undone(
    claude_project: ClaudeProject,
) -> None:
    """thorough: nothing is relaxed.  ``git clean -fd`` is refused (the work stays);
    ``find -delete`` reads as harmless and runs, and its snapshot brings the files back."""
    claude_project.set_mode("enforced")
    user_config(claude_project, 'profile = "thorough"\n')
    before = uncommitted_work(claude_project)

    run = claude_project.run(
        "clean up",
        [bash("git clean -fd"), bash("find . -name '*.py' -delete"), say("Cleaned up.")],
        timeout=180,
    )

    assert [d.get("tool_name") for d in run.denials] == ["Bash"], run.describe()
    assert "git clean" in json.dumps(run.denials), run.describe()
    assert not (claude_project.project / "src" / "app.py").exists(), run.describe()
    listed = undo(claude_project).stdout
    assert "find . -name" in listed, listed
    n = re.search(r"^\s*(\d+)\s.*find \. -name", listed, re.MULTILINE)
    assert n is not None, listed
    assert undo(claude_project, n.group(1)).returncode == 0
    assert tree_bytes(claude_project.project) == before


def test_a_stash_made_and_dropped_in_the_session_is_undone(claude_project: ClaudeProject) -> None:
    """``git stash -u`` then ``git stash drop``: the stash is saved before it is dropped
    (gc may soon prune it), and undoing that step puts the stashed work back."""
    claude_project.set_mode("enforced")
    user_config(claude_project, '[worktree]\nallow_undoable = "discards"\n')
    before = uncommitted_work(claude_project)

    run = claude_project.run(
        "put that work away",
        [bash("git stash -u -q"), bash("git stash drop -q"), say("Stashed and dropped.")],
        timeout=180,
    )

    assert run.denials == [], run.describe()
    stashes = subprocess.run(
        [*GIT, "stash", "list"], cwd=claude_project.project, capture_output=True, text=True
    )
    assert stashes.stdout == "", run.describe()  # the drop ran
    assert tree_bytes(claude_project.project) != before, run.describe()
    listed = undo(claude_project).stdout
    n = re.search(r"^\s*(\d+)\s.*git stash drop", listed, re.MULTILINE)
    assert n is not None, listed
    assert model_was_told(run, f"undo with `agentreflex undo {n.group(1)}`"), run.describe()
    restored = undo(claude_project, n.group(1))
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert tree_bytes(claude_project.project) == before


# Issue #29's list, each run by the agent in Claude Code with discards relaxed
# (``allow_undoable = "discards"``): each one the gate lets run is undone byte for byte;
# ``git clean -fdx`` stays refused (``-x`` also deletes ignored files, which no snapshot
# holds), its snapshot taken and nothing lost.
ISSUE_DISCARDS = [
    ("git reset --hard", "runs"),
    ("git checkout -- .", "runs"),
    ("git clean -fdx", "refused"),
    ("rm -rf src", "runs"),
    ("find . -name '*.py' -delete", "runs"),
    ("git ls-files | xargs rm -f", "runs"),
    (
        "python3 -c \"import os; [os.remove(os.path.join('src', f)) for f in os.listdir('src')]\"",
        "runs",
    ),
]


@pytest.mark.parametrize(("command", "outcome"), ISSUE_DISCARDS)
def test_each_discard_of_the_issue_is_undone_in_claude_code(
    claude_project: ClaudeProject, command: str, outcome: str
) -> None:
    claude_project.set_mode("enforced")
    user_config(claude_project, '[worktree]\nallow_undoable = "discards"\n')
    before = uncommitted_work(claude_project)

    run = claude_project.run("clean up", [bash(command), say("Cleaned up.")], timeout=180)

    if outcome == "refused":
        assert [d.get("tool_name") for d in run.denials] == ["Bash"], run.describe()
        assert tree_bytes(claude_project.project) == before, run.describe()
        assert "undo with `agentreflex undo 1`" in json.dumps(run.main_requests)
        return
    assert run.denials == [], run.describe()
    assert tree_bytes(claude_project.project) != before, run.describe()  # it ran
    listed = undo(claude_project).stdout
    n = re.search(r"^\s*(\d+)\s", listed, re.MULTILINE)
    assert n is not None, listed
    restored = undo(claude_project, n.group(1))
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert tree_bytes(claude_project.project) == before


def test_git_clean_fdx_let_run_in_shadow_mode_is_undone(claude_project: ClaudeProject) -> None:
    """Shadow mode refuses nothing: ``git clean -fdx`` runs (agentreflex's own ignored folder
    goes too) and its snapshot, kept in the repository's git folder, brings the untracked,
    non-ignored files back byte for byte."""
    claude_project.set_mode("shadow")
    before = uncommitted_work(claude_project)

    run = claude_project.run("clean up", [bash("git clean -fdx"), say("Done.")], timeout=180)

    assert run.denials == [], run.describe()
    assert tree_bytes(claude_project.project) != before, run.describe()
    listed = undo(claude_project).stdout
    assert "git clean -fdx" in listed, listed
    assert undo(claude_project, "1").returncode == 0
    assert tree_bytes(claude_project.project) == before
