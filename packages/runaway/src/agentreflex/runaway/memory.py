"""What the reflex remembers between hook calls: warnings given, budgets tripped.

Hook processes are short-lived and the daemon may restart, so nothing is
kept in memory.  Facts go into the session store as notes (``ctx.note``),
which core folds into ``state.notes`` and replays from the session log.  Two
uses: throttling a fuzzy warning so it is not repeated on every call, and
remembering when and at what usage a budget refused a call (the cooldown
runs from there) or lifted a refusal (the grace allowance runs from there).
"""

from __future__ import annotations

from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.reflex import ReflexContext
    from agentreflex.core.state.model import SessionState

REFLEX = "runaway"
WARNED = "runaway_warned"
TRIPS = "runaway_budget_trips"


def _entries(state: SessionState, key: str) -> list[dict[str, Any]]:
    raw = state.notes.get(key, [])
    return [e for e in raw if isinstance(e, dict)] if isinstance(raw, list) else []


def recently_warned(state: SessionState, code: str, within_calls: int) -> bool:
    """Was ``code`` already raised in the last ``within_calls`` tool calls?"""
    now = state.counters.tool_calls
    for entry in reversed(_entries(state, WARNED)):
        if entry.get("code") == code:
            calls = entry.get("calls", 0)
            return isinstance(calls, int | float) and now - calls < within_calls
    return False


def remember_warning(ctx: ReflexContext, code: str) -> None:
    ctx.note(REFLEX, WARNED, {"code": code, "calls": ctx.state.counters.tool_calls})


TRIP = "trip"
GRANT = "grant"


@record(frozen=True)
class Mark:
    """A budget's latest breaker event: a refusal ("trip") or a lifted refusal ("grant")."""

    budget: str
    kind: str
    usage: float
    ts: float
    prompts: int


def last_mark(state: SessionState, budget: str) -> Mark | None:
    for entry in reversed(_entries(state, TRIPS)):
        if entry.get("budget") == budget:
            try:
                return Mark(
                    budget,
                    GRANT if entry.get("kind") == GRANT else TRIP,
                    float(entry.get("usage", 0.0)),
                    float(entry.get("ts", 0.0)),
                    int(entry.get("prompts", 0)),
                )
            except (TypeError, ValueError):
                return None
    return None


def remember_mark(ctx: ReflexContext, budget: str, kind: str, usage: float) -> None:
    ctx.note(
        REFLEX,
        TRIPS,
        {
            "budget": budget,
            "kind": kind,
            "usage": usage,
            "ts": ctx.event.timestamp,
            "prompts": ctx.state.counters.prompts,
        },
    )
