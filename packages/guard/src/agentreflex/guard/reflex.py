"""The guard as a core reflex: settings in, locked report update, core findings out.

Mapping onto core's merge: a finding enforces only when its category's
effective mode is ``on`` and an explicit, blocking directive is involved;
everything else (report mode, heuristic or non-blocking obligations) is
``enforce=False`` and is logged as ``WOULD_*`` without changing execution.
Stops and pre-tool mutations propose BLOCK; a mutation seen only after it ran
proposes BLOCK with a corrective instruction (it cannot be undone); claims
seen at a tool boundary propose WARN with the instruction as context.
Global ``off`` returns before touching anything, preserving an old report.

A hook is a new process per tool call, so this module imports no engine
module at load time: the engine is imported only when an event needs it.
"""

from __future__ import annotations

import os
import time

from agentreflex.core.decision import Finding, Verdict
from agentreflex.guard import plugin, quiet
from agentreflex.guard.plugin import PLUGIN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from agentreflex.core.reflex import ReflexContext
    from agentreflex.guard.engine import GuardFinding, Settings
    from agentreflex.guard.report import Report


def settings_from(ctx: ReflexContext) -> Settings:
    """The guard's effective settings, with the global off master switch applied."""
    from agentreflex.guard.engine import Settings

    backfill_mode, backfill_limit = plugin.backfill(ctx.config)
    return Settings(
        mode=plugin.mode(ctx.config),
        categories=plugin.category_modes(ctx.config),
        backfill_mode=backfill_mode,
        backfill_limit=backfill_limit,
    )


class GuardReflex:
    """The Reasoning Guard reflex (``agentreflex.reflexes`` entry point ``guard``)."""

    name = "guard"
    floor = False
    events = PLUGIN.reflex("guard").event_kinds()  # declared once, in plugin.py

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        if plugin.mode(ctx.config) == "off":
            return []
        env = os.environ if self._env is None else self._env
        backfill = plugin.backfill(ctx.config)
        if ctx.state_dir and quiet.nothing_to_do(ctx.state_dir, ctx.event, env, backfill):
            return []  # the engine would find nothing and change nothing later read
        return _stop_valve(ctx, self._run_engine(ctx, env))

    def _run_engine(self, ctx: ReflexContext, env: Mapping[str, str]) -> list[Finding]:
        """The full guard: imported here, so a hook with nothing to do never loads it."""
        from agentreflex.guard import engine, ledger
        from agentreflex.guard.report import add_latency, new_report
        from agentreflex.guard.sanitize import excerpt

        settings = settings_from(ctx)
        event = ctx.event
        now = event.timestamp if event.timestamp > 0 else time.time()
        session_id = excerpt(event.session_id, 128) or "unknown"
        started = time.perf_counter()

        def work(report: Report, problems: list[str]) -> list[GuardFinding]:
            found = engine.process(report, event, settings, env, now, problems)
            add_latency(report, (time.perf_counter() - started) * 1000.0)
            return found

        def stored(report: Report) -> None:
            quiet.remember(ctx.state_dir, event.host, event.session_id, report)

        if not ctx.state_dir:  # nowhere state may be written (not a project): this event alone
            scratch = new_report(session_id, ledger.provider_of(event.host), now)
            return [
                to_core(f, settings) for f in engine.process(scratch, event, settings, env, now)
            ]
        try:
            found = ledger.update(ctx.state_dir, event.host, session_id, now, work, stored)
        except OSError as exc:
            ctx.degraded.append(f"guard: report not written ({exc.strerror or exc})")
            scratch = new_report(session_id, ledger.provider_of(event.host), now)
            found = engine.process(scratch, event, settings, env, now)
        return [to_core(f, settings) for f in found]


def _stop_valve(ctx: ReflexContext, findings: list[Finding]) -> list[Finding]:
    """A stop the guard already held once ends this time: the finding is only recorded.

    Holding every stop while a check stays open would loop forever with a
    model that never resolves or defers it (seen in the real Codex). This is
    the done reflex's one-shot valve: the host's ``stop_hook_active``, or a
    stop blocked just before.  The check stays open and holds the next stop.
    """
    if not ctx.event.is_stop:
        return findings
    if not (ctx.event.stop_hook_active or ctx.state.counters.stop_blocks_in_row >= 1):
        return findings
    for finding in findings:
        finding.enforce = False
    return findings


def to_core(found: GuardFinding, settings: Settings) -> Finding:
    """One guard finding as a core :class:`Finding` with a stable code."""
    from agentreflex.guard import engine  # already loaded: the finding came from it

    blocking = found.boundary == "stop" or found.code in (
        engine.MUTATION_AHEAD,
        engine.STATE_RECOVERED,
    )
    verdict = Verdict.BLOCK if blocking else Verdict.WARN
    at_tool = found.boundary in ("pre_tool", "post_tool")
    context = (
        found.message if found.enforce and at_tool and (found.corrective or not blocking) else ""
    )
    mode = (
        settings.categories.get(found.category, settings.mode) if found.category else settings.mode
    )
    return Finding(
        reflex="guard",
        code=found.code,
        verdict=verdict,
        message=found.message,
        title=engine.TITLES.get(found.code, found.code),
        signals={"obligations": float(len(found.obligations)), "enforced": float(found.enforce)},
        detail={
            "category": found.category,
            "boundary": found.boundary,
            "effective_mode": mode,
            "obligations": list(found.obligations[:8]),
            "corrective": found.corrective,
        },
        context=context,
        enforce=found.enforce,
    )
