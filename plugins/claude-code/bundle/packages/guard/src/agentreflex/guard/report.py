"""The schema 3.0 session report: construction, bounds, coalescing, clearance.

A report is a plain JSON dict (it is written to disk on every event and read
back by a new process on the next one), manipulated only through these
functions so the bounds hold everywhere: 128 obligations, findings and
actions, 256 event digests, 128 latency samples.
"""

from __future__ import annotations

from agentreflex.core.util import fastjson
from agentreflex.guard import SCHEMA_VERSION
from agentreflex.guard import bounds as B
from agentreflex.guard.plugin import CATEGORIES as CATEGORIES
from agentreflex.guard.sanitize import digest, excerpt

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Report = dict[str, Any]

IDENTIFIED, PLANNED, EXECUTED, EVIDENCED, RESOLVED, DEFERRED = (
    "IDENTIFIED",
    "PLANNED",
    "EXECUTED",
    "EVIDENCED",
    "RESOLVED",
    "DEFERRED",
)
STATES = (IDENTIFIED, PLANNED, EXECUTED, EVIDENCED, RESOLVED, DEFERRED)
CLOSED = (RESOLVED, DEFERRED)
RANK = {s: i for i, s in enumerate(STATES)}
SURFACES = ("codex_desktop", "codex_cli", "claude_desktop", "claude_cli", "opencode", "unknown")
EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max", "ultra", "none", "unknown")
COUNTERS = (
    "summaries_observed",
    "high_confidence_candidates",
    "obligations_created",
    "obligations_reconciled",
    "ignored_summaries",
    "uncertain_active",
)


def new_report(session_id: str, provider: str, now: float) -> Report:
    """An empty, valid report (``on`` and ``report`` write one even with no obligation)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "mode": "report",
        "categories": {c: "report" for c in CATEGORIES},
        "session": {
            "id": session_id,
            "provider": provider,
            "surface": "unknown",
            "model": "unknown",
            "effort": "unknown",
            "started_at": now,
        },
        "updated_at": now,
        "coverage": {
            "level": "reduced",
            "observed": {
                "reasoning_summary": False,
                "tool_input": False,
                "tool_result": False,
                "final_message": False,
            },
            "missing": ["reasoning_summary"],
            "invalidated": False,
        },
        "reasoning_summary_ingestion": {
            "backfill_mode": "recent",
            "backfill_limit": 20,
            "source_identity": "",
            "cursor": 0,
            "processed_interval": [0, 0],
            "processed_intervals": [],
            "covered_mode": "",
            "covered_limit": 0,
            "initialized": False,
            "complete": False,
            "anchor": {"head": "", "cursor": ""},
            "selected": 0,
            "processed": 0,
            "last_error": "",
        },
        "obligations": [],
        "findings": [],
        "actions": [],
        "event_digests": [],
        "text_digests": [],
        "seen_tool_ids": [],
        "diagnostics": [],
        "classification": {c: 0 for c in COUNTERS},
        "latency": {"samples": [], "p50_ms": None, "p95_ms": None},
        "summary": {},
        "clearance": {},
    }


def is_open(ob: dict[str, Any]) -> bool:
    return ob.get("state") not in CLOSED


def explicit_blocking(ob: dict[str, Any]) -> bool:
    """Only a high-confidence directive with ``blocking: true`` may block."""
    return ob.get("source") == "directive" and bool(ob.get("blocking"))


def find_obligation(report: Report, ob_id: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = next(
        (ob for ob in report["obligations"] if ob["id"] == ob_id), None
    )
    return found


def open_obligations(report: Report) -> list[dict[str, Any]]:
    return [ob for ob in report["obligations"] if is_open(ob)]


def advance(ob: dict[str, Any], state: str, now: float, source: str) -> bool:
    """Move an obligation to ``state`` and append history; False if not a new state."""
    if ob["state"] == state:
        return False
    ob["state"] = state
    ob["updated_at"] = now
    ob["history"].append({"state": state, "at": now, "source": source})
    del ob["history"][: -B.MAX_HISTORY]
    return True


def add_obligation(report: Report, ob: dict[str, Any]) -> None:
    """Append, evicting the oldest closed (then oldest low-confidence) past the bound."""
    report["obligations"].append(ob)
    obs = report["obligations"]
    while len(obs) > B.MAX_OBLIGATIONS:
        victim = next((o for o in obs if not is_open(o)), None)
        victim = victim or next((o for o in obs if not explicit_blocking(o)), None) or obs[0]
        if is_open(victim):
            when = float(victim.get("updated_at", 0.0))
            diagnose(report, f"obligation bound reached; dropped open {victim['id']}", when)
        obs.remove(victim)


def record_finding(
    report: Report,
    code: str,
    category: str,
    ob: dict[str, Any] | None,
    boundary: str,
    message: str,
    now: float,
    event_digest: str,
) -> dict[str, Any]:
    """Coalesce one occurrence into the finding for (code, obligation).

    The count advances only when the obligation reached a new lifecycle state
    since the last count; equivalent repeats only refresh ``last_seen`` and
    the bounded source-event digests.
    """
    ob_id = ob["id"] if ob else ""
    state = ob["state"] if ob else ""
    f: dict[str, Any]
    for f in report["findings"]:
        if f["code"] == code and f["obligation_id"] == ob_id:
            if f["last_state"] != state or not f["active"]:
                f["count"] += 1
                f["last_state"] = state
            f.update(
                last_seen=now, boundary=boundary, message=message, active=True, resolved_at=None
            )
            _push(f["source_digests"], event_digest, B.MAX_FINDING_DIGESTS)
            return f
    finding = {
        "id": "fd-" + digest(f"{code}|{ob_id}")[7:19],
        "code": code,
        "category": category,
        "obligation_id": ob_id,
        "obligation_name": ob["name"] if ob else "",
        "boundary": boundary,
        "message": message,
        "first_seen": now,
        "last_seen": now,
        "count": 1,
        "last_state": state,
        "active": True,
        "resolved_at": None,
        "source_digests": [event_digest],
    }
    report["findings"].append(finding)
    findings = report["findings"]
    while len(findings) > B.MAX_FINDINGS:
        findings.remove(next((x for x in findings if not x["active"]), findings[0]))
    return finding


def deactivate_findings(report: Report, ob_id: str, now: float) -> None:
    """Resolution makes an obligation's findings inactive; history is kept."""
    for f in report["findings"]:
        if f["obligation_id"] == ob_id and f["active"]:
            f["active"] = False
            f["resolved_at"] = now


