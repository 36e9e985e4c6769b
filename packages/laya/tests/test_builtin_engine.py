"""The built-in engine: judge2's batteries answered from judge2's own state text."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from agentreflex.core.systemone import signals as s
from agentreflex.core.systemone.heuristic.engine import NOUL_RULES, BuiltinEngine
from agentreflex.core.systemone.heuristic.reader import read
from agentreflex.core.testing import pre_tool, stop
from agentreflex.judge2 import calibrate as cal
from agentreflex.judge2.done.claims import claim_question
from agentreflex.judge2.questions import battery
from agentreflex.judge2.statetext import build_state
from agentreflex.laya.models import SystemOneRequest

ROOT = Path(__file__).resolve().parents[3]
LABELLED = ROOT / "packages/laya/calibration/labelled.jsonl"


def tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ask(
    state: str, which: str, extra: dict[str, object] | None = None
) -> dict[str, dict[str, object]]:
    req = SystemOneRequest.model_validate(
        {"state": state, "questions": {**battery(which), **(extra or {})}}
    )
    return BuiltinEngine().answer(req.state, req.questions)


def test_every_battery_question_has_a_rule() -> None:
    for which in (s.PRE_TOOL, s.POST_TOOL, s.COMPLETION):
        assert set(battery(which)) <= set(NOUL_RULES)


def test_reader_recovers_judge2_state_text() -> None:
    from agentreflex.core.state.model import ActionRecord, SessionState

    st = SessionState(session_id="x", host="claude-code", goal="fix it")
    st.actions.append(
        ActionRecord(
            seq=3,
            ts=1.0,
            tool="Bash",
            kind="shell",
            summary="pytest -q",
            fingerprint="f",
            outcome="failure",
            error_signature="AssertionError",
            exit_code=1,
            verification=True,
        )
    )
    st.counters.last_verification_seq, st.counters.last_verification_ok = 3, False
    st.counters.last_mutation_seq = 2
    facts = read(build_state(st, pre_tool("Bash", {"command": "make"}), s.PRE_TOOL))
    assert facts.goal == "fix it"
    [action] = facts.actions
    assert (action.seq, action.ok, action.exit_code, action.test_run, action.error) == (
        3,
        False,
        1,
        True,
        "AssertionError",
    )
    assert (facts.last_change, facts.last_test, facts.last_test_verdict) == (2, 3, "failed")
    assert (facts.tool, facts.tool_kind, facts.target) == ("Bash", "shell", "make")


def test_text_in_another_layout_gets_cannot_tell_not_a_crash() -> None:
    answers = ask("just some words \x00 with no structure\n- item", s.COMPLETION)
    assert all(0.0 <= a["noul"] <= 1.0 for a in answers.values())  # type: ignore[operator]


def test_unknown_questions_get_uniform_honest_answers() -> None:
    extra = {
        "mystery": {"type": "noul", "instructions": "Is the moon made of cheese?"},
        "pick": {
            "type": "choice",
            "instructions": "Which?",
            "criteria": {"a": "", "b": "", "c": "", "d": ""},
        },
        "rate": {"type": "score", "instructions": "How?", "criteria": ["0", "1", "2", "3", "4"]},
    }
    answers = ask("GOAL: x", s.PRE_TOOL, extra)
    assert answers["mystery"] == {"type": "noul", "noul": 0.5}
    assert answers["pick"]["probabilities"] == {"a": 0.25, "b": 0.25, "c": 0.25, "d": 0.25}
    assert answers["rate"]["score"] == 2.0


def test_claim_questions_follow_the_test_record() -> None:
    from agentreflex.judge2.done.claims import extract_claims

    [claim] = extract_claims("All tests pass.")
    q = {"claim_1": claim_question(claim)}
    failing = "LAST FILE CHANGE: #1; LAST TEST RUN: #2 failed\nFINAL MESSAGE: All tests pass."
    passing = "LAST FILE CHANGE: #1; LAST TEST RUN: #2 passed\nFINAL MESSAGE: All tests pass."
    never = "LAST FILE CHANGE: #1; LAST TEST RUN: never\nFINAL MESSAGE: All tests pass."
    assert ask(failing, s.COMPLETION, q)["claim_1"]["choice"] == "contradicted"
    assert ask(passing, s.COMPLETION, q)["claim_1"]["choice"] == "supported"
    assert ask(never, s.COMPLETION, q)["claim_1"]["choice"] == "insufficient"


def test_deterministic() -> None:
    state = build_state(
        __import__("agentreflex.core.state.model", fromlist=["SessionState"]).SessionState(),
        stop("Fixed it, tests pass."),
        s.COMPLETION,
    )
    assert ask(state, s.COMPLETION) == ask(state, s.COMPLETION)


def test_labelled_set_is_what_the_generator_writes() -> None:
    rows = tool("laya_labelled_set").rows()
    on_disk = [json.loads(line) for line in LABELLED.read_text("utf-8").splitlines()]
    assert on_disk == rows  # regenerate with tools/laya_labelled_set.py
    assert len(rows) >= 150


def test_calibration_on_the_labelled_set_stays_at_the_readme_figures() -> None:
    scored = tool("laya_calibration").score(LABELLED)
    report = cal.evaluate(cal.read_samples(json.dumps(r) for r in scored), 10, [0.9])
    # The README reports Brier 0.082 and ECE 0.099 on 174 decisions; a change to the
    # rules that makes them worse must update the README (and this bound) on purpose.
    assert report.count == 174
    assert report.brier <= 0.083
    assert report.ece <= 0.100
    assert report.thresholds[0.9][1] == 1.0  # every "plainly yes" was right


def test_a_call_repeated_after_it_failed_is_seen_as_the_store_records_it() -> None:
    """The store summarises a call as ``Bash: <command>`` (core's ``summarize``); the
    proposal is read as its bare command.  The repeat rule must see them as one call."""
    from agentreflex.core.state.model import ActionRecord, SessionState
    from agentreflex.core.state.outcome import summarize

    event = pre_tool("Bash", {"command": "python3 scripts/migrate.py"})
    assert event.tool is not None
    st = SessionState(session_id="x", host="claude-code", goal="migrate")
    for seq in (1, 2):
        st.actions.append(
            ActionRecord(
                seq=seq,
                ts=float(seq),
                tool="Bash",
                kind="shell",
                summary=summarize(event.tool),
                fingerprint="f",
                outcome="failure",
                error_signature="KeyError",
                exit_code=1,
            )
        )
    answers = BuiltinEngine().answer(build_state(st, event, s.PRE_TOOL), battery(s.PRE_TOOL))
    assert answers[s.REPEATS_FAILED_APPROACH]["noul"] >= 0.9, answers[s.REPEATS_FAILED_APPROACH]
