"""The shared transcript engine: backfill modes, the byte-interval ledger, hostile files.

Real files on disk, read through the real adapters; each test says what a
broken engine would get wrong.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.testing import stop
from agentreflex.guard import bounds as B
from agentreflex.guard.claude_transcript import ADAPTER as CLAUDE
from agentreflex.guard.codex_rollout import ADAPTER as CODEX
from agentreflex.guard.report import new_report
from agentreflex.guard.transcript import add_interval, intervals, read_new
from guard_testkit import guard_config, make_runner, session

SID = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"


def assistant(text: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "entrypoint": "cli",
        "message": {"role": "assistant", "model": "m", "content": [{"type": "text", "text": text}]},
    }


def reasoning(text: str) -> dict[str, Any]:
    return {
        "type": "response_item",
        "payload": {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}]},
    }


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "claude" / "projects" / "p").mkdir(parents=True)
    (tmp_path / "codex" / "sessions" / "2026" / "01" / "01").mkdir(parents=True)
    return {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "CODEX_HOME": str(tmp_path / "codex")}


def claude_path(env: dict[str, str]) -> Path:
    return Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "p" / f"{SID}.jsonl"


def codex_path(env: dict[str, str]) -> Path:
    return Path(env["CODEX_HOME"]) / "sessions" / "2026" / "01" / "01" / f"rollout-t-{SID}.jsonl"


def write(path: Path, *records: dict[str, Any], raw: bytes = b"", mode: str = "ab") -> None:
    with open(path, mode) as fh:
        for rec in records:
            fh.write(json.dumps(rec).encode() + b"\n")
        fh.write(raw)


def ingestion(mode: str = "recent", limit: int = 20) -> dict[str, Any]:
    ing: dict[str, Any] = new_report("s", "claude", 0.0)["reasoning_summary_ingestion"]
    ing.update(backfill_mode=mode, backfill_limit=limit)
    return ing


def read(ing: dict[str, Any], path: Path, env: dict[str, str], adapter: Any = CLAUDE) -> Any:
    return read_new(ing, SID, str(path), env, adapter)


def test_widening_the_mode_backfills_only_unseen_summaries_once(env: dict[str, str]) -> None:
    path = claude_path(env)
    write(path, *[assistant(f"m{i}") for i in range(100)])
    ing = ingestion("live")
    seen = Counter(read(ing, path, env).texts)
    assert list(seen) == ["m99"]
    ing.update(backfill_mode="recent", backfill_limit=5)
    got = read(ing, path, env).texts
    assert got == ["m95", "m96", "m97", "m98"]
    seen.update(got)
    write(path, assistant("m100"))
    ing.update(backfill_mode="full")
    got = read(ing, path, env).texts
    assert got == [f"m{i}" for i in range(95)] + ["m100"]
    seen.update(got)
    assert seen == Counter(f"m{i}" for i in range(101))  # every summary exactly once
    assert ing["complete"] and ing["processed"] == 101
    assert intervals(ing) == [[0, path.stat().st_size]]
    ing.update(backfill_mode="live")  # narrowing re-reads nothing
    assert read(ing, path, env).texts == []


def test_recent_limit_raised_mid_session_takes_the_older_ones(env: dict[str, str]) -> None:
    path = codex_path(env)
    write(path, *[reasoning(f"r{i}") for i in range(10)])
    ing = ingestion("recent", 3)
    assert read(ing, path, env, CODEX).texts == ["r7", "r8", "r9"]
    ing["backfill_limit"] = 6
    assert read(ing, path, env, CODEX).texts == ["r4", "r5", "r6"]
    assert not ing["complete"]
    ing["backfill_limit"] = 50  # more than there are: the whole history is now seen
    assert read(ing, path, env, CODEX).texts == ["r0", "r1", "r2", "r3"]


def test_live_reads_only_the_tail_of_a_large_history(env: dict[str, str]) -> None:
    path = claude_path(env)
    filler = {"type": "user", "message": {"role": "user", "content": "x" * 4000}}
    write(path, assistant("old"), *[filler] * 700, assistant("newest"), filler)
    assert path.stat().st_size > B.TAIL_BYTES
    ing = ingestion("live")
    batch = read(ing, path, env)
    assert batch.texts == ["newest"] and batch.model == "m"
    assert ing["cursor"] == path.stat().st_size
    start = intervals(ing)[0][0]
    assert start > path.stat().st_size - B.TAIL_BYTES  # the start of the newest summary


def test_live_takes_summaries_only_from_the_last_512_lines(env: dict[str, str]) -> None:
    path = claude_path(env)
    tiny = {"type": "x"}
    write(path, assistant("too old"), *[tiny] * B.LIVE_MAX_LINES)
    ing = ingestion("live")
    assert read(ing, path, env).texts == []
    write(path, assistant("fresh"))
    assert read(ing, path, env).texts == ["fresh"]


def test_steady_state_reads_only_new_bytes(env: dict[str, str]) -> None:
    path = claude_path(env)
    pad = {"type": "user", "message": {"role": "user", "content": "p" * 2000}}
    write(path, *[pad] * 50, assistant("a"), *[pad] * 50)
    ing = ingestion("recent")
    assert read(ing, path, env).texts == ["a"]
    # plant a summary in the middle, away from the head and cursor anchors: a
    # reader that re-scanned old bytes would take it
    data = bytearray(path.read_bytes())
    line = json.dumps(assistant("planted")).encode()
    at = data.index(b"\n", 40_000) + 1
    end = data.index(b"\n", at)
    data[at:end] = line + b" " * (end - at - len(line))
    path.write_bytes(bytes(data))
    write(path, assistant("b"))
    assert read(ing, path, env).texts == ["b"]


def test_partial_and_half_written_lines(env: dict[str, str]) -> None:
    path = codex_path(env)
    whole = json.dumps(reasoning("two")).encode()
    write(path, reasoning("one"), raw=b'{"type": "response_item", "payl\n' + whole[:20])
    ing = ingestion("full")
    assert read(ing, path, env, CODEX).texts == ["one"]  # the broken line is skipped
    behind = ing["cursor"]
    assert behind == path.stat().st_size - 20  # the partial record waits behind the cursor
    write(path, raw=whole[20:] + b"\n")
    assert read(ing, path, env, CODEX).texts == ["two"]
    assert read(ing, path, env, CODEX).texts == []


def test_invalid_utf8_and_future_records_are_skipped(env: dict[str, str]) -> None:
    path = codex_path(env)
    future = [
        {"type": "response_item_v9", "payload": {"type": "reasoning", "summary": []}},
        {"type": "response_item", "payload": {"type": "reasoning", "summary": "flat string"}},
        {"type": "response_item", "payload": {"type": "reasoning", "summary": [{"t": "x"}]}},
        {"schema": 99, "type": "session_meta", "payload": ["future"]},
        [1, 2, 3],
    ]
    bad = b'{"type": "response_item", "payload": {"type": "reasoning", "summary": [{"type": "summary_text", "text": "\xff\xfe"}]}}\n'
    write(path, reasoning("before"), raw=bad)
    with open(path, "ab") as fh:
        for rec in future:
            fh.write(json.dumps(rec).encode() + b"\n")
    write(path, reasoning("after"))
    ing = ingestion("full")
    batch = read(ing, path, env, CODEX)
    assert batch.texts == ["before", "after"] and batch.error == ""
    assert ing["complete"]


def test_oversized_record_is_skipped_and_full_is_not_complete(env: dict[str, str]) -> None:
    path = codex_path(env)
    huge = reasoning("h" * (B.MAX_RECORD_BYTES + 10))
    write(path, reasoning("a"), huge, reasoning("b"))
    ing = ingestion("full")
    batch = read(ing, path, env, CODEX)
    assert batch.texts == ["a", "b"]
    assert "larger than the bound" in batch.error and not ing["complete"]


def test_replaced_file_with_the_same_name_and_content_invalidates(env: dict[str, str]) -> None:
    path = claude_path(env)
    write(path, assistant("a"))
    ing = ingestion()
    read(ing, path, env)
    fresh = path.with_suffix(".tmp")
    fresh.write_bytes(path.read_bytes())
    os.replace(fresh, path)  # same name, same bytes, a new file
    batch = read(ing, path, env)
    assert batch.invalidated and "replaced" in batch.error


def test_shrinking_or_rewritten_history_invalidates(env: dict[str, str]) -> None:
    path = claude_path(env)
    write(path, assistant("a"), assistant("b"))
    ing = ingestion()
    read(ing, path, env)
    with open(path, "r+b") as fh:
        fh.truncate(10)
    batch = read(ing, path, env)
    assert batch.invalidated and "shrank" in batch.error
    write(path, assistant("c"), mode="wb")
    ing2 = ingestion()
    read(ing2, path, env)
    with open(path, "r+b") as fh:  # same length, different last byte before the cursor
        fh.seek(ing2["cursor"] - 3)
        fh.write(b"X")
    batch = read(ing2, path, env)
    assert batch.invalidated and "before the cursor changed" in batch.error


def test_invalidated_source_makes_the_report_reduced_for_good(
    env: dict[str, str], tmp_path: Path
) -> None:
    path = claude_path(env)
    state_dir = str(tmp_path / "state")
    run = make_runner(state_dir, guard_config("report"), env=env)
    write(path, assistant("Looking at the files."))
    run(stop("ok", session_id=SID, transcript_path=str(path)))
    assert session(state_dir)["coverage"]["level"] == "recent_backfill"
    with open(path, "r+b") as fh:
        fh.truncate(5)
    run(stop("ok again", session_id=SID, transcript_path=str(path)))
    report = session(state_dir)
    assert report["coverage"]["invalidated"] and report["coverage"]["level"] == "reduced"
    write(path, assistant("more text"))
    run(stop("and again", session_id=SID, transcript_path=str(path)))
    assert session(state_dir)["coverage"]["level"] == "reduced"  # never silently reset


def test_a_large_append_is_read_over_several_events(env: dict[str, str]) -> None:
    path = codex_path(env)
    write(path, reasoning("start"))
    ing = ingestion("live")
    read(ing, path, env, CODEX)
    pad = {"type": "event_msg", "payload": {"type": "x", "blob": "z" * 100_000}}
    write(path, *[pad] * 50, reasoning("end"))
    first = read(ing, path, env, CODEX)
    assert first.texts == [] and ing["cursor"] < path.stat().st_size
    assert read(ing, path, env, CODEX).texts == ["end"]


def test_interval_ledger_stays_compact() -> None:
    ing: dict[str, Any] = {}
    for i in range(40):
        add_interval(ing, i * 10, i * 10 + 5)
    spans = intervals(ing)
    assert len(spans) <= 16 and spans[0][0] == 0 and spans[-1][1] == 395
    add_interval(ing, 0, 400)
    assert intervals(ing) == [[0, 400]] and ing["processed_interval"] == [0, 400]
    assert intervals({"processed_interval": [3, 9]}) == [[3, 9]]  # a report from before


def test_a_malformed_interval_ledger_is_unsafe_state_not_a_crash() -> None:
    from agentreflex.guard.schema import check_report

    report = new_report("s", "codex", 0.0)
    assert check_report(report) is None
    for bad in ([["a", 1]], [[5, 1]], "x", [[0, 1]] * 65, [[True, 3]]):
        report["reasoning_summary_ingestion"]["processed_intervals"] = bad
        assert "processed_intervals" in str(check_report(report))
    ing = {"processed_intervals": [["a", 1], [2, 4]], "covered_mode": "live", "covered_limit": "x"}
    assert intervals(ing) == [[2, 4]]


def test_a_report_from_before_the_interval_ledger_keeps_working(
    env: dict[str, str], tmp_path: Path
) -> None:
    """A 3.0 session stored by part 1 (no processed_intervals/covered_*) reads on, no crash."""
    from agentreflex.guard import engine, quiet

    path = claude_path(env)
    write(path, assistant("Looking at the files."))
    report = new_report(SID, "claude", 0.0)
    settings = engine.Settings(backfill_mode="recent", backfill_limit=20)
    engine.process(
        report, stop("ok", session_id=SID, transcript_path=str(path)), settings, env, 1.0
    )
    ing = report["reasoning_summary_ingestion"]
    for key in ("processed_intervals", "covered_mode", "covered_limit"):
        del ing[key]
    write(path, assistant("More text."))
    wider = engine.Settings(backfill_mode="full", backfill_limit=20)
    engine.process(
        report, stop("again", session_id=SID, transcript_path=str(path)), wider, env, 2.0
    )
    assert ing["processed"] == 2 and ing["covered_mode"] == ""  # no backfill guessed
    state_dir = str(tmp_path / "state")
    os.makedirs(os.path.join(state_dir, "local"))
    for name in ("claude_reasoning_guard.json", "reason_guard.json"):
        Path(state_dir, "local", name).write_text("{}")
    del ing["covered_mode"]
    quiet.remember(state_dir, "claude-code", SID, report)  # the hint copes with missing keys
    hint = json.loads(Path(state_dir, "local", "claude_guard_quiet.json").read_text())
    assert hint["transcript"]["covered_mode"] is None
