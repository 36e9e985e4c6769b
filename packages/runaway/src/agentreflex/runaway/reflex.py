"""RunawayReflex: loops, stuck agents and budgets, as one reflex.

Registered under the ``agentreflex.reflexes`` entry point as ``runaway``.
It is a floor (``floor = True``) because of one deterministic check, the
exact-repeat count, which must fail closed: if it cannot be computed the
runtime refuses the call.  Everything else here is judgment (the judge's
loop probabilities, fuzzy loops, budgets, post-tool warnings) and fails
open: an error in one of those parts is reported in ``ctx.degraded`` and
that part says nothing, so a bug in a heuristic can never wedge the agent.
"""

from __future__ import annotations

from agentreflex.core.decision import Finding, Verdict
from agentreflex.core.events import EventKind
from agentreflex.core.systemone import signals as sig
from agentreflex.runaway import budgets, fuzzy
from agentreflex.runaway.fuzzy import Hit
from agentreflex.runaway.history import FAILURE, Proposal, proposal, with_outcome
from agentreflex.runaway.plugin import PLUGIN
from agentreflex.runaway.policy import assess_loop
from agentreflex.runaway.repeats import count_unresolved_repeats
from agentreflex.runaway.settings import Settings, load_settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from agentreflex.core.reflex import ReflexContext
    from agentreflex.runaway.ledger import Usage
    from agentreflex.runaway.policy import LoopAssessment
    from agentreflex.runaway.repeats import RepeatCount

NAME = "runaway"


class RunawayReflex:
    """Exact-repeat floor, fuzzy loops, budgets and post-tool warnings."""

    name = NAME
    events = PLUGIN.reflex("runaway").event_kinds()  # declared once, in plugin.py
    floor = True

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        settings = _settings(ctx)
        if ctx.event.kind is EventKind.PRE_TOOL:
            return self._pre_tool(ctx, settings)
        return _guarded(ctx, "post-tool", lambda: _post_tool(ctx, settings))

    def _pre_tool(self, ctx: ReflexContext, settings: Settings) -> list[Finding]:
        p = proposal(ctx.event)
        if p is None:
            return []
        # The floor: computed outside any guard, so a failure here fails closed.
        repeats = count_unresolved_repeats(ctx.state.actions, p.fingerprint)
        findings = _loop_finding(ctx, p, repeats)
        findings += _guarded(ctx, "fuzzy loops", lambda: _fuzzy(ctx, p, settings))
        findings += _guarded(ctx, "budgets", lambda: _budgets(ctx, settings))
        return findings


def _settings(ctx: ReflexContext) -> Settings:
    """Validated settings; never an exception, so config trouble cannot wedge the floor."""
    try:
        settings = load_settings(ctx.config)
    except Exception as exc:
        ctx.degraded.append(f"runaway config: {type(exc).__name__}: {exc}; using defaults")
        return Settings()
    ctx.degraded.extend(settings.problems)
    return settings


def _guarded(ctx: ReflexContext, part: str, run: Callable[[], list[Finding]]) -> list[Finding]:
    """Run a judgment part; on error, report it as degraded and stay silent (fail open)."""
    try:
        return run()
    except Exception as exc:
        ctx.degraded.append(f"runaway {part}: {type(exc).__name__}: {exc}")
        return []


def _judge(ctx: ReflexContext, battery: str) -> Mapping[str, float] | None:
    try:
        return ctx.probabilities(battery)
    except Exception as exc:
        ctx.degraded.append(f"runaway judge {battery}: {type(exc).__name__}: {exc}")
        return None


def _loop_finding(ctx: ReflexContext, p: Proposal, repeats: RepeatCount) -> list[Finding]:
    cfg = ctx.config
    n = cfg.hard_loop_repeat_count
    fired = repeats.count >= max(1, n - 1)
    # When the floor has fired the judge cannot change the answer: don't wait for it.
    judged = None if fired else _judge(ctx, sig.PRE_TOOL)
    a = assess_loop(
        repeats.count,
        n,
        judged,
        cfg.threshold("loop_probability_block"),
        cfg.threshold("loop_expected_progress_ceiling"),
    )
    if not a.block:
        return []
    return [_block(ctx, p, repeats, a)]


def _block(ctx: ReflexContext, p: Proposal, repeats: RepeatCount, a: LoopAssessment) -> Finding:
    from agentreflex.runaway import messages

    cfg = ctx.config
    if a.floor_fired:
        code, message = (
            "RUNAWAY-LOOP-EXACT",
            messages.exact_repeat_block(repeats.count, repeats.signature),
        )
    else:
        code, message = "RUNAWAY-LOOP-JUDGED", messages.judged_loop_block(a.repeat, a.progress)
    # the judge alone blocks only where held-out precision reached 0.9 (its map's may_block)
    trusted = a.floor_fired or sig.REPEATS_FAILED_APPROACH in ctx.judge_may_block(sig.PRE_TOOL)
    return Finding(
        reflex=NAME,
        code=code,
        verdict=Verdict.BLOCK if trusted else Verdict.WARN,
        message=message,
        title=messages.LOOP_TITLE,
        signals=a.signals(repeats.count),
        threshold=cfg.threshold("loop_probability_block"),
        detail={
            "fingerprint": p.fingerprint,
            "prior_identical_failures": repeats.count,
            "hard_loop_repeat_count": cfg.hard_loop_repeat_count,
            "error_signature": repeats.signature,
            "expected_progress_ceiling": cfg.threshold("loop_expected_progress_ceiling"),
            "judge_used": a.judge_used,
        },
    )


