"""Does a git work tree hold uncommitted changes at some paths?  Ask git, bounded.

A discard (``git checkout -- f``, ``git restore f``, ``git rm -f f``, ``git
worktree remove -f dir``) loses work only when there is uncommitted work to
lose.  This asks the real work tree with ``git status --porcelain`` so a
discard of clean files can run and a discard of changed ones is stopped.

Only commands that discard reach this module (it is imported by the git
rules on demand).  The status run is made harmless in an agent-controlled
repository: nothing the repository's config names is executed (``core.
fsmonitor`` is overridden, submodules are not entered, and a repository
with any filter driver (which ``git status`` may run) is not asked at all),
the caller's ``GIT_*`` environment is dropped, and it is bounded by a
timeout.  Any failure answers ``None`` (unknown) and the caller decides.
"""

from __future__ import annotations

import os
import subprocess

from agentreflex.gate.model import has_marker

TIMEOUT_S = 1.0
_MAX_OUTPUT = 1 << 20


def _git(cwd: str, args: list[str]) -> subprocess.CompletedProcess[bytes] | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    try:
        return subprocess.run(
            ["git", "-C", cwd, "-c", "core.fsmonitor=false", *args],
            capture_output=True,
            env=env,
            timeout=TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _known_filters(listing: bytes) -> bool:
    """Only git-lfs's own filters (which run nothing the repository chose), or none."""
    for line in listing.decode("utf-8", "replace").splitlines():
        _, _, value = line.partition(" ")
        if not value.startswith("git-lfs "):
            return False
    return True


def uncommitted(cwd: str, paths: list[str] | None = None, untracked: bool = False) -> bool | None:
    """True when ``paths`` (None: the whole work tree) have uncommitted changes.

    ``untracked``: untracked files count too (a forced worktree removal
    deletes them; ``checkout``/``restore``/``rm`` leave them alone).  ``None``
    when it cannot be told: no such folder, not a git work tree, git missing
    or slow, a path only known at run time, or a filter driver configured.
    """
    if not cwd or has_marker(cwd) or not os.path.isdir(cwd):
        return None
    if paths is not None and (not paths or any(has_marker(p) for p in paths)):
        return None
    filters = _git(cwd, ["config", "--get-regexp", r"^filter\..*\.(clean|smudge|process)$"])
    if filters is None or filters.returncode not in (0, 1) or not _known_filters(filters.stdout):
        return None
    status = _git(
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
    )
    if status is None or status.returncode != 0 or len(status.stdout) > _MAX_OUTPUT:
        return None
    return bool(status.stdout.strip(b"\0"))


def is_ref(cwd: str, name: str) -> bool:
    """Whether ``name`` names a commit in the repository at ``cwd`` (a branch, tag or sha).

    ``git checkout NAME`` switches to NAME when it is one and restores the file
    NAME otherwise; unknown (git missing or slow) counts as a ref, so the
    caller's discard rule does not fire on a guess.
    """
    if name.startswith("-") or has_marker(name):
        return True
    done = _git(cwd, ["rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"])
    return done is None or done.returncode == 0
