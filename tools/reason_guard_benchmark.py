#!/usr/bin/env python3
"""The Reasoning Guard release benchmark (seed 003): classifier quality, hook latency.

    uv run --frozen python tools/reason_guard_benchmark.py --samples 100 --warmup 10 --json

Classifier: replays the hand-labelled, deduplicated reasoning summaries in
``packages/guard/tests/data/reason_guard_summaries.jsonl`` (Codex- and
Claude-style: investigations, diagnoses, refactors, docs work, cosmetic
config edits, conclusions, promises to report), split into ``dev`` (tuned on)
and ``holdout`` (never tuned on), and into ``representative`` and
``challenge`` strata.  ``ambiguous`` labels are excluded from the headline.
It reports candidate precision, safety recall (a consequential summary is a
candidate or an explicit abstention), candidate rate (how many consequential
summaries become candidates at all), clear specificity overall and on
representative neutrals, abstention rate, misses and required misses, and
classification p50/p95/max.

Hook: the Claude host-event path as a hook runs it (a Claude hook payload
parsed by core's Claude adapter, the guard reflex, its locked and fsynced
report writes) for plain events and for structured ones (an Evidence-Check
directive and its tool evidence); p50/p95 of each and the p95 delta.

Exit status 1 when any release threshold fails (listed under ``release``):
precision >= 0.95 (or no false obligation when there is no candidate), safety
recall >= 0.95, clear specificity >= 0.50 overall and on representative
neutrals, no required miss, candidate rate >= 0.50, classifier p95 <= 1 ms,
structured hook p95 <= 50 ms, structured-minus-plain p95 delta <= 20 ms.
These are regression budgets for this machine, not portable promises.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any

from agentreflex.core.hosts.claude_code import parse_claude_style
from agentreflex.core.testing import make_config, make_context
from agentreflex.guard.classifier import CANDIDATE, CLEAR, UNCERTAIN, summary_label
from agentreflex.guard.examples import EXAMPLE_DIRECTIVE
from agentreflex.guard.reflex import GuardReflex
from agentreflex.guard.report import percentile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "packages", "guard", "tests", "data", "reason_guard_summaries.jsonl")
SESSION = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"

Row = dict[str, Any]


def load_samples(path: str) -> list[Row]:
    """The labelled rows, deduplicated by text (the first label wins)."""
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    seen: set[str] = set()
    unique = []
    for row in rows:
        if row["text"] not in seen:
            seen.add(row["text"])
            unique.append(row)
    return unique


def classify_all(rows: list[Row], repeats: int) -> tuple[dict[str, str], list[float]]:
    timings: list[float] = []
    predicted: dict[str, str] = {}
    for _ in range(max(1, repeats)):
        for row in rows:
            start = time.perf_counter()
            predicted[row["id"]] = summary_label(row["text"])
            timings.append((time.perf_counter() - start) * 1000.0)
    return predicted, timings


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def metrics(rows: list[Row], predicted: dict[str, str]) -> dict[str, Any]:
    """The seed's figures for one slice of the scored (non-ambiguous) rows."""
    cons = [r for r in rows if r["label"] == "consequential"]
    neutral = [r for r in rows if r["label"] == "neutral"]
    rep_neutral = [r for r in neutral if r["stratum"] == "representative"]
    cands = [r for r in rows if predicted[r["id"]] == CANDIDATE]
    true_cands = [r for r in cands if r["label"] == "consequential"]
    misses = [r for r in cons if predicted[r["id"]] == CLEAR]
    return {
        "samples": len(rows),
        "consequential": len(cons),
        "neutral": len(neutral),
        "candidate_precision": _ratio(len(true_cands), len(cands)),
        "false_obligations": [r["id"] for r in cands if r["label"] != "consequential"],
        "safety_recall": _ratio(len(cons) - len(misses), len(cons)),
        "candidate_rate": _ratio(len(true_cands), len(cons)),
        "clear_specificity": _ratio(
            sum(predicted[r["id"]] == CLEAR for r in neutral), len(neutral)
        ),
        "representative_neutral_specificity": _ratio(
            sum(predicted[r["id"]] == CLEAR for r in rep_neutral), len(rep_neutral)
        ),
        "abstention_rate": _ratio(sum(predicted[r["id"]] == UNCERTAIN for r in rows), len(rows)),
        "misses": [r["id"] for r in misses],
        "required_misses": [r["id"] for r in misses if r.get("required")],
    }


def classifier_report(rows: list[Row], repeats: int) -> dict[str, Any]:
    scored = [r for r in rows if r["label"] != "ambiguous"]
    predicted, timings = classify_all(scored, repeats)
    out: dict[str, Any] = {"overall": metrics(scored, predicted)}
    for split in ("holdout", "dev"):
        out[split] = metrics([r for r in scored if r["split"] == split], predicted)
    for stratum in ("representative", "challenge"):
        out[stratum] = metrics([r for r in scored if r["stratum"] == stratum], predicted)
    out["excluded_ambiguous"] = len(rows) - len(scored)
    out["latency_ms"] = {
        "p50": percentile(timings, 50),
        "p95": percentile(timings, 95),
        "max": round(max(timings), 4) if timings else None,
    }
    return out


