"""The saver through core's real hook path and the host adapters."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(__file__))
from logs import pytest_log

Host = Any


def _bash(host: Host, stdout: str, **extra: Any) -> dict[str, Any]:
    response = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False, **extra}
    reply: dict[str, Any] = host.reply(
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": "pytest -q"},
        tool_use_id="toolu_9",
        tool_response=response,
    )
    return reply


def test_claude_gets_the_shortened_output_in_the_tools_own_shape(host: Host) -> None:
    log = pytest_log()
    reply = _bash(host, log, noOutputExpected=False)
    out = reply["hookSpecificOutput"]
    assert out["hookEventName"] == "PostToolUse"
    updated = out["updatedToolOutput"]
    assert set(updated) == {"stdout", "stderr", "interrupted", "isImage", "noOutputExpected"}
    assert updated["interrupted"] is False and updated["stderr"] == ""
    assert "E       assert 3 == 4" in updated["stdout"]
    assert len(updated["stdout"]) < 9000
    saved = [p for p in (host.state_dir / "outputs").iterdir()]
    assert len(saved) == 1 and saved[0].read_text() == log
    assert str(saved[0]) in updated["stdout"]


def test_a_short_output_is_left_alone(host: Host) -> None:
    assert _bash(host, "3 passed\n") == {}
    assert not (host.state_dir / "outputs").exists()


def test_binary_output_is_left_alone_with_a_warning(host: Host) -> None:
    outcome = host.hook(
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": "cat blob"},
        tool_response={"stdout": "x" * 20000 + "\x00", "stderr": "", "interrupted": False},
    )
    assert outcome.reply.stdout == ""
    assert outcome.decision is not None
    assert any("binary" in d for d in outcome.decision.degraded)


def test_codex_is_not_proven_so_the_saver_stays_off(host: Host) -> None:
    host.host = "codex"
    assert _bash(host, pytest_log()) == {}
    assert not (host.state_dir / "outputs").exists()


def test_a_codex_user_may_opt_in_but_the_adapter_still_emits_nothing_unproven(host: Host) -> None:
    host.host = "codex"
    host.user_config('[context]\nsaver_hosts = ["claude-code", "codex"]\n')
    assert _bash(host, pytest_log()) == {}


def test_the_saver_can_be_switched_off_for_claude(host: Host) -> None:
    host.user_config("[context]\nsaver_hosts = []\n")
    assert _bash(host, pytest_log()) == {}


def test_a_plain_string_response_becomes_a_shorter_string(host: Host) -> None:
    reply = host.reply(
        "PostToolUse",
        tool_name="mcp__logs__tail",
        tool_input={},
        tool_response=pytest_log(),
    )
    updated = reply["hookSpecificOutput"]["updatedMCPToolOutput"]
    assert isinstance(updated, str) and "E       assert 3 == 4" in updated


def test_the_guards_view_of_the_output_is_unchanged(host: Host, tmp_path: Path) -> None:
    """The session log records the real outcome, not the shortened text."""
    outcome = host.hook(
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": "pytest -q"},
        tool_response={"stdout": pytest_log(), "stderr": "", "interrupted": False, "exit_code": 1},
    )
    assert outcome.state is not None
    failure = outcome.state.failures[-1]
    assert "pytest -q" in failure.summary and failure.exit_code == 1
    assert "shortened" not in failure.error_signature


def test_the_whole_output_is_read_from_the_hosts_persisted_copy(host: Host, tmp_path: Path) -> None:
    """Claude hands the hook only its 30,000-character capture and saves the rest itself."""
    log = pytest_log(4000)
    persisted = tmp_path / "tool-results" / "b1.txt"
    persisted.parent.mkdir()
    persisted.write_text(log)
    reply = _bash(
        host, log[:30000], persistedOutputPath=str(persisted), persistedOutputSize=len(log)
    )
    updated = reply["hookSpecificOutput"]["updatedToolOutput"]
    assert "E       assert 3 == 4" in updated["stdout"]
    assert updated["persistedOutputPath"] == str(persisted)  # every other key kept as it was
    saved = list((host.state_dir / "outputs").iterdir())
    assert saved[0].read_text() == log


def test_a_relative_or_missing_persisted_path_is_ignored(host: Host) -> None:
    log = pytest_log(600)
    for path in ("tool-results/b1.txt", "/nonexistent/b1.txt"):
        reply = _bash(host, log, persistedOutputPath=path)
        assert reply["hookSpecificOutput"]["updatedToolOutput"]["stdout"].count("assert 3 == 4")


def test_reads_and_searches_are_left_whole(host: Host) -> None:
    for name in ("Read", "Grep"):
        reply = host.reply(
            "PostToolUse",
            tool_name=name,
            tool_input={"file_path": "big.log", "pattern": "x"},
            tool_response={"content": pytest_log(), "mode": "content"},
        )
        assert reply == {}
