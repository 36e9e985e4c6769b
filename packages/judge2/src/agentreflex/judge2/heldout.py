"""Reliability per question family, measured on labelled rows a backend was not written from.

A labelled row is one JSON object: ``family`` (destructive, secret, constraint,
loop, completion), ``question`` (the signal id it labels), ``battery``,
``state`` (judge2's state text), ``outcome`` (true/false), ``source`` (where
the case comes from) and ``split`` (``fit`` or ``heldout``, decided once by
the tool that wrote the rows).  Each row is asked of a backend with its whole
battery, exactly as judge2 asks it on a hook; the labelled answer is kept,
raw and through the calibration map.

Per family: Brier score and ECE with bootstrap intervals (resampling rows,
seeded, so a run is repeatable), the reliability bins, and precision and recall
at the family's configured block threshold.  Standard library only.
"""

from __future__ import annotations

import json
import random

from agentreflex.core.systemone import signals as s
from agentreflex.core.util.record import record
from agentreflex.judge2 import calibrate as cal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

    from agentreflex.judge2.backend import Backend
    from agentreflex.judge2.calibmap import CalibrationMap

# family -> (the signal it labels, the threshold that makes that signal BLOCK)
FAMILIES: dict[str, tuple[str, str]] = {
    "destructive": (s.DESTRUCTIVE, "destructive_block"),
    "secret": (s.SECRET_EXPOSURE, "secret_exposure_block"),
    "constraint": (s.CONSTRAINT_VIOLATION, "constraint_violation_block"),
    "loop": (s.REPEATS_FAILED_APPROACH, "loop_probability_block"),
    "completion": (s.UNRESOLVED_FAILURE, "unresolved_failure_block"),
}
SPLITS = ("fit", "heldout")


class LabelledRowError(ValueError):
    """A row of the labelled file is malformed.  The message names the line and field."""


@record(frozen=True)
class Scored:
    family: str
    question: str
    raw: float
    mapped: float
    outcome: bool
    split: str


@record(frozen=True)
class Interval:
    value: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


@record(frozen=True)
class FamilyReport:
    family: str
    n: int
    positives: int
    brier: Interval
    ece: Interval
    bins: list[cal.Bin]
    threshold: float
    flagged: int
    precision: float | None
    recall: float | None


def read_rows(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The labelled rows; blank lines are skipped, anything else malformed raises."""
    rows = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            rows.append(_row(number, line))
    return rows


def _row(number: int, line: str) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except ValueError as exc:
        raise LabelledRowError(f"line {number}: not JSON ({exc})") from None
    if not isinstance(row, dict):
        raise LabelledRowError(f"line {number}: not an object")
    for key, kind in (("family", str), ("state", str), ("source", str), ("outcome", bool)):
        if not isinstance(row.get(key), kind):
            raise LabelledRowError(f"line {number}: '{key}' must be a {kind.__name__}")
    if row["family"] not in FAMILIES:
        raise LabelledRowError(f"line {number}: family {row['family']!r} is not one of {FAMILIES}")
    if row.get("split") not in SPLITS:
        raise LabelledRowError(f"line {number}: 'split' must be one of {SPLITS}")
    row.setdefault("question", FAMILIES[row["family"]][0])
    row.setdefault("battery", s.PRE_TOOL)
    return row


def score(
    rows: Sequence[dict[str, Any]], backend: Backend, cmap: CalibrationMap | None = None
) -> list[Scored]:
    """Ask ``backend`` each row's battery over its state text; keep the labelled answer."""
    from agentreflex.core.state.model import SessionState
    from agentreflex.core.systemone.wire import NoulAnswer, build_request
    from agentreflex.core.testing import stop
    from agentreflex.judge2.backend import Subject
    from agentreflex.judge2.questions import battery

    subject = Subject(s.PRE_TOOL, SessionState(), stop(""))  # the backends read the text only
    out = []
    for row in rows:
        request = build_request(backend.model, row["state"], battery(row["battery"]))
        answer = backend.answer(request, subject).answers.get(row["question"])
        raw = answer.noul if isinstance(answer, NoulAnswer) else 0.5
        mapped = cmap.apply({row["question"]: raw})[row["question"]] if cmap else raw
        out.append(
            Scored(row["family"], row["question"], raw, mapped, row["outcome"], row["split"])
        )
    return out


def family_report(
    family: str,
    samples: Sequence[tuple[float, bool]],
    threshold: float,
    n_bins: int = 10,
    n_boot: int = 1000,
    seed: int = 36,
) -> FamilyReport:
    """One family's figures; intervals are the 2.5th and 97.5th bootstrap percentiles."""
    as_samples = [cal.Sample(family, p, o) for p, o in samples]
    bins = cal.reliability_bins(as_samples, n_bins)
    flagged = [o for p, o in samples if p >= threshold]
    positives = sum(o for _, o in samples)
    return FamilyReport(
        family=family,
        n=len(samples),
        positives=positives,
        brier=_bootstrap(as_samples, cal.brier, n_boot, seed),
        ece=_bootstrap(
            as_samples, lambda xs: cal.ece(cal.reliability_bins(xs, n_bins)), n_boot, seed
        ),
        bins=bins,
        threshold=threshold,
        flagged=len(flagged),
        precision=sum(flagged) / len(flagged) if flagged else None,
        recall=sum(flagged) / positives if positives else None,
    )


def _bootstrap(samples: Sequence[cal.Sample], metric: Any, n_boot: int, seed: int) -> Interval:
    if not samples:
        return Interval(float("nan"), float("nan"), float("nan"))
    rng = random.Random(seed)
    n = len(samples)
    values = sorted(metric([samples[rng.randrange(n)] for _ in range(n)]) for _ in range(n_boot))
    return Interval(metric(samples), values[int(0.025 * n_boot)], values[int(0.975 * n_boot) - 1])


def reports(
    scored: Sequence[Scored],
    thresholds: dict[str, float],
    split: str = "heldout",
    mapped: bool = True,
    n_boot: int = 1000,
) -> list[FamilyReport]:
    """One report per family present in ``split`` (``all`` for every row)."""
    out = []
    for family, (_, key) in FAMILIES.items():
        rows = [r for r in scored if r.family == family and split in ("all", r.split)]
        if rows:
            pairs = [(r.mapped if mapped else r.raw, r.outcome) for r in rows]
            out.append(family_report(family, pairs, thresholds[key], n_boot=n_boot))
    return out


def format_reports(items: Sequence[FamilyReport]) -> str:
    """A plain table, then each family's reliability bins."""
    lines = [
        "| family | n | positives | Brier [95% CI] | ECE [95% CI] | threshold | flagged | precision | recall |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in items:
        lines.append(
            f"| {r.family} | {r.n} | {r.positives} | {r.brier} | {r.ece} | {r.threshold:.2f} "
            f"| {r.flagged} | {_pct(r.precision)} | {_pct(r.recall)} |"
        )
    for r in items:
        lines.append(f"\n{r.family}: bin, n, mean p, observed")
        for b in r.bins:
            if b.count:
                lines.append(
                    f"  {b.low:.1f}-{b.high:.1f}  {b.count:5d}  {b.mean_probability:.3f}"
                    f"  {b.frequency:.3f}"
                )
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
