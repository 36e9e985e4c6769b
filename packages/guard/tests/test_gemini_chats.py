"""The trusted Gemini CLI session adapter, on the session file the real Gemini CLI 0.61.0 wrote.

``data/gemini_0.61_chats.jsonl`` was recorded by
``integration-tests/test_gemini_host.py::test_guard_reads_the_session_file_gemini_writes``
(real ``gemini -p``, offline, scripted Gemini API), without the record holding
Gemini CLI's own setup prompt.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.testing import pre_tool, stop
from agentreflex.guard.gemini_chats import ADAPTER, chats_root, metadata, reply_text, resolve
from agentreflex.guard.report import new_report
from agentreflex.guard.transcript import Batch, read_new
from guard_testkit import guard_config, make_runner, session

FIXTURE = Path(__file__).parent / "data" / "gemini_0.61_chats.jsonl"
SID = "a539dec8-48a8-45a3-bc8d-2d4ea24ca489"
NAME = f"session-2026-12-04T03-39-{SID[:8]}.jsonl"
CHECK = "I'll run the retry test to check whether the timeout change causes the failure."


@pytest.fixture
def gemini_home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / ".gemini" / "tmp" / "proj" / "chats").mkdir(parents=True)
    return {"HOME": str(tmp_path)}


def chats(env: dict[str, str]) -> Path:
    return Path(env["HOME"]) / ".gemini" / "tmp" / "proj" / "chats"


def install(env: dict[str, str], name: str = NAME) -> Path:
    target = chats(env) / name
    shutil.copyfile(FIXTURE, target)
    return target


def ingestion(mode: str = "full") -> dict[str, Any]:
    ing: dict[str, Any] = new_report("s", "gemini", 0.0)["reasoning_summary_ingestion"]
    ing.update(backfill_mode=mode, backfill_limit=20)
    return ing


def test_real_session_file_gives_each_reply_and_the_model(gemini_home: dict[str, str]) -> None:
    path = install(gemini_home)
    ing = ingestion()
    batch = read_new(ing, SID, str(path), gemini_home, ADAPTER)
    # Gemini writes the first reply twice (again with its tool call): the guard's
    # text digests take it once; the reader hands over what the file holds
    assert batch.texts == [CHECK, CHECK, "Done: the retry failure is fixed."]
    assert batch.model == "gemini-3.8-flash" and batch.error == ""
    assert ing["cursor"] == path.stat().st_size
    # the prompt, the tool call and its output are never taken
    assert all(t != "fix the retry failure" and "echo hi" not in t for t in batch.texts)


def test_untrusted_paths_fail_closed(gemini_home: dict[str, str], tmp_path: Path) -> None:
    inside = install(gemini_home)
    outside = tmp_path / NAME
    shutil.copyfile(FIXTURE, outside)
    assert "outside Gemini CLI" in resolve(SID, str(outside), gemini_home)[1]
    escape = chats(gemini_home) / f"session-x-{SID[:8]}.jsonl"
    os.symlink(outside, escape)
    assert "outside Gemini CLI" in resolve(SID, str(escape), gemini_home)[1]
    other = chats(gemini_home) / "session-2026-12-04T03-39-00000000.jsonl"
    shutil.copyfile(FIXTURE, other)
    assert "does not match the session id" in resolve(SID, str(other), gemini_home)[1]
    loose = chats(gemini_home).parent / NAME  # beside chats/, not in it
    shutil.copyfile(FIXTURE, loose)
    assert "not in a project's chats folder" in resolve(SID, str(loose), gemini_home)[1]
    folder = chats(gemini_home) / f"session-dir-{SID[:8]}.jsonl"
    folder.mkdir()
    assert resolve(SID, str(folder), gemini_home)[1] == "transcript is not a regular file"
    assert resolve("not-a-uuid", str(inside), gemini_home)[1] == "session id is not UUID-shaped"
    assert resolve(SID, "", gemini_home)[1] == "Gemini CLI sent no transcript path"
    assert resolve(SID, str(inside), gemini_home) == (os.path.realpath(inside), "")


def test_root_follows_gemini_cli_home_then_home(tmp_path: Path) -> None:
    assert chats_root({"GEMINI_CLI_HOME": str(tmp_path / "g"), "HOME": "/x"}) == str(
        tmp_path / "g" / ".gemini" / "tmp"
    )
    assert chats_root({"HOME": str(tmp_path)}) == str(tmp_path / ".gemini" / "tmp")


def test_only_the_models_visible_reply_is_allowlisted() -> None:
    assert reply_text({"type": "gemini", "content": "visible"}) == "visible"
    assert reply_text({"type": "gemini", "content": "  "}) == ""
    parts = [{"text": "shown"}, {"text": "hidden", "thought": True}, {"functionCall": {}}, "s"]
    assert reply_text({"type": "gemini", "content": parts}) == "shown"
    assert reply_text({"type": "user", "content": [{"text": "the prompt"}]}) == ""
    assert reply_text({"type": "info", "content": "host line"}) == ""
    assert reply_text({"$set": {"messages": [{"type": "gemini", "content": "old"}]}}) == ""
    assert reply_text({"type": "gemini", "content": 5}) == ""


def test_metadata_reads_the_model_of_a_reply_only() -> None:
    batch = Batch()
    metadata({"type": "user", "model": "not-this"}, batch)
    metadata({"type": "gemini", "model": 5}, batch)
    assert batch.model == ""
    metadata({"type": "gemini", "model": "gemini-2.5-pro"}, batch)
    assert batch.model == "gemini-2.5-pro"


def test_gemini_session_opens_the_obligation_its_reply_states(
    gemini_home: dict[str, str], tmp_path: Path
) -> None:
    path = install(gemini_home)
    state_dir = str(tmp_path / "state")
    run = make_runner(state_dir, guard_config("report"), env=gemini_home)
    tool = {"command": "echo hi"}
    run(
        pre_tool(
            "run_shell_command", tool, host="gemini", session_id=SID, transcript_path=str(path)
        )
    )
    run(stop("Done.", host="gemini", session_id=SID, transcript_path=str(path)))
    report = session(state_dir, "gemini")
    assert report["reasoning_summary_ingestion"]["last_error"] == ""
    assert report["coverage"]["observed"]["reasoning_summary"] is True
    assert report["session"]["model"] == "gemini-3.8-flash"
    names = [o["name"] for o in report["obligations"]]
    assert sum("retry test" in n for n in names) == 1, names  # the repeated reply counts once
    from agentreflex.guard.status import status

    [row] = status(state_dir)["sessions"]
    assert row["provider"] == "Gemini CLI"


def test_a_host_without_a_session_file_says_so(tmp_path: Path) -> None:
    state_dir = str(tmp_path / "state")
    run = make_runner(state_dir, guard_config("report"), env={"HOME": str(tmp_path)})
    run(stop("Done.", host="pi", session_id=SID, transcript_path=""))
    report = session(state_dir, "pi")
    error = report["reasoning_summary_ingestion"]["last_error"]
    assert error == "pi has no transcript the guard may read"
    json.dumps(report)  # the ledger stays plain data