def _warn(ctx: ReflexContext, hit: Hit, every: int, budget: bool = False) -> list[Finding]:
    """A WARN finding for ``hit``, unless the same warning was given recently.

    ``messages`` and ``memory`` are imported here and where a finding is made:
    an ordinary call, which gets none, needs neither.
    """
    from agentreflex.runaway import memory, messages

    if every > 0 and memory.recently_warned(ctx.state, hit.code, every):
        return []
    memory.remember_warning(ctx, hit.code)
    return [
        Finding(
            reflex=NAME,
            code=hit.code,
            verdict=Verdict.WARN,
            message=hit.message,
            title=messages.BUDGET_TITLE if budget else messages.LOOP_TITLE,
            signals=dict(hit.signals),
            threshold=hit.threshold,
            context=hit.message,
        )
    ]


def _fuzzy(ctx: ReflexContext, p: Proposal, settings: Settings) -> list[Finding]:
    loops = settings.loops
    if not loops.fuzzy:
        return []
    actions = ctx.state.actions
    hits = [
        fuzzy.alternation(actions, p, loops.alternation_cycles),
        fuzzy.near_repeat(actions, p, loops.near_repeat_count),
        fuzzy.exploration(actions, p, loops.exploration_limit),
        fuzzy.verification_loop(actions, p, loops.verification_repeat_count),
        fuzzy.echo(ctx.state.messages, loops.echo_count),
    ]
    findings: list[Finding] = []
    for hit in hits:
        if hit is not None:
            findings += _warn(ctx, hit, loops.warn_every)
    return findings


def _post_tool(ctx: ReflexContext, settings: Settings) -> list[Finding]:
    """Post-tool warnings (``posttool`` is imported here: the pre-tool path never needs it)."""
    from agentreflex.runaway import posttool

    _publish_usage(ctx, settings)
    window, current = with_outcome(ctx.state.actions, ctx.event)
    if current is None:
        return []
    findings: list[Finding] = []
    heads_up = posttool.repeat_heads_up(window, current, ctx.config.hard_loop_repeat_count)
    if heads_up is not None:
        findings += _warn(ctx, heads_up, 0)
    if settings.loops.fuzzy:
        same = posttool.same_error(window, current, settings.loops.same_error_commands)
        if same is not None:
            findings += _warn(ctx, same, settings.loops.warn_every)
    judged = posttool.judged(
        _judge(ctx, sig.POST_TOOL),
        current.outcome == FAILURE,
        ctx.config.threshold("post_tool_blocker_warn"),
        ctx.config.threshold("post_tool_retry_unlikely_warn"),
    )
    for hit in judged:
        findings += _warn(ctx, hit, 0)
    return findings


def _budgets(ctx: ReflexContext, settings: Settings) -> list[Finding]:
    s = settings.budgets
    state, event = ctx.state, ctx.event
    items = budgets.session_budgets(state, event, s)
    total = _publish_usage(ctx, settings)
    if total is not None:
        items += budgets.project_budgets(total, s)
    findings: list[Finding] = []
    for b in items:
        mark = None
        if budgets.at_limit(b):  # below it, check() does not look at the mark
            from agentreflex.runaway import memory

            mark = memory.last_mark(state, b.name)
        call = budgets.check(b, mark, event.timestamp, state.counters.prompts, s)
        if call is None:
            continue
        if call.mark:
            from agentreflex.runaway import memory

            memory.remember_mark(ctx, b.name, call.mark, float(b.usage))
        if call.verdict is Verdict.WARN:
            hit = Hit(b.code, call.message, {b.name: float(b.usage)}, float(b.limit))
            every = 0 if call.mark else settings.loops.warn_every
            findings += _warn(ctx, hit, every, budget=True)
        else:
            findings.append(_budget_block(b, call.message))
    return findings


def _publish_usage(ctx: ReflexContext, settings: Settings) -> Usage | None:
    """Write this session's usage to the project ledger; the project total, if enabled.

    The ledger (file locking, JSON) is imported only when a project budget is set.
    """
    s = settings.budgets
    if not s.project_enabled:
        return None
    from agentreflex.runaway import ledger

    state, event = ctx.state, ctx.event
    return ledger.record_session(
        ctx.state_dir,
        state.session_id or event.session_id,
        budgets.session_usage(state, event),
        event.timestamp,
        s.project_window_hours * 3600.0,
    )


def _budget_block(b: budgets.Budget, message: str) -> Finding:
    from agentreflex.runaway import messages

    return Finding(
        reflex=NAME,
        code=b.code,
        verdict=Verdict.BLOCK,
        message=message,
        title=messages.BUDGET_TITLE,
        signals={b.name: float(b.usage)},
        threshold=float(b.limit),
        detail={"budget": b.name, "usage": b.usage, "limit": b.limit},
    )
