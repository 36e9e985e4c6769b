"""Which project a hook call belongs to: the host's session's, never the nearest ``.git`` above.

Why (issue #28): the project decides the configuration (enforced or shadow,
the constraints), where the session's history is kept and what the boundary
holds.  Were it found by walking up from the working directory to a ``.git``,
``touch w/.git; cd w`` would make ``w`` a fresh project: no enforced
configuration, no constraints, no history.  Claude Code follows a ``cd`` into
its next hook's ``cwd``, so that move switched agentreflex to shadow mode
for the rest of the session.

So a session's project is found once, at its first call, from the folder
the host reports (``project_env`` of its adapter: ``CLAUDE_PROJECT_DIR``,
``GEMINI_PROJECT_DIR``), else that call's ``cwd``: the nearest marker at or
above it (:func:`~agentreflex.core.config.settings.project_root`).  Both
are written down outside every project (the user's state folder, read-only
inside the boundary), and every later call of the session belongs to it,
wherever in that folder its ``cwd`` has gone and whatever ``.git`` appeared
since, in a subfolder or in the folder the host started in.  A call from
outside the folder is the host's own move (a session resumed elsewhere: the
hosts that follow the agent's ``cd`` report the folder they started in) and
starts the record anew, when the host reports that folder.  A host that
reports none keeps the session's first project wherever its hook's ``cwd``
goes: that may be the agent's way out (``cd ..``, ``cd /tmp``, a link ``up ->
..`` made inside), after which the project's own files would be a writable
subfolder of a new project, or the new folder's configuration (none: not
enforced) would be the session's.  A call with no session id
has nothing to remember: its project is found from its own folder.

Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from agentreflex.core.config.settings import project_root
from agentreflex.core.events import Event
from agentreflex.core.state import userdirs
from agentreflex.core.util.digest import sha256_hex
from agentreflex.core.util.fsutil import atomic_write_bytes, keep_newest, read_regular

__all__ = ["FOLDER", "KEEP", "session_project", "started"]

FOLDER = "session-projects"  # in the user's state folder

KEEP = 2000  # sessions remembered; the oldest are forgotten first
_LIMIT = 4096  # a path, and some room


def session_project(
    adapter: object, event: Event, env: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """(the project of ``event``'s session, the folder it started in), as its first call found
    them (see the module).  The folder is what the boundary keeps writable, as the hosts' own
    sandboxes keep the folder they started in; the project may be a repository above it."""
    env = os.environ if env is None else env
    reported = _reported(adapter, env)
    start = reported or event.cwd
    if not start:
        return "", ""  # nothing reported: the configuration's own default (the process's folder)
    if not event.session_id:
        return project_root(start), start
    path = _record_path(event, env)
    remembered = _recall(path)
    if remembered is not None and (not reported or _holds(remembered[1], start)):
        # only the host moves a session, by reporting another folder: a hook's cwd elsewhere
        # may be the agent's `cd ..`, `cd /tmp` or a link `up -> ..` (a host that follows
        # it), after which the project's files would be no project's, or its config none
        return remembered
    # the first call, or the host itself moved the session (resumed in another folder:
    # it reports that folder, and no hook's cwd leaves the folder it reported otherwise)
    project = project_root(start)
    if os.path.isabs(start) and os.path.isdir(start):
        start = os.path.realpath(start)
        _remember(path, project, start)
    return project, start


def started(event: Event, env: Mapping[str, str] | None = None) -> int | None:
    """When ``event``'s session was first seen (ns: its record's time), None if unknown.

    For what a host reads once, when it starts: a project file made since is not
    what it decides by (:mod:`agentreflex.core.hosts.opencode_rules`)."""
    if not event.session_id:
        return None
    try:
        return os.stat(_record_path(event, os.environ if env is None else env)).st_mtime_ns
    except OSError:
        return None


def _recall(path: str) -> tuple[str, str] | None:
    """The (project, folder) written down for a session, if both are still folders."""
    data = read_regular(path, _LIMIT, follow=False)
    if data is None or len(data) > _LIMIT:
        return None
    project, _, start = os.fsdecode(data).partition("\0")
    for folder in (project, start):
        if not os.path.isabs(folder) or not os.path.isdir(folder):
            return None
    return project, start


def _holds(folder: str, path: str) -> bool:
    """Is ``path`` ``folder`` or below it (both as they really are)?"""
    real = os.path.realpath(path)
    return real == folder or real.startswith(folder.rstrip("/") + "/")


def _reported(adapter: object, env: Mapping[str, str]) -> str:
    """The project folder the host put in the hook's environment, if it is one."""
    for name in getattr(adapter, "project_env", ()):
        value = env.get(name, "")
        if value and os.path.isabs(value) and os.path.isdir(value):
            return value
    return ""


def _record_path(event: Event, env: Mapping[str, str]) -> str:
    name = sha256_hex(f"{event.host}\0{event.session_id}", 32)
    return os.path.join(userdirs.user_state_dir(env), FOLDER, name)


def _remember(path: str, project: str, start: str) -> None:
    """Write the session's folders down; a failure only means the next call looks again."""
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        atomic_write_bytes(path, os.fsencode(f"{project}\0{start}"), durable=False)
        keep_newest(os.path.dirname(path), KEEP)
    except OSError:
        pass
