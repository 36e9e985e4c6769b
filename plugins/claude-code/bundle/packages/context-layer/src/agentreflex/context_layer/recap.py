"""Building the session recap: what the agent must not forget, within a token budget.

The recap is data (:class:`agentreflex.core.recap.Recap`); each host's
adapter spells it.  Everything in it is redacted and each line is bounded.
When it is over budget, whole lines go in a fixed order of priority, the
least important section first: budget status, the parts other packages
declare as cuttable (the Reasoning Guard's findings), unresolved failures,
what was blocked, the goal, and last of all the parts declared to keep (the
guard's open obligations) and the user's constraints (what a compaction must
not erase).
"""

from __future__ import annotations

from agentreflex.context_layer import constraints
from agentreflex.context_layer.tokens import estimate_tokens
from agentreflex.core.recap import Recap, RecapSection, declared_parts, render_plain
from agentreflex.core.redaction.redact import redact_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.config.settings import Config
    from agentreflex.core.state.model import ActionRecord, SessionState

GOAL = "Goal"
CONSTRAINTS = "The user's constraints (their words)"
FAILURES = "Unresolved failures"
BLOCKED = "Blocked by agentreflex"
BUDGET = "Budget"
# Other packages' parts (the Reasoning Guard's open obligations and findings)
# go in as each declares (core's ``declared_parts``): a kept part just before
# the constraints in the cutting order, the others just after the budget.
LEFT_OUT = "Left out to fit the recap budget"
NOTE_TOKENS = 30
LINE_CHARS = 240
RECENT = 5


def build(state: SessionState, config: Config | None, state_dir: str, budget_tokens: int) -> Recap:
    """The recap of ``state`` and the packages' declared parts, cut to ``budget_tokens``."""
    parts = declared_parts(state_dir, state.session_id) if state_dir else []
    kept = [(title, lines) for title, lines, keep in parts if keep]
    other = [(title, lines) for title, lines, keep in parts if not keep]
    raw = {
        GOAL: [state.goal] if state.goal else [],
        CONSTRAINTS: constraints.merged(state.prompts, state.constraints),
        **dict(kept),
        **dict(other),
        FAILURES: unresolved_failures(state),
        BLOCKED: blocked(state),
        BUDGET: budget_lines(state, config),
    }
    sections = [RecapSection(title, [_line(x) for x in lines]) for title, lines in raw.items()]
    # first to go when over budget ... last to go
    drop = (BUDGET, *dict(other), FAILURES, BLOCKED, GOAL, *dict(kept), CONSTRAINTS)
    return fit(Recap(sections=sections), budget_tokens, drop)


def _line(text: str) -> str:
    # redacted before the cut and before its whitespace is collapsed (redact_line)
    return redact_line(str(text), LINE_CHARS)


def fit(recap: Recap, budget_tokens: int, drop_order: tuple[str, ...] | None = None) -> Recap:
    """Drop lines, lowest priority first, until the plain rendering fits the budget.

    What was left out is said in one last line (room for it is reserved), so
    the agent knows to look at ``agentreflex status`` rather than assume
    there is nothing more.
    """
    if not _over(recap, budget_tokens):
        return recap
    by_title = {s.title: s for s in recap.sections}
    target = max(budget_tokens - NOTE_TOKENS, 1)
    dropped: dict[str, int] = {}
    for title in drop_order or tuple(s.title for s in reversed(recap.sections)):
        section = by_title.get(title)
        while section is not None and section.lines and _over(recap, target):
            section.lines.pop()
            dropped[title] = dropped.get(title, 0) + 1
    left_out = ", ".join(f"{count} {title.lower()}" for title, count in dropped.items())
    recap.sections.append(RecapSection(LEFT_OUT, [left_out[: NOTE_TOKENS * 3]]))
    return recap


def _over(recap: Recap, budget_tokens: int) -> bool:
    return estimate_tokens(render_plain(recap)) > budget_tokens


def unresolved_failures(state: SessionState) -> list[str]:
    """Failed actions not followed by a success of the same call (newest last)."""
    out: list[str] = []
    for failure in state.failures[-RECENT * 2 :]:
        if _resolved(state, failure):
            continue
        why = failure.error_signature or (
            f"exit {failure.exit_code}" if failure.exit_code is not None else "failed"
        )
        out.append(f"{failure.summary} -> {why}")
    return list(dict.fromkeys(out))[-RECENT:]


def _resolved(state: SessionState, failure: ActionRecord) -> bool:
    for action in state.actions:
        if action.seq > failure.seq and action.outcome == "success":
            if action.fingerprint == failure.fingerprint:
                return True
            if failure.verification and action.verification:
                return True
    return False


def blocked(state: SessionState) -> list[str]:
    """What agentreflex blocked (or asked about) and why, the most recent few."""
    out = [
        f"{i.code}: {i.message}"
        for i in state.interventions
        if i.verdict in ("BLOCK", "ASK_USER") and i.label in ("BLOCK", "ASK_USER")
    ]
    return list(dict.fromkeys(out))[-RECENT:]


_LIMITS = (
    ("session_tool_calls", "tool calls", "tool_calls"),
    ("session_tokens", "tokens", "tokens"),
    ("session_cost_usd", "cost (USD)", "cost_usd"),
)


def budget_lines(state: SessionState, config: Config | None) -> list[str]:
    """``used of limit`` for every session budget the user set (none set: nothing)."""
    section: dict[str, Any] = config.section("budgets") if config is not None else {}
    counters = state.counters
    used = {
        "tool_calls": counters.tool_calls,
        "tokens": counters.tokens,
        "cost_usd": round(counters.cost_usd, 2),
    }
    out: list[str] = []
    for key, label, counter in _LIMITS:
        limit = section.get(key)
        if isinstance(limit, (int, float)) and not isinstance(limit, bool) and limit > 0:
            share = used[counter] / limit
            out.append(f"{label}: {used[counter]} of {limit} ({share:.0%})")
    return out
