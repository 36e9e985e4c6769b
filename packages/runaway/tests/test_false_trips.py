"""Normal work must not trip: the known false trips of today's loop guards.

Ralph's breakers counted an in-loop commit as "no progress" (#141), JSON text
containing "error" as an error (#2), and went blind in a non-git directory
(#340).  Progress here comes from the store's record of calls and outcomes,
never from ``git diff`` or words in the output.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentreflex.core.decision import Verdict
from runaway_testkit import Driver, runaway_findings

TEST = "uv run pytest tests/test_auth.py -q"
FAIL = "FAILED tests/test_auth.py::test_login - AssertionError: expected 200, got 401"


def edit(d: Driver, n: int) -> Verdict:
    before, _ = d.call(
        "Edit",
        {"file_path": "/proj/src/auth.py", "old_string": f"v{n}", "new_string": f"v{n + 1}"},
        ok=True,
        output="The file has been updated.",
    )
    return before.verdict


def assert_quiet(d: Driver, decisions: list[object]) -> None:
    for decision in decisions:
        assert not runaway_findings(decision), decision  # type: ignore[arg-type]


def test_edit_test_cycles_with_the_same_failing_test_never_trip(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    seen = []
    for n in range(6):
        seen.append(edit(d, n))
        seen.append(d.bash(TEST, ok=False, error=FAIL))
        seen.append(d.last)
    assert all(v is Verdict.ALLOW or getattr(v, "verdict", None) is Verdict.ALLOW for v in seen)
    assert_quiet(d, [x for x in seen if not isinstance(x, Verdict)])


def test_a_test_re_run_after_an_edit_goes_through(make_driver: Callable[..., Driver]) -> None:
    d = make_driver()
    d.bash(TEST, ok=False, error=FAIL)
    d.bash(TEST, ok=False, error=FAIL)
    assert edit(d, 1) is Verdict.ALLOW
    rerun = d.bash(TEST, ok=False, error=FAIL)
    assert rerun.verdict is Verdict.ALLOW
    assert not runaway_findings(rerun)


def test_a_commit_between_rounds_is_not_counted_as_no_progress(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    decisions = []
    for n in range(5):
        edit(d, n)
        decisions.append(d.bash(TEST, ok=True, output="5 passed in 0.3s"))
        decisions.append(d.bash(f'git commit -am "step {n}"', ok=True, output="[main 1a2b3c] step"))
        decisions.append(d.bash("git status --short", ok=True, output=""))
    assert_quiet(d, decisions)


def test_json_text_saying_error_in_a_successful_output_is_not_a_failure(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    body = '{"is_error": false, "error": null, "errors": [], "status": "error-free"}'
    decisions = []
    for _ in range(4):
        decisions.append(d.bash("curl -s localhost:8080/health", ok=True, output=body))
        decisions.append(d.last)
    assert_quiet(d, decisions)
    assert all(a.outcome == "success" for a in d.state().actions)


def test_progress_is_seen_in_a_directory_that_is_not_a_git_repository(
    make_driver: Callable[..., Driver],
    project: Path,
) -> None:
    assert not (project / ".git").exists()
    d = make_driver()
    decisions = []
    for n in range(4):
        decisions.append(d.bash(TEST, ok=True, output="5 passed"))
        edit(d, n)
    assert_quiet(d, decisions)


def test_reading_around_a_new_codebase_is_not_an_exploration_loop(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    decisions = []
    for n in range(10):
        before, after = d.call("Read", {"file_path": f"/proj/src/mod{n}.py"}, ok=True, output="x")
        decisions += [before, after]
    decisions.append(d.call("Grep", {"pattern": "def login", "path": "/proj"}, ok=True)[0])
    assert_quiet(d, decisions)


def test_a_flaky_failure_that_changes_is_not_an_exact_loop(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    d.bash(TEST, ok=False, error="E ConnectionResetError: peer reset")
    d.bash(TEST, ok=False, error="E TimeoutError: read timed out")
    third = d.bash(TEST, ok=False, error="E ConnectionResetError: peer reset")
    assert third.verdict is not Verdict.BLOCK
    # re-running an unchanged test a third time still earns a nudge, not a refusal
    assert [f.code for f in runaway_findings(third)] == ["RUNAWAY-LOOP-VERIFICATION"]
