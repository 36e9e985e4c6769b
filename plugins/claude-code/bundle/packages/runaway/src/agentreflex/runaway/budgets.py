"""Budgets: warn at a fraction of a limit, refuse at the limit, never become a wall.

Usage is read from the session store (tool calls, start time, token and cost
counters that core fills from host usage records, consecutive failures) and
from the project ledger, so it survives restarts.  A budget is a small
breaker:

* below ``warn_fraction`` of the limit: nothing;
* from ``warn_fraction``: one WARN, repeated at most every ``warn_every`` calls;
* at the limit: BLOCK, and the refusal (a "trip": usage, time, prompts seen)
  is noted in the session store;
* the refusal holds until the user has replied (a new prompt) or
  ``cooldown_seconds`` have passed; then a "grant" is noted and calls go
  through with a WARN for a grace allowance of ``grace_fraction`` of the
  limit, counted from the grant, after which the budget refuses again.  One
  refusal is a checkpoint, not a wall.

Refused calls do not count as tool calls used: they cost nothing, and
counting them would spend the grace allowance during the cooldown.

Limits of 0 are off; only ``consecutive_failures`` is on by default.
"""

from __future__ import annotations

from agentreflex.core.decision import Verdict
from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.events import Event
    from agentreflex.core.state.model import SessionState
    from agentreflex.runaway.ledger import Usage
    from agentreflex.runaway.memory import Mark
    from agentreflex.runaway.settings import BudgetSettings


@record(frozen=True)
class Budget:
    """One limit and the usage measured against it."""

    name: str
    label: str
    usage: float
    limit: float
    unit: str = ""

    @property
    def code(self) -> str:
        return "RUNAWAY-BUDGET-" + self.name.upper().replace("_", "-")

    def show(self, value: float) -> str:
        if self.unit == "usd":
            return f"${value:,.2f}"
        if self.unit == "min":
            return f"{value:,.1f} min"
        return f"{value:,.0f}"


@record(frozen=True)
class BudgetCall:
    """What one budget asks for on this call, and what to remember about it.

    ``mark`` is ``"trip"`` when this call is refused at the limit and
    ``"grant"`` when a refusal is lifted and a grace allowance starts; the
    reflex notes either in the session store.
    """

    budget: Budget
    verdict: Verdict
    message: str
    mark: str = ""


def session_budgets(state: SessionState, event: Event, s: BudgetSettings) -> list[Budget]:
    """The enabled per-session budgets with their current usage."""
    c = state.counters
    ran = max(0, c.tool_calls - c.blocked)  # a refused call cost nothing
    elapsed = (event.timestamp - c.started_at) / 60.0 if c.started_at > 0 else 0.0
    candidates = [
        Budget("session_tool_calls", "tool calls this session", ran, s.session_tool_calls),
        Budget(
            "session_wall_minutes",
            "time this session",
            max(0.0, elapsed),
            s.session_wall_minutes,
            "min",
        ),
        Budget(
            "session_tokens",
            "tokens this session",
            c.tokens,
            s.session_tokens,
        ),
        Budget("session_cost_usd", "cost this session", c.cost_usd, s.session_cost_usd, "usd"),
        Budget(
            "consecutive_failures",
            "failed calls in a row",
            c.consecutive_failures,
            s.consecutive_failures,
        ),
    ]
    return [b for b in candidates if b.limit > 0]


def project_budgets(total: Usage, s: BudgetSettings) -> list[Budget]:
    """The enabled per-project budgets against the ledger's recent total."""
    candidates = [
        Budget(
            "project_tool_calls",
            "tool calls in this project",
            total.tool_calls,
            s.project_tool_calls,
        ),
        Budget("project_tokens", "tokens in this project", total.tokens, s.project_tokens),
        Budget(
            "project_cost_usd", "cost in this project", total.cost_usd, s.project_cost_usd, "usd"
        ),
        Budget(
            "project_wall_minutes",
            "agent time in this project",
            total.wall_minutes,
            s.project_wall_minutes,
            "min",
        ),
    ]
    return [b for b in candidates if b.limit > 0]


def session_usage(state: SessionState, event: Event) -> Usage:
    """This session's contribution to the project ledger."""
    # Only project budgets need the ledger: imported here, not on every hook call.
    from agentreflex.runaway.ledger import Usage

    c = state.counters
    ran = max(0, c.tool_calls - c.blocked)
    minutes = max(0.0, (event.timestamp - c.started_at) / 60.0) if c.started_at > 0 else 0.0
    return Usage(ran, c.tokens, c.cost_usd, event.timestamp, minutes)


def at_limit(b: Budget) -> bool:
    """Usage has reached the limit: only then does :func:`check` look at the last mark."""
    return not b.usage < b.limit


def check(
    b: Budget, last: Mark | None, now: float, prompts: int, s: BudgetSettings
) -> BudgetCall | None:
    """The breaker for one budget (see the module docstring)."""
    shown_usage, shown_limit = b.show(b.usage), b.show(b.limit)
    if not at_limit(b):
        if b.usage >= s.warn_fraction * b.limit:
            from agentreflex.runaway import messages

            return BudgetCall(
                b, Verdict.WARN, messages.budget_warn(b.label, shown_usage, shown_limit)
            )
        return None
    # Imported only here: a budget below its limit (every budget, on an
    # ordinary call) needs no message and no breaker mark.
    from agentreflex.runaway import messages
    from agentreflex.runaway.memory import GRANT, TRIP

    cooldown = _duration(s.cooldown_seconds)
    refuse = messages.budget_block(b.label, shown_usage, shown_limit, cooldown)
    grace_message = messages.budget_grace(b.label, shown_usage, shown_limit)
    if last is None:
        return BudgetCall(b, Verdict.BLOCK, refuse, mark=TRIP)
    if last.kind == TRIP:
        if prompts > last.prompts or now - last.ts >= s.cooldown_seconds:
            return BudgetCall(b, Verdict.WARN, grace_message, mark=GRANT)
        return BudgetCall(b, Verdict.BLOCK, refuse)
    grace = max(1.0 if b.unit == "" else 0.0, s.grace_fraction * b.limit)
    if b.usage < last.usage + grace:
        return BudgetCall(b, Verdict.WARN, grace_message)
    return BudgetCall(b, Verdict.BLOCK, refuse, mark=TRIP)


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"
