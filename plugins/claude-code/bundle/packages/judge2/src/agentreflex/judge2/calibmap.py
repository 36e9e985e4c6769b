"""Calibration maps: a backend's raw probability turned into the rate seen on real data.

A map is data, fitted by ``tools/judge2_calibration.py`` (isotonic regression on
the fitting part of the real-source labelled set) and stored as JSON under
``calibration/<model>.json``.  Here it is only read and applied: a monotone,
piecewise-linear curve per question id (``x`` raw probabilities, ``y`` the
fitted rates), clamped at the ends.  No fitting library is imported here, so
applying a map on the hook path costs a JSON read and a few comparisons.

Each signal also says whether the judge may BLOCK on it alone: ``may_block``
is true only when the held-out precision at the configured block threshold
was at least 0.9 (the fitting tool decides, the held-out part only measures).
"""

from __future__ import annotations

import json
import os
import re
from bisect import bisect_right

from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calibration")
PRECISION_BAR = 0.9  # a judge-only BLOCK needs at least this held-out precision


class CalibrationMapError(ValueError):
    """A map file is missing fields or is not monotone.  The message names the file and field."""


@record(frozen=True)
class SignalMap:
    """One question's curve: ``x`` ascending raw probabilities, ``y`` non-decreasing rates."""

    x: tuple[float, ...]
    y: tuple[float, ...]
    may_block: bool = False

    def __call__(self, p: float) -> float:
        xs, ys = self.x, self.y
        if p <= xs[0]:
            return ys[0]
        if p >= xs[-1]:
            return ys[-1]
        i = bisect_right(xs, p)
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        return y0 if x1 == x0 else y0 + (y1 - y0) * (p - x0) / (x1 - x0)


@record(frozen=True)
class CalibrationMap:
    model: str
    signals: dict[str, SignalMap]

    def apply(self, probabilities: Mapping[str, float]) -> dict[str, float]:
        """Mapped probabilities; a question with no curve passes through unchanged."""
        out = {}
        for qid, p in probabilities.items():
            curve = self.signals.get(qid)
            out[qid] = round(curve(p), 4) if curve is not None else p
        return out

    def may_block(self) -> frozenset[str]:
        return frozenset(q for q, m in self.signals.items() if m.may_block)


def load_map(path: str) -> CalibrationMap:
    """Read and check a map file; any defect raises :class:`CalibrationMapError`."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise CalibrationMapError(f"{path}: {type(exc).__name__}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("signals"), dict):
        raise CalibrationMapError(f"{path}: needs an object with 'model' and 'signals'")
    signals = {qid: _signal(path, qid, spec) for qid, spec in data["signals"].items()}
    return CalibrationMap(model=str(data.get("model", "")), signals=signals)


def _signal(path: str, qid: str, spec: object) -> SignalMap:
    where = f"{path}: signals.{qid}"
    if not isinstance(spec, dict):
        raise CalibrationMapError(f"{where}: not an object")
    xs, ys = spec.get("x"), spec.get("y")
    if not isinstance(xs, list) or not isinstance(ys, list) or len(xs) != len(ys) or not xs:
        raise CalibrationMapError(f"{where}: 'x' and 'y' must be lists of the same length")
    try:
        x = tuple(float(v) for v in xs)
        y = tuple(float(v) for v in ys)
    except (TypeError, ValueError):
        raise CalibrationMapError(f"{where}: 'x' and 'y' must hold numbers") from None
    if any(not 0.0 <= v <= 1.0 for v in (*x, *y)):
        raise CalibrationMapError(f"{where}: values must lie in [0, 1]")
    if _descends(x) or _descends(y):
        raise CalibrationMapError(f"{where}: 'x' and 'y' must be non-decreasing")
    return SignalMap(x=x, y=y, may_block=spec.get("may_block") is True)


def _descends(values: tuple[float, ...]) -> bool:
    return any(values[i + 1] < values[i] for i in range(len(values) - 1))


def map_file(model: str, directory: str = DATA_DIR) -> str:
    """Where the shipped map for ``model`` lives (the id made safe as a file name)."""
    return os.path.join(directory, re.sub(r"[^A-Za-z0-9_.-]", "_", model) + ".json")


_LOADED: dict[str, CalibrationMap | None] = {}


def map_for(model: str, setting: str = "auto") -> CalibrationMap | None:
    """The map judge2 applies for answers from ``model``.

    ``setting`` is ``[judge2] calibration``: ``auto`` (the shipped map for this
    model, if any), ``off`` (none), or the path of a map file.  A broken
    shipped or configured map counts as none: the judge's answer is then used
    as it came, and with no map nothing it says can BLOCK alone.
    """
    if setting == "off" or not model:
        return None
    path = map_file(model) if setting == "auto" else setting
    if path not in _LOADED:
        try:
            _LOADED[path] = load_map(path) if os.path.exists(path) else None
        except CalibrationMapError:
            _LOADED[path] = None
    return _LOADED[path]
