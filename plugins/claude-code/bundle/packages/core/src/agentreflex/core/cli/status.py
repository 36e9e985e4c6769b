"""``agentreflex status``: sessions, interventions, findings and hook latency.

Reads the snapshots of the project's state dir (never the raw logs) and asks
installed packages for their own sections through the ``agentreflex.status``
entry points (the Reasoning Guard reports its ledgers that way).
"""

from __future__ import annotations

import json
import time
from typing import Any

from agentreflex.core import registry
from agentreflex.core.config.settings import load_config
from agentreflex.core.state.model import SessionState
from agentreflex.core.state.store import list_sessions


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def collect(cwd: str) -> dict[str, Any]:
    config = load_config(cwd)
    sessions: list[dict[str, Any]] = []
    latencies: list[float] = []
    for path in list_sessions(config.state_dir)[:20]:
        try:
            with open(path, encoding="utf-8") as fh:
                state = SessionState.from_json(json.load(fh)["state"])
        except (OSError, ValueError, KeyError, TypeError):
            sessions.append({"file": path, "error": "unreadable snapshot"})
            continue
        lat = [float(x) for x in state.notes.get("latency_ms", [])]
        latencies.extend(lat)
        sessions.append(
            {
                "session": state.session_id,
                "host": state.host,
                "last_event": time.strftime(
                    "%Y-%m-%d %H:%M", time.localtime(state.counters.last_event_at or 0)
                ),
                "events": state.counters.events,
                "tool_calls": state.counters.tool_calls,
                "blocked": state.counters.blocked,
                "interventions": [
                    {"reflex": i.reflex, "code": i.code, "label": i.label, "event": i.event}
                    for i in state.interventions[-5:]
                ],
                "tamper": [str(t) for t in state.notes.get("tamper", [])[-5:]],
                "state_lost": [str(t) for t in state.notes.get("state_lost", [])],
                "p50_ms": percentile(lat, 0.5),
                "p95_ms": percentile(lat, 0.95),
            }
        )
    extra: dict[str, Any] = {}
    for name, spec in registry.entries("agentreflex.status"):
        try:
            extra[name] = registry.load_object(spec)(config.state_dir)
        except Exception as exc:
            extra[name] = {"error": f"{type(exc).__name__}: {exc}"}
    from agentreflex.core.contain.check import host_containment
    from agentreflex.core.contain.pidns import fallback

    return {
        "pid_namespace": fallback(config.project_dir) if config.enforced else "",
        "containment": {
            host: detail
            for host, _ok, detail in host_containment(config.project_dir, config.enforced)
        },
        "project": config.project_dir,
        "state_dir": config.state_dir,
        "mode": config.mode.value,
        "profile": config.profile,
        "sessions": sessions,
        "latency_ms": {
            "p50": percentile(latencies, 0.5),
            "p95": percentile(latencies, 0.95),
            "samples": len(latencies),
        },
        "packages": extra,
        "trust": {
            "pending": config.pending_config,
            "sha256": config.pending_sha256,
            "withheld": list(config.untrusted),
        },
    }


def _ms(value: float | None) -> str:
    return "unmeasured" if value is None else f"{value:.1f} ms"


def render(report: dict[str, Any]) -> str:
    lines = [
        f"agentreflex status — {report['project']}",
        f"mode {report['mode']}, profile {report['profile']}, state in {report['state_dir']}",
        f"hook latency p50 {_ms(report['latency_ms']['p50'])}, "
        f"p95 {_ms(report['latency_ms']['p95'])} "
        f"({report['latency_ms']['samples']} samples)",
    ]
    for host, detail in (report.get("containment") or {}).items():
        lines.append(f"containment {host:<12} {detail}")
    if report.get("pid_namespace"):
        lines.append(f"containment pid namespace: {report['pid_namespace']}")
    trust = report.get("trust") or {}
    if trust.get("withheld"):
        lines.append(
            f"{trust['pending'] or 'project config'} waits for your approval "
            "(`agentreflex trust`); withheld until then:"
        )
        prefix = f"{trust['pending']}: "
        lines.extend(f"  - {w.removeprefix(prefix)}" for w in trust["withheld"])
    lines.append("")
    if not report["sessions"]:
        lines.append("no sessions recorded yet")
    for s in report["sessions"]:
        if "error" in s:
            lines.append(f"  {s['file']}: {s['error']}")
            continue
        lines.append(
            f"  {s['host'] or '?':<12} {s['session'][:36]:<36} {s['last_event']}  "
            f"{s['events']} events, {s['tool_calls']} tool calls, {s['blocked']} blocked,"
            f" p95 {_ms(s['p95_ms'])}"
        )
        for i in s["interventions"]:
            lines.append(f"      {i['label']:<13} {i['code']:<28} ({i['reflex']}, {i['event']})")
        for t in s.get("tamper", []):
            lines.append(f"      TAMPERING     {t}")
        for t in s.get("state_lost", []):
            lines.append(
                f"      HISTORY LOST  {t}; stops are refused until "
                f"`agentreflex state acknowledge --session {s['session']}`"
            )
    for name, section in report["packages"].items():
        lines.append("")
        if isinstance(section, dict) and "lines" in section:
            lines.extend(str(x) for x in section["lines"])
        else:
            lines.append(f"{name}: {json.dumps(section, ensure_ascii=False)[:500]}")
    return "\n".join(lines)
