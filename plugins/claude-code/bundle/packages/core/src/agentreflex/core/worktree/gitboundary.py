"""The project whose boundary the guard's git runs in, for one hook call.

Why: the filter drivers a repository names are listed by one git process and
blanked in the next (:func:`.safegit.filter_overrides`).  In a repository the
agent made below the project (or in ``/tmp``), whose config the boundary does
not hold, a process a command left running added a driver between the two,
and the look's ``git status`` ran it outside any boundary (red-team rt31, 3
of 3).  Run in the project's boundary, a driver that slips in reaches no more
than the agent's own commands do.  The project's own repository, and one
above it, are held read-only there, so their git runs as before, at no cost.

The hook runtime says which project once per call (:func:`within`); the git
the gate and the looks start deep below reads it (:func:`current`).  Kept per
thread (the daemon answers calls in threads) with no import at all: this is
on every hook's path.
"""

from __future__ import annotations

import contextlib
from _thread import get_ident

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["current", "within"]

_PROJECT: dict[int, str] = {}


@contextlib.contextmanager
def within(project: str) -> Iterator[None]:
    """For the calls made inside: git reading a repository other than ``project``'s runs
    in its boundary (:mod:`.safegit`)."""
    thread = get_ident()
    before = _PROJECT.get(thread)
    _PROJECT[thread] = project
    try:
        yield
    finally:
        if before is None:
            _PROJECT.pop(thread, None)
        else:
            _PROJECT[thread] = before


def current() -> str:
    """The project this thread's hook call runs for, or "" outside one."""
    return _PROJECT.get(get_ident(), "")
