"""The done reflex: an agent that says "done" without evidence does not get to stop.

On a stop (Claude Code Stop / SubagentStop, Codex Stop, Hermes pre_verify,
OpenCode idle, pi agent end, all normalised by core to STOP/SUBAGENT_STOP)
it first reads the record: failures never shown fixed, files changed after
the last test run, a last test run that failed, claims in the final message
with nothing behind them.  Those facts are floors.  The judge's completion
probabilities are combined with them by ``max`` and compared with seed 001's
thresholds; the message lists exactly which evidence is missing.

One-shot safety valve: when the host says the stop hook is already active,
or the previous stop was blocked, the reflex reports but never blocks, so a
disagreement with the agent cannot become an endless stop loop.

Stdlib only; the judge is reached through the context, never imported.
"""

from __future__ import annotations

from agentreflex.core.decision import Finding, Verdict
from agentreflex.core.systemone import signals as s
from agentreflex.core.util.record import record
from agentreflex.judge2.done import claims as cl
from agentreflex.judge2.done.evidence import assess
from agentreflex.judge2.plugin import PLUGIN, SECTION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.reflex import JudgeAnswer, ReflexContext
    from agentreflex.judge2.done.evidence import CompletionEvidence

TITLE = "DONE REFLEX"
NAME = "done"


@record(frozen=True)
class Rule:
    """One comparison: a completion signal against a named threshold."""

    signal: str
    threshold: str
    code: str


RULES = (
    Rule(s.UNRESOLVED_FAILURE, "unresolved_failure_block", "DONE-UNRESOLVED-FAILURE"),
    Rule(s.VERIFICATION_INSUFFICIENT, "verification_insufficient_block", "DONE-UNVERIFIED"),
    Rule(s.CLAIMS_UNSUPPORTED, "claims_unsupported_block", "DONE-CLAIM-UNSUPPORTED"),
    Rule(s.MORE_VERIFICATION_HELPFUL, "more_verification_helpful_block", "DONE-MORE-VERIFICATION"),
)
_JUDGE_REASONS = {
    s.UNRESOLVED_FAILURE: "the judge thinks a failure is still unresolved",
    s.VERIFICATION_INSUFFICIENT: "the judge thinks the changes are not verified enough",
    s.CLAIMS_UNSUPPORTED: "the judge thinks the final message claims more than the evidence shows",
    s.MORE_VERIFICATION_HELPFUL: "the judge thinks an obvious check is still missing",
}


class DoneReflex:
    """Entry point ``agentreflex.reflexes: done``."""

    name = NAME
    events = PLUGIN.reflex("done").event_kinds()  # declared once, in plugin.py
    floor = False

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        if not ctx.event.is_stop:
            return []
        message = ctx.event.last_message or ctx.state.last_message
        ev = assess(ctx.state, message, _untested_ok(ctx))
        answer = ctx.judge_answer(s.COMPLETION)
        signals = combine(ev, answer if answer is not None and answer.calibrated else None)
        hits = [r for r in RULES if signals[r.signal] >= self._threshold(ctx, r.threshold)]
        if not hits:
            return []
        first = hits[0]
        code = _code(first, ev)
        reasons = ev.missing() or [_JUDGE_REASONS[r.signal] for r in hits]
        threshold = self._threshold(ctx, first.threshold)
        detail: dict[str, object] = {
            "missing": reasons,
            "rules": [f"{r.signal} >= {r.threshold}" for r in hits],
            "floors": {k: v for k, v in ev.floors().items() if v},
        }
        if answer is not None:
            detail["judge"] = answer.backend + (" (degraded)" if answer.degraded else "")
        if _valve_open(ctx):
            detail["valve"] = "stop already blocked once; not blocking again"
            return [
                Finding(
                    reflex=NAME,
                    code="DONE-VALVE-OPEN",
                    verdict=Verdict.WARN,
                    title=TITLE,
                    message=_message(reasons, valve=True),
                    signals=signals,
                    threshold=threshold,
                    detail=detail,
                    enforce=False,
                )
            ]
        verdict = Verdict.BLOCK if self._may_block(ctx, ev, answer, hits) else Verdict.WARN
        return [
            Finding(
                reflex=NAME,
                code=code,
                verdict=verdict,
                title=TITLE,
                message=_message(reasons, valve=False),
                signals=signals,
                threshold=threshold,
                detail=detail,
            )
        ]

    def _may_block(
        self,
        ctx: ReflexContext,
        ev: CompletionEvidence,
        answer: JudgeAnswer | None,
        hits: list[Rule],
    ) -> bool:
        """A stop is blocked when the record proves a hit, or the judge alone is trusted to.

        The judge alone may block only on a signal its calibration map marks ``may_block``
        (held-out precision of at least 0.9); otherwise its hit is a WARN.
        """
        floors = ev.floors()
        if any(floors.get(r.signal, 0.0) >= self._threshold(ctx, r.threshold) for r in hits):
            return True
        trusted = answer.may_block if answer is not None and not answer.degraded else frozenset()
        return any(r.signal in trusted for r in hits)

    @staticmethod
    def _threshold(ctx: ReflexContext, name: str) -> float:
        if name == "claims_unsupported_block":
            value = SECTION.setting(name).read(ctx.config, SECTION.key)
            return float(value)
        return ctx.config.threshold(name)


