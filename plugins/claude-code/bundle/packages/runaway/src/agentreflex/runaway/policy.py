"""The pure loop policy: repeat floor and judge probabilities in, verdict out.

Seed 001 combines the deterministic repeat count with the judge's
``repeats_failed_approach_without_new_evidence`` probability by max, and
blocks when that reaches ``loop_probability_block`` while the expected
progress of the call is at or below ``loop_expected_progress_ceiling``.  When
the floor fires it supplies certainty on both axes (repeat 1.0, progress 0.0),
so a judge that is absent, degraded or wrong cannot talk it out of firing; a
judge can only add blocks the floor did not see.
"""

from __future__ import annotations

from agentreflex.core.systemone import signals as sig
from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

REPEAT_SIGNAL = sig.REPEATS_FAILED_APPROACH
PROGRESS_SIGNAL = sig.EXPECTED_PROGRESS
COUNT_SIGNAL = "exact_repeat_count"


@record(frozen=True)
class LoopAssessment:
    """The combined signals and whether they cross the block thresholds."""

    repeat: float
    progress: float
    floor_fired: bool
    judge_used: bool
    block: bool

    def signals(self, count: int) -> dict[str, float]:
        return {
            REPEAT_SIGNAL: self.repeat,
            PROGRESS_SIGNAL: self.progress,
            COUNT_SIGNAL: float(count),
        }


def floor_fires(prior_failures: int, hard_repeat_count: int) -> bool:
    """The Nth identical attempt (N = hard_repeat_count) follows N-1 unresolved failures."""
    return prior_failures >= max(1, hard_repeat_count - 1)


def assess_loop(
    prior_failures: int,
    hard_repeat_count: int,
    judge: Mapping[str, float] | None,
    block_threshold: float,
    progress_ceiling: float,
) -> LoopAssessment:
    """Combine floor and judge by max (repeat) and min (progress); compare with thresholds."""
    fired = floor_fires(prior_failures, hard_repeat_count)
    repeat = 1.0 if fired else 0.0
    progress = 0.0 if fired else 1.0
    used = False
    if judge is not None:
        judged_repeat = judge.get(sig.REPEATS_FAILED_APPROACH)
        judged_progress = judge.get(sig.EXPECTED_PROGRESS)
        if judged_repeat is not None:
            repeat, used = max(repeat, _clamp(judged_repeat, 0.0)), True
        if judged_progress is not None:
            progress, used = min(progress, _clamp(judged_progress, 1.0)), True
    block = repeat >= block_threshold and progress <= progress_ceiling
    return LoopAssessment(repeat, progress, fired, used, block)


def _clamp(value: object, neutral: float) -> float:
    """A probability in [0, 1]; anything unreadable (NaN, text) counts as no signal."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return neutral
    if number != number:
        return neutral
    return min(1.0, max(0.0, number))
