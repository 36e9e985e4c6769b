"""Calibration audit: do the probabilities mean what they say?

Input is JSONL, one labelled decision per line: ``question`` (an id),
``state`` (optional, ignored by the metrics), ``probability`` (what the judge
said) and ``outcome`` (what turned out true: true/false or 1/0).  Output:

- Brier score, the mean squared gap between probability and outcome (0 is
  perfect, 0.25 is a coin flip on balanced data);
- expected calibration error (ECE) over equal-width bins, the average gap
  between each bin's mean probability and its observed frequency;
- for each threshold, how often the outcome was true among decisions at or
  above it, which is what a blocking threshold is betting on;
- a reliability diagram (PNG), drawn with matplotlib, imported only here.
"""

from __future__ import annotations

import json
import math

from agentreflex.core.util.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any


class CalibrationInputError(ValueError):
    """A line of the input is not a labelled decision.  The message names the line."""


@record(frozen=True)
class Sample:
    question: str
    probability: float
    outcome: bool


@record(frozen=True)
class Bin:
    low: float
    high: float
    count: int
    mean_probability: float
    frequency: float


@record
class Report:
    count: int
    base_rate: float
    brier: float
    ece: float
    bins: list[Bin]
    per_question: dict[str, tuple[int, float]] = field(default_factory=dict)
    thresholds: dict[float, tuple[int, float | None]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "base_rate": round(self.base_rate, 6),
            "brier": round(self.brier, 6),
            "ece": round(self.ece, 6),
            "bins": [
                {
                    "low": b.low,
                    "high": b.high,
                    "count": b.count,
                    "mean_probability": round(b.mean_probability, 6),
                    "frequency": round(b.frequency, 6),
                }
                for b in self.bins
            ],
            "per_question": {
                q: {"count": n, "brier": round(b, 6)} for q, (n, b) in self.per_question.items()
            },
            "thresholds": {
                f"{t:.2f}": {"count": n, "true_rate": None if r is None else round(r, 6)}
                for t, (n, r) in self.thresholds.items()
            },
        }


def read_samples(lines: Iterable[str]) -> list[Sample]:
    """Parse JSONL; blank lines are skipped, anything else malformed raises."""
    samples: list[Sample] = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            samples.append(_sample(number, line))
    if not samples:
        raise CalibrationInputError("no labelled decisions in the input")
    return samples


def _sample(number: int, line: str) -> Sample:
    where = f"line {number}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise CalibrationInputError(f"{where}: not JSON ({exc.msg})") from None
    if not isinstance(row, dict):
        raise CalibrationInputError(f"{where}: expected an object")
    p = row.get("probability")
    if (
        isinstance(p, bool)
        or not isinstance(p, int | float)
        or not math.isfinite(p)
        or not 0 <= p <= 1
    ):
        raise CalibrationInputError(f"{where}: probability {p!r} is not a number in [0, 1]")
    return Sample(str(row.get("question", "")), float(p), _outcome(where, row.get("outcome")))


def _outcome(where: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in (0, 1) and isinstance(value, int | float):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        return value.strip().lower() in ("true", "yes")
    raise CalibrationInputError(f"{where}: outcome {value!r} is not true/false or 1/0")


def brier(samples: Sequence[Sample]) -> float:
    return sum((s.probability - float(s.outcome)) ** 2 for s in samples) / len(samples)


def reliability_bins(samples: Sequence[Sample], n_bins: int = 10) -> list[Bin]:
    """Equal-width bins over [0, 1]; the last bin includes 1.0.  Empty bins are kept."""
    groups: list[list[Sample]] = [[] for _ in range(n_bins)]
    for sample in samples:
        groups[min(n_bins - 1, int(sample.probability * n_bins))].append(sample)
    out: list[Bin] = []
    for i, group in enumerate(groups):
        n = len(group)
        mean_p = sum(s.probability for s in group) / n if n else 0.0
        freq = sum(1 for s in group if s.outcome) / n if n else 0.0
        out.append(Bin(i / n_bins, (i + 1) / n_bins, n, mean_p, freq))
    return out


def ece(bins: Sequence[Bin]) -> float:
    total = sum(b.count for b in bins)
    if not total:
        return 0.0
    return sum(b.count / total * abs(b.mean_probability - b.frequency) for b in bins)


def evaluate(
    samples: Sequence[Sample], n_bins: int = 10, thresholds: Sequence[float] = ()
) -> Report:
    bins = reliability_bins(samples, n_bins)
    per_question: dict[str, tuple[int, float]] = {}
    for q in sorted({s.question for s in samples}):
        group = [s for s in samples if s.question == q]
        per_question[q] = (len(group), brier(group))
    at_or_above: dict[float, tuple[int, float | None]] = {}
    for t in thresholds:
        group = [s for s in samples if s.probability >= t]
        rate = sum(1 for s in group if s.outcome) / len(group) if group else None
        at_or_above[t] = (len(group), rate)
    return Report(
        count=len(samples),
        base_rate=sum(1 for s in samples if s.outcome) / len(samples),
        brier=brier(samples),
        ece=ece(bins),
        bins=bins,
        per_question=per_question,
        thresholds=at_or_above,
    )


def format_report(report: Report) -> str:
    lines = [
        f"decisions: {report.count}   base rate: {report.base_rate:.3f}",
        f"Brier score: {report.brier:.4f}   expected calibration error: {report.ece:.4f}",
        "",
        "bin          n   mean p   observed",
    ]
    for b in report.bins:
        if b.count:
            lines.append(
                f"{b.low:.1f}-{b.high:.1f}  {b.count:5d}   {b.mean_probability:.3f}    {b.frequency:.3f}"
            )
    if report.thresholds:
        lines += ["", "threshold   n at/above   observed true rate"]
        for t, (n, rate) in report.thresholds.items():
            shown = "-" if rate is None else f"{rate:.3f}"
            lines.append(f"{t:.2f}        {n:5d}        {shown}")
    if len(report.per_question) > 1:
        lines += ["", "question                                      n    Brier"]
        for q, (n, score) in report.per_question.items():
            lines.append(f"{q[:44]:<44} {n:5d}   {score:.4f}")
    return "\n".join(lines)


def plot_reliability(report: Report, path: str, title: str = "Reliability") -> None:
    """Save a reliability diagram: observed frequency per bin against mean probability."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(5, 6), gridspec_kw={"height_ratios": [3, 1]}, sharex=True
    )
    try:
        filled = [b for b in report.bins if b.count]
        top.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
        top.plot(
            [b.mean_probability for b in filled],
            [b.frequency for b in filled],
            marker="o",
            label=f"judge (ECE {report.ece:.3f}, Brier {report.brier:.3f})",
        )
        top.set_ylabel("observed frequency")
        top.set_xlim(0, 1)
        top.set_ylim(0, 1)
        top.set_title(title)
        top.legend(loc="upper left", fontsize=8)
        width = report.bins[0].high - report.bins[0].low if report.bins else 0.1
        bottom.bar(
            [b.low for b in report.bins], [b.count for b in report.bins], width=width, align="edge"
        )
        bottom.set_xlabel("predicted probability")
        bottom.set_ylabel("count")
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
