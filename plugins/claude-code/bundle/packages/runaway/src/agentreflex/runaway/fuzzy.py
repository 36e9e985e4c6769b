"""Fuzzy loops seen before a call runs.  They only WARN.

Unlike the exact-repeat floor these patterns have innocent look-alikes
(polling a build, reading a large codebase), so they nudge rather than
refuse.  Each detector is a pure function of the recent window and the
proposed call and returns a :class:`Hit` or ``None``:

* alternation: A-B-A-B-... between the same two calls;
* near repeat: a command that keeps failing, re-tried with trivially
  different arguments (numbers, quoting, flag order);
* exploration: a long run of reads and searches with no write;
* verification loop: the same test command re-run with no file changed;
* echo: the assistant's last messages are identical.
"""

from __future__ import annotations

from agentreflex.core.state.fingerprint import normalise_command
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import field, record
from agentreflex.runaway.history import (
    FAILURE,
    SUCCESS,
    Proposal,
    is_read,
    since_last_change,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from agentreflex.core.state.model import ActionRecord


@record(frozen=True)
class Hit:
    """One detector's finding, before it becomes a core ``Finding``."""

    code: str
    message: str
    signals: dict[str, float] = field(default_factory=dict)
    threshold: float | None = None


def alternation(actions: Sequence[ActionRecord], p: Proposal, cycles: int) -> Hit | None:
    """The proposal would complete ``cycles`` rounds of A-B between two fixed calls."""
    if cycles < 2:
        return None
    trail = [a.fingerprint for a in actions[-(2 * cycles - 1) :]] + [p.fingerprint]
    if len(trail) < 2 * cycles or trail[-1] == trail[-2]:
        return None
    if any(trail[i] != trail[i - 2] for i in range(2, len(trail))):
        return None
    from agentreflex.runaway import messages  # only once a detector fires

    return Hit(
        "RUNAWAY-LOOP-ALTERNATION",
        messages.alternation(cycles),
        {"alternation_rounds": float(cycles)},
        float(cycles),
    )


_PREFIX = LazyPattern(r"^\s*\w+:\s+")
_QUOTES = LazyPattern(r"[\"'`]")
_DIGITS = LazyPattern(r"\d+")
# Names made fresh each attempt: a temporary file or folder (mktemp's tmp.XXXXXXXXXX,
# Python's tempfile tmpab12_cd), a UUID.
_FRESH = LazyPattern(
    r"(?:/tmp|/var/folders|\$\{?tmpdir\}?)/\S*|\btmp[._]?[a-z0-9_]{6,}\b|"
    r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
    hints="/tmp /var/folders tmp -",
)


def loose_key(text: str) -> str:
    """A command with cosmetic differences removed: a leading pause or timer, case, quotes,
    numbers, fresh temporary names and token order."""
    text = normalise_command(_PREFIX.sub("", text.lower()))
    text = _DIGITS.sub("#", _QUOTES.sub("", _FRESH.sub("<tmp>", text)))
    return " ".join(sorted(t.rstrip("/") for t in text.split()))


def near_repeat(actions: Sequence[ActionRecord], p: Proposal, count: int) -> Hit | None:
    """Shell commands that failed since the last change and match the proposal loosely."""
    if count < 2 or p.call.kind.value != "shell" or not p.call.command.strip():
        return None
    failed = [a for a in since_last_change(actions) if a.kind == "shell" and a.outcome == FAILURE]
    if len(failed) + 1 < count:
        return None  # too few failures to match: skip loose_key (and its regexes)
    key = loose_key(p.call.command)
    variants = [a for a in failed if loose_key(a.summary) == key]
    distinct = {a.fingerprint for a in variants} | {p.fingerprint}
    if len(variants) + 1 < count or len(distinct) < 2:
        return None
    from agentreflex.runaway import messages  # only once a detector fires

    return Hit(
        "RUNAWAY-LOOP-NEAR-REPEAT",
        messages.near_repeat(len(variants) + 1),
        {"failed_variants": float(len(variants))},
        float(count - 1),
    )


def exploration(actions: Sequence[ActionRecord], p: Proposal, limit: int) -> Hit | None:
    """The proposal is one more read after ``limit`` reads in a row with no write."""
    if limit < 1 or not p.is_read:
        return None
    reads = 0
    for a in reversed(actions):
        if not is_read(a):
            break
        reads += 1
    if reads < limit:
        return None
    from agentreflex.runaway import messages  # only once a detector fires

    return Hit(
        "RUNAWAY-LOOP-EXPLORATION",
        messages.exploration(reads),
        {"reads_without_write": float(reads)},
        float(limit),
    )


def verification_loop(actions: Sequence[ActionRecord], p: Proposal, count: int) -> Hit | None:
    """The same test command already ran ``count - 1`` times with no change in between."""
    if count < 2 or not p.is_verification:
        return None
    runs = [
        a
        for a in since_last_change(actions)
        if a.fingerprint == p.fingerprint and a.outcome in (SUCCESS, FAILURE)
    ]
    if len(runs) + 1 < count:
        return None
    from agentreflex.runaway import messages  # only once a detector fires

    return Hit(
        "RUNAWAY-LOOP-VERIFICATION",
        messages.verification_loop(len(runs)),
        {"unchanged_test_runs": float(len(runs))},
        float(count - 1),
    )


# Short sign-offs ("Done.", "All set.") legitimately repeat across turns.
ECHO_MIN_CHARS = 20


def echo(recent_messages: Sequence[str], count: int) -> Hit | None:
    """The assistant's last ``count`` messages are the same, non-trivial text."""
    if count < 2 or len(recent_messages) < count:
        return None
    tail = {" ".join(m.split()).lower() for m in recent_messages[-count:]}
    if len(tail) != 1 or len(next(iter(tail))) < ECHO_MIN_CHARS:
        return None
    from agentreflex.runaway import messages  # only once a detector fires

    return Hit(
        "RUNAWAY-LOOP-ECHO",
        messages.echo(count),
        {"identical_messages": float(count)},
        float(count),
    )
