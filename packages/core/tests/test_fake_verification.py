"""A test run counts as verification only if it really ran and its outcome is known (issue 22 item 7).

Real session stores on disk: the verdict the done reflexes read
(``counters.last_verification_ok`` and ``verifications``) comes from what the
runner printed as well as its exit status.
"""

from __future__ import annotations

from pathlib import Path

from agentreflex.core.state.store import SessionStore
from agentreflex.core.testing import post_tool, prompt


def _run(tmp_path: Path, command: str, ok: bool, output: str) -> SessionStore:
    store = SessionStore(str(tmp_path / "state"), "s1")
    store.record(prompt("fix it", session_id="s1"), None)
    event = post_tool("Bash", {"command": command}, ok, output, session_id="s1", tool_use_id="t1")
    store.record(event, None)
    return store


def _state(store: SessionStore):  # type: ignore[no-untyped-def]
    st, _ = SessionStore(store.state_dir, store.session_id).load()
    return st


def test_a_real_passing_run_is_verification(tmp_path: Path) -> None:
    st = _state(_run(tmp_path, "pytest -q", True, "===== 4 passed in 0.2s ====="))
    assert st.counters.last_verification_ok is True and len(st.verifications) == 1


def test_failures_piped_to_tail_are_not_a_pass(tmp_path: Path) -> None:
    out = "FAILED tests/test_x.py::test_y\n==== 1 failed, 3 passed in 0.4s ===="
    st = _state(_run(tmp_path, "pytest 2>&1 | tail -5", True, out))
    assert st.counters.last_verification_ok is False


def test_no_test_ran_is_no_evidence(tmp_path: Path) -> None:
    st = _state(_run(tmp_path, "pytest -k nothing", True, "collected 0 items\n== no tests ran =="))
    assert st.verifications == [] and st.counters.last_verification_ok is None


def test_masked_and_short_circuited_runs_are_no_evidence(tmp_path: Path) -> None:
    for n, command in enumerate(["pytest || true", "true || pytest", "pytest --co -q"]):
        st = _state(_run(tmp_path / str(n), command, True, "5 passed"))
        assert st.verifications == [], command


def test_a_failure_summary_counts_when_the_host_reports_no_exit_status(tmp_path: Path) -> None:
    """Codex reports no exit code: the runner's own "1 failed" is still a failed run."""
    st = _state(_run(tmp_path, "pytest -q", None, "F\n==== 1 failed in 0.1s ===="))  # type: ignore[arg-type]
    assert st.counters.last_verification_ok is False and len(st.verifications) == 1
    st = _state(_run(tmp_path / "b", "pytest -q", None, "==== 3 passed in 0.1s ===="))  # type: ignore[arg-type]
    assert st.verifications == []  # unknown is not a pass


def test_a_test_command_typed_into_a_running_process_is_no_evidence(tmp_path: Path) -> None:
    """Hermes' ``process`` and Codex's ``write_stdin`` type text into a process already
    running, which may be a REPL or ``cat`` that prints "5 passed" itself: the output is
    no test runner's own (red-team rt36: ``pytest -q`` typed in counted as a pass)."""
    for n, (host, tool, field) in enumerate(
        [("hermes", "process", "data"), ("codex", "write_stdin", "chars")]
    ):
        store = SessionStore(str(tmp_path / str(n)), "s1")
        store.record(prompt("fix it", session_id="s1"), None)
        args = {"action": "submit", "session_id": "p1", field: "pytest -q\n"}
        event = post_tool(
            tool, args, True, "==== 5 passed in 0.1s ====", session_id="s1", host=host
        )
        store.record(event, None)
        st = _state(store)
        assert st.verifications == [] and st.counters.last_verification_ok is None, host
    # the same words run as a command still count
    st = _state(_run(tmp_path / "c", "pytest -q", True, "==== 5 passed in 0.1s ===="))
    assert st.counters.last_verification_ok is True


def test_a_test_run_the_host_runs_in_the_background_is_no_evidence(tmp_path: Path) -> None:
    """Its result is that it started (Claude Code answers ``backgroundTaskId`` with empty
    output, Copilot CLI partial output): the tests may yet fail.  Red-team rt36: the
    agent started ``pytest -q`` in the background and stopped on a "pass"."""
    cases = [
        ("claude-code", "Bash", {"run_in_background": True}),
        ("gemini", "run_shell_command", {"is_background": True}),
        ("hermes", "terminal", {"background": True}),
        ("copilot", "bash", {"mode": "async", "initial_wait": 30}),
        ("copilot", "bash", {"detach": True}),
    ]
    for n, (host, tool, flags) in enumerate(cases):
        store = SessionStore(str(tmp_path / str(n)), "s1")
        store.record(prompt("fix it", session_id="s1"), None)
        args = {"command": "pytest -q", **flags}
        event = post_tool(tool, args, True, "", session_id="s1", host=host)
        store.record(event, None)
        st = _state(store)
        assert st.verifications == [] and st.counters.last_verification_ok is None, flags
    for n, flags in enumerate([{"run_in_background": False}, {"mode": "sync"}]):
        out = "==== 5 passed in 0.1s ===="
        store = SessionStore(str(tmp_path / f"fg{n}"), "s1")
        store.record(prompt("fix it", session_id="s1"), None)
        event = post_tool("Bash", {"command": "pytest -q", **flags}, True, out, session_id="s1")
        store.record(event, None)
        assert _state(store).counters.last_verification_ok is True, flags
