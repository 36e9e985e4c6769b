"""The trusted Copilot CLI session adapter, on the file the real Copilot CLI 1.0.102 wrote.

``data/copilot_1.0.102_events.jsonl`` was recorded by
``integration-tests/test_copilot_host.py::test_guard_reads_the_session_events_copilot_writes``
(real ``copilot -p``, offline, scripted model), without Copilot's system prompt.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.testing import pre_tool, stop
from agentreflex.guard.copilot_events import (
    ADAPTER,
    metadata,
    reply_text,
    resolve,
    sessions_root,
)
from agentreflex.guard.report import new_report
from agentreflex.guard.transcript import Batch, read_new
from guard_testkit import guard_config, make_runner, session

FIXTURE = Path(__file__).parent / "data" / "copilot_1.0.102_events.jsonl"
SID = "0a406f34-4900-45b7-9acb-bfa73c88437e"
CHECK = "I'll run the retry test to check whether the timeout change causes the failure."


@pytest.fixture
def copilot_home(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path)}


def folder(env: dict[str, str], sid: str = SID) -> Path:
    path = Path(env["HOME"]) / ".copilot" / "session-state" / sid
    path.mkdir(parents=True, exist_ok=True)
    return path


def install(env: dict[str, str]) -> Path:
    target = folder(env) / "events.jsonl"
    shutil.copyfile(FIXTURE, target)
    return target


def ingestion() -> dict[str, Any]:
    ing: dict[str, Any] = new_report("s", "copilot", 0.0)["reasoning_summary_ingestion"]
    ing.update(backfill_mode="full", backfill_limit=20)
    return ing


def test_real_session_file_gives_each_reply_and_the_model(copilot_home: dict[str, str]) -> None:
    path = install(copilot_home)
    ing = ingestion()
    batch = read_new(ing, SID, "", copilot_home, ADAPTER)  # found from the id alone
    assert batch.texts == [CHECK, "Done: the retry failure is fixed."]
    assert batch.model == "fake-model" and batch.error == ""
    assert ing["cursor"] == path.stat().st_size
    # the prompt, the tool call, its output and the hooks' records are never taken
    assert all("fix the retry failure" not in t and "shellId" not in t for t in batch.texts)


def test_only_this_sessions_events_file_is_trusted(
    copilot_home: dict[str, str], tmp_path: Path
) -> None:
    inside = install(copilot_home)
    assert resolve(SID, str(inside), copilot_home) == (os.path.realpath(inside), "")
    outside = tmp_path / "events.jsonl"
    shutil.copyfile(FIXTURE, outside)
    wrong = "is not this session's events.jsonl"
    assert wrong in resolve(SID, str(outside), copilot_home)[1]
    other = folder(copilot_home, "00000000-0000-4000-8000-000000000000") / "events.jsonl"
    shutil.copyfile(FIXTURE, other)
    assert wrong in resolve(SID, str(other), copilot_home)[1]
    os.unlink(inside)
    os.symlink(outside, inside)  # the right name, pointing elsewhere
    assert wrong in resolve(SID, "", copilot_home)[1]
    os.unlink(inside)
    assert resolve(SID, "", copilot_home)[1] == "session file is not a regular file"
    assert resolve("not-a-uuid", "", copilot_home)[1] == "session id is not UUID-shaped"


def test_root_follows_copilot_home_then_home(tmp_path: Path) -> None:
    assert sessions_root({"COPILOT_HOME": str(tmp_path / "c"), "HOME": "/x"}) == str(
        tmp_path / "c" / "session-state"
    )
    assert sessions_root({"HOME": str(tmp_path)}) == str(tmp_path / ".copilot" / "session-state")


def test_only_the_assistants_reply_is_allowlisted() -> None:
    reply = {"type": "assistant.message", "data": {"content": "visible", "model": "m"}}
    assert reply_text(reply) == "visible"
    assert reply_text({"type": "assistant.message", "data": {"content": " "}}) == ""
    assert reply_text({"type": "user.message", "data": {"content": "the prompt"}}) == ""
    assert reply_text({"type": "system.message", "data": {"content": "host prompt"}}) == ""
    assert reply_text({"type": "assistant.message", "data": "future shape"}) == ""
    assert reply_text({"type": "assistant.message", "data": {"content": ["x"]}}) == ""
    batch = Batch()
    metadata({"type": "user.message", "data": {"model": "no"}}, batch)
    assert batch.model == ""
    metadata(reply, batch)
    assert batch.model == "m"


def test_copilot_session_opens_the_obligation_its_reply_states(
    copilot_home: dict[str, str], tmp_path: Path
) -> None:
    install(copilot_home)
    state_dir = str(tmp_path / "state")
    run = make_runner(state_dir, guard_config("report"), env=copilot_home)
    run(pre_tool("bash", {"command": "sleep 2"}, host="copilot", session_id=SID))
    run(stop("Done.", host="copilot", session_id=SID))
    report = session(state_dir, "copilot")
    assert report["reasoning_summary_ingestion"]["last_error"] == ""
    assert report["coverage"]["observed"]["reasoning_summary"] is True
    assert report["session"]["model"] == "fake-model"
    assert any("retry test" in o["name"] for o in report["obligations"])


def test_before_copilot_writes_the_file_coverage_says_so(
    copilot_home: dict[str, str], tmp_path: Path
) -> None:
    folder(copilot_home)  # Copilot made the session's folder, not yet the file
    state_dir = str(tmp_path / "state")
    run = make_runner(state_dir, guard_config("report"), env=copilot_home)
    run(stop("Done.", host="copilot", session_id=SID))
    report = session(state_dir, "copilot")
    assert report["coverage"]["level"] == "reduced"
    assert (
        report["reasoning_summary_ingestion"]["last_error"] == "session file is not a regular file"
    )
