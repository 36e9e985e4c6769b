"""The programs a host finds by name in a folder of its PATH inside the project.

Why: a host started in an activated virtualenv (``source .venv/bin/activate &&
claude``, uv's and Python's documented way), or with direnv's ``PATH_add bin``,
has a project folder at the front of its PATH, and it runs programs by name
outside any boundary: Claude Code looks ``git`` up on its PATH and runs it at
each session start (2.1.328: ``which("git")``), the servers and hooks the
settings name start ``python3``, ``node``, ``npx`` or ``uv``, and the shell
the host runs each contained command in is itself looked up.  That folder
must stay writable (``pip install`` writes ``.venv/bin``), so a contained
command could put a ``git`` there, or replace ``python3``, and it would run as
the user at the host's next call (red-team rt25).  The guard's own programs
are the system's already (:mod:`agentreflex.core.util.sysprog`).

So before and after each shell command the names in :data:`PROGRAMS`, in
each folder of the hook's PATH (the host's own) that is inside the project,
are stamped; one a command made or changed is moved aside, unless it is a
link to a program no contained command can write (``python3 ->
/usr/bin/python3.11``, as ``python -m venv`` and ``uv venv`` make them).  A
link the command replaced is put back.  Stdlib only: it is on the hook's
path.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping

from agentreflex.core.util.fsutil import move_under, replace_in_place, stamp

__all__ = ["PROGRAMS", "after", "before", "folders"]

# what the hosts start by name: git for their status and checkpoints, the shells they run
# commands and hooks in, and the interpreters and runners their settings' servers and
# hooks name (MCP's documented `python3 server.py`, `npx -y pkg`, `uvx pkg`)
PROGRAMS = (
    "git", "bash", "sh", "zsh", "dash", "fish", "env", "node", "nodejs", "npx", "npm", "pnpm",
    "pnpx", "yarn", "bun", "bunx", "deno", "python", "python3", "uv", "uvx", "ssh", "gpg",
    "docker", "podman", "make", "rg",
)  # fmt: skip


def folders(projects: list[str], env: Mapping[str, str] | None = None) -> list[str]:
    """The folders of the host's PATH (this hook's: the host started it) inside ``projects``.

    An empty or relative entry is a folder of the one the host runs in: the project.
    """
    path = (os.environ if env is None else env).get("PATH", "")
    found: list[str] = []
    for entry in path.split(os.pathsep):
        for project in projects[:1]:
            where = os.path.realpath(os.path.join(project, entry))
            if any(where == p or where.startswith(p.rstrip("/") + "/") for p in projects):
                found.append(where)
    return list(dict.fromkeys(found))


def before(where: list[str]) -> dict[str, list[object]]:
    """Each program of :data:`PROGRAMS` in ``where``: its stamp, and where it leads if a link."""
    record: dict[str, list[object]] = {}
    for folder in where:
        for name in PROGRAMS:
            path = os.path.join(folder, name)
            mark = stamp(path)
            if mark is not None and os.path.isfile(path):  # a folder named `node` runs nothing
                record[path] = [mark, _target(path)]
    return record


def after(
    record: dict[str, list[object]],
    where: list[str],
    keep: str,
    act: bool,
    writable: Callable[[], list[str]],
) -> list[tuple[str, str]]:
    """The programs in ``where`` made or changed since ``record`` (a :func:`before`), each
    with where it was moved below ``keep`` ("" when it could not be, or ``act`` is False).

    ``writable`` gives the folders a contained command can write (asked only when a
    program changed): a link into one of them is no system program.  A link that was
    there before is put back.
    """
    changed: list[tuple[str, str]] = []
    for folder in where:
        for name in PROGRAMS:
            path = os.path.join(folder, name)
            had = record.get(path)
            now = stamp(path)
            if now is None or not os.path.isfile(path) or (had is not None and had[0] == now):
                continue  # gone, nothing a host can run (a folder), or as it was
            if _systems(path, writable):
                continue
            moved = move_under(path, keep) if act else ""
            if moved and had is not None and isinstance(had[1], str):
                # the link the command replaced (the venv's python3): as it was
                with contextlib.suppress(OSError):
                    replace_in_place(path, had[1].encode(), 0o777, link=True)
            changed.append((path, moved))
    return changed


def _target(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def _systems(path: str, writable: Callable[[], list[str]]) -> bool:
    """Is ``path`` a link to a program outside everything a contained command can write?"""
    if not os.path.islink(path):
        return False
    real = os.path.realpath(path)
    if not os.path.isfile(real):
        return False
    return not any(real == w or real.startswith(w.rstrip("/") + "/") for w in writable())
