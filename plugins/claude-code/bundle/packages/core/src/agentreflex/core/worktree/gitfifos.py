"""Named pipes where git reads, and a view of the repository that covers them.

Why: git opens the files it reads (``.gitignore`` in each folder it lists,
``.gitattributes``, ``.git/info/exclude``, ``HEAD``, the index) with a plain
``open``, which waits for a writer forever when the file is a FIFO; a process
that holds the FIFO open for writing keeps git waiting even once a writer
came.  The agent writes the project and, in a repository it made, the git
directory too: one ``mkfifo src/.gitignore`` had every later look's ``git
status`` time out, so no snapshot was taken again and the work written since
was lost to the next discard (red-team rt31).

So when a guard's git times out, the repository is searched for FIFOs where
git reads (:func:`find`), and the command runs once more in a bubblewrap view
where each is an empty, read-only file (:func:`rerun`): git then reads no
rules from it, as if it were empty.  bwrap is the engine containment uses;
without it (or with no FIFO found) the answer stays "git timed out".

Stdlib only: it is imported on the hook's path only after a timeout.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Callable

from agentreflex.core.worktree.safegit import spawn, work_tree_top

__all__ = ["find", "rerun"]

# the work tree's files git opens while listing it (a folder's ignore rules, attributes,
# the submodules' list); in the git directory, every FIFO counts
_READ_IN_TREE = frozenset({".gitignore", ".gitattributes", ".gitmodules"})
_MAX_ENTRIES = 200_000  # a walk's bound: a look must end (SECURITY.md)


def find(cwd: str) -> list[str]:
    """The FIFOs git could wait on for a command run in ``cwd``: absolute paths, sorted."""
    top, git_dirs = _repository(cwd)
    if not top:
        return []
    budget = [_MAX_ENTRIES]
    found: set[str] = set()
    for git_dir in git_dirs:
        found.update(_walk(git_dir, budget, lambda name: True, descend_git=True))
    found.update(_walk(top, budget, _READ_IN_TREE.__contains__, descend_git=False))
    return sorted(found)


def _repository(cwd: str) -> tuple[str, list[str]]:
    """The work tree's top above ``cwd`` and its git directories (own, then common)."""
    top = work_tree_top(os.path.abspath(cwd))
    return (top, _git_dirs(os.path.join(top, ".git"))) if top else ("", [])


def _git_dirs(dot_git: str) -> list[str]:
    """``.git`` itself, or where a ``.git`` file's ``gitdir:`` leads, and its common dir."""
    if os.path.isdir(dot_git) and not os.path.islink(dot_git):
        return [dot_git]
    line = _first_line(dot_git)
    if not line.startswith("gitdir: "):
        return []
    git_dir = os.path.normpath(os.path.join(os.path.dirname(dot_git), line[len("gitdir: ") :]))
    dirs = [git_dir]
    common = _first_line(os.path.join(git_dir, "commondir"))
    if common:
        dirs.append(os.path.normpath(os.path.join(git_dir, common)))
    return dirs


def _first_line(path: str) -> str:
    """A small regular file's first line, or "" (never a FIFO's open: that would wait too)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return ""
        with open(path, "rb") as fh:
            return fh.read(4096).decode("utf-8", "replace").partition("\n")[0].strip()
    except OSError:
        return ""


def _walk(
    root: str, budget: list[int], counts: Callable[[str], bool], *, descend_git: bool
) -> list[str]:
    """FIFOs below ``root`` whose name ``counts``; links are never followed."""
    out: list[str] = []
    stack = [root]
    while stack and budget[0] > 0:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        budget[0] -= len(entries)
        for entry in entries:
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode) and (descend_git or entry.name != ".git"):
                stack.append(entry.path)
            elif stat.S_ISFIFO(mode) and counts(entry.name):
                out.append(entry.path)
    return out


def rerun(
    argv: list[str], env: dict[str, str], timeout: float, data: bytes | None, cwd: str
) -> subprocess.CompletedProcess[bytes] | None:
    """``argv`` once more with each FIFO :func:`find` names covered; None: none, or no bwrap."""
    fifos = find(cwd)
    if not fifos:
        return None
    from agentreflex.core.contain.engine import engine_path

    bwrap = engine_path()
    if bwrap is None:
        return None
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ar-gitview-") as scratch:
        empty = os.path.join(scratch, "empty")
        open(empty, "wb").close()
        view = [bwrap, "--dev-bind", "/", "/"]
        for fifo in fifos:
            view += ["--ro-bind", empty, fifo]
        try:
            return spawn([*view, "--", *argv], env, timeout, data)
        except (OSError, subprocess.SubprocessError, ValueError):
            return None
