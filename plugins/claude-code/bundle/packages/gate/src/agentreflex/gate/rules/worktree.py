"""Does a git work tree hold uncommitted changes at some paths?  Ask git, bounded.

A discard (``git checkout -- f``, ``git restore f``, ``git rm -f f``, ``git
worktree remove -f dir``) loses work only when there is uncommitted work to
lose.  This asks the real work tree with ``git status --porcelain`` so a
discard of clean files can run and a discard of changed ones is stopped.

Only commands that discard reach this module (it is imported by the git
rules on demand).  The status run goes through core's one safe git
(``agentreflex.core.worktree.safegit``): nothing the repository's config
names is executed (fsmonitor, hooks, pagers, and every filter driver are
overridden; submodules are not entered), the caller's ``GIT_*`` environment
is dropped, and it is bounded by a timeout.  Any failure answers ``None``
(unknown) and the caller decides.
"""

from __future__ import annotations

import os

from agentreflex.core.worktree.safegit import filter_overrides, git
from agentreflex.gate.model import has_marker

TIMEOUT_S = 1.0
_MAX_OUTPUT = 1 << 20


def uncommitted(cwd: str, paths: list[str] | None = None, untracked: bool = False) -> bool | None:
    """True when ``paths`` (None: the whole work tree) have uncommitted changes.

    ``untracked``: untracked files count too (a forced worktree removal
    deletes them; ``checkout``/``restore``/``rm`` leave them alone).  ``None``
    when it cannot be told: no such folder, not a git work tree, git missing
    or slow, or a path only known at run time.
    """
    if not cwd or has_marker(cwd) or not os.path.isdir(cwd):
        return None
    if paths is not None and (not paths or any(has_marker(p) for p in paths)):
        return None
    filters = filter_overrides(cwd)
    if filters is None:
        return None
    status = git(
        cwd,
        [
            "status",
            "--porcelain=v1",
            "-z",
            "--ignore-submodules=all",
            "--untracked-files=all" if untracked else "--untracked-files=no",
            "--",
            *(paths or ["."]),
        ],
        timeout=TIMEOUT_S,
        filters=filters,
    )
    if status is None or status.returncode != 0 or len(status.stdout) > _MAX_OUTPUT:
        return None
    if status.stdout.strip(b"\0"):
        return True
    if untracked:
        # a folder deleted whole takes a submodule's own uncommitted work with it, which
        # the status above never enters (red-team rt49: ``rm -rf lib`` ran unasked)
        return bool(_submodule_work(cwd, paths))
    return False


def _submodule_work(cwd: str, paths: list[str] | None) -> list[str]:
    from agentreflex.core.worktree.safegit import work_tree_top
    from agentreflex.core.worktree.submodules import with_work

    top = work_tree_top(os.path.abspath(cwd))
    if not top:
        return []
    targets = [os.path.join(os.path.abspath(cwd), p) for p in paths] if paths else None
    return with_work(top, targets)


def leads_nowhere(top: str) -> bool:
    """``top`` holds a ``.git`` that is no folder (a file, a link) and git reads no
    repository there: ``gitdir: /nowhere``, a linked worktree whose repository moved, a
    link leading nowhere.  The guard then has no git folder to keep a snapshot in, and
    git cannot say what is uncommitted (a deleted folder's work is lost unseen).  git
    missing or slow: False (the caller's rule does not fire on a guess)."""
    dot_git = os.path.join(top, ".git")
    if has_marker(top) or not os.path.lexists(dot_git):
        return False
    if os.path.isdir(dot_git) and not os.path.islink(dot_git):
        return False  # a .git folder: the snapshot's store can be kept in it
    done = git(top, ["rev-parse", "--git-dir"], timeout=TIMEOUT_S)
    return done is not None and done.returncode != 0


_UNPUSHED_SHOWN = 3


