"""One event through the guard: ingest visible text, reconcile tools, check boundaries.

The engine is pure apart from the optional transcript read: it mutates the
session report it is given and returns :class:`GuardFinding` objects; the
reflex maps those onto core findings and the ledger writes the report.
Order matters and is fixed: directives and closings in visible text first
(so ``Resolved:`` in the same stop message clears before the claim in it is
judged), then the tool lifecycle, then the boundary checks.

A hook is a new process per event, so the modules an event may not need are
imported where they are first needed: an ordinary event (no directive, no
closing form, no open obligation) loads neither the obligation lifecycle nor
the directive parser, and a text seen before is not classified.
"""

from __future__ import annotations

from agentreflex.core.events import EventKind
from agentreflex.core.util.record import field, record
from agentreflex.guard import (
    DEFERRED_WORD,
    MARKER,
    PAYLOAD_KEY,
    RESOLVED_WORD,
    ROOT_WORD,
    description_texts,
)
from agentreflex.guard import bounds as B
from agentreflex.guard.files import TRANSCRIPTS, provider_of
from agentreflex.guard.report import (
    CATEGORIES,
    EVIDENCED,
    RANK,
    explicit_blocking,
    open_obligations,
    record_action,
    record_finding,
    remember,
)
from agentreflex.guard.sanitize import digest, excerpt
from agentreflex.guard.surface import (
    clean_effort,
    clean_model,
    hook_effort,
    hook_model,
    resolve_surface,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from agentreflex.core.events import Event, ToolCall
    from agentreflex.guard.report import Report

EVIDENCE_OPEN = "RG-EVIDENCE-OPEN-001"
CAUSAL_AHEAD = "RG-CAUSAL-AHEAD-001"
MUTATION_AHEAD = "RG-MUTATION-AHEAD-001"
COMPLETION_AHEAD = "RG-COMPLETION-AHEAD-001"
STATE_RECOVERED = "RG-STATE-RECOVERED-001"
TITLES = {
    EVIDENCE_OPEN: "Evidence check still open",
    CAUSAL_AHEAD: "Root cause claimed ahead of evidence",
    MUTATION_AHEAD: "Permanent change ahead of evidence",
    COMPLETION_AHEAD: "Completion claimed ahead of evidence",
    STATE_RECOVERED: "Guard state recovered",
}
CATEGORY_OF = {
    EVIDENCE_OPEN: "evidence_follow_through",
    CAUSAL_AHEAD: "causal_claims",
    MUTATION_AHEAD: "permanent_mutations",
    COMPLETION_AHEAD: "completion_claims",
}
_BOUNDARY = {
    EventKind.USER_PROMPT: "prompt",
    EventKind.PRE_TOOL: "pre_tool",
    EventKind.POST_TOOL: "post_tool",
    EventKind.POST_TOOL_FAILURE: "post_tool",
    EventKind.STOP: "stop",
    EventKind.SUBAGENT_STOP: "stop",
}


@record(frozen=True)
class Settings:
    """The guard's effective configuration for one event."""

    mode: str = "report"
    categories: Mapping[str, str] = field(default_factory=lambda: {c: "report" for c in CATEGORIES})
    backfill_mode: str = "recent"
    backfill_limit: int = 20


@record(frozen=True)
class GuardFinding:
    """One boundary finding; ``enforce`` is true only for on + explicit + blocking."""

    code: str
    category: str
    boundary: str
    message: str
    obligations: tuple[str, ...]
    enforce: bool
    corrective: bool = False


@record
class _Seen:
    completion: bool = False
    causal: bool = False
    mitigation: bool = False


def process(
    report: Report,
    event: Event,
    settings: Settings,
    env: Mapping[str, str],
    now: float,
    problems: list[str] | None = None,
) -> list[GuardFinding]:
    """Apply one event to ``report`` and return the findings at its boundary."""
    boundary = _BOUNDARY.get(event.kind, "")
    ev_digest = _event_digest(event, now)
    remember(report["event_digests"], ev_digest, B.MAX_EVENT_DIGESTS)
    report["mode"] = settings.mode
    report["categories"] = dict(settings.categories)
    report["updated_at"] = now
    ing = report["reasoning_summary_ingestion"]
    ing["backfill_mode"], ing["backfill_limit"] = settings.backfill_mode, settings.backfill_limit
    # 3.0 reports written before the interval ledger lack these (read with their own mode)
    ing.setdefault("processed_intervals", [])
    ing.setdefault("covered_mode", "")
    ing.setdefault("covered_limit", 0)
    if problems:
        report["recovery_pending"] = True
    seen = _Seen()
    _identity(report, event, env)
    _ingest_visible(report, event, env, now, seen)
    if event.tool is not None:
        _tool_lifecycle(report, event, now, ev_digest)
    out = _boundary_checks(report, event, boundary, settings, now, ev_digest, seen)
    recovered = _recovery_finding(report, settings, boundary)
    if recovered is not None:
        out.insert(0, recovered)
    _coverage(report)
    return out


def _event_digest(event: Event, now: float) -> str:
    tool = event.tool
    parts = [
        event.kind.value,
        event.host_event,
        f"{now:.6f}",
        digest(event.prompt),
        digest(event.last_message),
    ]
    if tool is not None:
        parts += [tool.name, tool.tool_use_id, digest(tool.command or tool.path)]
    return digest("|".join(parts))


def _identity(report: Report, event: Event, env: Mapping[str, str]) -> None:
    session = report["session"]
    model = hook_model(event.raw, env, event.model)
    if model:
        session["model"] = model
    effort = hook_effort(event.raw, env)
    if effort != "unknown":
        session["effort"] = effort
    surface = resolve_surface(event.raw, env, session["provider"], "")
    if surface != "unknown":
        session["surface"] = surface


def _ingest_visible(
    report: Report, event: Event, env: Mapping[str, str], now: float, seen: _Seen
) -> None:
    payload = event.raw.get(PAYLOAD_KEY) if isinstance(event.raw, dict) else None
    if payload is not None:
        from agentreflex.guard import obligations  # lazy: see the module docstring

        obligations.add_directive_value(report, payload, "payload", now)
    if event.kind is EventKind.USER_PROMPT and event.prompt:
        # Prompt text is never persisted: only directives are taken from it.
        _add_markers(report, event.prompt, "prompt", now)
    if event.tool is not None:
        for text in description_texts(event.tool):
            _ingest_text(report, text, "tool_input", now, seen, force_claims=False)
    provider = provider_of(event.host)
    if provider in TRANSCRIPTS:
        _read_transcript(report, event, env, now, seen, provider)
    elif not report["reasoning_summary_ingestion"]["last_error"]:
        report["reasoning_summary_ingestion"]["last_error"] = (
            f"{excerpt(event.host, 32)} has no transcript the guard may read"
        )
    if event.is_stop and event.last_message:
        report["coverage"]["observed"]["final_message"] = True
        _ingest_text(report, event.last_message, "final_message", now, seen, force_claims=True)


def _read_transcript(
    report: Report, event: Event, env: Mapping[str, str], now: float, seen: _Seen, provider: str
) -> None:
    from agentreflex.guard import transcript  # lazy: only a host with a transcript reads one

    ing = report["reasoning_summary_ingestion"]
    observed = report["coverage"]["observed"]

    def take(text: str) -> None:
        observed["reasoning_summary"] = True
        _ingest_text(report, text, "transcript", now, seen, force_claims=False)

    batch = transcript.read_new(
        ing, event.session_id, event.transcript_path, env, transcript.adapter_for(provider), take
    )
    ing["last_error"] = excerpt(batch.error, B.MAX_ERROR)
    if batch.invalidated:
        report["coverage"]["invalidated"] = True
    session = report["session"]
    model = clean_model(batch.model)
    if model and not hook_model(event.raw, env, event.model):
        session["model"] = model
    effort = clean_effort(batch.effort)
    if effort != "unknown" and hook_effort(event.raw, env) == "unknown":
        session["effort"] = effort
    if batch.entrypoint:
        surface = resolve_surface(event.raw, env, session["provider"], batch.entrypoint)
        if surface != "unknown":
            session["surface"] = surface


def _ingest_text(
    report: Report, text: str, origin: str, now: float, seen: _Seen, force_claims: bool
) -> None:
    """Markers, closings, classification and claims of one visible assistant text."""
    new = remember(report["text_digests"], digest(text), B.MAX_EVENT_DIGESTS)
    _add_markers(report, text, origin, now)
    # closing.py's patterns need these words (their proved hints): without them
    # no closing form and no mitigation statement can match, and it is not loaded
    folded = text.casefold()
    if RESOLVED_WORD in folded or DEFERRED_WORD in folded:
        from agentreflex.guard import closing, obligations

        for form in closing.find_closings(text):
            obligations.apply_closing(report, form, now, origin)
    if new:
        _classify(report, text, origin, now)
        mitigation = ROOT_WORD in folded and _is_mitigation(text)
        report["mitigation_declared"] = mitigation
        seen.mitigation = seen.mitigation or mitigation
    if new or force_claims:
        from agentreflex.guard import claims  # lazy: a text seen before claims nothing new

        seen.completion = seen.completion or claims.claims_completion(text)
        seen.causal = seen.causal or claims.claims_cause(text)


def _add_markers(report: Report, text: str, origin: str, now: float) -> None:
    """The text's Evidence-Check markers (the parser finds none without the marker)."""
    if MARKER not in text:
        return
    from agentreflex.guard import obligations
    from agentreflex.guard.directive import find_markers

    obligations.add_marker_results(report, find_markers(text), origin, now)


def _is_mitigation(text: str) -> bool:
    from agentreflex.guard.closing import is_mitigation

    return is_mitigation(text)


def _classify(report: Report, text: str, origin: str, now: float) -> None:
    from agentreflex.guard import classifier  # lazy: only a new text is classified

    counters = report["classification"]
    counters["summaries_observed"] += 1
    results = classifier.classify(text)
    candidates = classifier.obligation_candidates(text) if results else []
    if candidates:
        from agentreflex.guard import obligations

        for c in candidates:
            obligations.add_heuristic(report, c, origin, now)
    elif results:
        counters["uncertain_active"] += 1
    else:
        counters["ignored_summaries"] += 1


def _tool_lifecycle(report: Report, event: Event, now: float, ev_digest: str) -> None:
    call = event.tool
    assert call is not None
    # both only move open obligations forward: with none, they are not loaded
    if event.kind is EventKind.PRE_TOOL:
        report["coverage"]["observed"]["tool_input"] = True
        if open_obligations(report):
            from agentreflex.guard import obligations

            obligations.on_tool_start(report, call, now, ev_digest, event.cwd)
    elif event.result is not None:
        report["coverage"]["observed"]["tool_result"] = True
        if open_obligations(report):
            from agentreflex.guard import obligations

            result = event.result
            text = "\n".join(t for t in (result.output, result.error) if t)
            obligations.on_tool_result(report, call, result.ok, text, now, ev_digest, event.cwd)


def _boundary_checks(
    report: Report,
    event: Event,
    boundary: str,
    settings: Settings,
    now: float,
    ev_digest: str,
    seen: _Seen,
) -> list[GuardFinding]:
    if boundary in ("", "prompt"):
        return []
    out: list[GuardFinding] = []
    emit = _Emitter(report, settings, boundary, now, ev_digest, out)
    if event.tool is not None:
        _mutation_check(report, event, event.tool, emit, seen)
    open_obs = open_obligations(report)
    if seen.causal:
        ahead = [o for o in open_obs if RANK[o["state"]] < RANK[EVIDENCED]]
        emit(CAUSAL_AHEAD, ahead, _causal_message(ahead))
    if seen.completion:
        emit(COMPLETION_AHEAD, open_obs, _completion_message(open_obs))
    if boundary == "stop":
        for ob in open_obs:
            emit(EVIDENCE_OPEN, [ob], _open_message(ob))
    return out


def _mutation_check(
    report: Report, event: Event, call: ToolCall, emit: _Emitter, seen: _Seen
) -> None:
    tool_id = call.tool_use_id
    seen_before = bool(tool_id) and tool_id in report["seen_tool_ids"]
    if event.kind is EventKind.PRE_TOOL and tool_id:
        remember(report["seen_tool_ids"], tool_id[:64], B.MAX_SEEN_TOOL_IDS)
    if event.kind is not EventKind.PRE_TOOL and seen_before:
        return  # already judged when it was proposed
    open_obs = open_obligations(report)
    if not open_obs:
        return  # first: with nothing open, the command need not be parsed (shlex)
    from agentreflex.guard.tools import mutated_policy_paths

    paths = mutated_policy_paths(call)
    if not paths:
        return
    if seen.mitigation or report.get("mitigation_declared"):
        from agentreflex.guard import obligations

        obligations.note_mitigation(report)
        record_action(report, "mitigation_allowed", MUTATION_AHEAD, emit.boundary, emit.now)
        return
    corrective = event.kind is not EventKind.PRE_TOOL
    emit(MUTATION_AHEAD, open_obs, _mutation_message(paths, open_obs, corrective), corrective)


class _Emitter:
    """Records coalesced findings per obligation and builds one GuardFinding per code."""

    def __init__(
        self,
        report: Report,
        settings: Settings,
        boundary: str,
        now: float,
        ev_digest: str,
        out: list[GuardFinding],
    ) -> None:
        self.report, self.settings, self.boundary = report, settings, boundary
        self.now, self.ev_digest, self.out = now, ev_digest, out

    def __call__(
        self, code: str, obs: list[dict[str, Any]], message: str, corrective: bool = False
    ) -> None:
        category = CATEGORY_OF[code]
        mode = self.settings.categories.get(category, "off")
        if mode == "off" or not obs:
            return
        for ob in obs:
            record_finding(
                self.report, code, category, ob, self.boundary, message, self.now, self.ev_digest
            )
        enforce = mode == "on" and any(explicit_blocking(o) for o in obs)
        action = "block" if enforce else "report"
        record_action(self.report, action, code, self.boundary, self.now)
        names = tuple(o["name"] for o in obs)
        self.out.append(
            GuardFinding(code, category, self.boundary, message, names, enforce, corrective)
        )


def _names(obs: list[dict[str, Any]]) -> str:
    shown = [f"'{o['name']}'" for o in obs[:3]]
    more = f" and {len(obs) - 3} more" if len(obs) > 3 else ""
    return ", ".join(shown) + more


def _close_hint() -> str:
    return (
        "Close it with `Resolved: <check>; evidence: <...>; conclusion: <...>.` or "
        "`Deferred: <check>; reason: <...>; decision impact: <...>; reopen when: <...>.`"
    )


def _open_message(ob: dict[str, Any]) -> str:
    if ob["state"] == EVIDENCED:
        return (
            f"Reasoning Guard: evidence for '{ob['name']}' is recorded but not yet reconciled "
            f"with a conclusion. {_close_hint()}"
        )
    tools = ", ".join(dict.fromkeys(r["tool"] for r in ob["requirements"])) or "the check"
    detail = f" Last result: {ob['last_outcome']}." if ob.get("last_outcome") else ""
    return (
        f"Reasoning Guard: the check '{ob['name']}' is still open ({ob['state']}); run {tools} "
        f"and let its result meet the acceptance predicates.{detail} {_close_hint()}"
    )


def _completion_message(obs: list[dict[str, Any]]) -> str:
    return (
        f"Reasoning Guard: completion is claimed while {_names(obs)} is still open. "
        "Finish the check, then resolve or defer it before claiming completion."
    )


def _causal_message(obs: list[dict[str, Any]]) -> str:
    return (
        f"Reasoning Guard: a root-cause claim was made before the discriminating evidence for "
        f"{_names(obs)} exists. Run the check before attributing the cause or pruning a branch."
    )


def _mutation_message(paths: list[str], obs: list[dict[str, Any]], corrective: bool) -> str:
    target = excerpt(", ".join(paths[:3]), 120)
    if corrective:
        return (
            f"Reasoning Guard: {target} was permanently changed while {_names(obs)} is unresolved; "
            "the change already ran. Revert it, or state that it is a temporary mitigation and "
            "that the root cause remains unresolved, then complete the check."
        )
    return (
        f"Reasoning Guard: changing {target} is a permanent configuration/policy change while "
        f"{_names(obs)} is unresolved. Resolve or defer the check first, or label the change a "
        "temporary mitigation that leaves the root cause unresolved."
    )


def _coverage(report: Report) -> None:
    cov = report["coverage"]
    ing = report["reasoning_summary_ingestion"]
    observed = cov["observed"]
    cov["missing"] = [k for k in ("reasoning_summary",) if not observed.get(k)]
    if cov.get("invalidated") or not observed.get("reasoning_summary"):
        cov["level"] = "reduced"
    elif ing["backfill_mode"] == "full":
        cov["level"] = "historically_complete" if ing["complete"] else "reduced"
    elif ing["backfill_mode"] == "live":
        cov["level"] = "live_full"
    else:
        cov["level"] = "recent_backfill"


def _recovery_finding(report: Report, settings: Settings, boundary: str) -> GuardFinding | None:
    """After recovering bad state, fail closed once at a protected boundary (``on`` mode)."""
    if not report.get("recovery_pending") or boundary not in ("pre_tool", "stop"):
        return None
    report["recovery_pending"] = False
    problem = next(
        (
            d["message"]
            for d in reversed(report["diagnostics"])
            if d["message"].startswith("recovered")
        ),
        "recovered",
    )
    message = (
        "Reasoning Guard: the local guard report was malformed and was replaced with a fresh "
        f"one ({excerpt(problem, 120)}). Review .agentreflex/local/ before continuing."
    )
    return GuardFinding(STATE_RECOVERED, "", boundary, message, (), settings.mode == "on")
