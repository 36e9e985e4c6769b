"""The Jev HTTP backend against a real local aiohttp server playing Jev."""

from __future__ import annotations

import math
import re
import time
from typing import Any

from agentreflex.core.reflex import JudgeAnswer, ReflexContext
from agentreflex.core.state.model import SessionState
from agentreflex.core.systemone import signals as s
from agentreflex.core.testing import make_config, make_context, pre_tool, stop
from agentreflex.judge2.fallback import fallback_signals
from agentreflex.judge2.jev import JevBackend, endpoint, retry_after_seconds
from agentreflex.judge2.judge import Judge2
from agentreflex.judge2.settings import Judge2Settings

KEY = "sk-test-0123456789abcdefABCDEF"


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def backend(
    jev: Any, key: str = KEY, timeout_ms: int = 5000, retries: int = 2, sleeps: Sleeps | None = None
) -> JevBackend:
    return JevBackend(
        jev.base_url,
        "jev-latest",
        key,
        timeout_ms,
        retries,
        sleep=sleeps if sleeps is not None else Sleeps(),
    )


def ask(
    be: JevBackend,
    state: SessionState | None = None,
    battery: str = s.PRE_TOOL,
    state_dir: str | None = None,
    cache: bool = False,
) -> tuple[JudgeAnswer, ReflexContext]:
    event = (
        stop("Fixed the parser. All tests pass.")
        if battery == s.COMPLETION
        else pre_tool("Bash", {"command": "make test"})
    )
    judge = Judge2(be, Judge2Settings(cache=cache))
    ctx = make_context(event, state=state, config=make_config(), judge=judge, state_dir=state_dir)
    answer = ctx.judge_answer(battery)
    assert answer is not None
    return answer, ctx


def test_wire_format_and_bearer_auth(jev: Any) -> None:
    answer, _ = ask(backend(jev), SessionState(goal="make the build green"))
    assert not answer.degraded
    assert answer.backend == "jev"
    assert answer.probabilities == dict.fromkeys(s.BATTERIES[s.PRE_TOOL], 0.42)
    [req] = jev.requests
    assert req["path"] == "/v1/systemone"
    assert req["headers"]["Authorization"] == f"Bearer {KEY}"
    assert req["headers"]["Content-Type"] == "application/json"
    body = req["body"]
    assert body["model"] == "jev-latest"
    assert list(body["questions"]) == list(s.BATTERIES[s.PRE_TOOL])
    assert all(q["type"] == "noul" and q["criteria"]["true"] for q in body["questions"].values())
    assert "GOAL: make the build green" in body["state"]
    assert "PROPOSED ACTION: Bash (shell): make test" in body["state"]


def test_completion_battery_adds_claim_choice_questions(jev: Any) -> None:
    answer, _ = ask(backend(jev), battery=s.COMPLETION)
    questions = jev.requests[0]["body"]["questions"]
    assert list(questions)[:5] == list(s.BATTERIES[s.COMPLETION])
    assert questions["claim_1"]["type"] == "choice"
    assert set(questions["claim_1"]["criteria"]) == {"supported", "contradicted", "insufficient"}
    assert set(answer.choices["claim_1"]) == {"supported", "contradicted", "insufficient"}


def test_secrets_never_reach_the_wire(jev: Any) -> None:
    secret = "AKIAABCDEFGHIJKLMNOP"
    state = SessionState(goal=f"rotate the key {secret}", evidence=[f"export TOKEN={secret}"])
    ask(backend(jev), state)
    assert secret not in jev.requests[0]["raw"]


def test_retries_5xx_with_backoff_then_succeeds(jev: Any) -> None:
    jev.then(jev.reply(status=503, text="busy"), jev.reply(status=529, text="overloaded"))
    sleeps = Sleeps()
    answer, _ = ask(backend(jev, sleeps=sleeps))
    assert not answer.degraded
    assert len(jev.requests) == 3
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0] > 0


