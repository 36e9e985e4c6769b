"""The trusted Codex rollout adapter, on the rollout the real Codex 0.169.0 wrote.

``data/codex_0.169_rollout.jsonl`` was recorded by
``integration-tests/test_codex_guard_rollout.py`` (real ``codex exec``, offline,
scripted Responses model sending reasoning summaries).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import zstandard
from agentreflex.core.testing import stop
from agentreflex.guard.codex_rollout import ADAPTER, metadata, resolve, summary_text
from agentreflex.guard.report import new_report
from agentreflex.guard.transcript import Batch, read_new
from guard_testkit import codes, guard_config, make_runner, session

FIXTURE = Path(__file__).parent / "data" / "codex_0.169_rollout.jsonl"
SID = "01a2363a-2a26-70a3-a7ca-4e058db94d8a"
NAME = f"rollout-2026-12-02T10-08-31-{SID}.jsonl"
FIRST = (
    "**Investigating the retry failure**\n\n"
    "I'll run the retry test to check whether the timeout change causes the failure."
)


@pytest.fixture
def codex_home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "codex" / "sessions" / "2026" / "12" / "02").mkdir(parents=True)
    return {"CODEX_HOME": str(tmp_path / "codex"), "HOME": str(tmp_path)}


def day(env: dict[str, str]) -> Path:
    return Path(env["CODEX_HOME"]) / "sessions" / "2026" / "12" / "02"


def install(env: dict[str, str], name: str = NAME) -> Path:
    target = day(env) / name
    shutil.copyfile(FIXTURE, target)
    return target


def ingestion(mode: str = "recent", limit: int = 20) -> dict[str, Any]:
    ing: dict[str, Any] = new_report("s", "codex", 0.0)["reasoning_summary_ingestion"]
    ing.update(backfill_mode=mode, backfill_limit=limit)
    return ing


def reasoning(text: str, **extra: Any) -> dict[str, Any]:
    payload = {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}]}
    payload.update(extra)
    return {"timestamp": "t", "type": "response_item", "payload": payload}


def append(path: Path, *records: dict[str, Any], raw: bytes = b"") -> None:
    with open(path, "ab") as fh:
        for rec in records:
            fh.write(json.dumps(rec).encode() + b"\n")
        fh.write(raw)


def test_real_rollout_gives_summaries_surface_model_and_effort(codex_home: dict[str, str]) -> None:
    path = install(codex_home)
    ing = ingestion("full")
    batch = read_new(ing, SID, str(path), codex_home, ADAPTER)
    assert batch.texts == [FIRST, "The command ran."]
    assert (batch.entrypoint, batch.model, batch.effort) == ("codex_exec", "fake-model", "high")
    assert batch.error == "" and ing["complete"] and ing["cursor"] == path.stat().st_size
    # tool output, user text and the assistant's message are never taken
    assert all("Done:" not in t and "echo hi" not in t for t in batch.texts)


def test_rollout_resolved_from_the_session_id_alone(codex_home: dict[str, str]) -> None:
    path = install(codex_home)
    assert resolve(SID, "", codex_home) == (os.path.realpath(path), "")
    assert resolve("not-a-uuid", "", codex_home)[1].endswith("not UUID-shaped")
    assert resolve("1" + SID[1:], "", codex_home)[1] == "no rollout found"


def test_two_rollouts_for_one_id_fail_closed(codex_home: dict[str, str]) -> None:
    install(codex_home)
    other = Path(codex_home["CODEX_HOME"]) / "sessions" / "2026" / "12" / "03"
    other.mkdir(parents=True)
    shutil.copyfile(FIXTURE, other / NAME.replace("T10", "T11"))
    assert resolve(SID, "", codex_home) == ("", "ambiguous rollout candidates")
    ing = ingestion()
    batch = read_new(ing, SID, "", codex_home, ADAPTER)
    assert batch.texts == [] and batch.error == "ambiguous rollout candidates"
    assert not ing["initialized"]


def test_plain_and_compressed_copies_of_one_rollout_are_ambiguous(
    codex_home: dict[str, str],
) -> None:
    path = install(codex_home)
    (day(codex_home) / (NAME + ".zst")).write_bytes(
        zstandard.ZstdCompressor().compress(path.read_bytes())
    )
    assert resolve(SID, "", codex_home)[1] == "ambiguous rollout candidates"


def test_untrusted_paths_fail_closed(codex_home: dict[str, str], tmp_path: Path) -> None:
    inside = install(codex_home)
    outside = tmp_path / NAME
    shutil.copyfile(FIXTURE, outside)
    assert "outside the trusted" in resolve(SID, str(outside), codex_home)[1]
    dotdot = str(day(codex_home) / ".." / ".." / ".." / ".." / ".." / NAME)
    assert "outside the trusted" in resolve(SID, dotdot, codex_home)[1]
    escape = day(codex_home) / ("rollout-x-" + SID + ".jsonl")
    os.symlink(outside, escape)
    assert "outside the trusted" in resolve(SID, str(escape), codex_home)[1]
    notes = day(codex_home) / "notes.jsonl"
    shutil.copyfile(FIXTURE, notes)
    assert resolve(SID, str(notes), codex_home)[1] == "rollout name is not rollout-*.jsonl"
    folder = day(codex_home) / "rollout-dir.jsonl"
    folder.mkdir()
    assert resolve(SID, str(folder), codex_home)[1] == "rollout is not a regular file"
    # a symlink that stays inside the tree is only an alias
    alias = day(codex_home) / "rollout-alias.jsonl"
    os.symlink(inside, alias)
    assert resolve(SID, str(alias), codex_home)[0] == os.path.realpath(inside)


def test_sessions_root_follows_codex_home_then_home(tmp_path: Path) -> None:
    from agentreflex.guard.codex_rollout import sessions_root

    assert sessions_root({"CODEX_HOME": str(tmp_path / "c")}) == str(tmp_path / "c" / "sessions")
    assert sessions_root({"HOME": str(tmp_path)}) == str(tmp_path / ".codex" / "sessions")


def test_only_the_summary_text_path_is_allowlisted() -> None:
    assert summary_text(reasoning("visible")) == "visible"
    hidden = reasoning("v", content=[{"type": "reasoning_text", "text": "raw chain"}])
    hidden["payload"]["encrypted_content"] = "gAAAA..."
    assert summary_text(hidden) == "v"
    assert (
        summary_text({"type": "response_item", "payload": {"type": "message", "content": []}}) == ""
    )
    assert summary_text({"type": "event_msg", "payload": reasoning("x")["payload"]}) == ""
    other_part = reasoning("x")
    other_part["payload"]["summary"] = [{"type": "reasoning_text", "text": "no"}, "str", 3]
    assert summary_text(other_part) == ""
    assert summary_text({"type": "response_item", "payload": {"type": "reasoning"}}) == ""


def test_compressed_rollout_reads_like_the_plain_one(codex_home: dict[str, str]) -> None:
    target = day(codex_home) / (NAME + ".zst")
    target.write_bytes(zstandard.ZstdCompressor().compress(FIXTURE.read_bytes()))
    ing = ingestion("full")
    batch = read_new(ing, SID, "", codex_home, ADAPTER)
    assert batch.texts == [FIRST, "The command ran."] and batch.error == ""
    assert ing["cursor"] == FIXTURE.stat().st_size  # the cursor counts decompressed bytes


def test_corrupt_compressed_rollout_is_an_error_not_a_crash(codex_home: dict[str, str]) -> None:
    (day(codex_home) / (NAME + ".zst")).write_bytes(b"\x28\xb5\x2f\xfd garbage")
    batch = read_new(ingestion(), SID, "", codex_home, ADAPTER)
    assert batch.texts == [] and "corrupt compressed rollout" in batch.error


def test_metadata_allowlist_and_future_fields() -> None:
    batch = Batch()
    metadata({"type": "session_meta", "payload": {"originator": "Codex Desktop"}}, batch)
    metadata({"type": "turn_context", "payload": {"model": "gpt-5.5", "effort": "xhigh"}}, batch)
    metadata({"type": "turn_context", "payload": "future shape"}, batch)
    metadata({"type": "turn_context", "payload": {"model": 5, "effort": ["high"]}}, batch)
    assert (batch.entrypoint, batch.model, batch.effort) == ("Codex Desktop", "gpt-5.5", "xhigh")


def test_codex_stop_reads_the_rollout_without_a_transcript_path(
    codex_home: dict[str, str], tmp_path: Path
) -> None:
    install(codex_home)
    state_dir = str(tmp_path / "state")
    run = make_runner(state_dir, guard_config("report"), env=codex_home)
    found = run(stop("Done: it is fixed.", host="codex", session_id=SID, transcript_path=""))
    assert "RG-EVIDENCE-OPEN-001" in codes(found)
    report = session(state_dir, "codex")
    assert report["session"]["surface"] == "codex_cli"
    assert (report["session"]["model"], report["session"]["effort"]) == ("fake-model", "high")
    assert report["coverage"]["level"] == "recent_backfill"
    assert report["reasoning_summary_ingestion"]["processed"] == 2
    assert any("retry test" in o["name"] for o in report["obligations"])
    from agentreflex.guard.status import status

    [row] = status(state_dir)["sessions"]
    assert (row["provider"], row["surface"]) == ("Codex", "Codex CLI")
    assert (row["model"], row["effort"], row["coverage"]) == (
        "fake-model",
        "high",
        "recent backfill",
    )
    assert row["processed_summaries"] == 2 and row["clearance"] == "Conditional"
    assert row["latency"].startswith("p95 ")
    lines = status(state_dir)["lines"]
    assert lines[1].split()[:4] == ["host", "surface", "model", "effort"]
    assert "Codex CLI" in lines[2] and "fake-model" in lines[2] and SID in lines[2]
    assert "3 summaries observed" in lines[3] and "p95" in lines[3]  # 2 + the stop message


def test_codex_without_a_rollout_reports_reduced_coverage(
    codex_home: dict[str, str], tmp_path: Path
) -> None:
    state_dir = str(tmp_path / "state")
    run = make_runner(state_dir, guard_config("report"), env=codex_home)
    run(stop("ok", host="codex", session_id=SID, transcript_path="/etc/passwd"))
    report = session(state_dir, "codex")
    assert report["coverage"]["level"] == "reduced"
    assert "outside the trusted" in report["reasoning_summary_ingestion"]["last_error"]


def test_compressed_rollout_without_zstandard_is_a_clear_error(
    codex_home: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    (day(codex_home) / (NAME + ".zst")).write_bytes(
        zstandard.ZstdCompressor().compress(FIXTURE.read_bytes())
    )
    monkeypatch.setitem(sys.modules, "zstandard", None)  # what a missing module looks like
    batch = read_new(ingestion(), SID, "", codex_home, ADAPTER)
    assert batch.texts == [] and "zstandard is not installed" in batch.error


def test_compressed_rollout_that_expands_too_far_is_refused(
    codex_home: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentreflex.guard import bounds

    (day(codex_home) / (NAME + ".zst")).write_bytes(
        zstandard.ZstdCompressor().compress(b"\n" * 3_000_000)
    )
    monkeypatch.setattr(bounds, "MAX_DECOMPRESSED_BYTES", 1_000_000)
    ing = ingestion()
    batch = read_new(ing, SID, "", codex_home, ADAPTER)
    assert batch.texts == [] and "expands beyond the bound" in batch.error
    assert not ing["initialized"]
