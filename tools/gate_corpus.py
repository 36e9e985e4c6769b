"""Evaluate the gate on its labelled corpus: recall, false positives, floor timing.

    uv run --frozen python tools/gate_corpus.py [--holdout-only] [--show-misses]

Sets are reported separately: the tuned corpus, each held-out set
(every ``holdout*`` folder: ``holdout``, ``holdout2``, ...) and everything
together.  ``--holdout-only``
reports just the held-out sets.

Cases live in packages/gate/tests/corpus/<set>/*.jsonl, one JSON object per
line: command, expected (ALLOW/WARN/ASK_USER/BLOCK), category, note.  A case
is *positive* when its expected decision is not ALLOW.  Recall counts a
positive as caught when the gate's verdict is at least as strict as WARN for
WARN cases and at least ASK_USER otherwise; the false-positive rate counts
ALLOW cases that got ASK_USER or BLOCK.  Timing is the in-process floor
(parse + rules + policy) per case, after one warm-up pass.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from agentreflex.gate.check import check_command

ROOT = Path(__file__).resolve().parent.parent / "packages" / "gate" / "tests" / "corpus"
CWD, HOME = "/home/user/project", "/home/user"
_RANK = {"ALLOW": 0, "WARN": 1, "ASK_USER": 2, "BLOCK": 3}


def load(sets: list[str]) -> list[dict[str, str]]:
    cases = []
    for name in sets:
        for path in sorted((ROOT / name).glob("*.jsonl")):
            for line in path.read_text().splitlines():
                if line.strip():
                    case = json.loads(line)
                    case["set"] = name
                    cases.append(case)
    return cases


def caught(expected: str, got: str) -> bool:
    need = 1 if expected == "WARN" else 2
    return _RANK[got] >= need


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--holdout-only", action="store_true")
    ap.add_argument("--show-misses", action="store_true")
    args = ap.parse_args()
    tuned = ["true_positives", "bypass_attempts", "false_positives", "edge_cases"]
    holdouts = sorted(
        (p.name for p in ROOT.iterdir() if p.is_dir() and p.name.startswith("holdout")),
        key=lambda n: (len(n), n),
    )
    groups: dict[str, list[str]] = {name: [name] for name in holdouts}
    if not args.holdout_only:
        groups = {"corpus": tuned, **groups, "everything": tuned + holdouts}
    for label, sets in groups.items():
        cases = load(sets)
        for case in cases:  # warm-up: grammar load, caches
            check_command(case["command"], cwd=CWD, home=HOME, project=CWD)
        per: dict[str, list[int]] = {}
        times: list[float] = []
        misses = []
        exact = 0
        for case in cases:
            t0 = time.perf_counter()
            got, _ = check_command(case["command"], cwd=CWD, home=HOME, project=CWD)
            times.append((time.perf_counter() - t0) * 1000)
            exact += got == case["expected"]
            stats = per.setdefault(case["category"], [0, 0, 0, 0])  # pos, hit, neg, fp
            if case["expected"] != "ALLOW":
                stats[0] += 1
                stats[1] += caught(case["expected"], got)
            else:
                stats[2] += 1
                stats[3] += _RANK[got] >= 2
            if got != case["expected"]:
                misses.append(
                    (case["set"], case["expected"], got, case["command"][:90], case["note"])
                )
        print(f"== {label}: {len(cases)} cases, exact decision match {exact}/{len(cases)}")
        print(f"{'category':<14}{'pos':>5}{'recall':>8}{'neg':>6}{'fp rate':>9}")
        tp = fn_pos = neg = fp = 0
        for cat, (p, h, n, f) in sorted(per.items()):
            tp, fn_pos, neg, fp = tp + h, fn_pos + p, neg + n, fp + f
            recall = f"{h / p:.3f}" if p else "-"
            rate = f"{f / n:.3f}" if n else "-"
            print(f"{cat:<14}{p:>5}{recall:>8}{n:>6}{rate:>9}")
        print(
            f"{'overall':<14}{fn_pos:>5}{tp / max(fn_pos, 1):>8.3f}{neg:>6}{fp / max(neg, 1):>9.3f}"
        )
        small = sorted(t for c, t in zip(cases, times, strict=True) if len(c["command"]) < 10_000)
        q = statistics.quantiles(small, n=100)
        print(
            f"floor timing (cases < 10k chars, n={len(small)}): p50 {q[49]:.3f} ms, "
            f"p95 {q[94]:.3f} ms, max {max(times):.1f} ms (all cases)"
        )
        if args.show_misses:
            for m in misses:
                print("  MISS", m)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
