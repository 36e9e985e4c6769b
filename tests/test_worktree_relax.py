"""Allow what can be undone: ``[worktree] allow_undoable`` with the real gate, real commands.

An in-project discard the gate asks about (or, at ``discards``, blocks) runs
with "undo with `agentreflex undo N`" once a snapshot holds everything it can
destroy; the test then runs the command and undoes it byte for byte.
Destruction outside the project, a skipped snapshot, a compound command and
a change the snapshot cannot hold keep the gate's answer.  Every installed
reflex runs (core's own tests run core alone).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.decision import Decision, Finding, Mode, Verdict, merge
from agentreflex.core.hook.runtime import run_hook
from agentreflex.core.worktree import relax, undocmd

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
}


def sh(cwd: Path, command: str) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(command, shell=True, cwd=cwd, env=env, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with uncommitted work: an edit, an untracked file, a binary, a staged edit."""
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "a.py").write_text("print('a')\n")
    (root / "src" / "b.py").write_text("print('b')\n")
    (root / "README").write_text("readme\n")
    (root / ".gitignore").write_text("*.log\n.agentreflex/\n")
    sh(root, "git init -q && git add -A && git commit -qm init")
    (root / "src" / "pkg" / "a.py").write_text("print('a, edited')\n")
    (root / "src" / "new.py").write_text("NEW = 1\n")
    (root / "blob.bin").write_bytes(bytes(range(256)) * 4)
    (root / "README").write_text("readme, staged\n")
    sh(root, "git add README")
    return root


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts and p.suffix != ".log"
    }


HINT = "undo with `agentreflex undo 1`"


def pre(
    root: Path,
    command: str,
    level: str | None,
    max_bytes: int | None = None,
    profile: str = "balanced",
    cwd: Path | None = None,
) -> Any:
    """The real PreToolUse hook (every installed reflex) with ``allow_undoable = level``."""
    lines = ['mode = "enforced"', "[worktree]"]
    if level is not None:
        lines.append(f'allow_undoable = "{level}"')
    if max_bytes is not None:
        lines.append(f"snapshot_max_bytes = {max_bytes}")
    cfg_dir = root.parent / "xdg" / "agentreflex"
    cfg_dir.mkdir(parents=True, exist_ok=True)
    (cfg_dir / "config.toml").write_text("\n".join(lines) + "\n")
    payload = {
        "session_id": "relax-session",
        "cwd": str(cwd or root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "r1",
    }
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root.parent / "home"),
        "XDG_CONFIG_HOME": str(root.parent / "xdg"),
        "AGENTREFLEX_STATE_DIR": str(root.parent / "state"),
        "AGENTREFLEX_DAEMON": "off",
        "AGENTREFLEX_PROFILE": profile,
    }
    if cwd is not None:  # the host says where the session began (Claude Code does)
        env["CLAUDE_PROJECT_DIR"] = str(root)
    outcome = run_hook("claude-code", json.dumps(payload).encode(), env)
    return outcome.decision


def reason(decision: Decision) -> str:
    return " ".join(f.message for f in decision.findings)


@pytest.mark.parametrize(
    ("command", "level"),
    [
        ("git reset --hard", "discards"),
        ("git checkout -- .", "discards"),
        ("git clean -fd", "discards"),
        ("rm -rf src", "asks"),
    ],
)
def test_an_in_project_discard_with_a_snapshot_runs_with_the_undo_hint(
    repo: Path,
    command: str,
    level: str,
) -> None:
    before = tree_bytes(repo)
    decision = pre(repo, command, level)
    assert decision.verdict is Verdict.WARN, reason(decision)
    assert HINT in reason(decision) and "allowed:" in reason(decision)
    sh(repo, command)
    assert tree_bytes(repo) != before
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before


@pytest.mark.parametrize(
    ("command", "level", "verdict"),
    [
        ("git reset --hard", "asks", Verdict.BLOCK),  # a block is lifted only at "discards"
        ("git reset --hard", "off", Verdict.BLOCK),
        ("rm -rf src", "off", Verdict.ASK_USER),
        ("rm -rf src", None, Verdict.ASK_USER),  # thorough (below) or off: still asked
    ],
)
def test_without_the_setting_the_gate_answer_stands(
    repo: Path,
    command: str,
    level: str | None,
    verdict: Verdict,
) -> None:
    decision = pre(repo, command, level, profile="thorough" if level is None else "balanced")
    assert decision.verdict is verdict, reason(decision)
    assert "allowed:" not in reason(decision)


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf ~/x",  # outside the project: never relaxed
        "git clean -fdx",  # ignored files are not in the snapshot
        "git reset --hard HEAD~1",  # moves HEAD: more than a discard
        "cd src && git checkout -- .",  # compound: the gate's answer stands
        "git -C ../other reset --hard",
    ],
)
def test_what_the_snapshot_cannot_hold_is_never_relaxed(
    repo: Path,
    command: str,
) -> None:
    (repo.parent / "home" / "x").mkdir(parents=True)
    decision = pre(repo, command, "discards")
    assert decision.proposed in (Verdict.ASK_USER, Verdict.BLOCK), command
    assert decision.verdict is decision.proposed
    assert "allowed:" not in reason(decision)


def test_a_skipped_snapshot_relaxes_nothing(repo: Path) -> None:
    # past the bound what fits is saved (red-team rt34), and the rest is not: no relaxing
    decision = pre(repo, "rm -rf src", "asks", max_bytes=10)
    assert decision.verdict is Verdict.ASK_USER
    assert "allowed:" not in reason(decision) and "not whole" in " ".join(decision.errors)


