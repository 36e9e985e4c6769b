"""Token and cost totals come from the host's transcript, read incrementally."""

from __future__ import annotations

import json
from pathlib import Path

from agentreflex.core.hook.runtime import Plugins, run_hook


def _assistant(mid: str, inp: int, out: int, cost: float | None = None) -> str:
    rec: dict[str, object] = {
        "type": "assistant",
        "message": {
            "id": mid,
            "role": "assistant",
            "usage": {"input_tokens": inp, "output_tokens": out, "cache_read_input_tokens": 10},
        },
    }
    if cost is not None:
        rec["costUSD"] = cost
    return json.dumps(rec) + "\n"


def _hook(tmp: Path, transcript: Path, host: str = "claude-code") -> None:
    payload = {
        "session_id": "usage",
        "cwd": str(tmp),
        "hook_event_name": "PreToolUse",
        "transcript_path": str(transcript),
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "t",
    }
    env = {"HOME": str(tmp), "AGENTREFLEX_STATE_DIR": str(tmp / "state")}
    outcome = run_hook(host, json.dumps(payload).encode(), env, plugins=Plugins())
    assert outcome.decision is not None


def test_usage_is_summed_once_per_message_and_read_incrementally(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    # the same message id on two content blocks counts once; a torn line waits
    transcript.write_text(
        _assistant("m1", 100, 20, 0.01)
        + _assistant("m1", 100, 20, 0.01)
        + '{"type":"user"}\n'
        + '{"type":"assistant","mes'
    )
    _hook(tmp_path, transcript)
    with transcript.open("a") as fh:
        fh.write('sage":{"id":"m2","usage":{"input_tokens":5,"output_tokens":7}}}\n')
        fh.write(_assistant("m3", 1, 2))
    _hook(tmp_path, transcript)
    snap = json.loads((tmp_path / "state" / "sessions" / "usage.state.json").read_text())
    counters = snap["state"]["counters"]
    assert counters["input_tokens"] == 110 + 5 + 11
    assert counters["output_tokens"] == 20 + 7 + 2
    assert abs(counters["cost_usd"] - 0.01) < 1e-9
    assert counters["transcript_cursor"] == transcript.stat().st_size


def test_an_unreadable_transcript_changes_nothing(tmp_path: Path) -> None:
    _hook(tmp_path, tmp_path / "missing.jsonl")
    snap = json.loads((tmp_path / "state" / "sessions" / "usage.state.json").read_text())
    assert snap["state"]["counters"]["input_tokens"] == 0


def test_only_a_host_whose_adapter_declares_transcript_usage_is_read(tmp_path: Path) -> None:
    """Codex's payload carries a transcript_path too, but its adapter does not declare
    TRANSCRIPT_USAGE (the file is not a Claude Code transcript): nothing is summed."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_assistant("m1", 100, 20, 0.01))
    _hook(tmp_path, transcript, host="codex")
    snap = json.loads((tmp_path / "state" / "sessions" / "usage.state.json").read_text())
    assert snap["state"]["counters"]["input_tokens"] == 0
    _hook(tmp_path, transcript)  # the same file, announced by Claude Code: read
    snap = json.loads((tmp_path / "state" / "sessions" / "usage.state.json").read_text())
    assert snap["state"]["counters"]["input_tokens"] == 110
