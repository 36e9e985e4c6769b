#!/usr/bin/env python3
"""Reasoning Guard benchmark: classifier quality and latency, hook-path latency.

    uv run --frozen python tools/guard_benchmark.py --samples 100 --warmup 10 --json

Replays the labelled summaries in packages/guard/tests/data/classifier_samples.jsonl
(dev/holdout splits; challenge and representative strata; ambiguous labels are
excluded from the headline metrics) and reports candidate precision, safety
recall (a consequential summary is a candidate or an explicit abstention),
clear specificity overall and on representative neutrals, abstention rate,
misses and classification p50/p95/max.  It then runs the guard reflex on the
Claude host-event path with its real locked, fsynced report writes, for
plain events and for structured ones (an Evidence-Check directive and its
tool evidence), and reports p50/p95 of each and the p95 delta.

The release rules of seed 003 are checked and listed under "release"; the
exit status is 1 only with --strict and a failed rule.  These are regression
budgets for this machine, not portable promises.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any

from agentreflex.core.testing import make_config, make_context, post_tool, pre_tool
from agentreflex.guard.classifier import CANDIDATE, CLEAR, UNCERTAIN, summary_label
from agentreflex.guard.examples import EXAMPLE_DIRECTIVE
from agentreflex.guard.reflex import GuardReflex
from agentreflex.guard.report import percentile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "packages", "guard", "tests", "data", "classifier_samples.jsonl")
DIRECTIVE = EXAMPLE_DIRECTIVE


def load_samples(path: str) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    seen: set[str] = set()
    unique = []
    for row in rows:  # deduplicate by text
        if row["text"] not in seen:
            seen.add(row["text"])
            unique.append(row)
    return unique


def classifier_metrics(rows: list[dict[str, str]], repeats: int) -> dict[str, Any]:
    scored = [r for r in rows if r["label"] != "ambiguous"]
    timings: list[float] = []
    predicted: dict[str, str] = {}
    for _ in range(max(1, repeats)):
        for row in scored:
            start = time.perf_counter()
            predicted[row["id"]] = summary_label(row["text"])
            timings.append((time.perf_counter() - start) * 1000.0)
    out: dict[str, Any] = {"overall": _metrics(scored, predicted)}
    for split in ("dev", "holdout"):
        out[split] = _metrics([r for r in scored if r["split"] == split], predicted)
    rep_neutral = [
        r for r in scored if r["stratum"] == "representative" and r["label"] == "neutral"
    ]
    out["representative_neutral_specificity"] = _ratio(
        sum(predicted[r["id"]] == CLEAR for r in rep_neutral), len(rep_neutral)
    )
    out["excluded_ambiguous"] = len(rows) - len(scored)
    out["latency_ms"] = {
        "p50": percentile(timings, 50),
        "p95": percentile(timings, 95),
        "max": max(timings) if timings else None,
    }
    return out


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _metrics(rows: list[dict[str, str]], predicted: dict[str, str]) -> dict[str, Any]:
    cons = [r for r in rows if r["label"] == "consequential"]
    neutral = [r for r in rows if r["label"] == "neutral"]
    cands = [r for r in rows if predicted[r["id"]] == CANDIDATE]
    true_cands = [r for r in cands if r["label"] == "consequential"]
    safe = [r for r in cons if predicted[r["id"]] in (CANDIDATE, UNCERTAIN)]
    return {
        "samples": len(rows),
        "candidate_precision": _ratio(len(true_cands), len(cands)),
        "false_obligations": len(cands) - len(true_cands),
        "safety_recall": _ratio(len(safe), len(cons)),
        "clear_specificity": _ratio(
            sum(predicted[r["id"]] == CLEAR for r in neutral), len(neutral)
        ),
        "abstention_rate": _ratio(sum(predicted[r["id"]] == UNCERTAIN for r in rows), len(rows)),
        "misses": [r["id"] for r in cons if predicted[r["id"]] == CLEAR],
    }


def hook_latency(samples: int, warmup: int, structured: bool) -> dict[str, Any]:
    """Per-event wall time of the guard reflex, including its atomic report write."""
    state_dir = tempfile.mkdtemp(prefix="guard-bench-")
    cfg = make_config("enforced", env={"AGENTREFLEX_REASONING_GUARD": "on"})
    reflex = GuardReflex(env={})
    timings: list[float] = []
    for i in range(warmup + samples):
        tid = f"t{i}"
        if structured:
            raw = {
                "reasoning_evidence_check": {**DIRECTIVE, "claim": f"Adapter {i % 8} is active."}
            }
            event = pre_tool("Bash", {"command": "adapter-status --json"}, tool_use_id=tid, raw=raw)
            if i % 2:
                event = post_tool(
                    "Bash",
                    {"command": "adapter-status --json"},
                    ok=True,
                    output='{"active": true}',
                    tool_use_id=tid,
                )
        else:
            event = pre_tool("Read", {"file_path": f"/work/proj/f{i}.py"}, tool_use_id=tid)
        ctx = make_context(event, config=cfg, state_dir=state_dir)
        start = time.perf_counter()
        reflex.evaluate(ctx)
        if i >= warmup:
            timings.append((time.perf_counter() - start) * 1000.0)
    return {
        "p50_ms": percentile(timings, 50),
        "p95_ms": percentile(timings, 95),
        "samples": samples,
    }


def release(report: dict[str, Any]) -> list[str]:
    """Seed 003's release rules; returns the failed ones."""
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
        failures.append("overall clear specificity < 0.50")
    if (report["classifier"]["representative_neutral_specificity"] or 0.0) < 0.50:
        failures.append("representative-neutral clear specificity < 0.50")
    if overall["misses"]:
        failures.append(f"required misses: {overall['misses']}")
    if (report["classifier"]["latency_ms"]["p95"] or 0.0) > 1.0:
        failures.append("classifier p95 > 1 ms")
    if (report["hook"]["structured"]["p95_ms"] or 0.0) > 50.0:
        failures.append("structured hook p95 > 50 ms")
    if report["hook"]["delta_p95_ms"] > 20.0:
        failures.append("structured-minus-plain p95 delta > 20 ms")
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a release rule fails")
    args = parser.parse_args(argv)
    if args.samples < 1 or args.warmup < 0:
        parser.error("--samples must be >= 1 and --warmup >= 0")
    rows = load_samples(SAMPLES)
    plain = hook_latency(args.samples, args.warmup, structured=False)
    structured = hook_latency(args.samples, args.warmup, structured=True)
    report: dict[str, Any] = {
        "classifier": classifier_metrics(rows, repeats=max(1, args.samples // 10)),
        "hook": {
            "plain": plain,
            "structured": structured,
            "delta_p95_ms": round((structured["p95_ms"] or 0.0) - (plain["p95_ms"] or 0.0), 3),
        },
        "python": sys.version.split()[0],
    }
    failures = release(report)
    report["release"] = {"pass": not failures, "failures": failures}
    text = json.dumps(report, indent=None if args.json else 2)
    print(text)
    return 1 if args.strict and failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
