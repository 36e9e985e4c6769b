"""What the report shows, gathered from the recorded history (no HTML, no charts here).

Sections: each session's timeline; blocks and asks by reflex and finding
code with their reasons; what shadow mode (or a report-only finding) would
have blocked; snapshots taken and undone; the Reasoning Guard's obligations
and clearance (its ``agentreflex.status`` entry point); hook latency; and the
judge's calibration when labelled answers exist.
"""

from __future__ import annotations

import json
import math
import os

from agentreflex.core import registry
from agentreflex.core.redaction.redact import redact_obj
from agentreflex.core.state.history import SessionHistory, decisions
from agentreflex.core.util.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STOPPING = ("BLOCK", "ASK_USER")
TIMELINE_LIMIT = 400  # events shown per session (the newest); the counts cover all
# Record kinds and note keys the work-tree snapshots are recognised by; the hook path
# records each snapshot it takes as a ``worktree_snapshot`` note (core/worktree/hook.py).
SNAPSHOT_KINDS = ("snapshot", "undo")
SNAPSHOT_NOTES = {"worktree_snapshot": "snapshot"}
LABELS_FILE = "judge-labels.jsonl"  # labelled judge answers: probability and outcome a line


@record
class Intervention:
    """Blocks and asks of one (reflex, code, verdict): how often, enforced or not, and why."""

    reflex: str
    code: str
    verdict: str
    enforced: int = 0
    shadow: int = 0
    reasons: list[str] = field(default_factory=list)


@record
class Calibration:
    """The judge's labelled answers: Brier, ECE and the reliability bins."""

    samples: int
    brier: float
    ece: float
    bins: list[tuple[float, float, int]]  # (mean probability, observed frequency, count)


@record
class PackageTable:
    caption: str
    columns: list[str]
    rows: list[list[str]]


@record
class PackageSection:
    """A package's own section of the report, as its declaration's ``report`` gave it."""

    ident: str
    title: str
    tables: list[PackageTable]
    empty: str


@record
class ReportData:
    sessions: list[SessionHistory]
    interventions: list[Intervention]
    would_block: list[dict[str, Any]]
    snapshots: list[dict[str, Any]]
    packages: list[PackageSection]
    latency_ms: list[float]
    calibration: Calibration | None
    problems: list[str] = field(default_factory=list)


def collect(
    histories: list[SessionHistory],
    state_dir: str,
    labels_path: str = "",
    only_sessions: bool = False,
) -> ReportData:
    problems = [
        f"session {h.session_id}: {h.unverified} record(s) failed their seal and are not shown"
        for h in histories
        if h.unverified
    ]
    problems += [
        f"session {h.session_id}: no state key to check seals; records shown unverified"
        for h in histories
        if h.key_missing
    ]
    calibration, problem = load_calibration(labels_path or os.path.join(state_dir, LABELS_FILE))
    if problem:
        problems.append(problem)
    # --session: a package's own rows of those sessions alone
    asked = tuple(h.session_id for h in histories) if only_sessions else None
    packages = package_sections(state_dir, asked, recorded_findings(histories), problems)
    return ReportData(
        sessions=histories,
        interventions=interventions(histories),
        would_block=would_block(histories),
        snapshots=snapshots(histories),
        packages=packages,
        latency_ms=[float(r["ms"]) for h in histories for r in h.records if _number(r.get("ms"))],
        calibration=calibration,
        problems=problems,
    )


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _findings(rec: dict[str, Any]) -> list[dict[str, Any]]:
    found = rec["decision"].get("findings", [])
    return [f for f in found if isinstance(f, dict)] if isinstance(found, list) else []


