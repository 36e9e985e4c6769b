"""The host process a hook runs under, read from ``/proc``: its command line.

Why: part of what decides how a host treats a command the hook replaced is
given only on the host's command line, never in a file or in the hook's
payload: Claude Code's ``--disallowedTools`` (its rules then apply to the
replacement), Copilot CLI's ``--allow-all-tools`` (without it, a replaced
command no longer matches the tools the user allowed).  The hook is started
by the host, directly or through a shell, so the host is one of the hook's
nearest ancestors.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

__all__ = ["host_argv", "serving"]

_MAX_DEPTH = 8
# The warm daemon answers for a hook process it did not start: per serving thread, the
# pid of that hook process (its peer on the socket), or -1 when it can't be known.
_SERVED: dict[int, int] = {}


def serving(pid: int | None) -> None:
    """The daemon's thread answers for hook process ``pid`` now (None: done, or unknown -1)."""
    from _thread import get_ident

    if pid is None:
        _SERVED.pop(get_ident(), None)
    else:
        _SERVED[get_ident()] = pid if pid > 0 else -1


def host_argv(names: Collection[str], proc: str = "/proc", start: int = 0) -> list[str] | None:
    """The command line of the nearest ancestor whose program is one of ``names``.

    The program is the base name of its first or second word (``node cli.js``).
    The walk starts at the hook process (``start``, for tests), which the warm
    daemon names with :func:`serving`.  None when no such ancestor is found
    within a few levels, or ``/proc`` can't be read: callers then take the
    cautious answer.
    """
    if not start:
        from _thread import get_ident

        start = _SERVED.get(get_ident(), 0) or os.getpid()  # the hook process, then up
    if start < 0:
        return None
    pid = start
    for _ in range(_MAX_DEPTH):
        try:
            with open(f"{proc}/{pid}/cmdline", "rb") as handle:
                raw = handle.read(1 << 16)
            with open(f"{proc}/{pid}/stat", "rb") as handle:
                stat = handle.read(4096)
        except OSError:
            return None
        words = [w.decode("utf-8", "replace") for w in raw.split(b"\0") if w]
        if any(os.path.basename(w) in names for w in words[:2]):
            return words
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 2 or not fields[1].isdigit() or int(fields[1]) <= 1:
            return None
        pid = int(fields[1])
    return None
