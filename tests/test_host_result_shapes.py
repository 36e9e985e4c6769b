"""How each host reports a shell command that failed, driven through real hook processes.

Gemini CLI's run_shell_command answers a command that exits non-zero with no
``error`` (that is for a shell that could not start): the exit code is only in
the ``Exit Code: N`` line its llmContent ends with (gemini-cli
packages/core/src/tools/shell.ts, as bundled in gemini-cli 0.61 under
integration-tests/.hosts).  Read as a success, a failing test run was a pass
for the done reflex and an npm install failing three times the same way was
never a repeat for the runaway reflex.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentreflex.core.testing import enforced_project, hook_process

NET = "npm ERR! code ETIMEDOUT\nnpm ERR! network request to https://registry.npmjs.org/x failed"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    enforced_project(root)
    return root


def _gemini(project: Path, event: str, n: int, command: str, content: str | None = None) -> str:
    payload = {
        "hook_event_name": event,
        "session_id": "gem-1",
        "cwd": str(project),
        "transcript_path": str(project.parent / "chat.json"),
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": f"attempt {n}"},
    }
    if content is not None:
        payload["tool_response"] = {"llmContent": content, "returnDisplay": content}
    return hook_process(project, "gemini", event, payload)


def test_gemini_failures_in_the_exit_code_trailer_make_the_third_identical_attempt_a_repeat(
    project: Path,
) -> None:
    failing = f"Output: {NET}\nExit Code: 1\nProcess Group PGID: 4242"
    for n in (1, 2):
        assert '"deny"' not in _gemini(project, "BeforeTool", n, "npm install")
        _gemini(project, "AfterTool", n, "npm install", failing)
    third = _gemini(project, "BeforeTool", 3, "npm install")
    answer = json.loads(third)
    assert answer.get("decision") == "deny", third
    assert "npm install" in answer.get("reason", "") or "same" in answer.get("reason", "")


def test_gemini_successes_and_a_printed_exit_code_line_stay_successes(project: Path) -> None:
    # the command's own output may print "Exit Code: 1"; the tool's trailer comes after it
    ok = "Output: step 3\nExit Code: 1 (from the fixture)\nall good"
    for n in (1, 2, 3):
        assert '"deny"' not in _gemini(project, "BeforeTool", n, "npm install")
        _gemini(project, "AfterTool", n, "npm install", ok)
    assert '"deny"' not in _gemini(project, "BeforeTool", 4, "npm install")
