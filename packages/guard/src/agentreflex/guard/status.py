"""``agentreflex status`` for the guard: one readable row per retained session.

Readable labels come first (**Claude CLI**, clearance *Conditional*), the
system session id second.  Latency without samples is shown as unmeasured.
Status is read-only: a malformed ledger is reported, never moved or rewritten.
"""

from __future__ import annotations

import time

from agentreflex.guard.ledger import read_ledgers
from agentreflex.guard.surface import LABELS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROVIDERS = {
    "claude": "Claude Code",
    "codex": "Codex",
    "opencode": "OpenCode",
    "gemini": "Gemini CLI",
    "copilot": "Copilot CLI",
}
COVERAGE = {
    "reduced": "reduced coverage",
    "live_full": "live (full from start point)",
    "recent_backfill": "recent backfill",
    "historically_complete": "historically complete",
}


def _when(ts: Any) -> str:
    if not isinstance(ts, int | float) or ts <= 0:
        return "unknown time"
    try:
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts))
    except (OverflowError, OSError, ValueError):
        return "unknown time"


def _latency(report: dict[str, Any]) -> str:
    p95 = report["latency"].get("p95_ms")
    return "latency unmeasured" if p95 is None else f"p95 {p95:.1f} ms"


def session_row(report: dict[str, Any]) -> dict[str, Any]:
    """The status fields of one session report."""
    session = report["session"]
    clearance = report.get("clearance") or {}
    return {
        "provider": PROVIDERS.get(session["provider"], session["provider"]),
        "surface": LABELS.get(session["surface"], "Unknown surface"),
        "model": session["model"],
        "effort": session["effort"],
        "time": _when(report["updated_at"]),
        "coverage": COVERAGE.get(report["coverage"]["level"], report["coverage"]["level"]),
        "clearance": clearance.get("label", "Unknown"),
        "processed_summaries": report["reasoning_summary_ingestion"]["processed"],
        "p50_ms": report["latency"].get("p50_ms"),
        "p95_ms": report["latency"].get("p95_ms"),
        "latency": _latency(report),
        "open_obligations": [o["name"] for o in clearance.get("obligations", [])],
        "limitations": list(clearance.get("limitations", [])),
        "session_id": session["id"],
        "mode": report["mode"],
        "counts": {k: v for k, v in report["classification"].items() if isinstance(v, int)},
    }


_COLUMNS = (
    ("provider", "host"),
    ("surface", "surface"),
    ("model", "model"),
    ("effort", "effort"),
    ("time", "time"),
    ("coverage", "coverage"),
    ("clearance", "clearance"),
    ("processed_summaries", "summaries"),
    ("p95", "p95"),
    ("session_id", "session"),
)


def _cell(row: dict[str, Any], key: str) -> str:
    if key == "p95":
        return "unmeasured" if row["p95_ms"] is None else f"{row['p95_ms']:.1f} ms"
    return str(row[key])


def _table(rows: list[dict[str, Any]]) -> list[str]:
    """The per-session table: readable labels first, the system session id last."""
    cells = [[title for _key, title in _COLUMNS]]
    cells += [[_cell(r, key) for key, _title in _COLUMNS] for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(_COLUMNS))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in cells
    ]


def _aggregate(row: dict[str, Any]) -> str:
    counts = row["counts"]
    p50 = row["p50_ms"]
    latency = "latency unmeasured" if p50 is None else f"p50 {p50:.1f} / {row['latency']}"
    return (
        f"{counts.get('summaries_observed', 0)} summaries observed, "
        f"{counts.get('high_confidence_candidates', 0)} candidates, "
        f"{counts.get('uncertain_active', 0)} uncertain; {latency}"
    )


def status(state_dir: str) -> dict[str, Any]:
    """Entry point ``agentreflex.status``: {"lines": [...], "sessions": [...], "errors": [...]}."""
    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    for host, led in read_ledgers(state_dir).items():
        errors += [f"{host}: {p}" for p in led.problems]
        for report in reversed(led.sessions):
            rows.append(
                session_row(report) | {"active": report["session"]["id"] == led.active_session}
            )
    lines = ["Reasoning Guard"]
    if not rows and not errors:
        lines.append("  no guard report yet (mode off, or no event seen)")
    if rows:
        lines += _table(rows)
    for r in rows:
        if r["active"]:
            lines.append(f"  active session ({r['provider']}): {_aggregate(r)}")
        for name in r["open_obligations"][:3]:
            lines.append(f"  open in {r['session_id'][:12]}: {name}")
    for e in errors:
        lines.append(f"  unreadable ledger {e}")
    return {"lines": lines, "sessions": rows, "errors": errors}


def statusline(state_dir: str, session_id: str) -> list[str]:
    """The guard's parts of the host's status line: open obligations and clearance."""
    for row in status(state_dir)["sessions"]:
        if isinstance(row, dict) and row.get("session_id") == session_id:
            opened = len(row.get("open_obligations") or [])
            parts = [f"{opened} open obligation{'' if opened == 1 else 's'}"] if opened else []
            return [*parts, str(row.get("clearance", "Unknown"))]
    return []


def report_section(
    state_dir: str, sessions: tuple[str, ...] | None, findings: list[dict[str, Any]]
) -> dict[str, Any]:
    """The guard's section of ``agentreflex report``: clearance per session, and its findings.

    ``sessions``: the sessions the report is about (None: all); ``findings``:
    every finding core recorded (``session``, ``ts``, ``reflex``, ``code``,
    ``verdict``, ``message``), of which the guard's own are shown.
    """
    rows = [
        r for r in status(state_dir)["sessions"] if sessions is None or r["session_id"] in sessions
    ]
    ledgers = [
        [
            str(r.get("session_id", ""))[:40],
            str(r.get("provider", "")),
            str(r.get("clearance", "")),
            ", ".join(str(o) for o in r.get("open_obligations", [])) or "none",
            ", ".join(str(x) for x in r.get("limitations", [])),
        ]
        for r in rows
    ]
    own = [
        [
            _seconds(f.get("ts")),
            str(f.get("session", ""))[:40],
            str(f.get("code", "")),
            str(f.get("verdict", "")),
            str(f.get("message", "")),
        ]
        for f in findings
        if f.get("reflex") == "guard" and f.get("verdict") != "ALLOW"
    ]
    return {
        "title": "Reasoning Guard obligations and clearance",
        "tables": [
            {
                "caption": "Reasoning Guard obligations and clearance",
                "columns": ["Session", "Host", "Clearance", "Open obligations", "Limitations"],
                "rows": ledgers,
            },
            {
                "caption": "Reasoning Guard findings",
                "columns": ["Time (UTC)", "Session", "Code", "Verdict", "Message"],
                "rows": own,
            },
        ],
        "empty": "No Reasoning Guard report (mode off, or no event seen).",
    }


def _seconds(ts: Any) -> str:
    """A recorded time as the report's other tables show it (UTC, to the second)."""
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(float(ts)))
    except (TypeError, ValueError, OverflowError, OSError):
        return "?"
