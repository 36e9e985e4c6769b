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

from agentreflex.core.state import userdirs

__all__ = ["held_paths", "is_held"]


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
    return sorted(set(found))


def is_held(path: str, held: list[str]) -> bool:
    """Is ``path`` (absolute) one of ``held`` or inside one?"""
    from agentreflex.core.contain.policy import inside

    return any(inside(path, h) for h in held)
