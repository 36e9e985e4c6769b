"""Discards of files are judged on the real work tree: changed -> BLOCK, clean -> ALLOW.

Real git repositories in a temporary folder; the repository's own config
must not make the gate run anything (fsmonitor, filter drivers).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from agentreflex.gate.check import check_command
from agentreflex.gate.rules import worktree

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    _git(root, "init", "-q")
    (root / "changed.txt").write_text("a\n")
    (root / "clean.txt").write_text("b\n")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "init")
    (root / "changed.txt").write_text("a\nwork in progress\n")
    return root


def _verdict(command: str, cwd: Path) -> tuple[str, list[str]]:
    verdict, proposals = check_command(command, cwd=str(cwd), home=str(cwd.parent))
    return verdict, [p.code for p in proposals]


@pytest.mark.parametrize(
    "command",
    [
        "git checkout -- changed.txt",
        "git checkout HEAD changed.txt",
        "git restore changed.txt",
        "git restore -sHEAD changed.txt",
        "git restore --worktree changed.txt",
        "git rm -f changed.txt",
        "git rm --forc changed.txt",
        "git checkout 2>/dev/null -- changed.txt",
        "git checkout-index -f changed.txt",
        "git checkout-index --force -- changed.txt",
    ],
)
def test_discarding_changed_files_blocks(repo: Path, command: str) -> None:
    assert _verdict(command, repo) == ("BLOCK", ["GATE-GIT-DISCARD-FILES"])


@pytest.mark.parametrize(
    "command",
    [
        "git checkout -- clean.txt",
        "git restore clean.txt",
        "git rm -f clean.txt",
        "git checkout HEAD clean.txt",
        "git restore --staged changed.txt",
        "git rm --cached -f changed.txt",
        "git checkout-index -f clean.txt",
        "git checkout-index changed.txt",
    ],
)
def test_discarding_clean_files_is_allowed(repo: Path, command: str) -> None:
    assert _verdict(command, repo) == ("ALLOW", [])


def test_unknown_work_tree_asks(tmp_path: Path) -> None:
    assert _verdict("git restore a.txt", tmp_path) == ("ASK_USER", ["GATE-GIT-DISCARD-FILES"])
    assert _verdict("git restore $F", tmp_path)[0] == "ASK_USER"


def test_forced_worktree_removal_follows_its_state(repo: Path, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    _git(repo, "worktree", "add", "-q", str(wt))
    assert _verdict(f"git worktree remove -f {wt}", repo)[0] == "ALLOW"
    (wt / "scratch.txt").write_text("untracked work\n")
    assert _verdict(f"git worktree remove --force {wt}", repo) == (
        "BLOCK",
        ["GATE-GIT-WORKTREE-FORCE-REMOVE"],
    )
    assert _verdict("git worktree remove -f ../nowhere", repo)[0] == "ASK_USER"


def test_the_repository_config_runs_nothing(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    _git(repo, "config", "core.fsmonitor", str(hook))
    assert _verdict("git restore changed.txt", repo)[0] == "BLOCK"
    assert not marker.exists()
    _git(repo, "config", "filter.x.clean", str(hook))
    (repo / ".gitattributes").write_text("*.txt filter=x\n")
    # the filter driver is blanked for the guard's git, not run: the answer is known
    assert worktree.uncommitted(str(repo), ["clean.txt"]) is False
    assert worktree.uncommitted(str(repo), ["changed.txt"]) is True
    assert not marker.exists()


def test_git_lfs_filters_are_no_obstacle(repo: Path) -> None:
    _git(repo, "config", "filter.lfs.clean", "git-lfs clean -- %f")
    assert worktree.uncommitted(str(repo), ["clean.txt"]) is False
    assert worktree.uncommitted(str(repo), ["changed.txt"]) is True


def test_untracked_files_are_not_what_a_checkout_loses(repo: Path) -> None:
    (repo / "new.txt").write_text("not in git\n")
    assert _verdict("git checkout -- new.txt", repo) == ("ALLOW", [])
    assert worktree.uncommitted(str(repo), ["new.txt"], untracked=True) is True


@pytest.mark.parametrize(
    "command",
    [
        "git checkout-index -f -a",
        "git checkout-index -fa",
        "git checkout-index --force --all",
        "git checkout-index --forc --al",
        "git checkout-index -q -u -f -a",
        "git ls-files | git checkout-index -f --stdin",
        "git read-tree -u --reset HEAD",
        "git read-tree --reset -u HEAD~1",
    ],
)
def test_plumbing_that_writes_the_index_over_the_work_tree_blocks(repo: Path, command: str) -> None:
    """red-team rt42: ``git checkout-index -f -a`` and ``git read-tree -u --reset HEAD``
    discard every uncommitted change as ``git checkout -- .`` does
    (https://git-scm.com/docs/git-checkout-index, https://git-scm.com/docs/git-read-tree),
    and were allowed."""
    assert _verdict(command, repo) == ("BLOCK", ["GATE-GIT-DISCARD-TREE"])


@pytest.mark.parametrize(
    "command",
    [
        "git checkout-index -a",
        "git checkout-index -a -f --prefix=export/",
        "git checkout-index -a -f --prefix export/",
        "git read-tree HEAD",
        "git read-tree -m -u HEAD",
        "git read-tree --reset HEAD",
    ],
)
def test_plumbing_that_keeps_the_work_tree_is_allowed(repo: Path, command: str) -> None:
    assert _verdict(command, repo) == ("ALLOW", [])


@pytest.fixture
def workspace(repo: Path) -> Path:
    """A folder that is no repository, holding the changed checkout ``proj`` and a clean
    one whose commits its remote holds."""
    clean = repo.parent / "clean"
    clean.mkdir()
    _git(clean, "init", "-q", "-b", "main")
    (clean / "a.txt").write_text("a\n")
    _git(clean, "add", ".")
    _git(clean, "commit", "-qm", "init")
    _git(repo.parent, "init", "-q", "--bare", "clean-remote.git")
    _git(clean, "remote", "add", "origin", str(repo.parent / "clean-remote.git"))
    _git(clean, "push", "-q", "-u", "origin", "main")
    (repo.parent / "build").mkdir()
    return repo.parent


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf proj && gh repo clone owner/proj",
        "rm -r ./proj/",
        "git clone https://github.com/owner/proj.git tmp && rm -rf proj && mv tmp proj",
    ],
)
def test_deleting_a_checkout_with_uncommitted_work_asks(workspace: Path, command: str) -> None:
    """anthropics/claude-code#80830: an agent ran ``rm -rf DIR && gh repo clone ...`` over
    a checkout of its own in the working folder and lost its uncommitted work; git status
    of the project never enters that checkout."""
    verdict, proposals = check_command(command, cwd=str(workspace), home=str(workspace.parent))
    assert verdict == "ASK_USER", [p.code for p in proposals]
    assert [p.code for p in proposals] == ["GATE-RM-UNCOMMITTED"]
    assert "stash" in proposals[0].message


def test_deleting_a_folder_that_holds_a_dirty_checkout_asks(workspace: Path) -> None:
    outer = workspace.parent
    verdict, proposals = check_command(
        f"rm -rf {workspace.name}", cwd=str(outer), home="/nonexistent"
    )
    assert verdict == "ASK_USER"
    assert "which holds the git checkout proj" in proposals[0].message


@pytest.mark.parametrize("command", ["rm -rf clean", "rm -rf build", "rm -rf proj/missing"])
def test_deleting_clean_checkouts_and_plain_folders_is_allowed(
    workspace: Path, command: str
) -> None:
    assert _verdict(command, workspace) == ("ALLOW", [])


@pytest.mark.parametrize("command", ["git clean -fdx", "git clean -fX", "git clean -f -x build/"])
def test_git_clean_of_ignored_files_says_they_are_never_in_a_snapshot(
    repo: Path, command: str
) -> None:
    """-x/-X delete ignored files (.env, local config), which no snapshot holds and
    ``agentreflex undo`` cannot bring back; the reason says so and gives the safe way
    (git-scm.com/docs/git-clean: -x "can be used ... to remove all untracked files,
    including build products")."""
    verdict, proposals = check_command(command, cwd=str(repo), home=str(repo.parent))
    assert verdict == "BLOCK", [p.code for p in proposals]
    message = proposals[0].message
    assert "ignored" in message and ".env" in message
    assert "snapshot" in message and "git clean -n" in message


@pytest.fixture
def unpushed(workspace: Path) -> Path:
    """``vendor/lib``: a clean nested checkout whose branch has a commit no remote holds."""
    lib = workspace / "vendor" / "lib"
    lib.mkdir(parents=True)
    _git(lib, "init", "-q", "-b", "main")
    (lib / "a.txt").write_text("a\n")
    _git(lib, "add", ".")
    _git(lib, "commit", "-qm", "local fix nobody has")
    return workspace


@pytest.mark.parametrize("command", ["rm -rf vendor/lib", "rm -rf vendor", "rm -r ./vendor/lib/"])
def test_deleting_a_clean_checkout_with_unpushed_commits_asks_naming_them(
    unpushed: Path, command: str
) -> None:
    """A clean checkout's commits that no remote holds go with its .git: as lost as
    uncommitted work (anthropics/claude-code#80830 is the uncommitted twin)."""
    verdict, proposals = check_command(command, cwd=str(unpushed), home=str(unpushed.parent))
    assert verdict == "ASK_USER", [p.code for p in proposals]
    assert "local fix nobody has" in proposals[0].message
    assert "push" in proposals[0].message


def test_deleting_a_checkout_whose_commits_are_pushed_is_allowed(unpushed: Path) -> None:
    lib = unpushed / "vendor" / "lib"
    remote = unpushed / "remote.git"
    _git(unpushed, "init", "-q", "--bare", str(remote))  # beside clean-remote.git
    _git(lib, "remote", "add", "origin", str(remote))
    _git(lib, "push", "-q", "-u", "origin", "main")
    assert _verdict("rm -rf vendor/lib", unpushed) == ("ALLOW", [])
    (lib / "b.txt").write_text("b\n")
    _git(lib, "add", ".")
    _git(lib, "commit", "-qm", "ahead of origin")
    verdict, proposals = check_command(
        "rm -rf vendor/lib", cwd=str(unpushed), home=str(unpushed.parent)
    )
    assert verdict == "ASK_USER" and "ahead of origin" in proposals[0].message


def test_deleting_uncommitted_work_of_a_linked_worktree_asks(repo: Path) -> None:
    """A linked worktree (``git worktree add``) has a ``.git`` file, not a folder: its
    uncommitted work was never asked about, and ``rm -rf src`` there ran unasked
    (git-scm.com/docs/git-worktree)."""
    linked = repo.parent / "linked"
    _git(repo, "worktree", "add", "-q", str(linked))
    (linked / "src").mkdir()
    (linked / "src" / "mine.py").write_text("work\n")
    verdict, proposals = check_command("rm -rf src", cwd=str(linked), home=str(repo.parent))
    assert verdict == "ASK_USER", [p.code for p in proposals]
    assert _verdict("rm -rf missing", linked) == ("ALLOW", [])


def test_deleting_in_a_project_whose_git_file_leads_nowhere_asks(repo: Path) -> None:
    (repo / ".git").rename(repo.parent / "moved.git")
    (repo / ".git").write_text(f"gitdir: {repo.parent / 'nowhere'}\n")
    (repo / "src").mkdir()
    verdict, proposals = check_command("rm -rf src", cwd=str(repo), home=str(repo.parent))
    assert verdict == "ASK_USER" and "no snapshot" in proposals[0].message
    assert _verdict("rm changed.txt", repo) == ("ALLOW", [])  # one file: left alone


def test_a_detached_head_commit_of_a_nested_checkout_asks_and_a_separate_git_dir_does_not(
    workspace: Path,
) -> None:
    clean = workspace / "clean"
    _git(clean, "checkout", "-q", "--detach")
    (clean / "b.txt").write_text("b\n")
    _git(clean, "add", ".")
    _git(clean, "commit", "-qm", "detached work")
    verdict, proposals = check_command("rm -rf clean", cwd=str(workspace), home="/nonexistent")
    assert verdict == "ASK_USER" and "detached work" in proposals[0].message
    # a .git file: the repository (and its commits) lives elsewhere and is not deleted
    apart = workspace / "apart"
    apart.mkdir()
    _git(apart, "init", "-q", "--separate-git-dir", str(workspace.parent / "apart.git"))
    (apart / "a.txt").write_text("a\n")
    _git(apart, "add", ".")
    _git(apart, "commit", "-qm", "kept in apart.git")
    assert _verdict("rm -rf apart", workspace) == ("ALLOW", [])
