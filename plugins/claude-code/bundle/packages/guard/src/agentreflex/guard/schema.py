"""Structural validation and migration of stored reports.

A report read back from disk is untrusted: it may be truncated, hand-edited,
written by a future version or by an older one.  :func:`check_report`
returns a precise reason when a schema 3.0 report is unsafe to use (the
caller then recovers through the fail-safe path instead of guessing), and
:func:`migrate` turns a supported 1.0/2.0 report into 3.0, making legacy
obligations low-confidence and non-blocking and coalescing repeated legacy
findings.  Legacy shapes (documented in the README):

* 1.0: ``{schema_version, session_id, obligations:[{id, summary, status:
  open|resolved}], findings:[{code, obligation_id, at}]}``
* 2.0: 1.0 plus ``provider``, ``mode``, ``updated_at``; obligations carry a
  lifecycle ``state``; findings carry ``first_seen``/``last_seen``.
"""

from __future__ import annotations

from agentreflex.guard import SCHEMA_VERSION
from agentreflex.guard import bounds as B
from agentreflex.guard.report import (
    CLOSED,
    COUNTERS,
    RESOLVED,
    STATES,
    add_obligation,
    new_report,
)
from agentreflex.guard.sanitize import excerpt

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.guard.report import Report

LEGACY = ("1.0", "2.0")
_NUM = (int, float)

_TOP: dict[str, type | tuple[type, ...]] = {
    "mode": str,
    "categories": dict,
    "session": dict,
    "updated_at": _NUM,
    "coverage": dict,
    "reasoning_summary_ingestion": dict,
    "obligations": list,
    "findings": list,
    "actions": list,
    "event_digests": list,
    "text_digests": list,
    "seen_tool_ids": list,
    "diagnostics": list,
    "classification": dict,
    "latency": dict,
}
_LIMITS = {
    "obligations": B.MAX_OBLIGATIONS,
    "findings": B.MAX_FINDINGS,
    "actions": B.MAX_ACTIONS,
    "event_digests": B.MAX_EVENT_DIGESTS,
    "text_digests": B.MAX_EVENT_DIGESTS,
    "seen_tool_ids": B.MAX_SEEN_TOOL_IDS,
    "diagnostics": B.MAX_DIAGNOSTICS,
}
_OBLIGATION: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "name": str,
    "source": str,
    "confidence": str,
    "blocking": bool,
    "state": str,
    "history": list,
    "requirements": list,
    "updated_at": _NUM,
}
_REQUIREMENT: dict[str, type | tuple[type, ...]] = {
    "tool": str,
    "executed": bool,
    "evidenced": bool,
    "tool_use_ids": list,
    "outcomes": list,
    "evidence_digest": str,
}
_FINDING: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "code": str,
    "category": str,
    "obligation_id": str,
    "obligation_name": str,
    "first_seen": _NUM,
    "last_seen": _NUM,
    "count": int,
    "last_state": str,
    "active": bool,
    "source_digests": list,
}
_SESSION: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "provider": str,
    "surface": str,
    "model": str,
    "effort": str,
    "started_at": _NUM,
}


def version_of(obj: Any) -> str:
    """The schema version string of a stored report ("" when absent)."""
    if isinstance(obj, dict):
        value = obj.get("schema_version")
        if isinstance(value, str):
            return value
    return ""


def check_report(obj: Any) -> str | None:
    """None when ``obj`` is a structurally safe 3.0 report, else the reason."""
    if not isinstance(obj, dict):
        return "report is not a JSON object"
    version = version_of(obj)
    if version != SCHEMA_VERSION:
        if _is_future(version):
            return f"report schema {version} is newer than {SCHEMA_VERSION}"
        return f"unsupported report schema {version or '(none)'}"
    problem = _fields(obj, _TOP, "report") or _fields(obj["session"], _SESSION, "session")
    if problem:
        return problem
    for key, limit in _LIMITS.items():
        if len(obj[key]) > limit:
            return f"{key} holds {len(obj[key])} entries; the bound is {limit}"
    for ob in obj["obligations"]:
        problem = _obligation(ob)
        if problem:
            return problem
    for f in obj["findings"]:
        problem = _fields(f, _FINDING, "finding")
        if problem:
            return problem
    for name in COUNTERS:
        if not isinstance(obj["classification"].get(name), int):
            return f"classification.{name} is not an integer"
    return _misc(obj)


def _is_future(version: str) -> bool:
    head = version.split(".")[0]
    return head.isdigit() and int(head) > int(SCHEMA_VERSION.split(".")[0])


def _fields(obj: Any, spec: dict[str, type | tuple[type, ...]], where: str) -> str | None:
    if not isinstance(obj, dict):
        return f"{where} is not an object"
    for key, kind in spec.items():
        value = obj.get(key)
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            return f"{where}.{key} is missing or has the wrong type"
    return None


def _obligation(ob: Any) -> str | None:
    problem = _fields(ob, _OBLIGATION, "obligation")
    if problem:
        return problem
    if ob["state"] not in STATES:
        return f"obligation {ob['id'][:40]!r} has unknown state"
    if len(ob["requirements"]) > B.MAX_REQUIREMENTS or len(ob["history"]) > B.MAX_HISTORY:
        return "obligation requirements or history exceed their bound"
    for req in ob["requirements"]:
        problem = _fields(req, _REQUIREMENT, "requirement")
        if problem:
            return problem
        if not all(isinstance(x, bool) for x in req["outcomes"]) or len(req["outcomes"]) > 8:
            return "requirement outcomes are not a bounded list of booleans"
        if not all(isinstance(x, str) for x in req["tool_use_ids"]) or len(req["tool_use_ids"]) > 8:
            return "requirement tool_use_ids are not a bounded list of strings"
    if ob["source"] == "directive" and not isinstance(ob.get("directive"), dict):
        return "directive obligation lacks its directive"
    if ob["source"] == "heuristic" and not (
        isinstance(ob.get("action"), str) and isinstance(ob.get("subjects"), list)
    ):
        return "heuristic obligation lacks action/subjects"
    return None


