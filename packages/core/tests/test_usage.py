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


def test_token_usage_is_one_definition_of_spend_shared_by_delta_and_session_totals() -> None:
    """A transcript delta and a session's counters both count spend as a TokenUsage."""
    from agentreflex.core.state.model import Counters, SessionState
    from agentreflex.core.state.store import apply_usage
    from agentreflex.core.state.usage import TokenUsage, UsageDelta

    spend = TokenUsage()
    assert spend.empty and spend.tokens == 0
    spend.add(120, 30, 0.5)
    spend.add(5, 0, 0.0)
    assert (spend.input_tokens, spend.output_tokens, spend.cost_usd) == (125, 30, 0.5)
    assert spend.tokens == 155 and not spend.empty
    assert not TokenUsage(cost_usd=0.01).empty

    assert isinstance(UsageDelta(), TokenUsage) and isinstance(Counters(), TokenUsage)
    assert UsageDelta(input_tokens=3, cursor=9) == UsageDelta(3, 0, 0.0, 9, [])

    state = SessionState()
    apply_usage(state, {"in": 700, "out": 400, "cost": 1.25, "cursor": 42, "ids": ["m1"]})
    apply_usage(state, {"in": 1, "out": 2, "cost": 0.5, "cursor": 50})
    c = state.counters
    assert (c.input_tokens, c.output_tokens, c.cost_usd, c.tokens) == (701, 402, 1.75, 1103)
    assert c.transcript_cursor == 50 and state.notes["usage_ids"] == ["m1"]
    # a snapshot still carries the three under their names, and reads back
    saved = state.to_json()["counters"]
    assert (saved["input_tokens"], saved["output_tokens"], saved["cost_usd"]) == (701, 402, 1.75)
    assert SessionState.from_json(state.to_json()).counters == c