def unpushed(cwd: str) -> list[str] | None:
    """The commits of the repository at ``cwd`` that no remote-tracking branch holds (on a
    branch with no upstream, or ahead of it), as ``SHA subject`` lines, at most a few
    (with "..." when there are more); ``None`` when it cannot be told.

    A clean checkout deleted whole takes these with its ``.git`` folder: they exist
    nowhere else, as uncommitted work does (a ``.git`` file's repository lives elsewhere,
    a submodule's in the project's .git/modules, and keeps them: not asked).  Refs and objects only (no filter runs); no
    signature is checked (``log.showSignature`` would run gpg)."""
    if not cwd or has_marker(cwd) or not os.path.isdir(cwd):
        return None
    own = os.path.join(cwd, ".git")
    if os.path.islink(own) or not os.path.isdir(own):
        return []  # the history is kept outside the folder deleted
    done = git(
        cwd,
        [
            "log",
            "--no-show-signature",
            "--no-mailmap",
            f"--max-count={_UNPUSHED_SHOWN + 1}",
            "--format=%h %s",
            "HEAD",  # a detached HEAD's commits (an unborn one: git fails, nothing asked)
            "--branches",
            "--not",
            "--remotes",
        ],
        timeout=TIMEOUT_S,
    )
    if done is None or done.returncode != 0 or len(done.stdout) > _MAX_OUTPUT:
        return None
    lines = [line[:72] for line in done.stdout.decode("utf-8", "replace").splitlines() if line]
    return lines[:_UNPUSHED_SHOWN] + (["..."] if len(lines) > _UNPUSHED_SHOWN else [])


def by_repository(cwd: str, paths: list[str]) -> dict[str, list[str]]:
    """``paths`` (as a command in ``cwd`` names them) grouped by the work tree holding each,
    as paths from its top; a path with no work tree around it stays with ``cwd``.

    Why: git refuses a path outside its repository (``../../src`` asked of a repository
    nested in the project), which read as unknown: ``cd vendor/lib && rm -rf ../../src``
    ran unasked and the project's uncommitted work was lost (red-team rt49)."""
    from agentreflex.core.worktree.safegit import work_tree_top

    out: dict[str, list[str]] = {}
    for p in paths:
        if has_marker(p):
            out.setdefault(cwd, []).append(p)
            continue
        full = os.path.normpath(os.path.join(os.path.abspath(cwd), os.path.expanduser(p)))
        # from the folder holding it: a nested repository deleted whole is its outer
        # repository's to list (an untracked folder there), history and all
        top = work_tree_top(os.path.dirname(full))
        if not top:
            out.setdefault(cwd, []).append(p)
            continue
        out.setdefault(top, []).append(os.path.relpath(full, top) if full != top else ".")
    return out


def is_ref(cwd: str, name: str) -> bool:
    """Whether ``name`` names a commit in the repository at ``cwd`` (a branch, tag or sha).

    ``git checkout NAME`` switches to NAME when it is one and restores the file
    NAME otherwise; unknown (git missing or slow) counts as a ref, so the
    caller's discard rule does not fire on a guess.
    """
    if name.startswith("-") or has_marker(name):
        return True
    # rev-parse reads refs and objects only: no filter, hook or pager is involved
    done = git(cwd, ["rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"], timeout=TIMEOUT_S)
    return done is None or done.returncode == 0


def differs_from(cwd: str, rev: str, paths: list[str]) -> list[str] | None:
    """Which of ``paths`` are not in the work tree as ``rev`` has them (``git diff REV``).

    A checkout, merge, rebase or stash pop to ``rev`` may rewrite exactly
    these.  ``None`` when it cannot be told (not a work tree, git slow, no such
    revision); ``rev`` is passed after ``--end-of-options`` so no word is taken
    for an option.
    """
    if not cwd or has_marker(cwd) or has_marker(rev) or not paths or not os.path.isdir(cwd):
        return None
    filters = filter_overrides(cwd)
    if filters is None:
        return None
    done = git(
        cwd,
        ["diff", "--name-only", "-z", "--no-renames", "--end-of-options", rev, "--", *paths],
        timeout=TIMEOUT_S,
        filters=filters,
    )
    if done is None or done.returncode != 0 or len(done.stdout) > _MAX_OUTPUT:
        return None
    return [name for name in done.stdout.decode("utf-8", "replace").split("\0") if name]
