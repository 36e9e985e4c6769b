"""The programs the guard runs outside any boundary come from the system, not from PATH's first hit.

Why: the hook runs ``git`` (to observe and snapshot the work tree) and
``bwrap`` (the boundary itself) with the host's ``PATH``.  A host started
in an activated virtualenv, or with a project's ``bin/`` added by direnv,
has a folder of the project at the front of that ``PATH``, and the project
is the agent's to write, contained or not: a ``.venv/bin/git`` or
``.venv/bin/bwrap`` planted there would run as the user, outside the
boundary, at the next hook call.  So a program counts only where the
system keeps programs, owned by root and writable by no one else
(:func:`system_program`); a ``PATH`` entry that fails this is passed over.

Stdlib only; a found path is remembered for the process.
"""

from __future__ import annotations

import os

__all__ = ["SYSTEM_PREFIXES", "system_program"]

# Where a system's package manager puts programs (Debian, Fedora, Arch, NixOS, snaps).
SYSTEM_PREFIXES = (
    "/usr/",
    "/bin/",
    "/sbin/",
    "/opt/",
    "/nix/store/",
    "/run/current-system/",
    "/snap/",
)
_found: dict[tuple[str, str], str | None] = {}


def _owned_by_root_alone(path: str) -> bool:
    """Owned by root and writable by no group or other user (a sticky /tmp is not)."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return info.st_uid == 0 and not info.st_mode & 0o022


def _trusted(candidate: str) -> str:
    """The real path of ``candidate`` when it is the system's program, else ""."""
    real = os.path.realpath(candidate)
    if not real.startswith(SYSTEM_PREFIXES) or not os.path.isfile(real):
        return ""
    if not os.access(real, os.X_OK):
        return ""
    if not (_owned_by_root_alone(real) and _owned_by_root_alone(os.path.dirname(real))):
        return ""
    return real


def system_program(name: str, path: str | None = None) -> str | None:
    """The first ``name`` on ``path`` (default: ``PATH``) that the system owns, as a real path.

    Entries that are not the system's (a project's ``.venv/bin``, ``~/.local/bin``,
    ``/tmp``) are passed over, not trusted; None when no entry has it.
    """
    search = os.environ.get("PATH", os.defpath) if path is None else path
    key = (name, search)
    if key not in _found:
        _found[key] = next(
            (
                real
                for folder in search.split(os.pathsep)
                if folder and os.path.isabs(folder)
                for real in [_trusted(os.path.join(folder, name))]
                if real
            ),
            None,
        )
    return _found[key]
