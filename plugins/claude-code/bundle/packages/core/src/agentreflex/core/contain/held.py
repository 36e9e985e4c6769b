"""What the boundary holds in a project, for the guard's own writes outside it (``undo``).

Why: ``agentreflex undo`` runs outside any boundary and writes a snapshot's
files back.  A snapshot is what the work tree and the index held, and the
index is the agent's to write: a command can commit a blob of its own for a
held file (``.claude/settings.json``, ``.agentreflex/config.toml``), mark it
``--assume-unchanged`` so nothing lists it, and put HEAD back at the next call,
and undo would write that blob where no contained command can (red-team
rt26).  So undo never writes what the boundary holds: the policy's read-only
and unreadable paths in the project, agentreflex's own files and the hosts'
settings, and what a command may not create there (:func:`.planted.watched`).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from agentreflex.core.state import userdirs

__all__ = ["env_held", "held_around", "held_paths", "is_held"]


def held_paths(project: str) -> list[str]:
    """The paths in ``project`` (absolute, resolved) that the boundary holds."""
    from agentreflex.core.contain import planted
    from agentreflex.core.contain.mounts import plan
    from agentreflex.core.contain.policy import PolicyError, inside, load_policy

    project = os.path.realpath(project)
    found = [p for p in userdirs.protected_paths(project) if inside(p, project)]
    found += planted.watched(project, "")
    try:
        mounts = plan(project, load_policy()).mounts
    except (PolicyError, OSError):
        mounts = []  # the lists above still hold: agentreflex's and the hosts' own
    found += [m.path for m in mounts if m.kind in ("ro", "hide") and inside(m.path, project)]
    # the programs a host would find by name in a folder of the PATH inside the project
    # (direnv's `PATH_add script`, not only a `bin`): undo runs from the user's shell
    from agentreflex.core.contain import pathprograms

    for folder, root in pathprograms.folders([project], []):
        found += [os.path.join(folder, name) for name in pathprograms.PROGRAMS if root == project]
    return sorted(set(found))


def held_around(top: str) -> list[str]:
    """:func:`held_paths` for the work tree ``top`` and, inside it, for each project folder
    around it (a folder above with a ``.git``).

    Why: ``top`` may be a repository nested in the session's project (a vendored checkout,
    or one the agent made, whose snapshot store is the agent's to write).  Taken as a
    project of its own, what the project around it holds there was not counted: its
    ``.mcp.json`` naming ``sub/tools/server.py``, read-only in the boundary and run by the
    host outside it, was written by ``agentreflex undo`` run in ``sub`` (red-team rt34).
    """
    from agentreflex.core.contain.policy import inside

    top = os.path.realpath(top)
    found = held_paths(top)
    folder = os.path.dirname(top)
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            found += [p for p in held_paths(folder) if inside(p, top)]
        parent = os.path.dirname(folder)
        if parent == folder:
            return sorted(set(found))
        folder = parent


def is_held(path: str, held: list[str], project: str = "") -> bool:
    """Is ``path`` (absolute) one of ``held`` or inside one, or (below ``project``) what the
    looks after each command guard where no mount can: a host's settings in a folder below
    the root (:mod:`.nestedhosts`), a program the host finds by name in a ``bin`` folder
    (:mod:`.pathprograms`)?  A ``.env`` is asked about by its content (:func:`env_held`)."""
    from agentreflex.core.contain import nestedhosts, pathprograms
    from agentreflex.core.contain.policy import inside

    if any(inside(path, h) for h in held):
        return True
    if not project or not inside(path, project) or path == project:
        return False
    parts = os.path.relpath(path, project).split(os.sep)
    if any(part in nestedhosts.MARKS for part in parts):
        return True
    return len(parts) > 1 and parts[-2] in _BINS and parts[-1] in pathprograms.PROGRAMS


_BINS = ("bin", ".bin", "Scripts")  # a virtualenv's, node_modules', a project's own


def env_held(path: str, data: Callable[[], bytes]) -> bool:
    """Is ``path`` a ``.env`` file whose bytes (``data``, read only for one) set a variable
    that changes what a program started with it runs (:func:`.dotenv.reaching`)?  The looks
    take such entries out of one a command wrote; undo, which writes outside them, does not
    write it."""
    from agentreflex.core.contain import dotenv

    name = os.path.basename(path)
    if not (name == dotenv.NAME or name.startswith(dotenv.NAME + ".")):
        return False
    return bool(dotenv.reaching(data().decode("utf-8", "surrogateescape")))
