"""The Reasoning Guard reads the transcript the real Claude Code writes, inside Claude Code.

The scripted model says, in visible text, that it will run a check; Claude
Code writes that to ``CLAUDE_CONFIG_DIR/projects/<project>/<session>.jsonl``
and the plugin's hooks run ``agentreflex``.  The guard must find the
transcript from the hook payload, take only the visible text blocks, open
the obligation and record the finding at Stop, with the surface and model
Claude wrote (``claude -p`` records ``entrypoint: sdk-cli``, which is the CLI).

Set ``AGENTREFLEX_RECORD_TRANSCRIPT=1`` to copy the recorded transcript over
the committed fixture (``packages/guard/tests/data/claude_2.1.328_transcript.jsonl``,
without the records that hold Claude Code's own prompt text).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hostharness.claude import REPO_ROOT, ClaudeProject
from hostharness.fakemodel import bash, say

pytestmark = pytest.mark.integration

FIXTURE = REPO_ROOT / "packages" / "guard" / "tests" / "data" / "claude_2.1.328_transcript.jsonl"
CHECK = "I'll run the retry test to check whether the timeout change causes the failure."


def ledger(project: ClaudeProject) -> dict[str, Any]:
    path = project.state_dir / "local" / "claude_reasoning_guard.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_guard_reads_the_transcript_claude_writes(claude_project: ClaudeProject) -> None:
    claude_project.set_mode("enforced")
    script = [
        bash("echo hi", text=CHECK),
        say("Done: the retry failure is fixed."),
    ]
    run = claude_project.run("fix the retry failure", script)
    assert run.rc == 0, run.describe()
    transcripts = sorted((claude_project.config_dir / "projects").rglob("*.jsonl"))
    assert len(transcripts) == 1, transcripts

    data = ledger(claude_project)
    [session] = [s for s in data["sessions"] if s["session"]["id"] == data["active_session"]]
    assert transcripts[0].stem == session["session"]["id"]
    assert session["session"]["surface"] == "claude_cli"
    assert session["session"]["model"] == "claude-opus-fake"
    assert session["coverage"]["observed"]["reasoning_summary"] is True
    assert session["reasoning_summary_ingestion"]["last_error"] == ""
    names = [o["name"] for o in session["obligations"]]
    assert any("retry test" in n for n in names), names
    codes = {f["code"] for f in session["findings"]}
    assert "RG-EVIDENCE-OPEN-001" in codes, codes
    assert session["session"]["effort"] == "medium"
    if os.environ.get("AGENTREFLEX_RECORD_TRANSCRIPT") == "1":
        record_fixture(transcripts[0])


_HOST_TEXT = ("api-request-blob", "api-request-shape", "attachment")


def record_fixture(transcript: Path) -> None:
    """The transcript's lines as Claude wrote them, minus the host's own prompt text.

    ``api-request-blob`` / ``api-request-shape`` and ``attachment`` records hold
    Claude Code's system prompt, reminders and tool schemas, which are not ours
    to commit (and which the guard never reads).
    """
    kept = [
        line
        for line in transcript.read_bytes().splitlines(keepends=True)
        if json.loads(line).get("type") not in _HOST_TEXT
    ]
    FIXTURE.write_bytes(b"".join(kept))
