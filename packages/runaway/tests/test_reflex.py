"""The reflex end to end through core's evaluate and store: judge, modes, failure modes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from agentreflex.core.decision import Verdict
from agentreflex.core.events import EventKind
from agentreflex.runaway import fuzzy, reflex
from agentreflex.runaway.reflex import RunawayReflex
from runaway_testkit import Driver, FixedJudge, codes, runaway_findings

CMD = "python3 tools/migrate.py --apply"
ERR = "Traceback (most recent call last):\nKeyError: 'user_id'"
LOOPY = {
    "pre_tool": {"repeats_failed_approach_without_new_evidence": 0.9, "expected_progress": 0.1}
}


def test_contract() -> None:
    r = RunawayReflex()
    assert r.name == "runaway" and r.floor is True
    assert r.events == {EventKind.PRE_TOOL, EventKind.POST_TOOL, EventKind.POST_TOOL_FAILURE}


def test_shadow_mode_logs_would_block_and_lets_the_call_run(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver(mode="shadow")
    d.bash(CMD, ok=False, error=ERR)
    d.bash(CMD, ok=False, error=ERR)
    third = d.bash(CMD, ok=False, error=ERR)
    assert third.verdict is Verdict.ALLOW
    assert third.label == "WOULD_BLOCK"
    assert "RUNAWAY-LOOP-EXACT" in codes(third)


def test_repeat_count_follows_the_seed_environment_variable(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver(env={"REFLEX_HARD_LOOP_REPEAT_COUNT": "4"})
    for _ in range(3):
        assert d.bash(CMD, ok=False, error=ERR).verdict is Verdict.ALLOW
    assert d.bash(CMD, ok=False, error=ERR).verdict is Verdict.BLOCK


def test_a_judge_that_is_down_or_wrong_cannot_disarm_the_floor(
    make_driver: Callable[..., Driver],
) -> None:
    calm = {
        "pre_tool": {"repeats_failed_approach_without_new_evidence": 0.0, "expected_progress": 1.0}
    }
    for judge in (FixedJudge({}, fail=True), FixedJudge(calm)):
        d = make_driver(judge=judge, session_id=f"s-{id(judge)}")
        d.bash(CMD, ok=False, error=ERR)
        d.bash(CMD, ok=False, error=ERR)
        assert d.bash(CMD, ok=False, error=ERR).verdict is Verdict.BLOCK


def test_the_floor_does_not_wait_for_the_judge_once_it_has_fired(
    make_driver: Callable[..., Driver],
) -> None:
    judge = FixedJudge({})
    d = make_driver(judge=judge)
    d.bash(CMD, ok=False, error=ERR)
    d.bash(CMD, ok=False, error=ERR)
    asked = judge.asked.count("pre_tool")
    d.bash(CMD, ok=False, error=ERR)
    assert judge.asked.count("pre_tool") == asked


def test_the_judge_alone_can_block_a_loop_the_floor_did_not_see(
    make_driver: Callable[..., Driver],
) -> None:
    trusted = frozenset({"repeats_failed_approach_without_new_evidence"})
    d = make_driver(judge=FixedJudge(LOOPY, may_block=trusted))
    decision = d.bash("make deploy")
    assert decision.verdict is Verdict.BLOCK
    assert codes(decision) == ["RUNAWAY-LOOP-JUDGED"]
    assert runaway_findings(decision)[0].threshold == 0.8


def test_a_judge_below_the_precision_bar_can_only_warn_of_a_loop(
    make_driver: Callable[..., Driver],
) -> None:
    # no held-out precision of 0.9 shown for the loop signal: the judge alone only WARNs
    d = make_driver(judge=FixedJudge(LOOPY))
    decision = d.bash("make deploy")
    assert codes(decision) == ["RUNAWAY-LOOP-JUDGED"]
    assert runaway_findings(decision)[0].verdict is Verdict.WARN


def test_a_degraded_judge_is_reported_and_allows(make_driver: Callable[..., Driver]) -> None:
    d = make_driver(judge=FixedJudge({}, fail=True))
    decision = d.bash("make deploy")
    assert decision.verdict is Verdict.ALLOW
    assert any("judge" in text for text in decision.degraded)


def test_a_broken_floor_fails_closed(
    make_driver: Callable[..., Driver],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_a: object) -> None:
        raise RuntimeError("state went missing")

    monkeypatch.setattr(reflex, "count_unresolved_repeats", broken)
    decision = make_driver().bash("ls")
    assert decision.verdict is Verdict.BLOCK
    assert decision.primary is not None and decision.primary.code == "CORE-FLOOR-ERROR"


def test_a_broken_heuristic_fails_open(
    make_driver: Callable[..., Driver],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_a: object) -> None:
        raise ValueError("bad pattern")

    monkeypatch.setattr(fuzzy, "alternation", broken)
    decision = make_driver().bash("ls")
    assert decision.verdict is Verdict.ALLOW
    assert any("runaway fuzzy loops" in text for text in decision.degraded)


def test_a_bad_config_value_is_reported_and_that_key_defaults(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver(
        sections={
            "runaway": {"alternation_cycles": "many", "bogus": 1},
            "budgets": {"warn_fraction": 3},
        }
    )
    decision = d.bash("ls")
    assert decision.verdict is Verdict.ALLOW
    text = " ".join(decision.degraded)
    assert "runaway.alternation_cycles" in text and "runaway.bogus" in text
    assert "budgets.warn_fraction" in text


def test_a_post_tool_event_without_a_tool_is_ignored(make_driver: Callable[..., Driver]) -> None:
    from agentreflex.core.events import Event

    d = make_driver()
    decision = d.run(Event(kind=EventKind.POST_TOOL, host="claude-code", session_id="s1"))
    assert decision.verdict is Verdict.ALLOW and not decision.degraded
