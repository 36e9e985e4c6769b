"""The pure policy engine: signals in, a decision out.

Deterministic floors (rule hits) and the judge's calibrated probabilities are
combined per signal with ``max`` — a judge can raise a signal but never lower
a floor — and compared with seed 001's thresholds.  The messages come from
the rules (what happened and what to do instead), never from a model.
"""

from __future__ import annotations

from agentreflex.core.util.record import field, record
from agentreflex.gate.model import ASK, CONSTRAINT, DESTRUCTIVE, SECRET, Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# signal ids (agentreflex.core.systemone.signals) used by the gate
S_CONSTRAINT = "constraint_violation"
S_SECRET = "secret_exposure"
S_DESTRUCTIVE = "destructive_irreversible"
S_REDUNDANT = "redundant_action"
S_EVIDENCE = "evidence_insufficient"
S_GOAL = "goal_alignment"

TITLES = {
    DESTRUCTIVE: "DESTRUCTIVE ACTION REFLEX FIRED",
    CONSTRAINT: "CONSTRAINT REFLEX",
    SECRET: "SECRET EXPOSURE REFLEX",
    ASK: "GATE: NEEDS THE USER",
}
_SIGNAL_OF = {DESTRUCTIVE: S_DESTRUCTIVE, CONSTRAINT: S_CONSTRAINT, SECRET: S_SECRET}
_DEFAULT_MESSAGES = {
    DESTRUCTIVE: "This action looks destructive or irreversible and is not clearly necessary "
    "for the goal. Find a reversible way, or ask the user.",
    CONSTRAINT: "This action appears to violate a constraint the user stated. Find a way that "
    "respects it, or ask the user.",
    SECRET: "This action may expose a secret. Keep credentials out of the transcript, files "
    "and the network.",
}


@record(frozen=True)
class Proposal:
    """One verdict the gate proposes, with everything needed to explain it."""

    verdict: str  # ALLOW / WARN / ASK_USER / BLOCK
    code: str
    category: str
    title: str
    message: str
    signals: dict[str, float]
    threshold: float | None
    hit: Hit | None = None
    rules: tuple[str, ...] = field(default_factory=tuple)


def signals(hits: list[Hit], judge: Mapping[str, float] | None) -> dict[str, float]:
    """Floors combined with judge probabilities by ``max`` (never lowered)."""
    out = {S_CONSTRAINT: 0.0, S_SECRET: 0.0, S_DESTRUCTIVE: 0.0}
    for h in hits:
        key = _SIGNAL_OF.get(h.category)
        if key is not None:
            out[key] = max(out[key], h.probability)
    for key, value in (judge or {}).items():
        if isinstance(value, (int, float)) and 0.0 <= float(value) <= 1.0:
            out[key] = max(out.get(key, 0.0), float(value)) if key in out else float(value)
    return out


def decide(
    hits: list[Hit],
    judge: Mapping[str, float] | None,
    thresholds: Mapping[str, float],
    profile: str = "balanced",
    judge_may_block: frozenset[str] = frozenset(),
) -> list[Proposal]:
    """The gate's proposals for one pre-tool event (empty means ALLOW).

    Graded hits (a severity instead of a decision) get the decision
    ``profile`` gives their severity (:mod:`agentreflex.gate.severity`).
    A BLOCK the floors alone would not give is a judge-only BLOCK: it stands only for
    signals in ``judge_may_block`` (held-out precision of at least 0.9), else it is a WARN.
    """
    if any(h.severity for h in hits):
        from agentreflex.gate import severity

        hits = severity.resolve(hits, profile)
    sig = signals(hits, judge)
    out: list[Proposal] = []
    for category, block_key, warn_key in (
        (CONSTRAINT, "constraint_violation_block", None),
        (SECRET, "secret_exposure_block", None),
        (DESTRUCTIVE, "destructive_block", "destructive_warn"),
    ):
        value = sig[_SIGNAL_OF[category]]
        mine = [h for h in hits if h.category == category]
        top = max(mine, key=lambda h: h.probability, default=None)
        verdict = ""
        threshold = thresholds[block_key]
        floor = top.probability if top is not None else 0.0
        if value >= threshold:
            judge_only = floor < threshold
            verdict = (
                "WARN" if judge_only and _SIGNAL_OF[category] not in judge_may_block else "BLOCK"
            )
        elif warn_key is not None and value >= thresholds[warn_key]:
            verdict, threshold = "WARN", thresholds[warn_key]
        if verdict:
            out.append(_proposal(verdict, category, top, mine, sig, threshold))
    asks = [h for h in hits if h.category == ASK]
    if asks:
        out.append(_proposal("ASK_USER", ASK, asks[0], asks, sig, None))
    out.extend(_judge_only(sig, judge, thresholds))
    return out


def _proposal(
    verdict: str,
    category: str,
    top: Hit | None,
    mine: list[Hit],
    sig: dict[str, float],
    threshold: float | None,
) -> Proposal:
    if top is None:
        code = {
            DESTRUCTIVE: "GATE-JUDGE-DESTRUCTIVE",
            CONSTRAINT: "GATE-JUDGE-CONSTRAINT",
            SECRET: "GATE-JUDGE-SECRET",
        }[category]
        message = _DEFAULT_MESSAGES[category]
    else:
        code = top.rule
        message = f"{top.shown_message()} [{top.rule}: {top.shown_segment()[:160]}]"
    rules = tuple(dict.fromkeys(h.rule for h in mine))
    return Proposal(
        verdict, code, category, TITLES[category], message, dict(sig), threshold, top, rules
    )


def _judge_only(
    sig: dict[str, float], judge: Mapping[str, float] | None, thresholds: Mapping[str, float]
) -> list[Proposal]:
    if not judge:
        return []
    out = []
    if S_REDUNDANT in judge and sig[S_REDUNDANT] >= thresholds["redundant_warn"]:
        out.append(
            Proposal(
                "WARN",
                "GATE-REDUNDANT",
                "judge",
                "REDUNDANT ACTION REFLEX",
                "This action looks redundant with what was already done. Check the "
                "earlier result before repeating it.",
                dict(sig),
                thresholds["redundant_warn"],
            )
        )
    if S_EVIDENCE in judge and sig[S_EVIDENCE] >= thresholds["evidence_insufficient_warn"]:
        out.append(
            Proposal(
                "WARN",
                "GATE-EVIDENCE-INSUFFICIENT",
                "judge",
                "EVIDENCE REFLEX",
                "There is not enough evidence yet for this action. Read or test first.",
                dict(sig),
                thresholds["evidence_insufficient_warn"],
            )
        )
    if S_GOAL in judge and sig[S_GOAL] < thresholds["goal_alignment_warn"]:
        out.append(
            Proposal(
                "WARN",
                "GATE-GOAL-ALIGNMENT",
                "judge",
                "GOAL ALIGNMENT REFLEX",
                "This action does not look related to the user's goal. Re-read the request.",
                dict(sig),
                thresholds["goal_alignment_warn"],
            )
        )
    return out


def as_detail(p: Proposal) -> dict[str, Any]:
    """The JSON-able detail a finding carries: rule id, segment, category, rules."""
    detail: dict[str, Any] = {"rule": p.code, "category": p.category, "rules": list(p.rules)}
    detail["segment"] = p.hit.shown_segment() if p.hit is not None else ""
    return detail
