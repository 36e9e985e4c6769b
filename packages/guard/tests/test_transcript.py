"""The trusted Claude transcript reader and the Stop scenario it enables."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from agentreflex.core.testing import post_tool, pre_tool, stop
from agentreflex.guard.claude_transcript import assistant_text, resolve
from agentreflex.guard.report import new_report
from agentreflex.guard.sanitize import normalize_text
from agentreflex.guard.transcript import read_new
from guard_testkit import codes, guard_config, make_runner, marker, session

SID = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"


def assistant(text: str, **extra: Any) -> dict[str, Any]:
    rec = {
        "type": "assistant",
        "sessionId": SID,
        "entrypoint": "cli",
        "message": {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}],
        },
    }
    rec.update(extra)
    return rec


@pytest.fixture
def claude_home(tmp_path: Any) -> dict[str, str]:
    (tmp_path / "claude" / "projects" / "-work-proj").mkdir(parents=True)
    return {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "HOME": str(tmp_path)}


def path_of(env: dict[str, str], sid: str = SID) -> str:
    return os.path.join(env["CLAUDE_CONFIG_DIR"], "projects", "-work-proj", f"{sid}.jsonl")


def append(path: str, *records: dict[str, Any], raw: str = "") -> None:
    with open(path, "a", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
        fh.write(raw)


def ingestion(mode: str = "recent", limit: int = 20) -> dict[str, Any]:
    ing: dict[str, Any] = new_report("s", "claude", 0.0)["reasoning_summary_ingestion"]
    ing.update(backfill_mode=mode, backfill_limit=limit)
    return ing


def test_only_allowlisted_text_blocks_are_read() -> None:
    rec = assistant("visible")
    rec["message"]["content"] += [
        {"type": "thinking", "thinking": "hidden", "signature": "sig"},
        {"type": "tool_use", "id": "t", "name": "Bash", "input": {}},
        {"type": "text", "text": "with extra", "citations": []},
    ]
    assert assistant_text(rec) == "visible"
    assert (
        assistant_text(
            {
                "type": "user",
                "message": {"role": "user", "content": [{"type": "text", "text": "user words"}]},
            }
        )
        == ""
    )
    assert assistant_text(assistant("x", isSidechain=True)) == ""
    assert assistant_text({"type": "assistant", "message": {"role": "user", "content": []}}) == ""


def test_path_must_be_trusted(claude_home: dict[str, str], tmp_path: Any) -> None:
    good = path_of(claude_home)
    append(good, assistant("x"))
    assert resolve(SID, good, claude_home) == (os.path.realpath(good), "")
    assert resolve(SID, "", claude_home)[0] == os.path.realpath(good)
    assert resolve("not-a-uuid", good, claude_home)[1] == "session id is not UUID-shaped"
    outside = tmp_path / f"{SID}.jsonl"
    outside.write_text("")
    assert "outside the trusted" in resolve(SID, str(outside), claude_home)[1]
    link = os.path.join(os.path.dirname(good), "f" + SID[1:] + ".jsonl")
    os.symlink(outside, link)
    assert "outside the trusted" in resolve("f" + SID[1:], link, claude_home)[1]
    other = path_of(claude_home, "1" + SID[1:])
    append(other, assistant("x"))
    assert "does not match the session id" in resolve(SID, other, claude_home)[1]


def test_ambiguous_or_missing_candidates_fail_closed(claude_home: dict[str, str]) -> None:
    assert resolve(SID, "", claude_home)[1] == "no transcript found"
    append(path_of(claude_home), assistant("x"))
    second = os.path.join(claude_home["CLAUDE_CONFIG_DIR"], "projects", "-other", f"{SID}.jsonl")
    os.makedirs(os.path.dirname(second))
    append(second, assistant("y"))
    assert resolve(SID, "", claude_home)[1] == "ambiguous transcript candidates"


def test_recent_backfill_then_incremental_reads(claude_home: dict[str, str]) -> None:
    path = path_of(claude_home)
    append(path, *[assistant(f"m{i}") for i in range(5)], raw='{"type": "assist')
    ing = ingestion("recent", limit=3)
    batch = read_new(ing, SID, path, claude_home)
    assert batch.texts == ["m2", "m3", "m4"] and batch.model == "claude-sonnet-4-5"
    assert ing["selected"] == 3 and ing["initialized"]
    partial_at = ing["cursor"]
    append(path, raw='ant"}\n')
    append(path, assistant("m5"))
    batch = read_new(ing, SID, path, claude_home)
    assert batch.texts == ["m5"] and ing["cursor"] > partial_at
    assert read_new(ing, SID, path, claude_home).texts == []


def test_live_and_full_modes(claude_home: dict[str, str]) -> None:
    path = path_of(claude_home)
    append(path, *[assistant(f"m{i}") for i in range(4)])
    live, full = ingestion("live"), ingestion("full")
    assert read_new(live, SID, path, claude_home).texts == ["m3"]
    assert read_new(full, SID, path, claude_home).texts == ["m0", "m1", "m2", "m3"]
    assert full["complete"] and not live["complete"]


def test_shrink_or_replacement_invalidates(claude_home: dict[str, str]) -> None:
    path = path_of(claude_home)
    append(path, assistant("a"), assistant("b"))
    ing = ingestion()
    read_new(ing, SID, path, claude_home)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(assistant("new")) + "\n")
    batch = read_new(ing, SID, path, claude_home)
    assert batch.invalidated
    assert "replaced" in batch.error or "shrank" in batch.error


def test_mojibake_is_conservatively_reversed() -> None:
    assert normalize_text("don\u00e2\u20ac\u2122t") == "don\u2019t"
    assert normalize_text("café") == "café"
    assert normalize_text("e\u0301") == "é"


def test_marker_in_transcript_blocks_a_completion_claim_until_resolved(
    claude_home: dict[str, str], tmp_path: Any
) -> None:
    state_dir = str(tmp_path / "state")
    run = make_runner(state_dir, guard_config("on"), env=claude_home)
    path = path_of(claude_home)
    append(path, assistant("I will confirm the adapter first.\n" + marker()))
    run(pre_tool("Read", {"file_path": "/p/x"}, session_id=SID, transcript_path=path))
    report = session(state_dir)
    assert report["obligations"][0]["origin"] == "transcript"
    assert report["session"]["surface"] == "claude_cli"
    assert report["session"]["model"] == "claude-sonnet-4-5"
    assert report["coverage"]["level"] == "recent_backfill"
    append(path, assistant("All done, the adapter is fixed."))
    found = run(stop("All done, the adapter is fixed.", session_id=SID, transcript_path=path))
    assert codes(found) == ["RG-COMPLETION-AHEAD-001", "RG-EVIDENCE-OPEN-001"]
    assert all(f.enforce for f in found)
    resolved = (
        "Resolved: The selected adapter is active; evidence: adapter-status printed active; "
        "conclusion: the adapter is active."
    )
    append(path, assistant(resolved + "\nAll done."))
    # Resolution text before any evidence leaves the check open (seed 003).
    held = run(stop(resolved + "\nAll done.", session_id=SID, transcript_path=path))
    assert "RG-EVIDENCE-OPEN-001" in codes(held)
    adapter = {"command": "adapter-status --json"}
    run(pre_tool("Bash", adapter, session_id=SID, tool_use_id="t9", transcript_path=path))
    out = '{"active": true}'
    run(post_tool("Bash", adapter, ok=True, output=out, session_id=SID, tool_use_id="t9"))
    assert run(stop(resolved + "\nAll done.", session_id=SID, transcript_path=path)) == []
    assert session(state_dir)["reasoning_summary_ingestion"]["processed"] == 3


def test_untrusted_transcript_leaves_reduced_coverage(
    claude_home: dict[str, str], tmp_path: Any
) -> None:
    state_dir = str(tmp_path / "state")
    run = make_runner(state_dir, guard_config("report"), env=claude_home)
    run(stop("x", session_id=SID, transcript_path="/etc/passwd"))
    report = session(state_dir)
    assert report["coverage"]["level"] == "reduced"
    assert "outside the trusted" in report["reasoning_summary_ingestion"]["last_error"]


REAL = os.path.join(os.path.dirname(__file__), "data", "claude_2.1.328_transcript.jsonl")
REAL_SID = "0779be9a-9212-419c-ad2f-894990fea959"


def test_real_claude_transcript_gives_visible_text_surface_model_and_effort(
    claude_home: dict[str, str],
) -> None:
    """Recorded by integration-tests/test_claude_guard_transcript.py (real Claude Code 2.1.328)."""
    import shutil

    target = path_of(claude_home, REAL_SID)
    shutil.copyfile(REAL, target)
    ing = ingestion("full")
    batch = read_new(ing, REAL_SID, target, claude_home)
    assert batch.texts == [
        "I'll run the retry test to check whether the timeout change causes the failure.",
        "Done: the retry failure is fixed.",
    ]
    assert (batch.entrypoint, batch.model, batch.effort) == (
        "sdk-cli",
        "claude-opus-fake",
        "medium",
    )
    assert ing["complete"] and batch.error == ""
    from agentreflex.guard.surface import resolve_surface

    assert resolve_surface({}, {}, "claude", batch.entrypoint) == "claude_cli"


def test_a_transcript_read_stops_at_the_reflexes_deadline(claude_home: dict[str, str]) -> None:
    """rt74 gave the reflexes a deadline they check themselves (a warm daemon's thread has
    no signal); the guard's read of a transcript (a ``full`` scan reads all of it) never
    asked.  Past the deadline it stops (the ledger is then not written: the next event
    reads from the same cursor); with time left it reads as before."""
    from agentreflex.core.util import deadline

    path = path_of(claude_home)
    append(path, *[assistant(f"m{i}") for i in range(3000)])
    before = deadline.start(0.0)
    try:
        with pytest.raises(deadline.OutOfTime):
            read_new(ingestion("full"), SID, path, claude_home)
    finally:
        deadline.restore(before)
    before = deadline.start(60.0)
    try:
        assert len(read_new(ingestion("full"), SID, path, claude_home).texts) == 3000
    finally:
        deadline.restore(before)