def interventions(histories: list[SessionHistory]) -> list[Intervention]:
    """Every BLOCK and ASK_USER finding, grouped by reflex, code and verdict."""
    groups: dict[tuple[str, str, str], Intervention] = {}
    for h in histories:
        for rec in decisions(h):
            shadow = str(rec["decision"].get("label", "")).startswith("WOULD_")
            for f in _findings(rec):
                verdict = str(f.get("verdict", ""))
                if verdict not in STOPPING:
                    continue
                key = (str(f.get("reflex", "")), str(f.get("code", "")), verdict)
                item = groups.setdefault(key, Intervention(*key))
                if shadow or f.get("enforce") is False:
                    item.shadow += 1
                else:
                    item.enforced += 1
                reason = str(f.get("message", ""))
                if reason and reason not in item.reasons and len(item.reasons) < 3:
                    item.reasons.append(reason)
    return sorted(groups.values(), key=lambda i: (-(i.enforced + i.shadow), i.reflex, i.code))


def would_block(histories: list[SessionHistory]) -> list[dict[str, Any]]:
    """Events the reflexes proposed to stop that were let through (shadow or report-only)."""
    out: list[dict[str, Any]] = []
    for h in histories:
        for rec in decisions(h):
            d = rec["decision"]
            if d.get("proposed") not in STOPPING or d.get("verdict") in STOPPING:
                continue
            top = [f for f in _findings(rec) if f.get("verdict") == d.get("proposed")]
            out.append(
                {
                    "session": h.session_id,
                    "ts": rec.get("ts", 0.0),
                    "event": rec.get("kind", ""),
                    "what": _what(rec),
                    "label": f"WOULD_{d.get('proposed')}",
                    "codes": [str(f.get("code", "")) for f in top],
                    "reason": " ".join(dict.fromkeys(str(f.get("message", "")) for f in top)),
                }
            )
    return out


def _what(rec: dict[str, Any]) -> str:
    tool = rec.get("tool")
    if isinstance(tool, dict):
        return tool_text(tool)
    return str(rec.get("prompt") or rec.get("message") or "")[:200]


def tool_text(tool: dict[str, Any]) -> str:
    """``Bash: ls -la``: the stored summary, which usually starts with the tool's name."""
    name, summary = str(tool.get("name", "")), str(tool.get("summary", ""))
    return summary if summary.startswith(name) else f"{name}: {summary}"


def snapshots(histories: list[SessionHistory]) -> list[dict[str, Any]]:
    """Snapshot and undo records, and notes of those names, as the store holds them.

    A snapshot note's row also says whether ``agentreflex undo N`` restored
    it since: read from the snapshot's own folder in the session's repository.
    """
    out: list[dict[str, Any]] = []
    repos: dict[str, Any] = {}
    for h in histories:
        for rec in h.records:
            kind = str(rec.get("kind", ""))
            if kind in SNAPSHOT_KINDS:
                detail = {k: v for k, v in rec.items() if k not in ("ts", "kind", "n", "mac")}
                out.append(_snapshot_row(h, rec, kind, detail))
            for note in rec.get("notes", []) if isinstance(rec.get("notes"), list) else []:
                key = str(note.get("key", "")) if isinstance(note, dict) else ""
                key = SNAPSHOT_NOTES.get(key, key)
                if key.rstrip("s") in SNAPSHOT_KINDS:
                    row = _snapshot_row(h, rec, key.rstrip("s"), note.get("value"))
                    row["undone"] = _undone(repos, str(rec.get("cwd", "")), note.get("value"))
                    out.append(row)
    return out


def _snapshot_row(h: SessionHistory, rec: dict[str, Any], kind: str, detail: Any) -> dict[str, Any]:
    return {
        "session": h.session_id,
        "ts": rec.get("ts", 0.0),
        "kind": kind,
        "detail": json.dumps(detail, ensure_ascii=False, sort_keys=True)[:300],
        "undone": [],
    }


def _undone(repos: dict[str, Any], cwd: str, value: Any) -> list[dict[str, Any]]:
    """The restores of the snapshot a note names (``{"n": N}``), found from the call's cwd."""
    n = value.get("n") if isinstance(value, dict) else None
    if not cwd or not isinstance(n, int) or isinstance(n, bool):
        return []
    from agentreflex.core.worktree import observe, restored

    if cwd not in repos:
        repos[cwd] = observe.find_repo(cwd)
    repo = repos[cwd]
    return restored.read(repo, n) if repo is not None else []


