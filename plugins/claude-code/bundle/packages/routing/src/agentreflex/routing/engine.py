"""``route(policy, features) -> Decision``: pure, and it says why.

The decision records every step it took: the ``[lane:NAME]`` tag, each
rule in order with each of its conditions and whether it held, the
default, the ladder and the budgets. ``/status`` and ``agentreflex routing
explain`` print that trace, so "why did this request go there?" always has
an answer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from agentreflex.routing.features import Features
from agentreflex.routing.policy import Policy, When


@dataclass(frozen=True)
class RuleTrace:
    """One step considered: a rule (or the tag, ladder, budget) and what it found."""

    step: str
    matched: bool
    why: str


@dataclass(frozen=True)
class Decision:
    lane: str | None  # None: refused (every candidate lane is over its budget)
    reason: str
    fallbacks: tuple[str, ...] = ()
    trace: tuple[RuleTrace, ...] = field(default=())

    def __iter__(self) -> Iterator[str | None]:
        """``lane, reason = route(...)`` reads naturally."""
        return iter((self.lane, self.reason))


def route(
    policy: Policy, features: Features, spent_usd: Mapping[str, float] | None = None
) -> Decision:
    """The lane for ``features``; ``spent_usd`` is what each lane has cost so far."""
    trace: list[RuleTrace] = []
    lane, reason = _pick(policy, features, trace)
    lane, reason = _ladder(policy, features, lane, reason, trace)
    chain = _chain(policy, lane)
    spent = spent_usd or {}
    usable = [name for name in chain if not _over_budget(policy, name, spent, trace)]
    if not usable:
        return Decision(
            None, f"{reason}; refused: every lane in {chain} is over its budget", (), tuple(trace)
        )
    if usable[0] != lane:
        reason = f"{reason}; {lane!r} is over its budget, so {usable[0]!r}"
    return Decision(usable[0], reason, tuple(usable[1:]), tuple(trace))


def _pick(policy: Policy, features: Features, trace: list[RuleTrace]) -> tuple[str, str]:
    if features.tag is not None:
        if not policy.allow_tags:
            trace.append(
                RuleTrace("tag", False, f"[lane:{features.tag}] found but allow_tags = false")
            )
        elif features.tag in policy.lanes:
            trace.append(RuleTrace("tag", True, f"the prompt carries [lane:{features.tag}]"))
            return features.tag, f"tag [lane:{features.tag}]"
        else:
            trace.append(RuleTrace("tag", False, f"[lane:{features.tag}] names no lane; ignored"))
    for rule in policy.rules:
        held, why = _conditions(rule.when, features)
        trace.append(RuleTrace(f"rule {rule.name}", held, why))
        if held:
            return rule.lane, f"rule {rule.name!r}: {why}"
    trace.append(
        RuleTrace("default", True, f"no rule matched; default lane {policy.default_lane!r}")
    )
    return policy.default_lane, "no rule matched: default lane"


def _conditions(when: When, f: Features) -> tuple[bool, str]:
    """Whether every set condition holds, and each condition's verdict in words."""
    checks: list[tuple[bool, str]] = []
    if when.api is not None:
        checks.append(
            (f.api == when.api, f"api {f.api} {'is' if f.api == when.api else 'is not'} {when.api}")
        )
    if when.model is not None:
        ok = fnmatchcase(f.model.lower(), when.model.lower())
        checks.append(
            (ok, f"model {f.model!r} {'matches' if ok else 'does not match'} {when.model!r}")
        )
    if when.thinking is not None:
        checks.append(
            (
                f.thinking == when.thinking,
                f"thinking {'requested' if f.thinking else 'not requested'}",
            )
        )
    if when.min_input_tokens is not None:
        ok = f.input_tokens >= when.min_input_tokens
        checks.append(
            (ok, f"~{f.input_tokens} input tokens {'>=' if ok else '<'} {when.min_input_tokens}")
        )
    if when.max_input_tokens is not None:
        ok = f.input_tokens <= when.max_input_tokens
        checks.append(
            (ok, f"~{f.input_tokens} input tokens {'<=' if ok else '>'} {when.max_input_tokens}")
        )
    if when.background is not None:
        why = f.background_why or "not background work"
        checks.append((f.background == when.background, why))
    if when.subagent is not None:
        why = f.subagent_why or "not a sub-agent"
        checks.append((f.subagent == when.subagent, why))
    if when.min_tools is not None:
        ok = f.tool_count >= when.min_tools
        checks.append((ok, f"{f.tool_count} tools {'>=' if ok else '<'} {when.min_tools}"))
    if when.max_tools is not None:
        ok = f.tool_count <= when.max_tools
        checks.append((ok, f"{f.tool_count} tools {'<=' if ok else '>'} {when.max_tools}"))
    if not checks:
        return True, "no conditions"
    failed = [why for ok, why in checks if not ok]
    if failed:
        return False, "; ".join(failed)
    return True, "; ".join(why for _, why in checks)


def _ladder(
    policy: Policy, f: Features, lane: str, reason: str, trace: list[RuleTrace]
) -> tuple[str, str]:
    ladder = policy.ladder
    if not ladder.lanes or f.session_failures < ladder.after_failures:
        return lane, reason
    if lane not in ladder.lanes:
        trace.append(
            RuleTrace(
                "ladder", False, f"{f.session_failures} failures but {lane!r} is not on the ladder"
            )
        )
        return lane, reason
    steps = f.session_failures // ladder.after_failures
    index = min(ladder.lanes.index(lane) + steps, len(ladder.lanes) - 1)
    higher = ladder.lanes[index]
    if higher == lane:
        trace.append(RuleTrace("ladder", False, f"{lane!r} is already the top of the ladder"))
        return lane, reason
    why = f"{f.session_failures} failures in this session: {lane!r} -> {higher!r}"
    trace.append(RuleTrace("ladder", True, why))
    return higher, f"{reason}; ladder: {why}"


def _chain(policy: Policy, lane: str) -> list[str]:
    """``lane`` then its fallbacks, breadth first, each lane once."""
    chain: list[str] = []
    pending = [lane]
    while pending:
        name = pending.pop(0)
        if name in chain:
            continue
        chain.append(name)
        pending.extend(policy.lanes[name].fallbacks)
    return chain


def _over_budget(
    policy: Policy, lane: str, spent: Mapping[str, float], trace: list[RuleTrace]
) -> bool:
    budget = policy.lanes[lane].budget_usd
    used = spent.get(lane, 0.0)
    if budget is None or used < budget:
        return False
    trace.append(RuleTrace(f"budget {lane}", True, f"spent ${used:.4f} of ${budget:.4f}: skipped"))
    return True