def test_an_ignored_file_or_staged_then_edited_file_keeps_the_ask(repo: Path) -> None:
    (repo / "src" / "cache.log").write_text("ignored, not saved\n")
    assert pre(repo, "rm -rf src", "asks").verdict is Verdict.ASK_USER
    (repo / "src" / "cache.log").unlink()
    (repo / "README").write_text("staged above, edited again\n")  # README is staged: now MM
    assert pre(repo, "rm -rf src", "asks").verdict is Verdict.ASK_USER


def test_not_a_git_repository_relaxes_nothing(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / "src").mkdir(parents=True)
    (plain / "src" / "a.py").write_text("a\n")
    decision = pre(plain, "rm -rf src", "asks")
    assert "allowed:" not in reason(decision)
    assert decision.verdict is not Verdict.WARN or HINT not in reason(decision)


@pytest.mark.parametrize(
    "command", ["git stash drop", "git stash drop -q 1", "git stash drop stash@{1}"]
)
def test_a_stash_drop_runs_once_the_snapshot_holds_the_stash_and_undo_brings_it_back(
    repo: Path, command: str
) -> None:
    """The stash's changes (tracked and untracked) come back byte for byte after the drop."""
    before = tree_bytes(repo)
    sh(repo, "git stash -u -q")
    if command != "git stash drop":
        (repo / "src" / "b.py").write_text("print('other stash')\n")
        sh(repo, "git stash -q")  # now the first stash is stash@{1}
    assert tree_bytes(repo) != before
    decision = pre(repo, command, "discards")
    assert decision.verdict is Verdict.WARN, reason(decision)
    assert HINT in reason(decision) and "allowed:" in reason(decision)
    sh(repo, command)
    sh(repo, "git reflog expire --expire-unreachable=now --all && git gc -q --prune=now")
    if command != "git stash drop":
        sh(repo, "git stash drop -q")  # the other stash: not what is undone here
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before


def test_a_stash_drop_is_not_relaxed_below_discards_or_without_a_stash(repo: Path) -> None:
    sh(repo, "git stash -u -q")
    assert pre(repo, "git stash drop", "asks").verdict is Verdict.BLOCK
    sh(repo, "git stash drop -q")
    decision = pre(repo, "git stash drop", "discards")  # nothing to drop: nothing saved
    assert "allowed:" not in reason(decision)
    sh(repo, "git stash -u -q")
    decision = pre(repo, "git stash clear", "discards")  # every stash: never relaxed
    assert decision.verdict is Verdict.BLOCK and "allowed:" not in reason(decision)


def _conflicted_merge(repo: Path) -> None:
    sh(repo, "git stash -u -q && git stash drop -q")
    sh(repo, "git checkout -q -b other && echo theirs > README && git commit -qam theirs")
    sh(repo, "git checkout -q - && echo ours > README && git commit -qam ours")
    subprocess.run(
        ["git", "merge", "other"], cwd=repo, capture_output=True, env={**os.environ, **GIT_ENV}
    )
    (repo / "README").write_text("resolved by hand\n")
    (repo / "src" / "b.py").write_text("print('edited during the merge')\n")


def test_merge_abort_discarding_resolution_work_runs_and_is_undone(repo: Path) -> None:
    _conflicted_merge(repo)
    before = tree_bytes(repo)
    decision = pre(repo, "git merge --abort", "asks")
    assert decision.verdict is Verdict.WARN, reason(decision)
    assert HINT in reason(decision)
    sh(repo, "git merge --abort")
    assert tree_bytes(repo) != before
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before


def test_rebase_abort_keeps_the_ask(repo: Path) -> None:
    _conflicted_merge(repo)
    decision = pre(repo, "git rebase --abort", "asks")
    assert "allowed:" not in reason(decision)


def test_an_ask_before_a_snapshot_that_left_files_out_says_which(repo: Path) -> None:
    """red-team rt42: past the size bound a snapshot holds what fits, and the question put
    to the user still ended "snapshot N saved the uncommitted work: undo with ...": the
    user allowed ``rm -rf src`` taking it for undoable, and the file left out (the
    notice of it went to the hook's log, not to the question) was lost.  The hint now
    names what the snapshot does not hold."""
    (repo / "src" / "big.dat").write_bytes(b"x" * 4000)
    decision = pre(repo, "rm -rf src", "off", max_bytes=2000)
    assert decision.verdict is Verdict.ASK_USER
    text = reason(decision)
    assert "agentreflex undo 1" in text
    assert "src/big.dat" in text and "not saved" in text


def test_an_ask_before_a_snapshot_without_a_nested_repositorys_work_says_so(repo: Path) -> None:
    """red-team rt42: a repository inside the work tree (``git clone`` into ``vendor/``, a
    folder the user ran ``git init`` in) is not saved by the snapshot, whose question
    still said "saved the uncommitted work": ``rm -rf vendor`` was allowed as undoable
    and the nested repository's files were lost.  The hint names it as not saved."""
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    sh(nested, "git init -q && echo work > notes.txt")
    decision = pre(repo, "rm -rf vendor", "off")
    assert decision.verdict is Verdict.ASK_USER, reason(decision)
    text = reason(decision)
    assert "agentreflex undo 1" in text
    assert "vendor/lib" in text and "not saved" in text


