"""Permissive fallback signals: what a battery "answers" when the judge cannot.

A judge that is down, slow or malformed must never wedge the agent, so each
battery has values that trip no judgment threshold: risks at 0, progress and
goal alignment at 1.  Floors are separate code and are never lowered by
these.  Answers built from them are flagged ``degraded``.
"""

from __future__ import annotations

from agentreflex.core.systemone import signals as s

FALLBACK: dict[str, dict[str, float]] = {
    s.PRE_TOOL: {
        s.CONSTRAINT_VIOLATION: 0.0,
        s.SECRET_EXPOSURE: 0.0,
        s.DESTRUCTIVE: 0.0,
        s.REPEATS_FAILED_APPROACH: 0.0,
        s.EXPECTED_PROGRESS: 1.0,
        s.REDUNDANT: 0.0,
        s.EVIDENCE_INSUFFICIENT: 0.0,
        s.GOAL_ALIGNMENT: 1.0,
    },
    s.POST_TOOL: {
        s.OUTCOME_FAILED: 0.0,
        s.HIT_BLOCKER: 0.0,
        s.RETRY_UNLIKELY: 0.0,
        s.NEW_EVIDENCE: 1.0,
        s.PROGRESS_MADE: 1.0,
        s.UNEXPECTED_SIDE_EFFECT: 0.0,
    },
    s.COMPLETION: {
        s.UNRESOLVED_FAILURE: 0.0,
        s.VERIFICATION_INSUFFICIENT: 0.0,
        s.MORE_VERIFICATION_HELPFUL: 0.0,
        s.CLAIMS_UNSUPPORTED: 0.0,
        s.GOAL_COMPLETED: 1.0,
    },
}


def fallback_signals(battery: str) -> dict[str, float]:
    """A fresh copy of the permissive values for ``battery`` (empty if unknown)."""
    return dict(FALLBACK.get(battery, {}))
