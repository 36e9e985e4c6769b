"""The contract between core and the reflex packages.

Core never imports a sibling package.  A reflex package registers a class
under the ``agentreflex.reflexes`` entry-point group; core instantiates it
once per process (the daemon keeps it warm) and calls :meth:`Reflex.evaluate`
for every event whose kind is in :attr:`Reflex.events`.

A judge package registers a factory under ``agentreflex.judges``.  Reflexes
never call it directly: they ask :meth:`ReflexContext.probabilities` for a
battery (``"pre_tool"``, ``"post_tool"``, ``"completion"``), which asks the
judge at most once per event and returns ``None`` when no judge is installed
or it is switched off.  Probabilities are inputs; the reflex's own pure policy
function decides.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from agentreflex.core.events import Event
from agentreflex.core.util.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.config.settings import Config
    from agentreflex.core.protocols import Judge as Judge
    from agentreflex.core.protocols import Reflex as Reflex
    from agentreflex.core.recap import Recap
    from agentreflex.core.state.model import SessionState


@record
class JudgeAnswer:
    """Probabilities for one battery, with how they were obtained.

    ``degraded`` is true when the backend failed and ``probabilities`` are the
    permissive fallback values: the decision and the log say so, and floors
    are never lowered by them.  ``calibrated`` is false for heuristic stand-ins
    (the offline backend): their numbers are shown, never acted on.
    """

    probabilities: dict[str, float]
    backend: str
    degraded: bool = False
    calibrated: bool = True
    error: str = ""
    latency_ms: float = 0.0
    choices: dict[str, dict[str, float]] = field(default_factory=dict)
    # Signals whose judge-only BLOCK was shown on held-out data to be right at least 90% of
    # the time (judge2's calibration map).  For any other signal the judge alone can only WARN.
    may_block: frozenset[str] = frozenset()


@record
class Note:
    """A fact a reflex wants folded into the session state (``state.notes[key]``).

    Used for things only a reflex package knows how to extract, for example
    the gate's "do not modify tests" constraints from a prompt, so that every
    later hook call (and the judge's state builder) sees them.
    """

    reflex: str
    key: str
    value: Any


@record
class ReflexContext:
    """Everything a reflex may look at for one event.

    ``state`` is the session as it was *before* this event; the runtime
    records the event (and the decision) after every reflex has answered.
    ``deadline`` is a ``time.monotonic()`` instant by which floors must
    answer.  ``state_dir`` is where a reflex may keep its own files; it is
    "" when no state may be written for this call (not a project, a
    working directory that does not exist): keep nothing then.
    """

    event: Event
    state: SessionState
    config: Config
    state_dir: str
    deadline: float
    judge_factory: Callable[[], Judge | None] | None = None
    judge_offline: bool = False  # the configured judge is the uncalibrated offline stand-in
    notes: list[Note] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)
    # set by the context layer: copied onto the decision (see Decision.recap)
    recap: Recap | None = None
    updated_output: Any = None
    _answers: dict[str, JudgeAnswer | None] = field(default_factory=dict)
    _judge: Judge | None = None
    _judge_loaded: bool = False

    def time_left(self) -> float:
        """Seconds until the floor deadline (never negative)."""
        return max(0.0, self.deadline - time.monotonic())

    def note(self, reflex: str, key: str, value: Any) -> None:
        """Ask the runtime to fold ``value`` into ``state.notes[key]``."""
        self.notes.append(Note(reflex, key, value))

    def judge_answer(self, battery: str) -> JudgeAnswer | None:
        """The judge's answer for ``battery``, asked at most once per event."""
        if battery in self._answers:
            return self._answers[battery]
        answer: JudgeAnswer | None = None
        judge = self._load_judge()
        if judge is not None:
            try:
                answer = judge.ask(battery, self)
            except Exception as exc:  # a judge must never wedge a hook
                answer = None
                self.degraded.append(f"judge {judge.name}: {type(exc).__name__}: {exc}")
            if answer is not None and answer.degraded:
                self.degraded.append(f"judge {answer.backend}: {answer.error or 'degraded'}")
        self._answers[battery] = answer
        return answer

    def probabilities(self, battery: str) -> Mapping[str, float] | None:
        """Calibrated probabilities for ``battery``, or ``None``.

        ``None`` without a judge, and for a judge that is not calibrated (a
        heuristic stand-in is not asked at all here: its guesses must not
        move a threshold, and asking costs time on the hot path).
        """
        if self.judge_offline:
            return None  # the heuristic stand-in: not calibrated, not worth importing
        judge = self._load_judge()
        if judge is None or not getattr(judge, "calibrated", True):
            return None
        answer = self.judge_answer(battery)
        return None if answer is None or not answer.calibrated else answer.probabilities

    def judge_may_block(self, battery: str) -> frozenset[str]:
        """Signals of ``battery`` the judge may BLOCK on alone (see ``JudgeAnswer.may_block``)."""
        answer = self._answers.get(battery)
        if answer is None or answer.degraded or not answer.calibrated:
            return frozenset()
        return answer.may_block

    def _load_judge(self) -> Judge | None:
        if not self._judge_loaded:
            self._judge_loaded = True
            if self.judge_factory is not None:
                try:
                    self._judge = self.judge_factory()
                except Exception as exc:
                    self.degraded.append(f"judge unavailable: {type(exc).__name__}: {exc}")
        return self._judge


def __getattr__(name: str) -> object:
    """``Reflex`` and ``Judge`` live in :mod:`agentreflex.core.protocols` (they need typing)."""
    if name in ("Reflex", "Judge"):
        from agentreflex.core import protocols

        return getattr(protocols, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