def _payload(i: int, structured: bool, transcript: str) -> dict[str, Any]:
    """A Claude Code hook payload, as Claude sends it on stdin."""
    base = {
        "session_id": SESSION,
        "transcript_path": transcript,
        "cwd": "/work/proj",
        "tool_use_id": f"toolu_{i:05d}",
    }
    if not structured:
        return {
            **base,
            "hook_event_name": "PreToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": f"/work/proj/f{i}.py"},
        }
    command = {"command": "adapter-status --json"}
    if i % 2:
        return {
            **base,
            "tool_use_id": f"toolu_{i - 1:05d}",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": command,
            "tool_response": {"stdout": '{"active": true}', "stderr": "", "interrupted": False},
        }
    directive = {**EXAMPLE_DIRECTIVE, "claim": f"Adapter {i % 8} is active."}
    return {
        **base,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": command,
        "reasoning_evidence_check": directive,
    }


def hook_latency(samples: int, warmup: int, structured: bool) -> dict[str, Any]:
    """Per-event wall time of the Claude host-event path, including the atomic write."""
    with tempfile.TemporaryDirectory(prefix="guard-bench-") as root:
        projects = os.path.join(root, "claude", "projects", "-work-proj")
        os.makedirs(projects)
        transcript = os.path.join(projects, f"{SESSION}.jsonl")
        with open(transcript, "w", encoding="utf-8") as fh:
            rec = {
                "type": "assistant",
                "entrypoint": "cli",
                "message": {
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": "Reading the files."}],
                },
            }
            fh.write(json.dumps(rec) + "\n")
        state_dir = os.path.join(root, "state")
        cfg = make_config("enforced", env={"AGENTREFLEX_REASONING_GUARD": "on"})
        reflex = GuardReflex(env={"CLAUDE_CONFIG_DIR": os.path.join(root, "claude")})
        timings: list[float] = []
        for i in range(warmup + samples):
            payload = json.loads(json.dumps(_payload(i, structured, transcript)))
            start = time.perf_counter()
            event = parse_claude_style(payload, "claude-code")
            reflex.evaluate(make_context(event, config=cfg, state_dir=state_dir))
            if i >= warmup:
                timings.append((time.perf_counter() - start) * 1000.0)
    return {
        "p50_ms": percentile(timings, 50),
        "p95_ms": percentile(timings, 95),
        "samples": samples,
    }


def release(report: dict[str, Any]) -> list[str]:
    """Seed 003's release thresholds (plus the candidate-rate rule); the failed ones."""
    failures = []
    overall = report["classifier"]["overall"]
    precision = overall["candidate_precision"]
    if precision is None and overall["false_obligations"]:
        failures.append("false obligations without candidate predictions")
    if precision is not None and precision < 0.95:
        failures.append(f"candidate precision {precision} < 0.95")
    if (overall["safety_recall"] or 0.0) < 0.95:
        failures.append(f"safety recall {overall['safety_recall']} < 0.95")
    if (overall["clear_specificity"] or 0.0) < 0.50:
        failures.append(f"overall clear specificity {overall['clear_specificity']} < 0.50")
    if (overall["representative_neutral_specificity"] or 0.0) < 0.50:
        failures.append("representative-neutral clear specificity < 0.50")
    if overall["required_misses"]:
        failures.append(f"required misses: {overall['required_misses']}")
    if (overall["candidate_rate"] or 0.0) < 0.50:
        failures.append(f"candidate rate {overall['candidate_rate']} < 0.50")
    if (report["classifier"]["latency_ms"]["p95"] or 0.0) > 1.0:
        failures.append("classifier p95 > 1 ms")
    if (report["hook"]["structured"]["p95_ms"] or 0.0) > 50.0:
        failures.append("structured hook p95 > 50 ms")
    if report["hook"]["delta_p95_ms"] > 20.0:
        failures.append("structured-minus-plain p95 delta > 20 ms")
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--json", action="store_true", help="print compact JSON")
    parser.add_argument("--data", default=SAMPLES, help="labelled JSONL (default: the release set)")
    args = parser.parse_args(argv)
    if args.samples < 1 or args.warmup < 0:
        parser.error("--samples must be >= 1 and --warmup >= 0")
    rows = load_samples(args.data)
    plain = hook_latency(args.samples, args.warmup, structured=False)
    structured = hook_latency(args.samples, args.warmup, structured=True)
    report: dict[str, Any] = {
        "classifier": classifier_report(rows, repeats=max(1, args.samples // 10)),
        "hook": {
            "plain": plain,
            "structured": structured,
            "delta_p95_ms": round((structured["p95_ms"] or 0.0) - (plain["p95_ms"] or 0.0), 3),
        },
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
    }
    failures = release(report)
    report["release"] = {"pass": not failures, "failures": failures}
    print(json.dumps(report, indent=None if args.json else 2))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
