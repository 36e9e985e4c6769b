"""Canonical question ids of the judge's three batteries (seed 001).

Reflexes read probabilities by these ids; the judge asks questions with these
ids; the offline heuristic backend answers them.  One vocabulary, kept here so
no reflex package has to import the judge package.
"""

from __future__ import annotations

PRE_TOOL = "pre_tool"
POST_TOOL = "post_tool"
COMPLETION = "completion"

# 8 pre-tool questions
CONSTRAINT_VIOLATION = "constraint_violation"
SECRET_EXPOSURE = "secret_exposure"
DESTRUCTIVE = "destructive_irreversible"
REPEATS_FAILED_APPROACH = "repeats_failed_approach_without_new_evidence"
EXPECTED_PROGRESS = "expected_progress"
REDUNDANT = "redundant_action"
EVIDENCE_INSUFFICIENT = "evidence_insufficient"
GOAL_ALIGNMENT = "goal_alignment"

# 6 post-tool questions
OUTCOME_FAILED = "outcome_failed"
HIT_BLOCKER = "hit_blocker"
RETRY_UNLIKELY = "retry_unlikely_to_help"
NEW_EVIDENCE = "new_evidence_gained"
PROGRESS_MADE = "progress_made"
UNEXPECTED_SIDE_EFFECT = "unexpected_side_effect"

# 5 completion questions
UNRESOLVED_FAILURE = "unresolved_failure"
VERIFICATION_INSUFFICIENT = "verification_insufficient"
MORE_VERIFICATION_HELPFUL = "more_verification_helpful"
CLAIMS_UNSUPPORTED = "claims_unsupported"
GOAL_COMPLETED = "goal_completed"

BATTERIES: dict[str, tuple[str, ...]] = {
    PRE_TOOL: (
        CONSTRAINT_VIOLATION,
        SECRET_EXPOSURE,
        DESTRUCTIVE,
        REPEATS_FAILED_APPROACH,
        EXPECTED_PROGRESS,
        REDUNDANT,
        EVIDENCE_INSUFFICIENT,
        GOAL_ALIGNMENT,
    ),
    POST_TOOL: (
        OUTCOME_FAILED,
        HIT_BLOCKER,
        RETRY_UNLIKELY,
        NEW_EVIDENCE,
        PROGRESS_MADE,
        UNEXPECTED_SIDE_EFFECT,
    ),
    COMPLETION: (
        UNRESOLVED_FAILURE,
        VERIFICATION_INSUFFICIENT,
        MORE_VERIFICATION_HELPFUL,
        CLAIMS_UNSUPPORTED,
        GOAL_COMPLETED,
    ),
}
