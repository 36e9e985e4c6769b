"""Fit judge2's calibration map for a backend on the fitting part, measure it on the held-out part.

1. Builds the real-source labelled set (``tools/judge2_labelled_real.py``), or
   reads one (``--labelled``).
2. Asks the backend every row (``--backend builtin``: core's heuristic engine
   in process, the engine ``agentreflex laya serve`` serves; ``--backend jev``:
   judge2's HTTP backend at ``JEV_BASE_URL`` with ``JEV_API_KEY``, a laya
   server with a checkpoint or the hosted API).
3. Fits an isotonic map per family's signal on the ``fit`` rows only (given at
   least 50 of them with at least 10 positives; else the family is served raw)
   (pool-adjacent-violators, here in the tool: no fitting code ships in the
   package), and marks a signal ``may_block`` when the mapped held-out
   precision at its configured block threshold is at least 0.9 with at least
   20 held-out rows flagged.
4. Prints the held-out reliability per family, raw and mapped (Brier and ECE
   with bootstrap intervals, precision and recall at the threshold), and with
   ``--write`` stores the map as ``packages/judge2/src/agentreflex/judge2/calibration/<model>.json``:
   the curves of the families in ``SHIPPED`` only (the others are fitted and
   measured here, and served raw).

Run: ``uv run --frozen python tools/judge2_calibration.py [--write] [--png-dir DIR]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agentreflex.core.config.settings import DEFAULT_THRESHOLDS
from agentreflex.judge2 import calibrate as cal
from agentreflex.judge2 import heldout
from agentreflex.judge2.calibmap import (
    PRECISION_BAR,
    CalibrationMap,
    SignalMap,
    map_file,
)

MIN_FLAGGED = 20  # fewer held-out flags than this cannot show a precision of 0.9
# A map is fitted only with enough rows to place its steps: with fewer positives
# than this one row moves a step by a tenth or more (constraint's 21 rows, 7
# positives, moved the engine's 0.2 to 0.75, which the held-out part did not bear out).
MIN_FIT_ROWS = 50
MIN_FIT_POSITIVES = 10
# The families whose fitted curve goes into the map file.  Constraint and completion are
# fitted and measured but not shipped (packages/laya/README.md).  Constraint's curve measures
# worse held out than the raw answers it would replace (ECE 0.072 against 0.035): it turns the
# fitting part's 45 of 45 at 0.92 into 1.0, which the held-out part does not bear out.
# Completion's measures no better held out than the raw answers (ECE 0.046 against 0.043) now
# that sessions that changed nothing are read like the others (proportion is judge2's done
# reflex's decision), and its middle steps rest on a few fitting rows.
SHIPPED = ("destructive", "secret", "loop")


def pav(points: list[tuple[float, bool]]) -> tuple[list[float], list[float]]:
    """Isotonic regression by pool-adjacent-violators: knots at each distinct raw value."""
    groups: dict[float, list[int]] = {}
    for p, o in points:
        groups.setdefault(p, []).append(int(o))
    blocks = [[x, sum(v), len(v)] for x, v in sorted(groups.items())]  # x, positives, n
    merged: list[list[Any]] = []
    for b in blocks:
        merged.append([[b[0]], b[1], b[2]])
        while len(merged) > 1 and merged[-2][1] / merged[-2][2] > merged[-1][1] / merged[-1][2]:
            xs, pos, n = merged.pop()
            merged[-1][0].extend(xs)
            merged[-1][1] += pos
            merged[-1][2] += n
    xs_out, ys_out = [], []
    for xs, pos, n in merged:
        for x in xs:
            xs_out.append(round(x, 6))
            ys_out.append(round(pos / n, 6))
    return xs_out, ys_out


def backend_for(name: str) -> Any:
    if name == "builtin":
        from agentreflex.core.systemone.heuristic.engine import MODEL_ID
        from agentreflex.judge2.offline import OfflineBackend

        return OfflineBackend(MODEL_ID)  # the same engine, under the id laya serves it as
    from agentreflex.core.config.settings import load_config
    from agentreflex.judge2.jev import JevBackend

    j = load_config().judge
    return JevBackend(j.base_url, j.model, j.request_key, timeout_ms=10_000, retries=2)


def fit(scored: list[heldout.Scored], model: str) -> tuple[CalibrationMap, dict[str, Any]]:
    signals: dict[str, SignalMap] = {}
    notes: dict[str, Any] = {}
    for family, (qid, key) in heldout.FAMILIES.items():
        fitting = [(r.raw, r.outcome) for r in scored if r.family == family and r.split == "fit"]
        if len(fitting) < MIN_FIT_ROWS or sum(o for _, o in fitting) < MIN_FIT_POSITIVES:
            continue  # served raw, and a raw judge answer may not block alone
        xs, ys = pav(fitting)
        curve = SignalMap(x=tuple(xs), y=tuple(ys))
        test = [
            (curve(r.raw), r.outcome) for r in scored if r.family == family and r.split == "heldout"
        ]
        flagged = [o for p, o in test if p >= DEFAULT_THRESHOLDS[key]]
        precision = sum(flagged) / len(flagged) if flagged else None
        may_block = (
            precision is not None and len(flagged) >= MIN_FLAGGED and precision >= PRECISION_BAR
        )
        signals[qid] = SignalMap(x=curve.x, y=curve.y, may_block=may_block)
        notes[qid] = {
            "family": family,
            "fitted_on": len(fitting),
            "heldout": len(test),
            "heldout_flagged_at_threshold": len(flagged),
            "heldout_precision_at_threshold": precision,
        }
    return CalibrationMap(model=model, signals=signals), notes


def to_json(cmap: CalibrationMap, notes: dict[str, Any]) -> str:
    data = {
        "model": cmap.model,
        "method": "isotonic (pool-adjacent-violators), fitted by tools/judge2_calibration.py",
        "labelled_set": "tools/judge2_labelled_real.py (fit split only; held-out only measured)",
        "precision_bar": PRECISION_BAR,
        "signals": {
            q: {"x": list(m.x), "y": list(m.y), "may_block": m.may_block, **notes[q]}
            for q, m in cmap.signals.items()
        },
    }
    return json.dumps(data, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labelled", help="a labelled JSONL file (default: build the real set)")
    parser.add_argument("--backend", choices=("builtin", "jev"), default="builtin")
    parser.add_argument("--write", action="store_true", help="store the fitted map in the package")
    parser.add_argument("--out", help="write the map here instead")
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--png-dir", help="reliability diagrams per family (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.labelled:
        rows = heldout.read_rows(Path(args.labelled).read_text(encoding="utf-8").splitlines())
    else:
        import judge2_labelled_real

        rows = judge2_labelled_real.build()
    backend = backend_for(args.backend)
    scored = heldout.score(rows, backend)
    cmap, notes = fit(scored, backend.model)
    mapped = [
        heldout.Scored(
            r.family,
            r.question,
            r.raw,
            cmap.apply({r.question: r.raw})[r.question],
            r.outcome,
            r.split,
        )
        for r in scored
    ]
    thresholds = dict(DEFAULT_THRESHOLDS)
    print(f"backend {args.backend} (model {backend.model}), {len(rows)} labelled rows\n")
    print("held-out, raw probabilities:")
    print(
        heldout.format_reports(heldout.reports(mapped, thresholds, mapped=False, n_boot=args.boot))
    )
    print("\nheld-out, through the map fitted on the fitting part:")
    held = heldout.reports(mapped, thresholds, n_boot=args.boot)
    print(heldout.format_reports(held))
    print("\njudge-only BLOCK allowed (held-out precision >= 0.9 at the threshold):")
    for qid, note in notes.items():
        print(f"  {qid}: {cmap.signals[qid].may_block} {note}")
    if args.png_dir:
        for r in held:
            report = cal.Report(r.n, r.positives / r.n, r.brier.value, r.ece.value, r.bins)
            cal.plot_reliability(
                report, str(Path(args.png_dir) / f"{r.family}.png"), title=r.family
            )
    shipped = {q: m for q, m in cmap.signals.items() if notes[q]["family"] in SHIPPED}
    print(f"\nshipped in the map file: {', '.join(sorted(shipped)) or 'none'}")
    target = args.out or (map_file(backend.model) if args.write else None)
    if target:
        kept = CalibrationMap(model=cmap.model, signals=shipped)
        Path(target).write_text(to_json(kept, notes), encoding="utf-8")
        print(f"\nmap written: {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
