"""The context layer inside the real Claude Code (2.1.328), driven offline by the harness.

* After ``/compact`` (SessionStart ``source: "compact"``), the next model request
  carries the user's constraint, in the recap and only there.
* A huge failing test output reaches the model shortened, with the failing
  assertion intact, through PostToolUse ``updatedToolOutput`` in Bash's own shape;
  past Claude's 30,000-character capture the saver reads the whole output from the
  file Claude itself persisted (``persistedOutputPath``), and the assertion leads
  the view because Claude shows the model only the first 2 KB of such an output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hostharness.claude import ClaudeProject, RunResult, message_text, request_text
from hostharness.fakemodel import bash, say

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "packages/context-layer/tests"))
from logs import pytest_log

pytestmark = pytest.mark.integration

CONSTRAINT = "Do not touch the public API in api.py."
ASSERTION = "E       assert 3 == 4"
RECAP = "agentreflex session recap"


def log_kinds(project: ClaudeProject) -> list[tuple[str, list[Any]]]:
    """(event kind, notes) of every record in the session log, in order."""
    found: list[tuple[str, list[Any]]] = []
    for path in sorted((project.state_dir / "sessions").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            found.append((rec["kind"], rec.get("notes", [])))
    return found


def test_the_constraint_survives_a_compaction(claude_project: ClaudeProject) -> None:
    first = claude_project.run(f"Fix the parser bug. {CONSTRAINT}", [say("Looking into it.")])
    assert first.rc == 0, first.describe()
    compact = claude_project.run(
        "/compact", [say("Summary: we looked at the parser.")], "--continue"
    )
    assert compact.rc == 0, compact.describe()
    after = claude_project.run("Now run the tests.", [say("Done.")], "--continue")
    assert after.rc == 0, after.describe()
    text = request_text(after.main_requests[0])
    assert RECAP in text, after.describe()
    # the constraint reaches the model inside the recap, and nowhere else
    paragraphs = [p for p in text.split("\n\n") if CONSTRAINT in p]
    assert paragraphs and all(RECAP in p for p in paragraphs), paragraphs
    # and it was put there by the SessionStart that followed the compaction
    kinds = log_kinds(claude_project)
    compacted = [k for k, _ in kinds].index("pre_compact")
    injected = [
        k
        for k, notes in kinds[compacted:]
        if any(n.get("key") == "context_recap_sha" and n.get("value") for n in notes)
    ]
    assert injected[:1] == ["session_start"], kinds


def _tool_result(run: RunResult) -> dict[str, Any]:
    for body in run.main_requests[1:]:
        for message in body.get("messages") or []:
            content = message.get("content")
            if message.get("role") == "user" and isinstance(content, list):
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        return block
    raise AssertionError(run.describe())


def _run_log(project: ClaudeProject, passed: int) -> tuple[RunResult, str]:
    log = pytest_log(passed)
    project.write("log.txt", log)
    # `| tee` exits 0 although the tests failed, as agents' commands often do
    run = project.run(
        "Run the test suite and fix the parser.",
        [bash("cat log.txt | tee run.log"), say("The parser test fails.")],
    )
    assert run.rc == 0, run.describe()
    return run, log


def _saved(project: ClaudeProject) -> list[Path]:
    return sorted((project.state_dir / "outputs").glob("*.log"))


def test_a_long_failing_test_log_reaches_the_model_shortened(claude_project: ClaudeProject) -> None:
    run, log = _run_log(claude_project, 600)  # 24 KB: within Claude's own capture
    result = _tool_result(run)
    seen = message_text({"content": result.get("content")})
    assert ASSERTION in seen
    assert "FAILED tests/test_mod.py::test_parse - assert 3 == 4" in seen
    assert "1 failed, 600 passed" in seen
    assert len(seen) < len(log) / 5, len(seen)
    saved = _saved(claude_project)
    assert len(saved) == 1 and saved[0].read_text() == log.rstrip(
        "\n"
    )  # Claude drops the last newline
    assert str(saved[0]) in seen


def test_past_claudes_capture_the_assertion_leads_the_preview(
    claude_project: ClaudeProject,
) -> None:
    run, log = _run_log(
        claude_project, 4000
    )  # 160 KB: Claude keeps 30,000 chars, persists the rest
    seen = message_text({"content": _tool_result(run).get("content")})
    assert "Preview" in seen  # Claude's own persisted-output preview (its first 2 KB) ...
    assert ASSERTION in seen  # ... leads with the failing assertion from the end of the log
    assert "1 failed, 4000 passed" in seen
    saved = _saved(claude_project)
    assert len(saved) == 1 and saved[0].read_text().rstrip("\n") == log.rstrip(
        "\n"
    )  # whole, not cut