def test_an_ask_with_no_snapshot_says_nothing_was_saved(repo: Path, tmp_path: Path) -> None:
    """red-team rt49: when no snapshot could be taken (here the store is a link a command
    planted, ``.git/agentreflex -> elsewhere``, which is never written through), the
    question before ``rm -rf src`` said nothing of it: a user who had seen "snapshot N
    saved the uncommitted work" on the last question took this one for the same.  Now
    it says no snapshot was taken and nothing is saved."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".git" / "agentreflex").symlink_to(elsewhere)
    decision = pre(repo, "rm -rf src", "asks")
    assert decision.verdict is Verdict.ASK_USER, reason(decision)
    text = reason(decision)
    assert "no snapshot was taken" in text and "nothing of the uncommitted work is saved" in text
    assert "saved the uncommitted work:" not in text
    assert not list(elsewhere.iterdir())


def test_a_discard_asked_when_the_look_runs_out_of_time_stays_asked_and_says_nothing_is_saved(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """red-team rt70: a command may leave more files than the work tree's look reads in
    time, and the look is then given up (``WORKTREE_LIMIT``, lowered here so that
    thousands of files stand for a million).  The discard after it is not lifted by a
    snapshot that was never taken, and its question says nothing is saved."""
    from agentreflex.core.hook import runtime

    for i in range(20):
        folder = repo / "many" / str(i)
        folder.mkdir(parents=True)
        for j in range(500):
            (folder / f"f{j}").touch()
    monkeypatch.setattr(runtime, "WORKTREE_LIMIT", 0.05)
    decision = pre(repo, "rm -rf src", "asks")
    assert decision.verdict is Verdict.ASK_USER, reason(decision)
    assert "work tree not observed" in " ".join(decision.errors)
    text = reason(decision)
    assert "no snapshot was taken" in text and "too many files" in text, text
    assert "allowed:" not in text


def _submodule(repo: Path) -> Path:
    upstream = repo.parent / "upstream"
    upstream.mkdir()
    sh(upstream, "git init -q && echo x > f && git add f && git commit -qm x")
    sh(repo, "git -c protocol.file.allow=always submodule add -q ../upstream lib")
    sh(repo, "git commit -qm 'add lib'")
    return repo / "lib"


def test_deleting_a_submodule_with_uncommitted_work_asks_and_says_it_is_not_saved(
    repo: Path,
) -> None:
    """red-team rt49: a submodule's own uncommitted work (an edit, a new file in ``lib/``)
    was seen by neither the gate (``git status --ignore-submodules=all``) nor the
    snapshot: ``rm -rf lib`` ran unasked and the work was gone.  Now the gate asks, and
    the question says the snapshot does not hold the submodule's work; a clean
    submodule's folder is deleted as before (its commits are in .git/modules)."""
    lib = _submodule(repo)
    assert pre(repo, "rm -rf lib", "asks").verdict is Verdict.ALLOW  # clean: nothing lost
    (lib / "f").write_text("edited\n")
    (lib / "mine.txt").write_text("mine\n")
    decision = pre(repo, "rm -rf lib", "asks")
    assert decision.verdict is Verdict.ASK_USER, reason(decision)
    text = reason(decision)
    assert "lib" in text and "not saved" in text
    assert "saved the uncommitted work:" not in text


def test_a_discard_from_a_nested_repository_of_the_projects_work_asks_and_is_saved(
    repo: Path,
) -> None:
    """red-team rt49: from a repository nested in the project (``vendor/lib``, one the
    agent cloned or made), ``rm -rf ../../src`` ran unasked (the gate asked the nested
    repository's git about ``../../src``, which refused a path outside it: unknown) and
    the snapshot was of the nested repository alone: the project's uncommitted work was
    lost.  Now the gate asks the repository holding each path, the project's own work
    is saved too, and the question says where each snapshot is undone."""
    before = tree_bytes(repo)
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    sh(nested, "git init -q && echo x > f && git add f && git commit -qm x")
    decision = pre(repo, "rm -rf ../../src", "asks", cwd=nested)
    assert decision.verdict is Verdict.ASK_USER, reason(decision)
    text = reason(decision)
    assert f"--cwd {repo}" in text, text
    sh(repo, "rm -rf src")
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    after = {k: v for k, v in tree_bytes(repo).items() if not k.startswith("vendor/")}
    assert after == before