def test_retry_after_is_honoured(jev: Any) -> None:
    jev.then(jev.reply(status=429, text="slow down", headers={"Retry-After": "2"}))
    sleeps = Sleeps()
    answer, _ = ask(backend(jev, sleeps=sleeps))
    assert not answer.degraded
    assert sleeps == [2.0]
    assert len(jev.requests) == 2


def test_retry_after_beyond_the_budget_fails_open_at_once(jev: Any) -> None:
    jev.then(jev.reply(status=429, text="slow down", headers={"Retry-After": "120"}))
    sleeps = Sleeps()
    answer, ctx = ask(backend(jev, sleeps=sleeps, timeout_ms=3000))
    assert answer.degraded
    assert "no time left" in answer.error
    assert sleeps == [] and len(jev.requests) == 1
    assert answer.probabilities == fallback_signals(s.PRE_TOOL)
    assert any("429" in d for d in ctx.degraded)


def test_retries_are_bounded(jev: Any) -> None:
    jev.then(*[jev.reply(status=500, text="boom") for _ in range(5)])
    answer, _ = ask(backend(jev, retries=2))
    assert answer.degraded
    assert "HTTP 500" in answer.error and "after 3 attempts" in answer.error
    assert len(jev.requests) == 3


def test_408_is_retried(jev: Any) -> None:
    jev.then(jev.reply(status=408, text="timeout"))
    answer, _ = ask(backend(jev))
    assert not answer.degraded and len(jev.requests) == 2


def test_timeout_fails_open(jev: Any) -> None:
    jev.then(jev.reply(delay=1.0))
    answer, _ = ask(backend(jev, timeout_ms=150))
    assert answer.degraded
    assert "timed out after 150 ms" in answer.error, answer.error
    assert answer.probabilities == fallback_signals(s.PRE_TOOL)


def test_the_call_gets_no_more_than_the_reflexes_have_left(jev: Any) -> None:
    """Asked with 0.3 s left of the hook's time for the reflexes (runtime.FLOOR_HARD_LIMIT),
    the judge waits no longer than that, whatever its own timeout: on the daemon's threads
    nothing else would stop it."""
    from agentreflex.core.util import deadline

    jev.then(jev.reply(delay=3.0))
    before = deadline.start(0.3)
    started = time.monotonic()
    try:
        answer, _ = ask(backend(jev, timeout_ms=5000))
    finally:
        deadline.restore(before)
    assert answer.degraded and "timed out" in answer.error, answer
    assert time.monotonic() - started < 2


def test_a_timeout_cut_to_the_reflexes_time_says_the_time_given(jev: Any) -> None:
    """The error names the time the call had, not the configured timeout it never got:
    "timed out after 5000 ms" for a wait of 0.3 s had whoever read the log raise a timeout
    that was not the cause (rt74)."""
    from agentreflex.core.util import deadline

    jev.then(jev.reply(delay=3.0))
    before = deadline.start(0.3)
    try:
        answer, _ = ask(backend(jev, timeout_ms=5000))
    finally:
        deadline.restore(before)
    given = re.search(r"timed out after (\d+) ms", answer.error)
    assert given and 200 <= int(given[1]) <= 300, answer.error
    assert "5000 ms configured" in answer.error, answer.error  # and why it was less


def test_401_is_not_retried_and_never_echoes_the_key(jev: Any) -> None:
    jev.then(jev.reply(status=401, text=f"bad key {KEY}"))
    answer, _ = ask(backend(jev))
    assert answer.degraded
    assert len(jev.requests) == 1
    assert "HTTP 401" in answer.error and "JEV_API_KEY" in answer.error
    assert KEY not in answer.error


def test_422_is_not_retried_and_keeps_the_reason(jev: Any) -> None:
    jev.then(jev.reply(status=422, body={"detail": "questions.x: too many"}))
    answer, _ = ask(backend(jev))
    assert answer.degraded and len(jev.requests) == 1
    assert "HTTP 422" in answer.error and "too many" in answer.error


