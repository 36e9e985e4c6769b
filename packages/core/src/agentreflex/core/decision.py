"""Decisions, findings and the merge.

A reflex never talks to a host.  It returns :class:`Finding` objects, each
carrying a proposed :class:`Verdict`, a stable code, the signals it looked at
and the threshold it compared them with.  The runtime merges every finding
into one :class:`Decision` (the most restrictive verdict wins) and, in shadow
mode, turns it into a ``WOULD_*`` decision that changes nothing.
"""

from __future__ import annotations

from enum import StrEnum

from agentreflex.core.util.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.recap import Recap


class Verdict(StrEnum):
    ALLOW = "ALLOW"
    WARN = "WARN"
    ASK_USER = "ASK_USER"
    BLOCK = "BLOCK"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Verdict.ALLOW: 0, Verdict.WARN: 1, Verdict.ASK_USER: 2, Verdict.BLOCK: 3}


class Mode(StrEnum):
    """``shadow``: evaluate and log, never change execution.  ``enforced``: act."""

    SHADOW = "shadow"
    ENFORCED = "enforced"


@record
class Finding:
    """One reflex's proposal, with everything needed to explain it.

    ``code`` is stable (``GATE-DESTRUCTIVE-RM``, ``RG-CAUSAL-AHEAD-001``...),
    ``signals`` maps signal names to the probabilities or counts that were
    compared, ``threshold`` is the number they were compared with, and
    ``message`` is the deterministic text shown to the agent.
    """

    reflex: str
    code: str
    verdict: Verdict
    message: str
    title: str = ""
    signals: dict[str, float] = field(default_factory=dict)
    threshold: float | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    context: str = ""
    enforce: bool = True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "reflex": self.reflex,
            "code": self.code,
            "verdict": self.verdict.value,
            "message": self.message,
        }
        if self.title:
            out["title"] = self.title
        if self.signals:
            out["signals"] = {k: round(v, 4) for k, v in self.signals.items()}
        if self.threshold is not None:
            out["threshold"] = self.threshold
        if self.detail:
            out["detail"] = self.detail
        if not self.enforce:
            out["enforce"] = False
        return out


@record
class Decision:
    """The merged answer for one event.

    ``verdict`` is what the host is told; ``proposed`` is what the reflexes
    asked for.  They differ in shadow mode (``proposed=BLOCK``,
    ``verdict=ALLOW``, label ``WOULD_BLOCK``) and for findings that are
    report-only (``enforce=False``).
    """

    verdict: Verdict
    proposed: Verdict
    mode: Mode
    findings: list[Finding] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    # What the context layer adds, whatever the mode (it decides nothing): a
    # session recap the adapter renders, and a shortened tool output in the
    # tool's own shape (Claude ``updatedToolOutput``).  See core/recap.py.
    recap: Recap | None = None
    updated_output: Any = None

    @property
    def worth_logging(self) -> bool:
        """Anything to show in reflex.log: not a plain ALLOW, an error or a degraded judge."""
        return self.proposed is not Verdict.ALLOW or bool(self.errors) or bool(self.degraded)

    @property
    def label(self) -> str:
        """``BLOCK`` / ``WOULD_BLOCK`` / ``ALLOW`` ... as shown in panels and logs."""
        if self.proposed is not self.verdict and self.proposed is not Verdict.ALLOW:
            return f"WOULD_{self.proposed.value}"
        return self.verdict.value

    @property
    def primary(self) -> Finding | None:
        """The finding that decided the verdict (highest rank, first reported)."""
        best: Finding | None = None
        for f in self.findings:
            if best is None or f.verdict.rank > best.verdict.rank:
                best = f
        return best

    @property
    def reason(self) -> str:
        """Messages of every finding at the proposed verdict, joined."""
        top = [f for f in self.findings if f.verdict is self.proposed]
        return " ".join(dict.fromkeys(f.message for f in top if f.message))

    def to_json(self) -> dict[str, Any]:
        primary = self.primary
        return {
            "decision": self.verdict.value,
            "proposed": self.proposed.value,
            "label": self.label,
            "mode": self.mode.value,
            "reflex": primary.reflex if primary else None,
            "code": primary.code if primary else None,
            "reason": self.reason,
            "signals": dict(primary.signals) if primary else {},
            "findings": [f.to_json() for f in self.findings],
            "degraded": list(self.degraded),
            "errors": list(self.errors),
        }


def merge(findings: list[Finding], mode: Mode) -> Decision:
    """Most restrictive wins: BLOCK > ASK_USER > WARN > ALLOW.

    Report-only findings (``enforce=False``) and shadow mode both lower what
    the host is told to ALLOW while keeping the proposal for the log.
    Shadow mode changes nothing the agent sees, so a WARN is logged as
    WOULD_WARN and the host hears ALLOW.
    """
    proposed = Verdict.ALLOW
    enforced = Verdict.ALLOW
    for f in findings:
        if f.verdict.rank > proposed.rank:
            proposed = f.verdict
        if f.enforce and f.verdict.rank > enforced.rank:
            enforced = f.verdict
    verdict = enforced if mode is Mode.ENFORCED else Verdict.ALLOW
    context = [f.context for f in findings if f.context and (mode is Mode.ENFORCED and f.enforce)]
    return Decision(
        verdict=verdict, proposed=proposed, mode=mode, findings=list(findings), context=context
    )
