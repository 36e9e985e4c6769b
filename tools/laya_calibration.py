"""Calibration of laya's built-in engine, measured with judge2's calibration audit.

Reads packages/laya/calibration/labelled.jsonl (tools/laya_labelled_set.py),
asks the built-in engine each case's whole battery exactly as judge2 would
(same question texts, same state text), keeps the labelled answers, and
prints judge2's report: Brier score, ECE, rates at each threshold, per
question.  ``--png PATH`` draws the reliability diagram (needs matplotlib,
judge2's ``plot`` extra); ``--jsonl PATH`` writes the scored decisions in
the format ``agentreflex judge2 calibrate`` reads.

Run: ``uv run python tools/laya_calibration.py [--png out.png] [--jsonl out.jsonl]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agentreflex.core.systemone.heuristic.engine import BuiltinEngine
from agentreflex.judge2 import calibrate as cal
from agentreflex.judge2.questions import battery
from agentreflex.laya.models import SystemOneRequest

LABELLED = Path(__file__).resolve().parents[1] / "packages/laya/calibration/labelled.jsonl"


def score(path: Path = LABELLED) -> list[dict[str, Any]]:
    """Each labelled row with the engine's probability, through the server's own models."""
    engine = BuiltinEngine()
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        request = SystemOneRequest.model_validate(
            {"state": row["state"], "questions": battery(row["battery"])}
        )
        answers = engine.answer(request.state, request.questions)
        p = answers[row["question"]]["noul"]
        out.append({"question": row["question"], "probability": p, "outcome": row["outcome"]})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--png")
    parser.add_argument("--jsonl")
    args = parser.parse_args(argv)
    scored = score()
    if args.jsonl:
        Path(args.jsonl).write_text("".join(json.dumps(r) + "\n" for r in scored), "utf-8")
    samples = cal.read_samples(json.dumps(r) for r in scored)
    report = cal.evaluate(samples, 10, [0.5, 0.7, 0.85, 0.9])
    print(cal.format_report(report))
    if args.png:
        cal.plot_reliability(report, args.png, title="laya built-in engine")
        print(f"\nreliability diagram: {args.png}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