def record_action(report: Report, action: str, code: str, event: str, now: float) -> None:
    _push(
        report["actions"],
        {"at": now, "action": action, "code": code, "event": event},
        B.MAX_ACTIONS,
    )


def diagnose(report: Report, text: str, now: float) -> None:
    entry = {"at": now, "message": excerpt(text, B.MAX_ERROR)}
    _push(report["diagnostics"], entry, B.MAX_DIAGNOSTICS)


def remember(items: list[Any], value: Any, limit: int) -> bool:
    """Add ``value`` to a bounded recency list; False when already present."""
    if value in items:
        return False
    _push(items, value, limit)
    return True


def _push(items: list[Any], value: Any, limit: int) -> None:
    items.append(value)
    del items[:-limit]


def add_latency(report: Report, ms: float) -> None:
    lat = report["latency"]
    _push(lat["samples"], round(ms, 3), B.MAX_LATENCY_SAMPLES)
    lat["p50_ms"] = percentile(lat["samples"], 50)
    lat["p95_ms"] = percentile(lat["samples"], 95)


def percentile(samples: list[float], pct: float) -> float | None:
    """Nearest-rank percentile (None when unmeasured)."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, -(-len(ordered) * pct // 100))
    return float(ordered[int(rank) - 1])


def finalize(report: Report) -> None:
    """Recompute the derived summary and clearance receipt before a write."""
    obs = report["obligations"]
    open_obs = [o for o in obs if is_open(o)]
    report["summary"] = {
        "obligations": len(obs),
        "open": len(open_obs),
        "open_blocking": sum(1 for o in open_obs if explicit_blocking(o)),
        "resolved": sum(1 for o in obs if o["state"] == RESOLVED),
        "deferred": sum(1 for o in obs if o["state"] == DEFERRED),
        "findings_active": sum(1 for f in report["findings"] if f["active"]),
        "findings_total": len(report["findings"]),
    }
    report["clearance"] = clearance(report)


def _unevidenced(report: Report) -> list[str]:
    """ "Resolution without evidence" diagnostics for checks that are still open."""
    open_ids = {o["id"] for o in report["obligations"] if is_open(o)}
    out: list[str] = []
    for d in report["diagnostics"]:
        text = str(d.get("message", ""))
        ob_id = text.split(" for ", 1)[-1].split(" ", 1)[0]
        fresh = text not in out
        if text.startswith("resolution without evidence") and ob_id in open_ids and fresh:
            out.append(text)
    return out[-4:]


def clearance(report: Report) -> dict[str, Any]:
    """Derive the clear / conditional / blocked receipt from the report itself."""
    obs = report["obligations"]
    blocking_ids = {o["id"] for o in obs if explicit_blocking(o)}
    blockers = [o for o in obs if explicit_blocking(o) and (is_open(o) or o["state"] == DEFERRED)]
    active_diag = [
        f for f in report["findings"] if f["active"] and f["obligation_id"] in blocking_ids
    ]
    limitations: list[str] = []
    coverage = report["coverage"]["level"]
    if coverage == "reduced":
        limitations.append("reduced coverage: no visible reasoning summary observed")
    if report["coverage"].get("invalidated"):
        limitations.append("coverage invalidated: the transcript source changed or shrank")
    inferred = [o for o in obs if is_open(o) and not explicit_blocking(o)]
    if inferred:
        limitations.append(f"{len(inferred)} low-confidence or non-blocking check(s) still open")
    if report["classification"]["uncertain_active"]:
        limitations.append("active-looking summaries left unclassified (uncertain)")
    if any(o.get("resolution") and not o["resolution"].get("evidence_recorded") for o in obs):
        limitations.append("resolved without recorded tool evidence")  # older reports
    limitations.extend(_unevidenced(report))
    if any(d["message"].startswith("recovered") for d in report["diagnostics"]):
        limitations.append("state was recovered from a malformed report")
    if blockers or active_diag:
        state = "blocked"
    elif limitations:
        state = "conditional"
    else:
        state = "clear"
    named = blockers or [o for o in obs if is_open(o)]
    body = {k: v for k, v in report.items() if k not in ("clearance", "latency", "updated_at")}
    return {
        "state": state,
        "label": state.capitalize(),
        "obligations": [
            {"name": o["name"], "state": o["state"], "blocking": explicit_blocking(o)}
            for o in named
        ][:16],
        "limitations": limitations,
        "mode": report["mode"],
        "coverage": coverage,
        "report_digest": digest(fastjson.dumps(body, sort_keys=True, default=str)),
        "ids": [o["id"] for o in named][:16],
    }
