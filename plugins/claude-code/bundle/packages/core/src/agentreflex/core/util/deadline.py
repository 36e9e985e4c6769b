"""A deadline the current thread's long work checks itself (cooperative, no thread killed).

Why: the hook gives up the work tree's look past ``runtime.WORKTREE_LIMIT`` so that
it answers inside the host's timeout.  A ``SIGALRM`` timer does that only in the main
thread; the warm daemon answers each hook on a thread of its own, where no signal
arrives, and its look ran on for as long as the files took (red-team rt70 follow-up).
So the look's slow steps ask here: each git it runs gets no more than the time left
(:func:`left`), and its loops over files check between them (:func:`check`).

Stdlib only, no ``threading``: it is on the hook's path.
"""

from __future__ import annotations

import _thread
import time

__all__ = ["OutOfTime", "check", "left", "restore", "start"]


class OutOfTime(BaseException):
    """The time given ran out; a BaseException, so that no ``except Exception`` in the
    work it interrupts takes it for its own failure and goes on."""


_HERE = _thread._local()  # this thread's (end, seconds given), or nothing


def start(seconds: float) -> object:
    """Give this thread's work ``seconds`` from now; what was set before, for :func:`restore`.

    A deadline already set and earlier stays: nested work gets no more than its caller.
    """
    before = getattr(_HERE, "end", None)
    end = (time.monotonic() + seconds, seconds)
    _HERE.end = before if before is not None and before[0] <= end[0] else end
    return before


def restore(before: object) -> None:
    """Put back what :func:`start` returned."""
    _HERE.end = before


def check() -> None:
    """Raise :class:`OutOfTime` when this thread's deadline has passed."""
    left(1.0)


def left(timeout: float) -> float:
    """``timeout`` cut to the time this thread has left; :class:`OutOfTime` when none is."""
    end: tuple[float, float] | None = getattr(_HERE, "end", None)
    if end is None:
        return timeout
    remaining = end[0] - time.monotonic()
    if remaining <= 0:
        raise OutOfTime(f"no answer within {end[1]:g} s")
    return min(timeout, remaining)
