"""The judge: one request per hook, cached, fail-open, behind core's Judge protocol.

``make_judge(config)`` is the ``agentreflex.judges`` entry point.  It picks a
backend from the judge mode (seed 001): ``auto`` uses Jev when a key is set
and the offline heuristic otherwise, ``mock`` is always offline, ``jev``
always HTTP; a loopback base URL (a local laya server) needs no key, so
``auto`` uses it without one.  The key goes only where the user sent it
(``JudgeSettings.request_key`` in core);
``off`` installs no judge at all.

:meth:`Judge2.ask` builds the battery's questions (plus one choice question
per claim in the final message, for the completion battery), the redacted
state text, and asks the backend once.  Any failure becomes the battery's
permissive fallback signals with ``degraded=True`` and the reason, never an
exception.
"""

from __future__ import annotations

import os
import time

from agentreflex.core.reflex import JudgeAnswer
from agentreflex.core.systemone import signals as s
from agentreflex.core.systemone.wire import ChoiceAnswer, NoulAnswer, WireError, build_request
from agentreflex.judge2.backend import BackendError, Subject
from agentreflex.judge2.done.claims import claim_id, claim_question, extract_claims
from agentreflex.judge2.questions import battery as battery_questions
from agentreflex.judge2.settings import Judge2Settings, load_settings
from agentreflex.judge2.statetext import build_state

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.config.settings import Config
    from agentreflex.core.reflex import ReflexContext
    from agentreflex.core.systemone.wire import Question, SystemOneResponse
    from agentreflex.judge2.backend import Backend
    from agentreflex.judge2.cache import FileCache
    from agentreflex.judge2.done.claims import Claim


class Judge2:
    """Probabilities for a battery; never a decision."""

    name = "judge2"

    def __init__(self, backend: Backend, settings: Judge2Settings | None = None) -> None:
        self.backend = backend
        self.settings = settings or Judge2Settings()
        # The offline heuristic is seed 001's stand-in, not a calibrated model: reflexes
        # show its numbers but only a calibrated backend's may move a threshold.
        self.calibrated = bool(getattr(backend, "calibrated", True))

    def ask(self, battery: str, ctx: ReflexContext) -> JudgeAnswer:
        started = time.perf_counter()
        try:
            answer = self._ask(battery, ctx)
        except Exception as exc:  # the judge must never break a hook
            answer = degraded(battery, self.backend.name, f"{type(exc).__name__}: {exc}")
        answer.latency_ms = round((time.perf_counter() - started) * 1000.0, 3)
        return answer

    def _ask(self, battery: str, ctx: ReflexContext) -> JudgeAnswer:
        try:
            questions: dict[str, Question] = dict(battery_questions(battery))
        except KeyError as exc:
            return degraded(battery, self.backend.name, str(exc.args[0]))
        claims: list[Claim] = []
        if battery == s.COMPLETION:
            claims = extract_claims(ctx.event.last_message or ctx.state.last_message)
            questions.update({claim_id(i): claim_question(c) for i, c in enumerate(claims)})
        text = build_state(ctx.state, ctx.event, battery, self.settings.action_window)
        request = build_request(self.backend.model, text, questions)
        cache = self._cache(ctx)
        key = ""
        if cache is not None:
            from agentreflex.judge2.cache import cache_key

            key = cache_key(self.backend.model, text, questions)
            hit = cache.get(key)
            if hit is not None and set(s.BATTERIES[battery]) <= set(hit.probabilities):
                return self._answer(
                    hit.probabilities, f"{self.backend.name} (cached)", hit.choices, hit.model
                )
        try:
            response = self.backend.answer(request, Subject(battery, ctx.state, ctx.event, claims))
            probabilities, choices = split_answers(response)
        except (BackendError, WireError) as exc:
            return degraded(battery, self.backend.name, str(exc))
        if cache is not None:
            from agentreflex.judge2.cache import CachedAnswer

            cache.put(key, CachedAnswer(probabilities, choices, response.model))
        return self._answer(probabilities, self.backend.name, choices, response.model)

    def _answer(
        self,
        raw: dict[str, float],
        backend: str,
        choices: dict[str, dict[str, float]],
        model: str,
    ) -> JudgeAnswer:
        """The answer, through the answering model's calibration map when one is configured.

        Without a map the numbers are used as they came, and no signal may BLOCK on the
        judge alone (``may_block`` stays empty): that needs held-out precision of 0.9.
        """
        from agentreflex.judge2.calibmap import map_for

        cmap = map_for(model, self.settings.calibration)
        if cmap is None:
            return JudgeAnswer(raw, backend, choices=choices, calibrated=self.calibrated)
        return JudgeAnswer(
            cmap.apply(raw),
            backend,
            choices=choices,
            calibrated=self.calibrated,
            may_block=cmap.may_block(),
        )

    def _cache(self, ctx: ReflexContext) -> FileCache | None:
        if not (self.backend.cacheable and self.settings.cache and ctx.state_dir):
            return None
        # Imported here: the offline backend is not cached and should not pay for it.
        from agentreflex.judge2.cache import DIRNAME, FileCache

        return FileCache(
            os.path.join(ctx.state_dir, DIRNAME),
            ttl_s=self.settings.cache_ttl_s,
            max_entries=self.settings.cache_max_entries,
        )


def split_answers(
    response: SystemOneResponse,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Noul answers become probabilities; choice and score answers become distributions."""
    probabilities: dict[str, float] = {}
    choices: dict[str, dict[str, float]] = {}
    for qid, answer in response.answers.items():
        if isinstance(answer, NoulAnswer):
            probabilities[qid] = answer.noul
        elif isinstance(answer, ChoiceAnswer):
            choices[qid] = dict(answer.probabilities)
        else:
            choices[qid] = dict(answer.probabilities)
    return probabilities, choices


def degraded(battery: str, backend: str, reason: str) -> JudgeAnswer:
    """The permissive fallback answer, flagged so the decision and the log say so.

    ``fallback`` is imported here: a healthy judge never needs it.
    """
    from agentreflex.judge2.fallback import fallback_signals

    return JudgeAnswer(fallback_signals(battery), backend, degraded=True, error=reason[:300])


def select_backend(config: Config) -> Backend | None:
    """The backend the judge mode asks for; ``None`` for ``off``.

    Each backend's module is imported only when that backend is chosen.
    """
    j = config.judge
    if j.mode == "off":
        return None
    if j.offline:
        from agentreflex.judge2.offline import OfflineBackend

        return OfflineBackend()
    from agentreflex.judge2.jev import JevBackend

    # request_key: core's one rule for where the key may go (never to a URL
    # from an unapproved project config).
    return JevBackend(j.base_url, j.model, j.request_key, j.timeout_ms, j.retries)


def make_judge(config: Config) -> Judge2 | None:
    """Entry point ``agentreflex.judges: judge2``."""
    backend = select_backend(config)
    if backend is None:
        return None
    return Judge2(backend, load_settings(config))