def recorded_findings(histories: list[SessionHistory]) -> list[dict[str, Any]]:
    """Every finding in the recorded decisions, with its session and time (for packages' sections)."""
    return [
        {
            "session": h.session_id,
            "ts": rec.get("ts", 0.0),
            "reflex": f.get("reflex", ""),
            "code": f.get("code", ""),
            "verdict": f.get("verdict", ""),
            "message": f.get("message", ""),
        }
        for h in histories
        for rec in decisions(h)
        for f in _findings(rec)
    ]


def package_sections(
    state_dir: str,
    sessions: tuple[str, ...] | None,
    findings: list[dict[str, Any]],
    problems: list[str],
) -> list[PackageSection]:
    """Each installed package's declared section; one that fails or is malformed is a problem line."""
    out: list[PackageSection] = []
    for name, spec in registry.entries(registry.REPORTS):
        try:
            raw = registry.load_object(spec)(state_dir, sessions, findings)
            out.append(_package_section(name, raw))
        except Exception as exc:  # a package's section must not break the report
            problems.append(f"{name}: its report section is unavailable ({type(exc).__name__})")
    return out


def _package_section(name: str, raw: Any) -> PackageSection:
    """Plain data checked and redacted (the page escapes it); a wrong shape is a TypeError."""
    clean = redact_obj(raw)
    if not isinstance(clean, dict) or not isinstance(clean.get("tables", []), list):
        raise TypeError("a report section is a table of title, tables and empty text")
    tables = [
        PackageTable(
            str(t.get("caption", "")),
            [str(c) for c in t.get("columns", [])],
            [[str(c) for c in row] for row in t.get("rows", []) if isinstance(row, list)],
        )
        for t in clean.get("tables", [])
        if isinstance(t, dict)
    ]
    return PackageSection(name, str(clean.get("title", name)), tables, str(clean.get("empty", "")))


def load_calibration(path: str, n_bins: int = 10) -> tuple[Calibration | None, str]:
    """Brier and ECE over labelled judge answers (``probability``, ``outcome`` per line)."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except FileNotFoundError:
        return None, ""
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"judge labels {path}: unreadable ({type(exc).__name__})"
    pairs: list[tuple[float, bool]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        pair = _labelled(line)
        if pair is None:
            return None, f"judge labels {path}: line {number} is not a labelled answer"
        pairs.append(pair)
    if not pairs:
        return None, ""
    return calibration(pairs, n_bins), ""


def _labelled(line: str) -> tuple[float, bool] | None:
    try:
        row = json.loads(line)
    except ValueError:
        return None
    if not isinstance(row, dict):
        return None
    p, outcome = row.get("probability"), row.get("outcome")
    if not isinstance(p, int | float) or not _number(p) or not 0 <= p <= 1:
        return None
    if outcome not in (True, False, 0, 1):
        return None
    return float(p), bool(outcome)


def calibration(pairs: list[tuple[float, bool]], n_bins: int = 10) -> Calibration:
    """Equal-width reliability bins (the last includes 1.0), Brier score and ECE."""
    groups: list[list[tuple[float, bool]]] = [[] for _ in range(n_bins)]
    for p, outcome in pairs:
        groups[min(n_bins - 1, int(p * n_bins))].append((p, outcome))
    bins = [
        (sum(p for p, _ in g) / len(g), sum(1 for _, o in g if o) / len(g), len(g))
        for g in groups
        if g
    ]
    total = len(pairs)
    brier = sum((p - float(o)) ** 2 for p, o in pairs) / total
    ece = sum(n / total * abs(mean - freq) for mean, freq, n in bins)
    return Calibration(samples=total, brier=brier, ece=ece, bins=bins)
