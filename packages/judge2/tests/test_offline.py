"""The offline heuristic backend: deterministic, complete, plausible, stdlib only."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from agentreflex.core.state.model import SessionState
from agentreflex.core.systemone import signals as s
from agentreflex.core.testing import make_context, post_tool, pre_tool, stop
from agentreflex.judge2.judge import Judge2
from agentreflex.judge2.offline import OfflineBackend


def probs(
    event: Any, state: SessionState | None = None, battery: str = s.PRE_TOOL
) -> dict[str, float]:
    ctx = make_context(event, state=state, judge=Judge2(OfflineBackend()))
    answer = ctx.judge_answer(battery)
    assert answer is not None and not answer.degraded
    assert answer.backend == "offline"
    return dict(answer.probabilities)


@pytest.mark.parametrize(
    ("battery", "event"),
    [
        (s.PRE_TOOL, pre_tool("Bash", {"command": "ls"})),
        (s.POST_TOOL, post_tool("Bash", {"command": "ls"}, ok=True, output="a b")),
        (s.COMPLETION, stop("Done.")),
    ],
)
def test_every_question_is_answered_with_a_probability(battery: str, event: Any) -> None:
    p = probs(event, battery=battery)
    assert list(p) == list(s.BATTERIES[battery])
    assert all(0.0 <= v <= 1.0 for v in p.values())
    assert probs(event, battery=battery) == p  # deterministic


def test_destructive_and_secret_commands_score_high() -> None:
    assert probs(pre_tool("Bash", {"command": "rm -rf build/"}))[s.DESTRUCTIVE] >= 0.75
    assert (
        probs(pre_tool("Bash", {"command": "git push --force origin main"}))[s.DESTRUCTIVE] >= 0.75
    )
    assert probs(pre_tool("Bash", {"command": "pytest -q"}))[s.DESTRUCTIVE] < 0.5
    assert probs(pre_tool("Bash", {"command": "cat .env"}))[s.SECRET_EXPOSURE] >= 0.7
    assert probs(pre_tool("Bash", {"command": "ls src"}))[s.SECRET_EXPOSURE] < 0.1


def test_constraint_on_tests_catches_an_edit_of_a_test_file(session: Any) -> None:
    state = session("fix login").constraint("do not modify tests").state
    edit = pre_tool(
        "Edit", {"file_path": "tests/test_login.py", "old_string": "a", "new_string": "b"}
    )
    assert probs(edit, state)[s.CONSTRAINT_VIOLATION] >= 0.7
    other = pre_tool("Edit", {"file_path": "src/login.py", "old_string": "a", "new_string": "b"})
    assert probs(other, state)[s.CONSTRAINT_VIOLATION] < 0.5


def test_repeating_a_failed_command_without_new_evidence(session: Any) -> None:
    builder = session().run("npm test", ok=False).run("npm test", ok=False)
    p = probs(pre_tool("Bash", {"command": "npm test"}), builder.state)
    assert p[s.REPEATS_FAILED_APPROACH] >= 0.8
    assert p[s.EXPECTED_PROGRESS] <= 0.3
    builder.edit("src/app.js")
    assert (
        probs(pre_tool("Bash", {"command": "npm test"}), builder.state)[s.REPEATS_FAILED_APPROACH]
        < 0.5
    )


def test_post_tool_reads_the_result() -> None:
    failed = post_tool(
        "Bash", {"command": "curl x"}, ok=False, error="curl: (6) Could not resolve host: x"
    )
    p = probs(failed, battery=s.POST_TOOL)
    assert p[s.OUTCOME_FAILED] >= 0.9 and p[s.HIT_BLOCKER] >= 0.75
    ok = probs(post_tool("Bash", {"command": "ls"}, ok=True, output="a"), battery=s.POST_TOOL)
    assert ok[s.OUTCOME_FAILED] <= 0.1


def test_completion_follows_the_record(session: Any) -> None:
    untested = probs(stop("Done."), session().edit("a.py").state, s.COMPLETION)
    assert untested[s.VERIFICATION_INSUFFICIENT] >= 0.7
    tested = probs(stop("Done."), session().edit("a.py").test(True).state, s.COMPLETION)
    assert tested[s.VERIFICATION_INSUFFICIENT] < 0.7 and tested[s.UNRESOLVED_FAILURE] < 0.7
    assert tested[s.GOAL_COMPLETED] > untested[s.GOAL_COMPLETED]


def test_claims_get_choice_answers(session: Any) -> None:
    state = session().edit("a.py").test(False).state
    ctx = make_context(stop("All tests pass."), state=state, judge=Judge2(OfflineBackend()))
    answer = ctx.judge_answer(s.COMPLETION)
    assert answer is not None
    dist = answer.choices["claim_1"]
    assert max(dist, key=lambda k: dist[k]) == "contradicted"


def test_hook_path_modules_import_only_the_standard_library() -> None:
    code = (
        "import sys\n"
        "import agentreflex.judge2.done.reflex, agentreflex.judge2.judge, agentreflex.judge2.offline\n"
        "from agentreflex.core.config.settings import load_config\n"
        "from agentreflex.judge2.judge import make_judge\n"
        "import os, tempfile\n"
        "env = {'HOME': tempfile.mkdtemp(), 'JEV_API_KEY': 'k'}\n"
        "make_judge(load_config(env['HOME'], env))\n"
        "heavy = [m for m in ('httpx', 'pydantic', 'aiohttp', 'matplotlib', 'numpy') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_done_reflex_loads_only_its_own_modules() -> None:
    # The judge, its backends and the wire are for a judge call, not for every stop.
    code = (
        "import sys\n"
        "import agentreflex.judge2.done.reflex\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('agentreflex.judge2'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [
        "agentreflex.judge2",
        "agentreflex.judge2.done",
        "agentreflex.judge2.done.claims",
        "agentreflex.judge2.done.evidence",
        "agentreflex.judge2.done.reflex",
        "agentreflex.judge2.plugin",  # the declaration: untested_ok's default lives there
        "agentreflex.judge2.redaction",  # a claim's sentence is redacted before it is cut
    ]


def test_completion_priors_keep_proportion(session: Any) -> None:
    """A docs-only edit needs no test run.  A question session's failed build is a failure
    left unresolved (the probability says so honestly); that such a session may still stop
    is the done reflex's decision (test_done.py)."""
    event = stop("The build still fails.")
    qa = session().run("npm run build", ok=False, exit_code=2).test(False).state
    assert probs(event, qa, s.COMPLETION)[s.UNRESOLVED_FAILURE] > 0.9
    probe = session().run("ls missing/", ok=False, exit_code=2).state
    assert probs(event, probe, s.COMPLETION)[s.UNRESOLVED_FAILURE] < 0.1  # a probe's answer
    docs = session().edit("README.md").state
    assert probs(event, docs, s.COMPLETION)[s.VERIFICATION_INSUFFICIENT] < 0.5
    code = session().edit("src/a.py").state
    assert probs(event, code, s.COMPLETION)[s.VERIFICATION_INSUFFICIENT] > 0.7
    broke = session().edit("src/a.py").run("npm run build", ok=False, exit_code=2).state
    assert probs(event, broke, s.COMPLETION)[s.UNRESOLVED_FAILURE] > 0.7
