"""The report as one static HTML document: inline CSS, inline SVG, no script, no fetch.

A Content-Security-Policy of ``default-src 'none'`` makes the promise
checkable: the page could not load anything from anywhere even if a string
tried.  Every text goes through :func:`_t` (redact, then HTML-escape), so no
path from the store to the page skips the one redaction.
"""

from __future__ import annotations

import html
import time

from agentreflex.core.cli.status import percentile
from agentreflex.core.redaction.redact import redact
from agentreflex.core.report import charts
from agentreflex.core.report.collect import TIMELINE_LIMIT, PackageSection, ReportData, tool_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.state.history import SessionHistory

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;width:100%;margin:.5em 0}
th,td{border:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}.num{text-align:right}.muted{color:#777}
.BLOCK{color:#b03a2e;font-weight:600}.ASK_USER{color:#a04000;font-weight:600}
.WARN{color:#9a7d0a}.WOULD{color:#6c3483;font-weight:600}
ol.timeline{list-style:none;padding-left:0;border-left:3px solid #3b6ea8}
ol.timeline li{margin:.15em 0 .15em .6em}
ol.timeline time{color:#555;font-variant-numeric:tabular-nums;margin-right:.5em}
.kind{display:inline-block;min-width:10em;color:#3b6ea8}
.problems{background:#fdf2e9;border:1px solid #e59866;padding:.5em 1em}
svg{max-width:100%;height:auto}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:1em;align-items:start}
figure{margin:0;border:1px solid #ddd;padding:.5em}figcaption{color:#555;font-size:.9em}
"""


def _t(value: Any) -> str:
    """Text for the page: redacted, then escaped."""
    return html.escape(redact(str(value)), quote=True)


def _when(ts: Any) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(float(ts)))
    except (TypeError, ValueError, OverflowError, OSError):
        return "?"


def _table(head: list[str], rows: list[list[str]], label: str) -> str:
    """A table of already-escaped cells."""
    th = "".join(f"<th>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table aria-label="{label}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def render(data: ReportData, title: str = "agentreflex report") -> str:
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>{_t(title)}</title><style>{STYLE}</style></head><body>",
        f"<header><h1>{_t(title)}</h1>{_summary(data)}</header><main>",
        _problems(data),
        _overview(data),
        _interventions(data),
        _would_block(data),
        _snapshots(data),
        *(_package(section) for section in data.packages),
        _latency(data),
        _calibration(data),
        _timelines(data),
        "</main></body></html>",
    ]
    return "\n".join(p for p in parts if p)


def _summary(data: ReportData) -> str:
    events = sum(len(h.records) for h in data.sessions)
    stopped = sum(i.enforced for i in data.interventions)
    return (
        f"<p>Generated {_when(time.time())} UTC. {len(data.sessions)} session(s), "
        f"{events} recorded event(s), {stopped} enforced block(s) or ask(s), "
        f"{len(data.would_block)} that shadow mode let through.</p>"
    )


def _overview(data: ReportData) -> str:
    """The charts side by side, first: what a reader looks at before the tables."""
    figures = []
    if data.interventions:
        blocks = charts.interventions_chart(data.interventions)
        figures.append(_figure(blocks, "Enforced, and what shadow mode only reported."))
    if data.latency_ms:
        p95 = percentile(data.latency_ms, 0.95) or 0.0
        caption = f"{len(data.latency_ms)} hook call(s), p95 {p95:.1f} ms."
        figures.append(_figure(charts.latency_histogram(data.latency_ms), caption))
    if data.calibration is not None:
        cal = data.calibration
        caption = f"{cal.samples} labelled answer(s): ECE {cal.ece:.3f}, Brier {cal.brier:.3f}."
        figures.append(_figure(charts.reliability_diagram(cal), caption))
    if not figures:
        return ""
    return _section("overview", "Overview", f'<div class="grid">{"".join(figures)}</div>')


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{_t(caption)}</figcaption></figure>"


def _problems(data: ReportData) -> str:
    if not data.problems:
        return ""
    items = "".join(f"<li>{_t(p)}</li>" for p in data.problems)
    return f'<section class="problems" aria-label="Problems"><ul>{items}</ul></section>'


def _section(ident: str, heading: str, body: str) -> str:
    return (
        f'<section id="{ident}" aria-labelledby="{ident}-h">'
        f'<h2 id="{ident}-h">{heading}</h2>{body}</section>'
    )


def _interventions(data: ReportData) -> str:
    if not data.interventions:
        return _section("blocks", "Blocks and asks", "<p>No reflex blocked or asked.</p>")
    rows = [
        [
            _t(i.reflex),
            _t(i.code),
            f'<span class="{_t(i.verdict)}">{_t(i.verdict)}</span>',
            f'<span class="num">{i.enforced}</span>',
            f'<span class="num">{i.shadow}</span>',
            "<br>".join(_t(r) for r in i.reasons),
        ]
        for i in data.interventions
    ]
    table = _table(
        ["Reflex", "Code", "Verdict", "Enforced", "Shadow / report-only", "Reasons"],
        rows,
        "Blocks and asks by reflex and code",
    )
    return _section("blocks", "Blocks and asks", table)


def _would_block(data: ReportData) -> str:
    if not data.would_block:
        body = "<p>Nothing: no event was let through that a reflex proposed to stop.</p>"
    else:
        rows = [
            [
                _when(w["ts"]),
                _t(w["session"])[:40],
                _t(w["event"]),
                f'<span class="WOULD">{_t(w["label"])}</span>',
                _t(", ".join(w["codes"])),
                _t(w["what"]),
                _t(w["reason"]),
            ]
            for w in data.would_block
        ]
        body = _table(
            ["Time (UTC)", "Session", "Event", "Label", "Codes", "What", "Reason"],
            rows,
            "What shadow mode would have blocked",
        )
    return _section("shadow", "What shadow mode would have blocked", body)


def _snapshots(data: ReportData) -> str:
    note = (
        '<p class="muted">Snapshots the hook took before a command could discard work '
        "(restore with <code>agentreflex undo N</code>), read from the session logs.</p>"
    )
    if not data.snapshots:
        return _section(
            "snapshots", "Snapshots taken and undone", "<p>No snapshot recorded.</p>" + note
        )
    rows = [
        [_when(s["ts"]), _t(s["session"])[:40], _t(s["kind"]), _t(s["detail"]), _undone(s)]
        for s in data.snapshots
    ]
    body = _table(["Time (UTC)", "Session", "Kind", "Detail", "Undone"], rows, "Snapshots")
    return _section("snapshots", "Snapshots taken and undone", body + note)


def _undone(snap: dict[str, Any]) -> str:
    """``undone <time>: N file(s)`` per restore of the snapshot, or nothing."""
    from agentreflex.core.worktree.restored import describe

    return "<br>".join(_t(describe(r, _when)) for r in snap.get("undone") or [])


def _package(section: PackageSection) -> str:
    """A package's declared section: its tables, every cell escaped here."""
    body = "".join(
        _table([_t(c) for c in t.columns], [[_t(c) for c in r] for r in t.rows], _t(t.caption))
        for t in section.tables
        if t.rows
    )
    ident = "pkg-" + "".join(c if c.isalnum() else "-" for c in section.ident)
    return _section(ident, _t(section.title), body or f"<p>{_t(section.empty)}</p>")


def _latency(data: ReportData) -> str:
    values = data.latency_ms
    if not values:
        return _section("latency", "Hook latency", "<p>No latency recorded.</p>")
    p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
    stats = (
        f"<p>{len(values)} hook call(s): p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
        f"max {max(values):.1f} ms.</p>"
    )
    return _section("latency", "Hook latency", stats)


def _calibration(data: ReportData) -> str:
    cal = data.calibration
    if cal is None:
        return _section(
            "judge",
            "Judge calibration",
            "<p>No labelled judge answers (a JSONL of probability and outcome, "
            "one answer a line, passed with <code>--labels</code>).</p>",
        )
    stats = f"<p>{cal.samples} labelled answer(s): ECE {cal.ece:.3f}, Brier {cal.brier:.3f}.</p>"
    return _section("judge", "Judge calibration", stats)


def _timelines(data: ReportData) -> str:
    if not data.sessions:
        return _section("timeline", "Timeline", "<p>No session recorded.</p>")
    return _section("timeline", "Timeline", "".join(_timeline(h) for h in data.sessions))


def _timeline(h: SessionHistory) -> str:
    records = h.records[-TIMELINE_LIMIT:]
    hidden = len(h.records) - len(records)
    items = "".join(_event(r) for r in records)
    more = f'<p class="muted">{hidden} earlier event(s) not shown.</p>' if hidden else ""
    return (
        f'<section aria-label="Timeline of session {_t(h.session_id)}">'
        f'<h3>Session {_t(h.session_id)} <span class="muted">{_t(h.host)}</span></h3>{more}'
        f'<ol class="timeline" aria-label="Timeline">{items}</ol></section>'
    )


def _event(rec: dict[str, Any]) -> str:
    found = rec.get("decision")
    decision: dict[str, Any] = found if isinstance(found, dict) else {}
    label = str(decision.get("label", "")) if decision else ""
    css = "WOULD" if label.startswith("WOULD_") else label
    codes = [
        str(f.get("code", ""))
        for f in decision.get("findings", [])
        if isinstance(f, dict) and f.get("verdict") != "ALLOW"
    ]
    what = _event_text(rec)
    verdict = f' <span class="{_t(css)}">{_t(label)}</span>' if label else ""
    code_text = f' <span class="muted">{_t(", ".join(codes))}</span>' if codes else ""
    ms = rec.get("ms")
    timing = (
        f' <span class="muted">{float(ms):.1f} ms</span>' if isinstance(ms, int | float) else ""
    )
    return (
        f'<li><time>{_when(rec.get("ts"))}</time><span class="kind">{_t(rec.get("kind", ""))}'
        f"</span>{_t(what)}{verdict}{code_text}{timing}</li>"
    )


def _event_text(rec: dict[str, Any]) -> str:
    tool = rec.get("tool")
    if isinstance(tool, dict):
        text = tool_text(tool)
        result = rec.get("result")
        if isinstance(result, dict) and result.get("outcome"):
            text += f" → {result['outcome']}"
        return text[:300]
    return str(rec.get("prompt") or rec.get("message") or "")[:300]
