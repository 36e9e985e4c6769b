"""``agentreflex judge2 ...``: the package's commands (entry point ``agentreflex.commands``).

- ``calibrate FILE [--png PATH | --no-plot] [--bins N] [--threshold T ...] [--json]``
- ``questions [BATTERY]``: print the batteries as the wire sees them (JSON).

Errors are one line on stderr and exit code 2; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from agentreflex.core.config.settings import DEFAULT_THRESHOLDS

_DEFAULT_THRESHOLDS = sorted(set(DEFAULT_THRESHOLDS.values()) - {0.2, 0.3})


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agentreflex judge2", description="The calibrated judge.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    cal = sub.add_parser(
        "calibrate", help="Brier, ECE and a reliability diagram from labelled JSONL"
    )
    cal.add_argument("file")
    cal.add_argument("--png", help="where to save the diagram (default: FILE.reliability.png)")
    cal.add_argument("--no-plot", action="store_true", help="metrics only")
    cal.add_argument("--bins", type=int, default=10)
    cal.add_argument("--threshold", type=float, action="append", dest="thresholds")
    cal.add_argument("--json", action="store_true", help="print the report as JSON")
    cal.add_argument(
        "--backend",
        choices=("builtin", "jev"),
        help="FILE is labelled rows (tools/judge2_labelled_real.py): ask this backend each row "
        "and report reliability per family (builtin: the heuristic engine laya serves, in "
        "process; jev: JEV_BASE_URL with JEV_API_KEY, a laya server or the hosted API)",
    )
    cal.add_argument("--split", choices=("heldout", "fit", "all"), default="heldout")
    cal.add_argument(
        "--calibration", default="auto", help="auto (the shipped map), off, or a map file"
    )
    cal.add_argument("--boot", type=int, default=1000, help="bootstrap resamples")
    q = sub.add_parser("questions", help="print the question batteries as JSON")
    q.add_argument("battery", nargs="?")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
        if args.command == "calibrate":
            return _calibrate(args)
        return _questions(args.battery)
    except _UsageError as exc:
        print(f"agentreflex judge2: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # one clear line, never a traceback
        print(f"agentreflex judge2: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


def _calibrate(args: argparse.Namespace) -> int:
    from agentreflex.judge2 import calibrate as cal

    if not 1 <= args.bins <= 100:
        raise _UsageError("--bins must be between 1 and 100")
    thresholds = args.thresholds or _DEFAULT_THRESHOLDS
    if any(not 0.0 <= t <= 1.0 for t in thresholds):
        raise _UsageError("--threshold values must be between 0 and 1")
    if args.backend:
        return _calibrate_backend(args)
    try:
        with open(args.file, encoding="utf-8") as fh:
            samples = cal.read_samples(fh)
    except OSError as exc:
        raise _UsageError(f"cannot read {args.file}: {exc.strerror}") from None
    except (cal.CalibrationInputError, UnicodeDecodeError) as exc:
        raise _UsageError(f"{args.file}: {exc}") from None
    report = cal.evaluate(samples, args.bins, thresholds)
    png = (
        None if args.no_plot else (args.png or os.path.splitext(args.file)[0] + ".reliability.png")
    )
    if png:
        cal.plot_reliability(report, png, title=f"Reliability: {os.path.basename(args.file)}")
    if args.json:
        out = report.to_json()
        out["png"] = png
        print(json.dumps(out, indent=2))
    else:
        print(cal.format_report(report))
        if png:
            print(f"\nreliability diagram: {png}")
    return 0


def _calibrate_backend(args: argparse.Namespace) -> int:
    """Reliability per question family of a backend on labelled rows."""
    from agentreflex.core.config.settings import load_config
    from agentreflex.judge2 import heldout
    from agentreflex.judge2.calibmap import map_for

    if not 10 <= args.boot <= 100_000:
        raise _UsageError("--boot must be between 10 and 100000")
    try:
        with open(args.file, encoding="utf-8") as fh:
            rows = heldout.read_rows(fh)
    except OSError as exc:
        raise _UsageError(f"cannot read {args.file}: {exc.strerror}") from None
    except (heldout.LabelledRowError, UnicodeDecodeError) as exc:
        raise _UsageError(f"{args.file}: {exc}") from None
    config = load_config()
    backend = _backend(args.backend, config)
    scored = heldout.score(rows, backend)
    cmap = map_for(backend.model, args.calibration)
    if cmap is not None:
        scored = [
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
    reports = heldout.reports(scored, config.thresholds, args.split, n_boot=args.boot)
    mapped = "through its calibration map" if cmap else "raw (no calibration map)"
    print(f"backend {args.backend} (model {backend.model}), {args.split} rows, {mapped}\n")
    print(heldout.format_reports(reports))
    return 0


def _backend(name: str, config: Any) -> Any:
    if name == "builtin":
        from agentreflex.core.systemone.heuristic.engine import MODEL_ID
        from agentreflex.judge2.offline import OfflineBackend

        return OfflineBackend(MODEL_ID)
    from agentreflex.judge2.jev import JevBackend

    j = config.judge
    return JevBackend(j.base_url, j.model, j.request_key, timeout_ms=10_000, retries=2)


def _questions(name: str | None) -> int:
    from agentreflex.judge2.questions import BATTERIES, battery

    try:
        data = {name: battery(name)} if name else BATTERIES
    except KeyError as exc:
        raise _UsageError(str(exc.args[0])) from None
    print(json.dumps(data, indent=2))
    return 0
