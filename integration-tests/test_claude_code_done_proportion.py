"""Proportion at stop in the real Claude Code (issue 31).

A question-and-answer session whose one probe fails (a real failing pytest
run) changes nothing: the failure is the answer, and the stop is allowed.
The same failing run after an edit is the agent's unfinished work: held.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hostharness.claude import ClaudeProject
from hostharness.fakemodel import bash, say, tool

pytestmark = pytest.mark.integration

STOP_FEEDBACK = "Stop hook feedback"


def _failing_suite(project: ClaudeProject) -> str:
    project.write("src/__init__.py", "")
    project.write("src/calc.py", "def add(a, b):\n    return a - b\n")
    project.write(
        "tests/test_calc.py",
        "from src.calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n",
    )
    return f"{sys.executable} -m pytest -q -p no:cacheprovider tests"


def _feedback(run: object) -> list[str]:
    from hostharness.claude import message_text

    seen: list[str] = []
    for body in run.main_requests:  # type: ignore[attr-defined]
        for message in body.get("messages") or []:
            text = message_text(message)
            if message.get("role") == "user" and STOP_FEEDBACK in text and text not in seen:
                seen.append(text)
    return seen


@pytest.fixture
def enforced(claude_project: ClaudeProject) -> ClaudeProject:
    claude_project.set_mode("enforced")
    return claude_project


def test_a_question_with_a_failing_probe_may_stop(enforced: ClaudeProject) -> None:
    probe = _failing_suite(enforced)
    script = [
        bash(probe),
        say("The test fails because add() subtracts; I changed nothing, and it still fails."),
    ]
    run = enforced.run("why does test_add fail?", script)
    assert _feedback(run) == [], run.describe()
    assert len(run.main_requests) == 2, run.describe()


def test_the_same_failure_after_an_edit_is_held(enforced: ClaudeProject) -> None:
    probe = _failing_suite(enforced)
    script = [
        tool("Write", file_path=str(enforced.project / "src" / "extra.py"), content="X = 1\n"),
        bash(probe),
        say("Done."),
        say("Done, the test still fails."),
    ]
    run = enforced.run("add X", script)
    feedback = _feedback(run)
    assert len(feedback) == 1, run.describe()
    assert "failed" in feedback[0].lower(), feedback[0]


def test_a_perl_in_place_edit_with_no_test_run_is_held(enforced: ClaudeProject) -> None:
    """``perl -pi`` reads as harmless words; the work tree saw it change src/calc.py."""
    _failing_suite(enforced)
    git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "add", "-A"], cwd=enforced.project, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=enforced.project, check=True)
    script = [
        bash("perl -pi -e 's/a - b/a + b/' src/calc.py"),
        say("Fixed add()."),
        say("Fixed add(); I have not run the tests."),
    ]
    run = enforced.run("fix add", script)
    assert "a + b" in (enforced.project / "src" / "calc.py").read_text(), run.describe()
    feedback = _feedback(run)
    assert len(feedback) == 1, run.describe()
    assert "no test run" in feedback[0] and "calc.py" in feedback[0], feedback[0]
