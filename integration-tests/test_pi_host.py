"""agentreflex inside the real pi (0.73.1 from npm), offline.

Each scenario installs the extension the user's way (``agentreflex install pi``:
a pi package, listed in ``settings.json``), then runs ``pi -p`` against the
scripted fake chat-completions model inside ``unshare -n``.  The scenarios are
shared with OpenCode (``hostharness/js_scenarios.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hostharness.claude import HostUnavailableError
from hostharness.fakemodel import Turn, say, tool
from hostharness.js_scenarios import (
    bash,
    guard_skipped,
    important,
    test_a_file_tool_is_judged_by_the_path_the_host_writes,
    test_contained_shell_holds_and_everyday_work_goes_on,
    test_destructive_blocked_benign_runs_and_context_reaches_the_model,
    test_do_not_modify_tests_blocks_a_test_edit_project_install,
    test_done_reflex_follow_up_reaches_the_model_once,
    test_fails_closed_when_agentreflex_is_missing,
    test_file_tools_cannot_write_what_the_boundary_keeps_read_only,
)
from hostharness.jshosts import JsHostProject, install_host

pytestmark = pytest.mark.integration

__all__ = [
    "test_a_file_tool_is_judged_by_the_path_the_host_writes",
    "test_contained_shell_holds_and_everyday_work_goes_on",
    "test_destructive_blocked_benign_runs_and_context_reaches_the_model",
    "test_do_not_modify_tests_blocks_a_test_edit_project_install",
    "test_done_reflex_follow_up_reaches_the_model_once",
    "test_fails_closed_when_agentreflex_is_missing",
    "test_file_tools_cannot_write_what_the_boundary_keeps_read_only",
]


@pytest.fixture(scope="session")
def pi_binary() -> Path:
    try:
        return install_host("pi")
    except HostUnavailableError as exc:
        pytest.fail(f"pi is not available, so the extension cannot be proven: {exc}")


@pytest.fixture
def js(tmp_path: Path, pi_binary: Path, agentreflex_script: Path) -> JsHostProject:
    project = JsHostProject(tmp_path, "pi", pi_binary)
    project.set_mode("enforced")
    return project


def test_no_extensions_flag_skips_it(js: JsHostProject) -> None:
    guard_skipped(js, "-ne")


def test_the_omp_package_field_loads_in_pi(js: JsHostProject) -> None:
    """What can be proven of omp without omp: its install (host ``omp``, the ``omp``
    manifest field) is a package pi itself loads and that blocks there."""
    js.agentreflex("install", "omp", "--user")
    folder = js.home / ".omp" / "agent" / "extensions" / "agentreflex"
    js.installed = True  # no pi install: the omp folder is loaded with -e
    target = important(js)
    run = js.run("clean up", [bash(js, f"rm -rf {target}"), say("Cleaned up.")], "-e", str(folder))
    assert (target / "keep.txt").exists(), run.describe()
    assert "GATE-RM-" in run.tool_messages()[0], run.describe()
    assert json.loads((folder / "agentreflex.json").read_text())["host"] == "omp"
    assert "omp" in json.loads((folder / "package.json").read_text())
    # agentreflex recorded the events under host omp
    logs = list((js.project / ".agentreflex" / "sessions").glob("*.jsonl"))
    events = [json.loads(line) for p in logs for line in p.read_text().splitlines()]
    assert events and {e["host"] for e in events} == {"omp"}, events[:2]


def test_pruning_shrinks_the_next_request(js: JsHostProject) -> None:
    """Two prompts in one session, the same long command in each: before the model sees
    the second run's output, the first run's (an earlier turn) is a one-line stub."""
    command = "seq 1 9000"
    script = [
        bash(js, command),
        say("Ran it once."),
        bash(js, command),
        say("Ran it again."),
    ]
    run = js.run_messages(["run the sequence", "run it again"], script)
    requests = [json.dumps(body) for body in run.main_requests]
    assert len(requests) == 4, run.describe()
    assert requests[1].count("\\n8999\\n") == 1, run.describe()  # first output, whole
    last = requests[3]
    assert last.count("\\n8999\\n") == 1, "the superseded output was not pruned"
    assert "superseded by a later run of `seq 1 9000`" in last, last[-2000:]
    assert len(last) < len(requests[1]) + 10_000, (len(last), len(requests[1]))


def test_the_session_recap_reaches_the_model_with_the_next_prompt(js: JsHostProject) -> None:
    """The context layer's recap (goal, the user's constraint in their words) rides on the
    next prompt: pi's extension message before the agent starts."""
    constraint = "Do not touch the public API in api.py."
    script = [say("Noted."), say("On it.")]
    run = js.run_messages([f"Fix the parser bug. {constraint}", "Now run the tests."], script)
    requests = [json.dumps(body) for body in run.main_requests]
    assert len(requests) == 2, run.describe()
    assert "agentreflex session recap" in requests[1], requests[1][-3000:]
    assert "agentreflex session recap" not in requests[0], run.describe()
    assert requests[1].count(constraint) >= 2, run.describe()  # the user's words, and the recap's