def test_a_snapshot_in_the_projects_own_repository_asks_git_where_it_is_once(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hot path: each hook call is a new process, and every git run is one more.  The
    check for a repository around the one the command runs in (rt49's nested-repository
    snapshot) asked git for the project's repository again on every snapshot, though the
    command ran in that very repository: two git processes more on an ordinary call
    (``git status``, ``pytest -q``), about 5% of the hook's wall time.  Now the project's
    repository is asked once; the nested case above still saves both."""
    from agentreflex.core.worktree import safegit

    real = safegit.spawn
    asked: list[list[str]] = []

    def counting(argv: list[str], *rest: Any) -> Any:
        if "rev-parse" in argv and "--show-toplevel" in argv:
            asked.append(argv)
        return real(argv, *rest)

    monkeypatch.setattr(safegit, "spawn", counting)
    decision = pre(repo, "git status", None)
    assert decision.verdict is Verdict.ALLOW, reason(decision)
    assert len(asked) == 1, asked
    asked.clear()
    decision = pre(repo, "rm -rf pkg", "asks", cwd=repo / "src")
    assert decision.verdict is Verdict.WARN, reason(decision)  # undoable: runs with the hint
    assert HINT in reason(decision)
    assert "--cwd" not in reason(decision)  # one repository: one snapshot, no second hint
    assert len(asked) == 1, asked


def test_deleting_a_clean_nested_repository_whole_still_asks(repo: Path) -> None:
    """Its commits are nowhere else: the outer repository lists it as untracked work."""
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    sh(nested, "git init -q && echo x > f && git add f && git commit -qm x")
    assert pre(repo, "rm -rf vendor/lib", "off").verdict is Verdict.ASK_USER


def test_a_clean_submodule_keeps_the_snapshot_reused_until_it_gains_work(repo: Path) -> None:
    """Hot path: in a repository with a submodule, no snapshot was ever reused (the
    submodule's work is in no fingerprint), so every call (``git status``, ``pytest -q``)
    copied the index and wrote a tree again: about a quarter more hook time.  Now which
    submodules hold work is part of what a snapshot is reused for: unchanged, the last
    one is answered; once the submodule gains work a new one is taken, and a discard is
    still asked about with its work said not saved (rt49's case above)."""
    lib = _submodule(repo)
    store = repo / ".git" / "agentreflex" / "snapshots"

    def taken() -> int:
        return sum(1 for p in store.iterdir() if p.name.isdigit())

    for command in ("git status", "pytest -q", "git status"):
        assert pre(repo, command, "asks").verdict is Verdict.ALLOW
    assert taken() == 1
    (lib / "mine.txt").write_text("mine\n")
    assert pre(repo, "git status", "asks").verdict is Verdict.ALLOW
    assert taken() == 2
    decision = pre(repo, "rm -rf lib", "asks")
    assert decision.verdict is Verdict.ASK_USER, reason(decision)
    assert "not saved" in reason(decision)
    assert "saved the uncommitted work:" not in reason(decision)
    assert taken() == 2  # the same state: the snapshot naming lib's work is answered


def test_deleting_an_ignored_linked_work_tree_with_work_asks_and_says_it_is_not_saved(
    repo: Path,
) -> None:
    """red-team rt49: a linked work tree kept in an ignored folder of the project (the
    usual ``.worktrees/`` in .gitignore) is listed by no status of the project's, so
    ``rm -rf .worktrees/feat`` ran unasked and its uncommitted work was lost, the
    snapshot before it not holding it.  Now the gate asks, and the question says that
    work is not saved."""
    sh(repo, "echo .worktrees/ >> .gitignore && git add .gitignore && git commit -qm ignore")
    sh(repo, "git worktree add -q .worktrees/feat")
    (repo / ".worktrees" / "feat" / "mine.txt").write_text("mine\n")
    decision = pre(repo, "rm -rf .worktrees/feat", "asks")
    assert decision.verdict is Verdict.ASK_USER, reason(decision)
    text = reason(decision)
    assert ".worktrees/feat" in text and "not saved" in text


@pytest.mark.parametrize("hide", ["git add vendor/lib", "echo vendor/ >> .gitignore"])
def test_deleting_a_nested_repository_git_does_not_list_with_work_asks(
    repo: Path, hide: str
) -> None:
    """red-team rt49: a repository nested in the project that the project's status does
    not list (``git add``-ed as an embedded repository, a gitlink with no .gitmodules; or
    in an ignored folder) had its uncommitted work deleted unasked by ``rm -rf``.  Now a
    folder deleted whole that holds a ``.git`` is asked of its own git too."""
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    sh(nested, "git init -q && echo x > f && git add f && git commit -qm x")
    sh(repo, hide)
    (nested / "f").write_text("edited\n")
    assert pre(repo, "rm -rf vendor/lib", "off").verdict is Verdict.ASK_USER


@pytest.mark.parametrize("kind", ["a .git file naming nowhere", "a dangling .git link"])
def test_a_project_whose_git_leads_nowhere_asks_before_a_discard_and_says_nothing_is_saved(
    repo: Path, tmp_path: Path, kind: str
) -> None:
    """A top-level ``.git`` that is a file naming no git folder (``gitdir: /nowhere``, a
    linked worktree whose main repository was moved) or a link leading nowhere: git reads
    no repository, the guard had no .git folder to keep a snapshot in, and the gate (git
    could not say what is uncommitted) let ``rm -rf src`` run unasked.  Now the gate asks,
    and the question says nothing of the work is saved."""
    (repo / ".git").rename(tmp_path / "moved.git")
    if kind.startswith("a .git file"):
        (repo / ".git").write_text(f"gitdir: {tmp_path / 'nowhere'}\n")
    else:
        (repo / ".git").symlink_to(tmp_path / "nowhere")
    decision = pre(repo, "rm -rf src", "asks")
    assert decision.verdict is Verdict.ASK_USER, reason(decision)
    text = reason(decision)
    assert "nothing of the uncommitted work is saved" in text, text
    assert "saved the uncommitted work:" not in text
    assert pre(repo, "rm -rf missing-build", "asks").verdict is Verdict.ALLOW


@pytest.mark.parametrize(
    "damage",
    [
        "printf 'garbage\\n' > .git/HEAD",
        "printf '%040d\\n' 1 > .git/HEAD",
        "rm -rf .git/objects/??",
    ],
)
def test_a_discard_in_a_repository_git_cannot_read_is_saved_before_it_runs_and_undone(
    repo: Path, damage: str
) -> None:
    """rt49 left the work tree of a repository git cannot read saved through a scratch git
    folder; the gate still cannot ask git what is uncommitted.  End to end with every
    reflex: the real hook before ``rm -rf src`` takes the snapshot (before the command
    runs), the command runs, and ``agentreflex undo 1`` brings every file of src back."""
    sh(repo, damage)
    before = tree_bytes(repo)
    decision = pre(repo, "rm -rf src", "asks")
    assert decision.verdict in (Verdict.ALLOW, Verdict.WARN, Verdict.ASK_USER), reason(decision)
    assert (repo / ".git" / "agentreflex" / "snapshots" / "1").is_dir()
    sh(repo, "rm -rf src")
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    after = tree_bytes(repo)
    assert {k: v for k, v in after.items() if k.startswith("src/")} == {
        k: v for k, v in before.items() if k.startswith("src/")
    }


def post(root: Path, command: str, cwd: Path | None = None) -> None:
    """The real PostToolUse hook after ``pre``'s call (same session, same call id)."""
    payload = {
        "session_id": "relax-session",
        "cwd": str(cwd or root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
        "tool_use_id": "r1",
    }
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root.parent / "home"),
        "XDG_CONFIG_HOME": str(root.parent / "xdg"),
        "AGENTREFLEX_STATE_DIR": str(root.parent / "state"),
        "AGENTREFLEX_DAEMON": "off",
    }
    if cwd is not None:
        env["CLAUDE_PROJECT_DIR"] = str(root)
    run_hook("claude-code", json.dumps(payload).encode(), env)


def test_the_projects_snapshot_taken_from_a_nested_repository_is_undone_without_force(
    repo: Path,
) -> None:
    """The snapshot of the project's own work taken before a command run in a nested
    repository recorded no after-state: a file the command rewrote looked like newer
    work, and ``agentreflex undo N --cwd PROJECT`` refused it without --force.  Now the
    post-tool hook records what the command left in the project's files too."""
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    sh(nested, "git init -q && echo x > f && git add f && git commit -qm x")
    before = {k: v for k, v in tree_bytes(repo).items() if not k.startswith("vendor/")}
    command = "echo broken > ../../src/b.py && echo gone > ../../src/pkg/a.py"
    pre(repo, command, "asks", cwd=nested)
    sh(nested, command)
    post(repo, command, cwd=nested)
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    after = {k: v for k, v in tree_bytes(repo).items() if not k.startswith("vendor/")}
    assert after == before


def test_deleting_an_ignored_clean_checkout_with_unpushed_commits_asks_naming_them(
    repo: Path,
) -> None:
    """A clean checkout in an ignored folder (``vendor/``) whose branch was never pushed:
    the project's status does not list it and it has nothing uncommitted, so ``rm -rf
    vendor/lib`` ran unasked at every level and its commits went with its .git.  Now it
    asks, naming them, and the question never says they are saved."""
    (repo / ".gitignore").write_text("*.log\n.agentreflex/\nvendor/\n")
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    sh(nested, "git init -q && echo x > f && git add f && git commit -qm 'patch kept here'")
    for level in ("off", "asks", "discards"):
        decision = pre(repo, "rm -rf vendor/lib", level)
        assert decision.verdict is Verdict.ASK_USER, (level, reason(decision))
        text = reason(decision)
        assert "patch kept here" in text
        assert "allowed:" not in text
        assert "no snapshot of the guard's holds" in text


@pytest.mark.parametrize("level", ["off", "asks", "discards"])
def test_deleting_an_ignored_nested_checkout_with_work_never_calls_its_work_saved(
    repo: Path, level: str
) -> None:
    """A repository nested in an ignored folder (``vendor/``) with uncommitted work: the
    question before ``rm -rf vendor/lib`` carried the hook's "snapshot N saved the
    uncommitted work", true of the project's work but not of the nested checkout's, which
    no snapshot holds.  Now it names what is not saved beside what is."""
    (repo / ".gitignore").write_text("*.log\n.agentreflex/\nvendor/\n")
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    sh(nested, "git init -q && echo x > f && git add f && git commit -qm 'patch kept here'")
    (nested / "f").write_text("edited, uncommitted\n")
    decision = pre(repo, "rm -rf vendor/lib", level)
    assert decision.verdict is Verdict.ASK_USER, reason(decision)
    text = reason(decision)
    assert "saved the uncommitted work:" not in text, text
    assert "vendor/lib" in text and "not saved" in text, text


@pytest.mark.parametrize("kind", ["a .git file naming nowhere", "a dangling .git link"])
def test_a_project_whose_git_leads_nowhere_asks_before_a_single_file_delete_of_older_work(
    repo: Path, tmp_path: Path, kind: str
) -> None:
    """In a project whose ``.git`` leads nowhere, ``rm -rf src`` asked (rt55) but ``rm
    src/b.py`` ran unasked: git cannot say whether the file holds uncommitted work and no
    snapshot can be kept, so a file that was there before the session is lost unseen.
    Now the single-file delete asks with the recursive case's words; a scratch file the
    agent made in this session (changed since it began) is deleted unasked, as in a
    readable repository.  ``git checkout -- .``-style discards stay allowed: git refuses
    them there (not a git repository), nothing is discarded, and the test runs one."""
    (repo / ".git").rename(tmp_path / "moved.git")
    if kind.startswith("a .git file"):
        (repo / ".git").write_text(f"gitdir: {tmp_path / 'nowhere'}\n")
    else:
        (repo / ".git").symlink_to(tmp_path / "nowhere")
    assert pre(repo, "rm -rf missing-build", "asks").verdict is Verdict.ALLOW  # session begins
    (repo / "scratch.txt").write_text("the agent's own\n")
    assert pre(repo, "rm scratch.txt", "asks").verdict is Verdict.ALLOW
    for command in ("rm src/b.py", "rm -f src/pkg/a.py", "unlink README"):
        decision = pre(repo, command, "asks")
        assert decision.verdict is Verdict.ASK_USER, (command, reason(decision))
        text = reason(decision)
        assert "nothing of the uncommitted work is saved" in text, text
        assert "saved the uncommitted work:" not in text
    before = tree_bytes(repo)
    for command in ("git checkout -- .", "git restore .", "git reset --hard"):
        assert pre(repo, command, "asks").verdict is not Verdict.ASK_USER, command
        env = {**os.environ, **GIT_ENV, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
        done = subprocess.run(command, shell=True, cwd=repo, env=env, capture_output=True)
        assert done.returncode != 0, command  # git reads no repository: nothing discarded
    assert tree_bytes(repo) == before


def _lead_nowhere(repo: Path, tmp_path: Path, kind: str = "a .git file naming nowhere") -> None:
    """The project's ``.git`` made one git reads no repository through; the session begun."""
    (repo / ".git").rename(tmp_path / "moved.git")
    (tmp_path / "plain").mkdir()
    if kind == "a .git file naming nowhere":
        (repo / ".git").write_text(f"gitdir: {tmp_path / 'nowhere'}\n")
    elif kind == "a dangling .git link":
        (repo / ".git").symlink_to(tmp_path / "nowhere")
    else:  # a link to a folder that is no repository
        (repo / ".git").symlink_to(tmp_path / "plain")
    assert pre(repo, "rm -rf missing-build", "asks").verdict is Verdict.ALLOW  # session begins


# Every spelling the gate reads as deleting or overwriting project files wholesale: several
# files at once (a glob, as the shell expands it from the command's folder; several
# operands; a loop over a glob), a folder, what a find walk yields (-delete, -exec rm,
# | xargs rm), a file moved or copied over another, truncation and overwriting redirects.
_MANY_FILE_DISCARDS = [
    "rm src/*.py",
    "rm -f src/*.py",
    "rm src/new.py src/b.py",
    "cd src && rm *.py",
    'for f in src/*.py; do rm "$f"; done',
    "rm -r src/pkg",
    "find src -name '*.py' -delete",
    "find src -name '*.py' -exec rm {} +",
    "find src -name '*.py' -exec rm -f {} \\;",
    "find src -name '*.py' | xargs rm",
    "ls src/*.py | xargs rm",  # ls lists a file operand itself
    "find . -name pkg -exec rm -rf {} +",  # a folder it yields, deleted whole
    "find src -maxdepth 1 -name '*.py' -delete",
    "mv scratch.txt src/b.py",
    "mv -f scratch.txt src/pkg/a.py",
    "mv scratch/* src/",  # scratch/b.py lands on src/b.py
    "cp scratch.txt README",
    "truncate -s 0 src/b.py",
    ": > src/b.py",
    "cp /dev/null src/b.py",
    "echo gone > README",
    "echo gone | tee README",
    "dd if=scratch.txt of=src/b.py",
    "rsync -a --delete scratch/ src/",
]


@pytest.mark.parametrize(
    "kind", ["a .git file naming nowhere", "a dangling .git link", "a .git link to no repository"]
)
@pytest.mark.parametrize("command", _MANY_FILE_DISCARDS)
def test_a_project_whose_git_leads_nowhere_asks_before_every_spelling_of_a_discard(
    repo: Path, tmp_path: Path, command: str, kind: str
) -> None:
    """In a project whose ``.git`` leads nowhere, ``rm src/b.py`` asked (fc00daae) but ``rm
    src/*.py`` ran unasked: the glob was looked up as a file named ``*.py``, which does not
    exist, so nothing read as older than the session; so did ``find -exec rm``, ``xargs
    rm``, and every overwrite (``mv`` or ``cp`` over a file, ``truncate``, ``> file``),
    though git cannot say what they hold and no snapshot can be kept.  Now each asks when
    a file it reaches was there before the session, and says nothing is saved."""
    _lead_nowhere(repo, tmp_path, kind)
    (repo / "scratch.txt").write_text("the agent's own\n")
    (repo / "scratch").mkdir()
    (repo / "scratch" / "b.py").write_text("the agent's own\n")
    before = tree_bytes(repo)
    decision = pre(repo, command, "asks")
    assert decision.verdict is Verdict.ASK_USER, (command, reason(decision))
    text = reason(decision)
    assert "that were here before this session" in text, text
    assert "nothing of the uncommitted work is saved" in text, text
    assert "saved the uncommitted work:" not in text
    assert tree_bytes(repo) == before


@pytest.mark.parametrize(
    "command",
    [
        "rm scratch/*.py",  # only files made in this session
        "rm src/*.txt",  # a glob matching nothing
        "rm -f src/*.txt src/gone.py",
        "cd scratch && rm *.py",
        "rm -r scratch",
        "find scratch -name '*.py' -delete",
        "find scratch -name '*.py' -exec rm {} +",
        "find scratch -name '*.py' | xargs rm",
        "find src -name '*.tmp' -delete",  # its tests let no older file through
        "find . -name '*.tmp' -exec rm -f {} +",
        "find src -path '*/pkg/*.txt' -delete",
        "find src -maxdepth 1 -name 'a.py' -delete",  # src/pkg/a.py is deeper
        "ls scratch/*.py | xargs rm",
        "mv scratch/one.py src/moved.py",  # onto nothing
        "mv scratch/*.py src/pkg/",  # no name there is taken
        "mv src/b.py src/renamed.py",  # moved, not overwritten
        "cp src/b.py src/copy.py",
        "echo again > scratch/one.py",
        "echo more >> README",  # appended: nothing of it is lost
        "echo new > src/made.py",
        "truncate -s 0 scratch/two.py",
        "truncate -s +1K src/b.py",  # grown: nothing of it is lost
        "dd if=src/b.py of=scratch/two.py",
        "rsync -a --delete src/ scratch/",
    ],
)
def test_a_project_whose_git_leads_nowhere_lets_discards_of_this_sessions_files_run(
    repo: Path, tmp_path: Path, command: str
) -> None:
    """The other side: what reaches only files the agent made in this session (or none at
    all, a glob matching nothing) runs unasked there, as a scratch file's delete did."""
    _lead_nowhere(repo, tmp_path)
    (repo / "scratch").mkdir()
    (repo / "scratch" / "one.py").write_text("1\n")
    (repo / "scratch" / "two.py").write_text("2\n")
    decision = pre(repo, command, "asks")
    assert decision.verdict is not Verdict.ASK_USER, (command, reason(decision))
    assert decision.verdict is not Verdict.BLOCK, (command, reason(decision))


@pytest.mark.parametrize("command", _MANY_FILE_DISCARDS)
def test_in_a_readable_repository_every_spelling_of_a_discard_runs_after_its_snapshot(
    repo: Path, command: str
) -> None:
    """The normal case is unchanged: where the snapshot is taken first, none of these is
    blocked or told no snapshot was taken (a delete git says holds uncommitted work is
    asked, as before, with the snapshot's undo hint), and the snapshot undoes each byte
    for byte."""
    (repo / "scratch.txt").write_text("the agent's own\n")
    (repo / "scratch").mkdir()
    (repo / "scratch" / "b.py").write_text("the agent's own\n")
    before = tree_bytes(repo)
    decision = pre(repo, command, "asks")
    text = reason(decision)
    assert decision.verdict is not Verdict.BLOCK, (command, text)
    assert "no snapshot" not in text and "git cannot read" not in text, text
    if decision.verdict is Verdict.ASK_USER:
        assert text.count("GATE-RM-UNCOMMITTED") == 1 and "undo 1" in text, text
    sh(repo, command)
    post(repo, command)
    assert tree_bytes(repo) != before
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before


@pytest.mark.parametrize(
    "command", [": > src/b.py", "mv scratch.txt README", "truncate -s 0 src/b.py", "rm src/*.py"]
)
def test_a_linked_work_tree_whose_git_file_leads_to_its_repository_is_not_asked(
    repo: Path, command: str
) -> None:
    """A linked work tree (``git worktree add``, which hosts make per task) has a ``.git``
    file too, naming its repository: the discards above run there as in the repository
    itself, after its snapshot, never asked as if no snapshot could be kept."""
    sh(repo, "git commit -qm staged && git worktree add -q ../linked")
    linked = repo.parent / "linked"
    assert pre(linked, "rm -rf missing-build", "asks").verdict is Verdict.ALLOW
    (linked / "scratch.txt").write_text("the agent's own\n")
    decision = pre(linked, command, "asks")
    text = reason(decision)
    assert decision.verdict in (Verdict.ALLOW, Verdict.WARN), (command, text)
    assert "no snapshot" not in text and "git cannot read" not in text, text


def test_deleting_a_folder_with_ignored_files_names_them_as_not_saved(repo: Path) -> None:
    """``rm -rf src`` where src holds an ignored file (``*.log``): the question said
    "snapshot 1 saved the uncommitted work", and the ignored file, which no snapshot
    holds, went with it unsaid.  Now it names the ignored files the command deletes as not
    saved, and never says "the uncommitted work" unqualified."""
    (repo / "src" / "cache.log").write_text("ignored, not saved\n")
    decision = pre(repo, "rm -rf src", "asks")
    assert decision.verdict is Verdict.ASK_USER, reason(decision)
    text = reason(decision)
    assert "saved the uncommitted work:" not in text, text
    assert "src/cache.log" in text and "not saved" in text, text
    assert "undo 1" in text  # what the snapshot does hold is still said


def _left_out(repo: Path) -> tuple[str, str]:
    (repo / "src" / "big.dat").write_bytes(b"x" * 4000)
    return "rm -rf src", "src/big.dat"


def _nested_plain(repo: Path) -> tuple[str, str]:
    (repo / "vendor" / "lib").mkdir(parents=True)
    sh(repo / "vendor" / "lib", "git init -q && echo work > notes.txt")
    return "rm -rf vendor", "vendor/lib"


def _nested_ignored(repo: Path) -> tuple[str, str]:
    (repo / ".gitignore").write_text("*.log\n.agentreflex/\nvendor/\n")
    return _nested_plain(repo)


def _submodule_work(repo: Path) -> tuple[str, str]:
    (_submodule(repo) / "mine.txt").write_text("mine\n")
    return "rm -rf lib", "lib"


def _linked(repo: Path) -> tuple[str, str]:
    sh(repo, "echo .worktrees/ >> .gitignore && git add .gitignore && git commit -qm ignore")
    sh(repo, "git worktree add -q .worktrees/feat")
    (repo / ".worktrees" / "feat" / "mine.txt").write_text("mine\n")
    return "rm -rf .worktrees/feat", ".worktrees/feat"


def _ignored(repo: Path) -> tuple[str, str]:
    (repo / "src" / "cache.log").write_text("ignored\n")
    return "rm -rf src", "src/cache.log"


def _staged_then_edited(repo: Path) -> tuple[str, str]:
    (repo / "README").write_text("staged above, edited again\n")  # README is staged: now MM
    return "rm README", "README"


def _no_snapshot_glob(repo: Path) -> tuple[str, str]:
    """No snapshot at all: the project's ``.git`` names no git folder, a glob deleted."""
    (repo / ".git").rename(repo.parent / "moved.git")
    (repo / ".git").write_text(f"gitdir: {repo.parent / 'nowhere'}\n")
    return "rm src/*.py", "src/"


def _no_snapshot_overwrite(repo: Path) -> tuple[str, str]:
    (repo / ".git").rename(repo.parent / "moved.git")
    (repo / ".git").symlink_to(repo.parent / "nowhere")
    return ": > README", "README"


@pytest.mark.parametrize(
    "make",
    [
        _left_out,
        _nested_plain,
        _nested_ignored,
        _submodule_work,
        _linked,
        _ignored,
        _staged_then_edited,
        _no_snapshot_glob,
        _no_snapshot_overwrite,
    ],
)
@pytest.mark.parametrize("level", ["off", "asks"])
def test_every_question_naming_a_snapshot_says_what_it_does_not_hold(
    repo: Path, make: Any, level: str
) -> None:
    """Each kind of work a snapshot does not hold (past the size bound, a nested checkout
    tracked or ignored, a submodule's or linked work tree's work, an ignored file, the
    staged bytes of a file edited again; everything, where no snapshot can be kept at all):
    the question before a discard of it may say what the snapshot holds, never "saved the
    uncommitted work" unqualified, and names what it does not hold."""
    command, what = make(repo)
    decision = pre(repo, command, level, max_bytes=2000)
    assert decision.verdict is Verdict.ASK_USER, reason(decision)
    text = reason(decision)
    assert "saved the uncommitted work:" not in text, text
    assert what in text and "not saved" in text, text


def test_only_the_gates_in_project_discard_codes_relax() -> None:
    ask = Finding("gate", "GATE-RM-UNCOMMITTED", Verdict.ASK_USER, "x")
    other = Finding("gate", "GATE-RM-UNRESOLVED", Verdict.ASK_USER, "y")
    mixed = Finding(
        "gate",
        "GATE-GIT-CLEAN",
        Verdict.ASK_USER,
        "z",
        detail={"rules": ["GATE-GIT-CLEAN", "GATE-RM-ROOT"]},
    )
    assert relax.may_relax(merge([ask], Mode.ENFORCED), "asks")
    assert not relax.may_relax(merge([ask], Mode.ENFORCED), "off")
    assert not relax.may_relax(merge([ask, other], Mode.ENFORCED), "discards")
    assert not relax.may_relax(merge([mixed], Mode.ENFORCED), "discards")
    assert not relax.may_relax(merge([], Mode.ENFORCED), "discards")
    guard = Finding("guard", "GATE-RM-UNCOMMITTED", Verdict.ASK_USER, "not the gate")
    assert not relax.may_relax(merge([guard], Mode.ENFORCED), "asks")


def _operand_look(root: Path, command: str) -> Callable[[], list[str]]:
    """The work tree's look at the paths a shell command names (hook._operand_dirs), ready
    to run: the repository found and the event made beforehand."""
    from agentreflex.core.events import Event, EventKind, build_tool_call
    from agentreflex.core.worktree import hook, observe

    found = observe.find_repo(str(root))
    assert found is not None
    event = Event(
        kind=EventKind.PRE_TOOL,
        host="test",
        session_id="s",
        cwd=str(root),
        project=str(root),
        tool=build_tool_call("Bash", {"command": command}, "t1"),
    )
    return lambda: hook._operand_dirs(found, event)


def test_the_looks_operands_of_a_250_kb_command_cost_one_stat_or_two_a_word(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rt78: a 250 kB command's operands took the look 2.4 s: every word resolved from
    ``/`` (an lstat per folder on the way) and each found path compared with every one
    found before.  Now each distinct word costs at most two lstats (its own link check
    and whether it exists), the folders on the way looked up once: the work grows with
    the command, not with the command times the depth or the paths found."""
    for i in range(0, 3000, 3):
        (repo / f"f{i}").write_text("x")
    words = [f"f{i}" for i in range(3000)]
    command = "rm -f " + " ".join(words * 4)
    command += " " + " ".join(f"g{i}" for i in range(250_000 // 7))
    command = command[:250_000]
    look = _operand_look(repo, command)
    real = os.lstat
    calls: list[str] = []

    def counted(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        calls.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", counted)
    found = look()
    monkeypatch.setattr(os, "lstat", real)
    top = os.path.realpath(repo)
    assert found == [os.path.join(top, f"f{i}") for i in range(0, 3000, 3)]
    distinct = len(set(command.split()))
    assert len(calls) <= 2 * distinct + 64, (len(calls), distinct)


def test_the_looks_operands_stop_at_the_looks_deadline(repo: Path) -> None:
    """The operands of a long command are read within the look's own deadline (rt74's
    cooperative one, which a warm daemon's thread has no signal for): past it the look
    gives up instead of reading on."""
    from agentreflex.core.util import deadline

    look = _operand_look(repo, "rm -f " + " ".join(f"g{i}" for i in range(5000)))
    before = deadline.start(0.0)
    try:
        with pytest.raises(deadline.OutOfTime):
            look()
    finally:
        deadline.restore(before)


def test_the_looks_operands_of_a_command_with_an_unclosed_quote_are_none(repo: Path) -> None:
    """The command is read a word at a time (so that a 10 MB one is read within the look's
    deadline too); one with an unclosed quote still names no path, as when it was split
    whole first, and one without names what exists, once."""
    assert _operand_look(repo, "rm -rf src 'README")() == []
    assert _operand_look(repo, "rm -rf src src ./src README -- 'src' nothing")() == [
        os.path.join(os.path.realpath(repo), name) for name in ("src", "README")
    ]
