"""The saved copies of long tool outputs: ``<state_dir>/outputs/``, bounded, oldest out first.

The directory is inside the project, so the agent can write to it.  Hence:
nothing agentreflex trusts is ever read back from it (the saver only
writes; the recap never looks here); a copy is created with ``O_EXCL |
O_NOFOLLOW`` under a fresh name, so a planted file or symlink is never
written through; a symlinked ``outputs`` directory is refused (it could
point at the guard's ledgers); and pruning removes only regular files whose
names this module generates, so it cannot be steered into deleting anything
else.  Any failure (read-only, full disk, refused directory) is a
:class:`SaveError`, and the caller passes the output through untouched.
"""

from __future__ import annotations

import os
import re
import stat
import time

from agentreflex.core.util.fsutil import ensure_private_dir

DIRNAME = "outputs"
NAME = re.compile(r"^\d{8}-\d{6}-[0-9a-f]{8}-[a-z0-9_-]{1,40}\.log$")


class SaveError(OSError):
    """The full output could not be saved; the message says why, in one line."""


def outputs_dir(state_dir: str) -> str:
    return os.path.join(state_dir, DIRNAME)


def _ensure_dir(path: str) -> None:
    try:
        # the state dir the way core makes it (0700, a "*" .gitignore): saved copies
        # are never committed, even when the first event of a project is a tool result
        ensure_private_dir(os.path.dirname(path))
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.lstat(path)
    except OSError as exc:
        raise SaveError(f"cannot create {path}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise SaveError(f"{path} is not a plain directory (a symlink?); nothing saved")


def _label(tool: str) -> str:
    text = re.sub(r"[^a-z0-9_-]+", "-", tool.lower()).strip("-")
    return (text or "tool")[:40]


def create(state_dir: str, tool: str) -> tuple[str, int]:
    """A new, empty, private file for one output: (path, fd open for writing)."""
    folder = outputs_dir(state_dir)
    _ensure_dir(folder)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(4):
        name = f"{stamp}-{os.urandom(4).hex()}-{_label(tool)}.log"
        path = os.path.join(folder, name)
        try:
            return path, os.open(path, flags, 0o600)
        except FileExistsError:
            continue
        except OSError as exc:
            raise SaveError(f"cannot write {path}: {exc.strerror or exc}") from None
    raise SaveError(f"cannot find a free name in {folder}")


def prune(state_dir: str, max_files: int, max_bytes: int, keep: str = "") -> int:
    """Remove the oldest saved copies beyond the bounds; returns how many went.

    ``keep`` (the copy just written) is never removed, even when it alone is
    over ``max_bytes``.
    """
    folder = outputs_dir(state_dir)
    try:
        names = sorted(n for n in os.listdir(folder) if NAME.match(n))
    except OSError:
        return 0
    sizes: list[tuple[str, int]] = []
    for name in names:
        try:
            info = os.lstat(os.path.join(folder, name))
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            sizes.append((name, info.st_size))
    total = sum(size for _, size in sizes)
    removed = 0
    for name, size in sizes:
        if len(sizes) - removed <= max_files and total <= max_bytes:
            break
        path = os.path.join(folder, name)
        if path == keep:
            continue
        try:
            os.unlink(path)
        except OSError:
            continue
        removed += 1
        total -= size
    return removed
