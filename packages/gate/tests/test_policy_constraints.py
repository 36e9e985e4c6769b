"""The pure policy engine and constraint extraction, on their own."""

from __future__ import annotations

import time

from agentreflex.gate import policy
from agentreflex.gate.analyze import analyse
from agentreflex.gate.check import DEFAULT_THRESHOLDS, check_command
from agentreflex.gate.model import ASK, CONSTRAINT, DESTRUCTIVE, SECRET, Cmd, Hit
from agentreflex.gate.rules import constraints
from agentreflex.gate.shell.paths import Where
from hypothesis import given, settings
from hypothesis import strategies as st

T = DEFAULT_THRESHOLDS
WHERE = Where(cwd="/home/user/project", project="/home/user/project", home="/home/user")


def _hit(category: str, p: float, rule: str = "R") -> Hit:
    return Hit(rule, category, p, "seg", "msg")


def test_thresholds_map_to_verdicts() -> None:
    assert policy.decide([], None, T) == []
    assert policy.decide([_hit(DESTRUCTIVE, 0.75)], None, T)[0].verdict == "BLOCK"
    assert policy.decide([_hit(DESTRUCTIVE, 0.74)], None, T)[0].verdict == "WARN"
    assert policy.decide([_hit(DESTRUCTIVE, 0.49)], None, T) == []
    assert policy.decide([_hit(SECRET, 0.7)], None, T)[0].title == "SECRET EXPOSURE REFLEX"
    assert policy.decide([_hit(CONSTRAINT, 0.69)], None, T) == []
    assert policy.decide([_hit(ASK, 1.0)], None, T)[0].verdict == "ASK_USER"


def test_judge_combines_by_max_and_judge_only_warnings() -> None:
    sig = policy.signals([_hit(DESTRUCTIVE, 0.9)], {"destructive_irreversible": 0.1})
    assert sig["destructive_irreversible"] == 0.9
    out = policy.decide(
        [], {"redundant_action": 0.9, "evidence_insufficient": 0.86, "goal_alignment": 0.1}, T
    )
    assert [p.code for p in out] == [
        "GATE-REDUNDANT",
        "GATE-EVIDENCE-INSUFFICIENT",
        "GATE-GOAL-ALIGNMENT",
    ]
    assert all(p.verdict == "WARN" for p in out)
    # malformed judge values are ignored, never crash
    assert policy.decide([], {"destructive_irreversible": 7.0}, T) == []


def test_messages_are_deterministic_and_say_what_to_do() -> None:
    a = check_command("git push -f", cwd=WHERE.cwd, home=WHERE.home)[1][0]
    b = check_command("git push -f", cwd=WHERE.cwd, home=WHERE.home)[1][0]
    assert a.message == b.message and "--force-with-lease" in a.message


def test_constraint_extraction() -> None:
    got = constraints.extract(
        "Fix it. Don't touch the migrations and never push to main. No new dependencies."
    )
    pairs = {(c["action"], c["target"]) for c in got}
    assert pairs == {("modify", "migrations"), ("push", "main"), ("add_dependency", "dependencies")}
    assert constraints.extract("This is not a constraint: it just works.") == []
    assert constraints.extract("") == []


def test_push_constraint_respects_target() -> None:
    noted = constraints.extract("Never push to main.")
    feature = Cmd(["git", "push", "origin", "feature"], "git push origin feature", WHERE.cwd)
    main = Cmd(["git", "push", "origin", "main"], "git push origin main", WHERE.cwd)
    assert constraints.check_command(noted, [feature], WHERE) == []
    assert constraints.check_command(noted, [main], WHERE)[0].rule == "GATE-CONSTRAINT"


def test_from_state_tolerates_odd_shapes() -> None:
    values = [{"action": "modify", "target": "tests"}, "junk", 3, [{"action": "push"}], None]
    got = constraints.from_state(values)
    assert [c["action"] for c in got] == ["modify", "push"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("rm -f/$(){}`'\"\\;|&<>~*.\nabcIFS=#!")), max_size=80))
def test_arbitrary_text_never_raises(text: str) -> None:
    out = analyse(text, WHERE, {"HOME": WHERE.home}, time.monotonic() + 0.5)
    for h in out.hits:
        assert h.category in (DESTRUCTIVE, SECRET, CONSTRAINT, ASK)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_constraint_extraction_never_raises(text: str) -> None:
    for c in constraints.extract(text):
        assert set(c) == {"action", "target", "text"}
