"""Which checked-out submodules (and linked work trees inside the work tree) hold
uncommitted work: asked of each one's own git, safely.

Why: the guard's ``git status`` runs with ``--ignore-submodules=all`` (entering a
submodule would run its git with its own config, whose filters and fsmonitor no
override blanks), so a submodule's edits and new files were in no snapshot and
no question: ``rm -rf lib`` ran unasked and its work was lost, with the snapshot
before it saying it "saved the uncommitted work" (red-team rt49).  Here each
submodule is asked by :func:`.safegit.git` as a repository of its own, its
filters overridden, in the boundary where it is below the project.

The submodules are the ``.gitmodules`` paths (read by ``git config -f``, which
runs nothing), checked out (a folder holding ``.git``).  Bounded: past
:data:`MAX_ASKED` submodules the rest are counted as holding work, and one git
cannot answer for is counted so too: never taken for clean.
"""

from __future__ import annotations

import os

MAX_ASKED = 10


def _paths(top: str) -> list[str] | None:
    """The ``.gitmodules`` paths of the work tree at ``top`` ([] when it has none)."""
    from agentreflex.core.worktree.safegit import git

    listed = os.path.join(top, ".gitmodules")
    if not os.path.isfile(listed) or os.path.islink(listed):
        return []
    res = git(top, ["config", "-z", "-f", listed, "--get-regexp", r"^submodule\..*\.path$"])
    if res is None or res.returncode not in (0, 1):
        return None
    out: list[str] = []
    for entry in res.stdout.decode("utf-8", "surrogateescape").split("\0"):
        path = entry.partition("\n")[2].strip("/")
        parts = path.split("/")
        if path and not any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
            out.append(path)
    return out


def linked_inside(top: str) -> list[str]:
    """The linked work trees of the repository at ``top`` that lie inside it (paths from
    the top): one kept in an ignored folder (``.worktrees/``) is in no status of the
    project's (red-team rt49).  Read from ``.git/worktrees/*/gitdir`` (each names its
    work tree's ``.git`` file), never waiting on a FIFO put there."""
    from agentreflex.core.util.fsutil import read_regular

    folder = os.path.join(top, ".git", "worktrees")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    real = os.path.realpath(top)
    out: list[str] = []
    for name in sorted(names):
        data = read_regular(os.path.join(folder, name, "gitdir"), 4096)
        if not data:
            continue
        dot = data[:4096].decode("utf-8", "surrogateescape").strip()
        path = os.path.realpath(os.path.dirname(dot)) if os.path.isabs(dot) else ""
        if path.startswith(real + os.sep):
            out.append(os.path.relpath(path, real))
    return out


def _dirty(folder: str) -> bool:
    """Uncommitted changes or new files in the submodule at ``folder`` (True: unknown)."""
    from agentreflex.core.worktree.safegit import filter_overrides, git

    filters = filter_overrides(folder)
    if filters is None:
        return True
    args = ["status", "--porcelain=v1", "-z", "--ignore-submodules=all", "--untracked-files=normal"]
    res = git(folder, args, filters=filters)
    return res is None or res.returncode != 0 or bool(res.stdout.strip(b"\0"))


def _touches(sub: str, targets: list[str] | None) -> bool:
    """Is the submodule at ``sub`` (absolute) at, under or above one of ``targets``?"""
    if targets is None:
        return True
    for t in targets:
        t = os.path.normpath(t)
        if t == sub or sub.startswith(t.rstrip(os.sep) + os.sep) or t.startswith(sub + os.sep):
            return True
    return False


def with_work(top: str, targets: list[str] | None = None) -> list[str]:
    """The checked-out submodules of ``top`` (paths from the top) that hold uncommitted work,
    or may (unknown), among those at, under or above ``targets`` (absolute; None: all)."""
    paths = _paths(top)
    if paths is None:
        return [".gitmodules"]  # unreadable: named, so nothing is called saved
    paths = [*paths, *(p for p in linked_inside(top) if p not in paths)]
    out: list[str] = []
    asked = 0
    for path in paths:
        folder = os.path.join(top, path)
        if not _touches(os.path.normpath(folder), targets):
            continue
        if os.path.islink(folder) or not os.path.lexists(os.path.join(folder, ".git")):
            continue  # not checked out: nothing of its own there
        asked += 1
        if asked > MAX_ASKED or _dirty(folder):
            out.append(path)
    return out