def _misc(obj: Report) -> str | None:
    lat = obj["latency"]
    samples = lat.get("samples")
    if not isinstance(samples, list) or len(samples) > B.MAX_LATENCY_SAMPLES:
        return "latency.samples is not a bounded list"
    if not all(isinstance(s, _NUM) and not isinstance(s, bool) for s in samples):
        return "latency.samples holds a non-number"
    ing = obj["reasoning_summary_ingestion"]
    for key in ("cursor", "selected", "processed"):
        if not isinstance(ing.get(key), int) or isinstance(ing.get(key), bool) or ing[key] < 0:
            return f"reasoning_summary_ingestion.{key} is not a non-negative integer"
    if not isinstance(ing.get("source_identity"), str) or not isinstance(ing.get("anchor"), dict):
        return "reasoning_summary_ingestion source identity or anchor is malformed"
    spans = ing.get("processed_intervals", [])
    if not isinstance(spans, list) or len(spans) > 64 or not all(_span(x) for x in spans):
        return "reasoning_summary_ingestion.processed_intervals is malformed"
    cov = obj["coverage"]
    if not isinstance(cov.get("observed"), dict) or not isinstance(cov.get("level"), str):
        return "coverage is malformed"
    if not all(
        isinstance(d, dict) and isinstance(d.get("message"), str) for d in obj["diagnostics"]
    ):
        return "diagnostics are malformed"
    if not all(isinstance(x, str) for x in obj["text_digests"] + obj["seen_tool_ids"]):
        return "digest lists hold non-strings"
    return None


def _span(value: Any) -> bool:
    """A ``[start, end)`` byte interval of non-negative integers."""
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
        and value[0] <= value[1]
    )


def migrate(obj: dict[str, Any], provider: str, now: float) -> Report:
    """Convert a supported 1.0/2.0 report; raises ValueError on a bad legacy shape."""
    version = version_of(obj)
    if version not in LEGACY:
        raise ValueError(f"not a legacy report: {version or '(none)'}")
    sid = obj.get("session_id")
    if not isinstance(sid, str) or not sid:
        raise ValueError(f"schema {version} report has no session_id")
    owner = obj.get("provider", provider)
    report = new_report(sid[:128], owner if isinstance(owner, str) else provider, now)
    if isinstance(obj.get("mode"), str) and obj["mode"] in ("on", "report"):
        report["mode"] = obj["mode"]
    for ob in _list(obj, "obligations")[-B.MAX_OBLIGATIONS :]:
        add_obligation(report, _legacy_obligation(ob, version, now))
    _legacy_findings(report, _list(obj, "findings"), version, now)
    report["diagnostics"].append({"at": now, "message": f"migrated from schema {version}"})
    return report


def _list(obj: dict[str, Any], key: str) -> list[Any]:
    value = obj.get(key, [])
    if not isinstance(value, list):
        raise ValueError(f"legacy {key} is not a list")
    return value


def _legacy_obligation(ob: Any, version: str, now: float) -> dict[str, Any]:
    if not isinstance(ob, dict) or not isinstance(ob.get("id"), str):
        raise ValueError("legacy obligation without an id")
    if version == "1.0":
        state = RESOLVED if ob.get("status") == "resolved" else "PLANNED"
    else:
        state = str(ob["state"]) if ob.get("state") in STATES else "PLANNED"
    name = excerpt(str(ob.get("summary", ob["id"])), 120)
    return {
        "id": ob["id"][:64],
        "name": name,
        "source": "legacy",
        "confidence": "low",
        "blocking": False,
        "state": state,
        "created_at": now,
        "updated_at": now,
        "history": [{"state": state, "at": now, "source": f"migrated-{version}"}],
        "requirements": [],
        "resolution": None,
        "deferral": None,
        "mitigations": 0,
        "closed": state in CLOSED,
    }


def _legacy_findings(report: Report, items: list[Any], version: str, now: float) -> None:
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("code"), str):
            raise ValueError("legacy finding without a code")
        ob_id = str(item.get("obligation_id", ""))[:64]
        first = _time(item.get("first_seen", item.get("at")), now)
        last = _time(item.get("last_seen", item.get("at")), now)
        key = (item["code"][:64], ob_id)
        if key in merged:
            f = merged[key]
            f["count"] += 1
            f["first_seen"] = min(f["first_seen"], first)
            f["last_seen"] = max(f["last_seen"], last)
            continue
        ob = next((o for o in report["obligations"] if o["id"] == ob_id), None)
        merged[key] = {
            "id": f"fd-legacy-{len(merged)}",
            "code": key[0],
            "category": "evidence_follow_through",
            "obligation_id": ob_id,
            "obligation_name": ob["name"] if ob else "",
            "boundary": f"migrated-{version}",
            "message": "finding migrated from an older report",
            "first_seen": first,
            "last_seen": last,
            "count": 1,
            "last_state": ob["state"] if ob else "",
            "active": bool(ob and ob["state"] not in CLOSED),
            "resolved_at": None,
            "source_digests": [],
        }
    report["findings"] = list(merged.values())[-B.MAX_FINDINGS :]


def _time(value: Any, default: float) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return default
    try:
        number = float(value)
    except OverflowError:
        return default
    import math  # lazy: only a legacy migration reads a number from an old report

    return number if math.isfinite(number) else default
