"""Fuzzy loops: they WARN (never block), say what to do instead, and don't nag."""

from __future__ import annotations

from collections.abc import Callable

from agentreflex.core.decision import Verdict
from agentreflex.core.testing import stop
from agentreflex.runaway.fuzzy import loose_key
from runaway_testkit import Driver, codes, runaway_findings


def test_alternating_between_two_calls_warns_on_the_third_round(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    for _ in range(2):
        assert not codes(d.bash("cat build.log", output="building..."))
        assert not codes(d.bash("kubectl rollout status deploy/web", output="waiting"))
    assert not codes(d.bash("cat build.log", output="building..."))
    warned = d.bash("kubectl rollout status deploy/web", output="waiting")
    assert warned.verdict is Verdict.WARN
    assert "RUNAWAY-LOOP-ALTERNATION" in codes(warned)
    (finding,) = [f for f in runaway_findings(warned) if f.code == "RUNAWAY-LOOP-ALTERNATION"]
    assert "ask the user" in finding.message and finding.context == finding.message


def test_re_reading_the_same_log_between_failed_attempts_is_not_new_evidence(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    for _ in range(2):
        d.bash("cat build.log", output="building...")
        d.bash("make build", ok=False, error="make: *** [all] Error 2")
    d.bash("cat build.log", output="building...")
    blocked = d.bash("make build", ok=False, error="make: *** [all] Error 2")
    assert blocked.verdict is Verdict.BLOCK
    assert "RUNAWAY-LOOP-EXACT" in codes(blocked)


def test_trivially_different_arguments_of_a_failing_command_warn(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    d.bash(
        "curl --max-time 5 http://localhost:3000/api", ok=False, error="curl: (7) Failed to connect"
    )
    d.bash(
        "curl --max-time 10 'http://localhost:3000/api'",
        ok=False,
        error="curl: (7) Failed to connect",
    )
    warned = d.bash('curl "http://localhost:3000/api" --max-time 30', ok=False, error="x")
    assert "RUNAWAY-LOOP-NEAR-REPEAT" in codes(warned)
    assert warned.verdict is Verdict.WARN


def test_loose_key_ignores_case_quotes_numbers_and_order_only() -> None:
    assert loose_key("Bash: sleep 5 && curl 'x'") == loose_key('sleep 30 && curl "X"')
    assert loose_key("rm -rf build") != loose_key("rm -rf dist")


def test_a_long_run_of_reads_without_a_write_warns(make_driver: Callable[..., Driver]) -> None:
    d = make_driver(sections={"runaway": {"exploration_limit": 6}})
    for n in range(6):
        assert not codes(d.call("Read", {"file_path": f"/p/f{n}.py"}, ok=True, output="x")[0])
    warned = d.call("Grep", {"pattern": "TODO"}, ok=True)[0]
    assert codes(warned) == ["RUNAWAY-LOOP-EXPLORATION"]
    # a write ends the streak
    d.call("Write", {"file_path": "/p/notes.md", "content": "plan"}, ok=True, output="ok")
    assert not codes(d.call("Read", {"file_path": "/p/f0.py"}, ok=True)[0])


def test_re_running_passing_tests_with_no_change_warns(make_driver: Callable[..., Driver]) -> None:
    d = make_driver()
    assert not codes(d.bash("npm test", output="12 passing"))
    assert not codes(d.bash("npm test", output="12 passing"))
    warned = d.bash("npm test", output="12 passing")
    assert codes(warned) == ["RUNAWAY-LOOP-VERIFICATION"]
    assert warned.verdict is Verdict.WARN


def test_the_same_error_from_different_commands_warns_after_the_tool_ran(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    error = "ModuleNotFoundError: No module named 'yaml'"
    d.bash("python3 -c 'import yaml'", ok=False, error=error)
    d.bash("python -m app.main", ok=False, error=error)
    assert "RUNAWAY-LOOP-SAME-ERROR" not in codes(d.last)
    d.bash("uv run app", ok=False, error=f"Traceback:\n  File 'x.py', line 3\n{error}")
    assert "RUNAWAY-LOOP-SAME-ERROR" in codes(d.last)
    assert d.last is not None and d.last.verdict is Verdict.WARN


def test_identical_assistant_messages_warn(make_driver: Callable[..., Driver]) -> None:
    d = make_driver()
    for _ in range(3):
        d.run(stop(last_message="Let me try running the build again.", session_id="s1"))
    assert "RUNAWAY-LOOP-ECHO" in codes(d.bash("make build"))


def test_a_warning_is_not_repeated_on_every_call(make_driver: Callable[..., Driver]) -> None:
    d = make_driver()
    seen = []
    for _ in range(8):
        seen.append(codes(d.bash("npm test", output="12 passing")))
    assert sum("RUNAWAY-LOOP-VERIFICATION" in c for c in seen) == 1


def test_fuzzy_detectors_can_be_switched_off(make_driver: Callable[..., Driver]) -> None:
    d = make_driver(sections={"runaway": {"fuzzy": False}})
    for _ in range(4):
        assert not codes(d.bash("npm test", output="12 passing"))


def test_short_repeated_sign_offs_are_not_an_echo_loop(make_driver: Callable[..., Driver]) -> None:
    d = make_driver()
    for _ in range(3):
        d.run(stop(last_message="Done.", session_id="s1"))
    assert not codes(d.bash("make build"))