def test_a_path_pi_reads_past_its_at_sign_is_judged_as_pi_reads_it(js: JsHostProject) -> None:
    """pi's file tools drop a leading ``@`` from a path (``expandPath`` in its
    ``path-utils``: models write ``@file`` as in a prompt), then expand ``~/``; the hook
    judged ``@.git/hooks/pre-commit`` as a new folder named ``@.git`` in the project, and
    ``@~/.bashrc`` likewise, so pi's ``write`` (in its own process, outside the boundary)
    wrote a git hook, the project's Claude Code settings and a line in ``~/.bashrc``
    (red-team rt35)."""
    js.install()
    hook = js.project / ".git" / "hooks" / "pre-commit"
    settings = js.project / ".claude" / "settings.json"
    rc = js.home / ".bashrc"
    rc.write_text("# mine\n")
    script = [
        tool("write", path="@.git/hooks/pre-commit", content="#!/bin/sh\n./x\n"),
        tool("write", path="@.claude/settings.json", content="{}\n"),
        tool("write", path="@~/.bashrc", content="# mine\n./x\n"),
        say("Done."),
    ]
    run = js.run("tidy up", script)
    assert not hook.exists(), run.describe()
    assert not settings.exists(), run.describe()
    assert rc.read_text() == "# mine\n", run.describe()


def test_calls_pi_runs_together_are_judged_one_at_a_time(js: JsHostProject) -> None:
    """pi asks about every call of one reply, then runs them together: a ``bash fix.sh``
    beside the ``write`` of ``fix.sh`` was judged before the script existed, and the
    script broke "Do not modify tests" (red-team rt38).  Now the second call is refused
    until the first has run, and proposed again it is judged against what was written."""
    fixture = js.write("tests/fixtures.py", "VALUE = 4\n")
    script = "sed -i s/4/0/ tests/fixtures.py\n"
    write_and_run = Turn(
        tool="write",
        tool_input={"path": str(js.project / "fix.sh"), "content": script},
        also=(("bash", {"command": "bash fix.sh"}),),
    )
    turns = [write_and_run, tool("bash", command="bash fix.sh"), say("Done.")]
    run = js.run("Fix the bug in src/calc.py. Do not modify tests.", turns)
    assert fixture.read_text() == "VALUE = 4\n", run.describe()
    assert (js.project / "fix.sh").read_text() == script, run.describe()
    results = run.tool_messages()
    assert any("not run yet" in m for m in results), run.describe()
    assert any("GATE-CONSTRAINT" in m for m in results), run.describe()


def test_a_command_exiting_non_zero_is_a_failure_and_its_third_identical_attempt_refused(
    js: JsHostProject,
) -> None:
    """The same failing command three times: the third is a loop, in whatever shape the
    real host hands on a non-zero exit."""
    failing = f"{sys.executable} -c \"import sys; print('cannot reach registry'); sys.exit(3)\""
    turn = tool("bash", command=failing)
    run = js.run("install the dependencies", [turn, turn, turn, say("Stopped.")])
    results = run.tool_messages()  # distinct ones: the two identical failures are one
    assert len(results) == 2 and "cannot reach registry" in results[0], repr(results)[:3000]
    assert results[1].startswith("Loop:"), run.describe() + "\n" + repr(results)[:3000]
