"""A Codex shell command's exit status, read from the rollout Codex wrote before PostToolUse.

The record shape is the real Codex 0.169's (``packages/guard/tests/data/codex_0.169_rollout.jsonl``
and a failing run of ``integration-tests/test_codex_host.py``): its PostToolUse hands on
the output alone, so without the rollout a failing command looked like any other.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.hosts.codex import CodexAdapter
from agentreflex.core.hosts.codex_sessions import sessions_root, trusted_rollout

CALL = "call_fake0001"


def completed(call_id: str, exit_code: Any, status: str = "failed") -> str:
    item = {
        "type": "CommandExecution",
        "id": call_id,
        "process_id": "20726",
        "command": ["/bin/bash", "-lc", "pytest"],
        "source": "unified_exec_startup",
        "status": status,
        "aggregated_output": "1 failed\n",
        "exit_code": exit_code,
    }
    payload = {"type": "item_completed", "thread_id": "t", "turn_id": "u", "item": item}
    return json.dumps(
        {"timestamp": "2026-12-06T22:12:11.349Z", "type": "event_msg", "payload": payload}
    )


def call(call_id: str) -> str:
    payload = {
        "type": "function_call",
        "name": "exec_command",
        "call_id": call_id,
        "arguments": "{}",
    }
    return json.dumps({"type": "response_item", "payload": payload})


@pytest.fixture
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def rollout(codex_home: Path, *lines: str) -> Path:
    day = codex_home / "sessions" / "2026" / "12" / "06"
    day.mkdir(parents=True, exist_ok=True)
    path = day / "rollout-2026-12-06T22-12-11-01a24d6a-227a-7853-abc5-43f549c40726.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return path


def post_tool(transcript: str | None, tool: str = "Bash", call_id: str = CALL) -> dict[str, Any]:
    return {
        "session_id": "01a24d6a-227a-7853-abc5-43f549c40726",
        "transcript_path": transcript,
        "cwd": "/w",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": {"command": "pytest"},
        "tool_response": "1 failed\n",
        "tool_use_id": call_id,
    }


def outcome(payload: dict[str, Any]) -> tuple[bool | None, int | None]:
    result = CodexAdapter().parse(payload).result
    assert result is not None
    return result.ok, result.exit_code


def test_a_failing_command_is_read_as_failed_from_the_rollout(codex_home: Path) -> None:
    path = rollout(codex_home, call(CALL), completed(CALL, 3))
    assert outcome(post_tool(str(path))) == (False, 3)


def test_a_command_that_exited_zero_is_a_success(codex_home: Path) -> None:
    path = rollout(codex_home, call(CALL), completed(CALL, 0, status="completed"))
    assert outcome(post_tool(str(path))) == (True, 0)


def test_the_record_of_this_call_is_read_not_an_earlier_ones(codex_home: Path) -> None:
    path = rollout(codex_home, completed("call_fake0000", 0), completed(CALL, 2), call("call_x"))
    assert outcome(post_tool(str(path))) == (False, 2)
    assert outcome(post_tool(str(path), call_id="call_fake0000")) == (True, 0)


@pytest.mark.parametrize(
    "lines",
    [
        [call(CALL)],  # still running: no record yet
        [completed(CALL, None)],
        [completed(CALL, True)],
        [completed(CALL, "3")],
        [completed(CALL, 3)[:-20]],  # a record cut off mid-write
        ["not json " + CALL + " item_completed"],
    ],
)
def test_no_usable_record_leaves_the_status_unknown(codex_home: Path, lines: list[str]) -> None:
    path = rollout(codex_home, *lines)
    assert outcome(post_tool(str(path))) == (None, None)


def test_an_ephemeral_run_has_no_rollout_and_stays_unknown(codex_home: Path) -> None:
    assert outcome(post_tool(None)) == (None, None)
    assert outcome(post_tool(str(codex_home / "sessions" / "missing.jsonl"))) == (None, None)


def test_a_rollout_outside_codexs_sessions_folder_is_not_read(
    codex_home: Path, tmp_path: Path
) -> None:
    """A file the agent wrote in the project, named like a rollout, or reached through a
    link from the sessions folder: the hook trusts Codex's folder only."""
    forged = tmp_path / "project" / "rollout-2026-12-06T22-12-11-x.jsonl"
    forged.parent.mkdir()
    forged.write_text(completed(CALL, 0) + "\n")
    assert outcome(post_tool(str(forged))) == (None, None)
    linked = rollout(codex_home).with_name("rollout-2026-12-06T22-12-12-y.jsonl")
    os.symlink(forged, linked)
    assert outcome(post_tool(str(linked))) == (None, None)
    assert trusted_rollout(str(linked), os.environ)[0] == ""


def test_only_shell_results_take_the_recorded_exit(codex_home: Path) -> None:
    path = rollout(codex_home, completed(CALL, 3))
    assert outcome(post_tool(str(path), tool="apply_patch")) == (None, None)


def test_sessions_root_follows_codex_home_then_home(tmp_path: Path) -> None:
    assert sessions_root({"CODEX_HOME": str(tmp_path / "c")}) == str(tmp_path / "c" / "sessions")
    assert sessions_root({"HOME": str(tmp_path)}) == str(tmp_path / ".codex" / "sessions")