def _untested_ok(ctx: ReflexContext) -> tuple[str, ...]:
    """``judge2.untested_ok``: file patterns whose change needs no test run ([] = every change does)."""
    value = SECTION.setting("untested_ok").read(ctx.config, SECTION.key)
    return tuple(value)


def combine(ev: CompletionEvidence, answer: JudgeAnswer | None) -> dict[str, float]:
    """Floors from the record, raised (never lowered) by the judge's probabilities.

    Proportion: a session that changed nothing (a question, an investigation, a review)
    is not held for what its runs found.  The judge may rightly say a failure is left
    unresolved there (its probability is calibrated on that question), but that is the
    session's answer, not unfinished work, so it does not raise this signal.
    """
    signals = ev.floors()
    if answer is None:
        return signals
    for key in signals:
        if key == s.UNRESOLVED_FAILURE and not ev.mutated:
            continue
        p = answer.probabilities.get(key)
        if p is not None and key != s.GOAL_COMPLETED:
            signals[key] = max(signals[key], p)
        elif p is not None:
            signals[key] = p
    claim_p = _claim_signal(ev, answer)
    signals[s.CLAIMS_UNSUPPORTED] = max(signals[s.CLAIMS_UNSUPPORTED], claim_p)
    return signals


def _claim_signal(ev: CompletionEvidence, answer: JudgeAnswer) -> float:
    """For claims the record leaves open, how likely the judge thinks one is unsupported."""
    worst = 0.0
    for i, check in enumerate(ev.claim_checks):
        dist = answer.choices.get(cl.claim_id(i))
        if check.status != cl.UNDECIDED or not dist:
            continue
        worst = max(worst, 1.0 - dist.get(cl.SUPPORTED, 0.0))
        verdict = cl.resolve(check.claim, dist)
        if verdict.status != cl.SUPPORTED:
            ev.claim_checks[i] = verdict
    return worst


def _code(rule: Rule, ev: CompletionEvidence) -> str:
    if any(c.status == cl.FABRICATED for c in ev.claim_checks):
        return "DONE-CLAIM-FABRICATED"
    if rule.signal == s.UNRESOLVED_FAILURE and ev.holds_failed_test:
        return "DONE-TESTS-FAILED"
    return rule.code


def _valve_open(ctx: ReflexContext) -> bool:
    return ctx.event.stop_hook_active or ctx.state.counters.stop_blocks_in_row >= 1


def _message(reasons: list[str], valve: bool) -> str:
    listed = "; ".join(f"({i}) {r}" for i, r in enumerate(reasons, 1))
    if valve:
        return f"Stopping without the evidence that the work is done: {listed}. (Not blocking twice in a row.)"
    return (
        f"Not done yet: the work is not shown to be finished. Missing evidence: {listed}. "
        "Fix what failed, run the tests that cover your changes and show they pass, "
        "or say plainly what is still unfinished."
    )
