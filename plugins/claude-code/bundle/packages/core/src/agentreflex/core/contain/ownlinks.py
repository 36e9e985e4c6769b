"""The hook's own code shares its bytes with no other path: a hard link is a second door.

Why: uv installs a package by hard-linking the files of its cache
(``~/.cache/uv/archive-v0/ID/...``) into the environment (its default link
mode on Linux), and the developer tools' caches are writable inside the
boundary, so installs work there.  The README's ``uv tool install`` so left
every file of agentreflex's code with a second name a contained command
could write (``find ~/.cache/uv -path '*agentreflex/core/cli/__init__.py'
-exec ...``): the read-only mount over ``site-packages`` did not hold, and
the next hook ran what the command wrote.  Claude Code's and Codex's
sandboxes, given the same writable caches, have the same door.

So before each shell command in enforced mode, on every host, each file of
the hook's code and start-up (agentreflex's folders, the environment's
``site-packages``, bytecode included) that has more than one link gets a
copy of its own, renamed into its place: same bytes, same mode, one link.
The files are walked only when the installation changed (the folders'
modification times, kept beside the environment, where the boundary holds
the interpreter read-only, else in the state folder), so most commands cost
a few ``stat`` calls.  Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import os
import stat
import sys

from agentreflex.core.state import userdirs
from agentreflex.core.util.fsutil import (
    atomic_write_bytes,
    atomic_write_json,
    read_json,
    read_regular,
)

__all__ = ["roots", "separate"]

_RECORD = ".agentreflex-ownlinks.json"  # the stamp the last walk left


def roots() -> list[str]:
    """The folders the hook's code and start-up come from: agentreflex's own (an editable
    checkout's too) and the environment's ``site-packages``."""
    inside = sys.prefix.rstrip("/") + "/"
    found = [*userdirs.installed_paths()]
    found += [p for p in userdirs.interpreter_paths() if p.startswith(inside)]
    return sorted({os.path.normpath(p) for p in found if os.path.isdir(p)})


def separate(state_dir: str) -> list[str]:
    """Give each linked file under :func:`roots` a copy of its own; the files it did that for.

    Cheap when nothing was installed since the last call (the folders' stamp is
    unchanged); a file it can't separate (no write permission) is left and not
    named, and the next call tries again.
    """
    folders = roots()
    records = _records(state_dir)
    stamp = _stamp(folders)
    if any(read_json(record) == stamp for record in records):
        return []
    done: list[str] = []
    whole = True
    for folder in folders:
        for path in _linked_files(folder):
            if _copy_apart(path):
                done.append(path)
            else:
                whole = False
    if whole:
        _remember(records, _stamp(folders))
    return done


def _records(state_dir: str) -> list[str]:
    """Where the stamp is kept: beside the environment (one walk for every project; the
    boundary holds it read-only with the interpreter), else in the project's state."""
    return [os.path.join(sys.prefix, _RECORD), os.path.join(state_dir, _RECORD)]


def _remember(records: list[str], stamp: list[list[object]]) -> None:
    """The stamp in the first place that takes it (else walked again next time: slower, no
    less safe)."""
    for record in records:
        try:
            os.makedirs(os.path.dirname(record), mode=0o700, exist_ok=True)
            atomic_write_json(record, stamp, durable=False)
            return
        except OSError:
            continue


def _stamp(folders: list[str]) -> list[list[object]]:
    """The folders and their modification times: an install or upgrade changes them."""
    marks: list[list[object]] = []
    for folder in folders:
        try:
            marks.append([folder, os.stat(folder).st_mtime_ns])
        except OSError:
            marks.append([folder, 0])
    return marks


def _linked_files(folder: str) -> list[str]:
    """The regular files under ``folder`` (links not followed) with more than one link."""
    found: list[str] = []
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                elif (
                    entry.is_file(follow_symlinks=False)
                    and entry.stat(follow_symlinks=False).st_nlink > 1
                ):
                    found.append(entry.path)
            except OSError:
                continue
    return found


def _copy_apart(path: str) -> bool:
    """Replace ``path`` with a copy of its bytes, mode and times, by rename: its other names
    keep the old inode, so writing them no longer changes this file."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
            return True
        data = read_regular(path, info.st_size, follow=False)
        if data is None or len(data) != info.st_size:
            return False  # changed under us: tried again next time
        times = (info.st_atime_ns, info.st_mtime_ns)  # bytecode checks its source's mtime
        atomic_write_bytes(path, data, False, stat.S_IMODE(info.st_mode), times)
    except OSError:
        return False
    return True
