"""countUnresolvedRepeats: what counts as an unresolved identical failure."""

from __future__ import annotations

from agentreflex.core.state.model import ActionRecord
from agentreflex.runaway.policy import floor_fires
from agentreflex.runaway.repeats import count_unresolved_repeats
from hypothesis import given
from hypothesis import strategies as st


def rec(
    seq: int,
    fp: str,
    outcome: str = "failure",
    sig: str = "E: boom",
    kind: str = "shell",
    mutation: bool = False,
) -> ActionRecord:
    return ActionRecord(
        seq=seq,
        ts=float(seq),
        tool="Bash",
        kind=kind,
        summary=f"Bash: {fp}",
        fingerprint=fp,
        outcome=outcome,
        error_signature=sig if outcome == "failure" else "",
        mutation=mutation,
    )


def test_identical_failures_count_until_the_nth_attempt_fires() -> None:
    actions = [rec(1, "A"), rec(2, "A")]
    repeats = count_unresolved_repeats(actions, "A")
    assert repeats.count == 2
    assert repeats.signature == "E: boom"
    assert floor_fires(repeats.count, 3)
    assert not floor_fires(1, 3)
    assert not floor_fires(2, 4)


def test_a_success_of_the_same_call_resolves_it() -> None:
    assert count_unresolved_repeats([rec(1, "A"), rec(2, "A", "success")], "A").count == 0
    assert (
        count_unresolved_repeats([rec(1, "A"), rec(2, "A", "success"), rec(3, "A")], "A").count == 1
    )


def test_a_different_error_restarts_the_count() -> None:
    actions = [rec(1, "A", sig="E: one"), rec(2, "A", sig="E: two")]
    assert count_unresolved_repeats(actions, "A").count == 1


def test_a_new_read_between_attempts_is_new_evidence_but_a_re_read_is_not() -> None:
    read = rec(2, "R", "success", kind="read")
    assert count_unresolved_repeats([rec(1, "A"), read, rec(3, "A")], "A").count == 1
    again = rec(4, "R", "success", kind="read")
    actions = [rec(1, "A"), read, rec(3, "A"), again, rec(5, "A")]
    # the first read justified attempt 3; re-reading the same file taught nothing new
    assert count_unresolved_repeats(actions, "A").count == 2


def test_a_file_change_is_new_evidence_but_rewriting_the_same_content_is_not() -> None:
    edit = rec(2, "W1", "success", kind="write", mutation=True)
    assert count_unresolved_repeats([rec(1, "A"), edit, rec(3, "A")], "A").count == 1
    same = rec(4, "W1", "success", kind="write", mutation=True)
    actions = [rec(1, "A"), edit, rec(3, "A"), same, rec(5, "A")]
    assert count_unresolved_repeats(actions, "A").count == 2


def test_another_command_failing_with_a_new_error_is_new_evidence() -> None:
    other = rec(2, "B", sig="E: other")
    assert count_unresolved_repeats([rec(1, "A"), other, rec(3, "A")], "A").count == 1
    # ...but the same known error from elsewhere teaches nothing
    known = rec(2, "B", sig="E: boom")
    assert count_unresolved_repeats([rec(1, "A"), known, rec(3, "A")], "A").count == 2


def test_blocked_pending_and_unknown_attempts_neither_count_nor_reset() -> None:
    actions = [
        rec(1, "A"),
        rec(2, "A", "blocked"),
        rec(3, "A", "unknown"),
        rec(4, "A", "pending"),
        rec(5, "A"),
    ]
    assert count_unresolved_repeats(actions, "A").count == 2


def test_other_fingerprints_never_count() -> None:
    assert count_unresolved_repeats([rec(1, "B"), rec(2, "B")], "A").count == 0
    assert count_unresolved_repeats([], "A").count == 0


outcomes = st.sampled_from(["success", "failure", "blocked", "unknown", "pending"])
fps = st.sampled_from(["A", "B", "C"])
sigs = st.sampled_from(["E: x", "E: y", ""])


@given(st.lists(st.tuples(fps, outcomes, sigs), max_size=30))
def test_count_is_bounded_by_failures_and_reset_by_anything_new(
    steps: list[tuple[str, str, str]],
) -> None:
    actions = [rec(i, fp, out, sig) for i, (fp, out, sig) in enumerate(steps, 1)]
    repeats = count_unresolved_repeats(actions, "A")
    failures = sum(1 for a in actions if a.fingerprint == "A" and a.outcome == "failure")
    assert 0 <= repeats.count <= failures
    fresh = rec(len(actions) + 1, "NEW", "success", kind="read")
    assert count_unresolved_repeats([*actions, fresh], "A").count == 0


def test_a_call_the_user_interrupted_is_not_a_failed_attempt() -> None:
    stopped = "Interrupted by user"
    actions = [rec(1, "A", sig=stopped), rec(2, "A", sig=stopped), rec(3, "A")]
    assert count_unresolved_repeats(actions, "A").count == 1
