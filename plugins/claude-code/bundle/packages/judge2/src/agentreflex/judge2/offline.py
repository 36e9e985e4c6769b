"""The offline backend: core's heuristic engine, asked in process with no key and no network.

There is one heuristic System One engine (:mod:`agentreflex.core.systemone.heuristic`).
laya serves it over HTTP; this backend asks it directly with the same wire
request a server would get, so the offline judge and the local server give
the same numbers for the same state text.  The numbers are rules, not a
calibrated model: the runtime shows them and never acts on them
(``calibrated = False``), unless a calibration map for this backend is
configured (:mod:`agentreflex.judge2.calibmap`).

Stdlib only, and fast: it is what runs on every hook when no key is set.
"""

from __future__ import annotations

from agentreflex.core.systemone.heuristic.engine import BuiltinEngine
from agentreflex.core.systemone.wire import (
    ChoiceAnswer,
    NoulAnswer,
    ScoreAnswer,
    SystemOneResponse,
    Usage,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.systemone.wire import Answer, SystemOneRequest
    from agentreflex.judge2.backend import Subject


class OfflineBackend:
    """The heuristic engine in process.  ``model`` is reported as ``offline-heuristic``."""

    name = "offline"
    model = "offline-heuristic"
    cacheable = False
    calibrated = False

    def __init__(self, model: str = "offline-heuristic") -> None:
        # ``model`` is the id answers are reported under; the calibration tools pass the
        # engine's own id (``laya-builtin-1``), so the map laya's answers get is the one fitted.
        self.model = model
        self._engine = BuiltinEngine()

    def answer(self, request: SystemOneRequest, subject: Subject) -> SystemOneResponse:
        raw = self._engine.answer(request["state"], request["questions"])
        answers = {qid: to_answer(a) for qid, a in raw.items()}
        return SystemOneResponse(model=self.model, answers=answers, usage=Usage())


def to_answer(raw: dict[str, Any]) -> Answer:
    """The engine's wire-form dict as core's typed answer."""
    if raw["type"] == "noul":
        return NoulAnswer(noul=float(raw["noul"]))
    probs = {k: float(v) for k, v in raw["probabilities"].items()}
    if raw["type"] == "choice":
        return ChoiceAnswer(
            choice=str(raw["choice"]), probabilities=probs, confidence=float(raw["confidence"])
        )
    return ScoreAnswer(score=float(raw["score"]), probabilities=probs, confidence=raw["confidence"])
