"""The Reasoning Guard reads the rollout the real Codex CLI 0.169.0 writes, inside Codex.

Codex's hooks name the session but carry no reasoning text: the visible
reasoning summaries are only in the rollout file Codex writes under
``CODEX_HOME/sessions`` (``codex exec`` without ``--ephemeral``).  The fake
Responses model sends a ``reasoning`` item with a visible summary; Codex
records it, its Stop hook runs ``agentreflex``, and the guard must find the
rollout from the hook payload alone, take the summary, open an obligation and
record the finding at Stop, with the surface, model and effort Codex wrote.

Set ``AGENTREFLEX_RECORD_ROLLOUT=1`` to copy the recorded rollout over the
committed fixture (``packages/guard/tests/data/codex_0.169_rollout.jsonl``).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentreflex.guard.examples import EXAMPLE_DIRECTIVE
from hostharness.claude import HostUnavailableError, request_text
from hostharness.codex import CodexProject, install_codex
from hostharness.fakemodel import Turn

pytestmark = pytest.mark.integration

FIXTURE = (
    Path(__file__).resolve().parent.parent
    / "packages"
    / "guard"
    / "tests"
    / "data"
    / "codex_0.169_rollout.jsonl"
)
SUMMARY = (
    "**Investigating the retry failure**\n\n"
    "I'll run the retry test to check whether the timeout change causes the failure."
)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[CodexProject]:
    try:
        binary = install_codex()
    except HostUnavailableError as exc:
        pytest.fail(f"Codex is not available, so the guard cannot be proven in it: {exc}")
    world = CodexProject(tmp_path, binary)
    world.set_mode("enforced")
    out = world.install()
    assert "hooks trusted in" in out, out
    yield world
    world.cleanup()


def ledger(project: CodexProject) -> dict[str, Any]:
    path = project.project / ".agentreflex" / "local" / "codex_reasoning_guard.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_guard_reads_the_rollout_codex_writes(project: CodexProject) -> None:
    script = [
        Turn(tool="exec_command", tool_input={"cmd": "echo hi"}, reasoning=SUMMARY),
        Turn(text="Done: the retry failure is fixed.", reasoning="The command ran."),
    ]
    run = project.run(
        "fix the retry failure",
        script,
        "-c",
        'model_reasoning_effort="high"',
        ephemeral=False,
    )
    assert run.rc == 0, run.describe()
    rollouts = project.rollouts()
    assert len(rollouts) == 1, rollouts
    assert '"type":"summary_text"' in rollouts[0].read_text().replace(" ", "")

    data = ledger(project)
    [session] = [s for s in data["sessions"] if s["session"]["id"] == data["active_session"]]
    assert rollouts[0].name.endswith(session["session"]["id"] + ".jsonl")
    assert session["session"]["surface"] == "codex_cli"  # originator codex_exec
    assert session["session"]["model"] == "fake-model"
    assert session["session"]["effort"] == "high"
    assert session["coverage"]["observed"]["reasoning_summary"] is True
    assert session["reasoning_summary_ingestion"]["last_error"] == ""
    assert session["reasoning_summary_ingestion"]["processed"] == 2
    names = [o["name"] for o in session["obligations"]]
    assert any("retry test" in n for n in names), names
    codes = {f["code"] for f in session["findings"]}
    assert "RG-EVIDENCE-OPEN-001" in codes, codes
    assert "RG-COMPLETION-AHEAD-001" in codes, codes
    if os.environ.get("AGENTREFLEX_RECORD_ROLLOUT") == "1":
        shutil.copyfile(rollouts[0], FIXTURE)


def test_an_open_evidence_check_blocks_the_completion_claim_in_on_mode(
    project: CodexProject,
) -> None:
    """The model's own plan, in the rollout, says what evidence it owes; claiming done
    before producing it keeps the turn going with the guard's reason, once."""
    project.write(
        ".agentreflex/config.toml", 'mode = "enforced"\n\n[reasoning_guard]\nmode = "on"\n'
    )
    directive = "Evidence-Check: " + json.dumps(EXAMPLE_DIRECTIVE)
    script = [
        Turn(
            tool="exec_command",
            tool_input={"cmd": "echo switching"},
            reasoning=f"**Switching the adapter**\n\nI will confirm it afterwards.\n\n{directive}",
        ),
        Turn(text="Done: the selected adapter is active."),
        Turn(text="I have not checked the adapter status yet, so I cannot say it is active."),
    ]
    run = project.run("switch to the new adapter", script, ephemeral=False)
    assert run.rc == 0, run.describe()
    assert run.stderr.count("hook: Stop Blocked") == 1, run.describe()
    requests = run.main_requests
    assert len(requests) == 3, run.describe()  # the blocked stop made Codex ask again
    before, after = request_text(requests[1].get("input")), request_text(requests[2].get("input"))
    continuation = after[len(before) :]
    assert "Reasoning Guard: completion is claimed" in continuation, continuation
    assert "run adapter-status" in continuation, continuation
    assert run.stdout.strip().endswith("so I cannot say it is active."), run.describe()
