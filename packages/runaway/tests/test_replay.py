"""Scripted Claude Code sessions through ``agentreflex replay`` (the real hook pipeline).

The JSONL files in ``sessions/`` are host hook payloads, one per line, as
Claude Code sends them.  ``${CWD}`` is replaced by a fresh non-git project
directory.  Only the runaway reflex is installed, so the rows show exactly
what it decided.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core import cli
from agentreflex.core.hook import runtime
from agentreflex.runaway.reflex import RunawayReflex

SESSIONS = Path(__file__).parent / "sessions"


@pytest.fixture(autouse=True)
def _runaway_only() -> Iterator[None]:
    runtime.set_plugins(runtime.Plugins(reflexes=[RunawayReflex()]))
    yield
    runtime.set_plugins(None)


def replay(
    name: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    mode: str = "enforced",
    huge: str = "",
) -> list[dict[str, Any]]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    text = (SESSIONS / name).read_text().replace("${CWD}", str(project))
    text = text.replace('"${HUGE}"', json.dumps(huge))
    script = tmp_path / name
    script.write_text(text)
    state = tmp_path / "state"
    code = cli.main(["replay", str(script), "--mode", mode, "--state-dir", str(state)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.out + captured.err
    return [json.loads(line) for line in captured.out.splitlines()]


def runaway_codes(row: dict[str, Any]) -> list[str]:
    return [f["code"] for f in row.get("findings", []) if f["reflex"] == "runaway"]


def test_seed_demo_blocks_the_third_identical_attempt_and_allows_the_real_fix(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = replay("seed_demo.jsonl", tmp_path, capsys)
    pre = [r for r in rows if r.get("event") == "pre_tool"]
    assert [r["decision"] for r in pre] == ["ALLOW", "ALLOW", "BLOCK", "ALLOW", "ALLOW"]
    blocked = pre[2]
    assert blocked["code"] == "RUNAWAY-LOOP-EXACT"
    assert blocked["signals"]["exact_repeat_count"] == 2
    out = json.loads(blocked["stdout"])["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "Cannot find module" in out["permissionDecisionReason"]
    # the agent heard, right after the second failure, that a third try would be refused
    second_failure = [r for r in rows if r.get("event") == "post_tool_failure"][1]
    assert runaway_codes(second_failure) == ["RUNAWAY-LOOP-REPEAT-NEXT"]
    assert "additionalContext" in second_failure["stdout"]
    panel = (tmp_path / "state" / "reflex.log").read_text()
    assert "⚡ LOOP REFLEX  [RUNAWAY-LOOP-EXACT]" in panel


def test_seed_demo_in_shadow_mode_only_reports(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = replay("seed_demo.jsonl", tmp_path, capsys, mode="shadow")
    assert all(r["decision"] in ("ALLOW", None) or r["event"] == "stop" for r in rows)
    assert [r["label"] for r in rows if r.get("code") == "RUNAWAY-LOOP-EXACT"] == ["WOULD_BLOCK"]
    assert all(r["stdout"] == "" for r in rows if r.get("event") == "pre_tool")


def test_normal_work_with_commits_json_errors_and_reruns_never_trips(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = replay("normal_work.jsonl", tmp_path, capsys)
    tripped = [(r["line"], runaway_codes(r)) for r in rows if runaway_codes(r)]
    assert tripped == []
    assert all(r["decision"] == "ALLOW" for r in rows)


def test_odd_tool_response_shapes_are_recorded_never_crash(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = replay("odd_shapes.jsonl", tmp_path, capsys, huge="y" * 2_000_000)
    assert len(rows) == len((SESSIONS / "odd_shapes.jsonl").read_text().splitlines())
    for row in rows:
        assert not [e for e in row.get("errors", []) if "runaway" in e], row
        assert not [d for d in row.get("degraded", []) if "runaway" in d], row
    # the build whose results were unreadable is not counted as a failure: it may run again
    assert rows[-2]["decision"] == "ALLOW"


def test_a_restarted_process_keeps_the_loop_count(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each replay row is a fresh evaluation from the store: state is never in memory."""
    lines = (SESSIONS / "seed_demo.jsonl").read_text().splitlines()
    first, rest = "\n".join(lines[:5]) + "\n", "\n".join(lines[5:]) + "\n"
    (tmp_path / "a.jsonl").write_text(first)
    (tmp_path / "b.jsonl").write_text(rest)
    project = tmp_path / "project"
    project.mkdir()
    state = tmp_path / "state"
    outputs = []
    for part in ("a.jsonl", "b.jsonl"):
        text = (tmp_path / part).read_text().replace("${CWD}", str(project))
        (tmp_path / part).write_text(text)
        runtime.set_plugins(runtime.Plugins(reflexes=[RunawayReflex()]))  # a new process
        cli.main(["replay", str(tmp_path / part), "--mode", "enforced", "--state-dir", str(state)])
        outputs += [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    pre = [r for r in outputs if r.get("event") == "pre_tool"]
    assert pre[2]["decision"] == "BLOCK"


def test_a_growing_pause_before_the_same_failing_install_is_the_third_attempt(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """npm install failing ETIMEDOUT, retried behind sleep 2; and sleep 5 &&: the third
    is blocked; after a config change (new evidence) the next retry goes through."""
    rows = replay("dodged_repeat.jsonl", tmp_path, capsys)
    pre = [r for r in rows if r.get("event") == "pre_tool"]
    assert [r["decision"] for r in pre] == ["ALLOW", "ALLOW", "BLOCK", "ALLOW", "ALLOW"]
    assert pre[2]["code"] == "RUNAWAY-LOOP-EXACT"
    reason = json.loads(pre[2]["stdout"])["hookSpecificOutput"]["permissionDecisionReason"]
    assert "ETIMEDOUT" in reason and "a pause" in reason and "Instead:" in reason
