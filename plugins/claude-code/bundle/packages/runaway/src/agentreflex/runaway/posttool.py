"""Warnings right after a tool result, while the agent is deciding what to do next.

The call has already run, so nothing here blocks.  Three kinds of warning:

* a heads-up when a call has failed ``N - 1`` times identically, so the
  agent learns *before* the floor refuses the Nth attempt;
* the same error signature coming out of several different commands;
* the judge's post-tool battery: ``hit_blocker`` at or above
  ``post_tool_blocker_warn`` and, for a failed call, ``retry_unlikely_to_help``
  at or above ``post_tool_retry_unlikely_warn``.
"""

from __future__ import annotations

from agentreflex.core.systemone import signals as sig
from agentreflex.runaway.fuzzy import Hit
from agentreflex.runaway.history import FAILURE
from agentreflex.runaway.policy import floor_fires
from agentreflex.runaway.repeats import count_unresolved_repeats

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agentreflex.core.state.model import ActionRecord


def repeat_heads_up(
    window: Sequence[ActionRecord], current: ActionRecord, hard_repeat_count: int
) -> Hit | None:
    """The next identical attempt of ``current`` would be refused by the floor."""
    if current.outcome != FAILURE:
        return None
    repeats = count_unresolved_repeats(window, current.fingerprint)
    if not floor_fires(repeats.count, hard_repeat_count):
        return None
    from agentreflex.runaway import messages  # only once a warning is given

    return Hit(
        "RUNAWAY-LOOP-REPEAT-NEXT",
        messages.repeat_heads_up(repeats.count, repeats.signature),
        {"exact_repeat_count": float(repeats.count)},
        float(hard_repeat_count - 1),
    )


def same_error(window: Sequence[ActionRecord], current: ActionRecord, commands: int) -> Hit | None:
    """``commands`` distinct calls in the window failed with ``current``'s signature."""
    signature = current.error_signature
    if commands < 2 or current.outcome != FAILURE or not signature:
        return None
    distinct = {
        a.fingerprint for a in window if a.outcome == FAILURE and a.error_signature == signature
    }
    if len(distinct) < commands:
        return None
    from agentreflex.runaway import messages  # only once a warning is given

    return Hit(
        "RUNAWAY-LOOP-SAME-ERROR",
        messages.same_error(len(distinct), signature),
        {"commands_with_same_error": float(len(distinct))},
        float(commands),
    )


def judged(
    probabilities: Mapping[str, float] | None,
    failed: bool,
    blocker_warn: float,
    retry_warn: float,
) -> list[Hit]:
    """The judge's post-tool probabilities against the seed's two warn thresholds."""
    if not probabilities:
        return []
    from agentreflex.runaway import messages  # only with a judge's answer

    hits: list[Hit] = []
    blocker = _prob(probabilities.get(sig.HIT_BLOCKER))
    if blocker >= blocker_warn:
        hits.append(
            Hit(
                "RUNAWAY-POST-BLOCKER",
                messages.post_blocker(blocker),
                {sig.HIT_BLOCKER: blocker},
                blocker_warn,
            )
        )
    retry = _prob(probabilities.get(sig.RETRY_UNLIKELY))
    failed = failed or _prob(probabilities.get(sig.OUTCOME_FAILED)) >= 0.5
    if failed and retry >= retry_warn:
        hits.append(
            Hit(
                "RUNAWAY-POST-RETRY-UNLIKELY",
                messages.post_retry_unlikely(retry),
                {sig.RETRY_UNLIKELY: retry},
                retry_warn,
            )
        )
    return hits


def _prob(value: object) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    return min(1.0, max(0.0, number)) if number == number else 0.0