def test_malformed_answers_are_rejected(jev: Any) -> None:
    def out_of_range(body: dict[str, Any]) -> dict[str, Any]:
        data = jev.answer_all(body["questions"])
        data["answers"][s.DESTRUCTIVE]["noul"] = 1.5
        return data

    def missing(body: dict[str, Any]) -> dict[str, Any]:
        data = jev.answer_all(body["questions"])
        del data["answers"][s.GOAL_ALIGNMENT]
        return data

    def not_finite(body: dict[str, Any]) -> dict[str, Any]:
        data = jev.answer_all(body["questions"])
        data["answers"][s.SECRET_EXPOSURE]["noul"] = math.nan
        return data

    def wrong_type(body: dict[str, Any]) -> dict[str, Any]:
        data = jev.answer_all(body["questions"])
        data["answers"][s.REDUNDANT] = {"type": "score", "probabilities": {"0": 1.0}}
        return data

    cases = [
        (out_of_range, "outside [0, 1]"),
        (missing, "question not answered"),
        (not_finite, "not finite"),
        (wrong_type, "got 'score'"),
    ]
    for make, reason in cases:
        jev.then(jev.reply(body=make))
        answer, _ = ask(backend(jev))
        assert answer.degraded, reason
        assert "malformed answer" in answer.error and reason in answer.error
        assert answer.probabilities == fallback_signals(s.PRE_TOOL)
    assert len(jev.requests) == len(cases)  # malformed answers are not retried


def test_non_json_body_is_malformed(jev: Any) -> None:
    jev.then(jev.reply(text="<html>gateway</html>"))
    answer, _ = ask(backend(jev))
    assert answer.degraded and "not JSON" in answer.error


def test_cache_saves_the_second_call(jev: Any, tmp_path: Any) -> None:
    be = backend(jev)
    first, _ = ask(be, SessionState(goal="g1"), state_dir=str(tmp_path), cache=True)
    second, _ = ask(be, SessionState(goal="g1"), state_dir=str(tmp_path), cache=True)
    assert len(jev.requests) == 1
    assert second.backend == "jev (cached)"
    assert second.probabilities == first.probabilities
    ask(be, SessionState(goal="a different goal"), state_dir=str(tmp_path), cache=True)
    assert len(jev.requests) == 2
    assert list((tmp_path / "judge-cache").iterdir())


def test_degraded_answers_are_not_cached(jev: Any, tmp_path: Any) -> None:
    jev.then(jev.reply(status=400, text="nope"))
    be = backend(jev)
    bad, _ = ask(be, state_dir=str(tmp_path), cache=True)
    good, _ = ask(be, state_dir=str(tmp_path), cache=True)
    assert bad.degraded and not good.degraded
    assert good.backend == "jev"
    assert len(jev.requests) == 2


def test_loopback_server_needs_no_key(jev: Any) -> None:
    answer, _ = ask(backend(jev, key=""))
    assert not answer.degraded
    assert "Authorization" not in jev.requests[0]["headers"]


def test_remote_server_without_key_fails_open_without_a_request() -> None:
    be = JevBackend("https://api.example.invalid", "jev-latest", "", 1000, 2)
    answer, _ = ask(be)
    assert answer.degraded and "JEV_API_KEY is not set" in answer.error


def test_connection_refused_fails_open() -> None:
    be = JevBackend("http://127.0.0.1:9", "jev-latest", KEY, 2000, 1, sleep=Sleeps())
    answer, _ = ask(be)
    assert answer.degraded and "network error" in answer.error
    assert be.attempts == 2


def test_endpoint_and_retry_after_parsing() -> None:
    assert endpoint("https://api.typesafe.ai/") == "https://api.typesafe.ai/v1/systemone"
    assert endpoint("http://x/v1/systemone") == "http://x/v1/systemone"
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None


def test_repr_hides_the_key() -> None:
    assert KEY not in repr(JevBackend("https://x", "m", KEY))
