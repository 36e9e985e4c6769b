"""Budgets: warn at a fraction, refuse at the limit, resume after a reply or a cooldown."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from agentreflex.core.decision import Verdict
from agentreflex.core.state.model import Counters, SessionState
from agentreflex.core.testing import make_context, pre_tool
from agentreflex.runaway import ledger
from agentreflex.runaway.reflex import RunawayReflex
from runaway_testkit import Driver, codes

CALLS = "RUNAWAY-BUDGET-SESSION-TOOL-CALLS"


def budget_driver(make_driver: Callable[..., Driver], **budgets: object) -> Driver:
    return make_driver(sections={"budgets": dict(budgets)})


def test_budgets_are_off_by_default_apart_from_a_generous_failure_streak(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    for n in range(30):
        assert d.bash(f"echo {n}").verdict is Verdict.ALLOW


def test_tool_call_budget_warns_then_blocks_then_resumes_after_the_user_replies(
    make_driver: Callable[..., Driver],
) -> None:
    d = budget_driver(make_driver, session_tool_calls=10, cooldown_seconds=3600)
    verdicts = [d.bash(f"echo {n}").verdict for n in range(8)]
    assert verdicts == [Verdict.ALLOW] * 8
    warn = d.bash("echo 8")
    assert warn.verdict is Verdict.WARN and codes(warn) == [CALLS]
    assert d.bash("echo 9").verdict is Verdict.ALLOW  # the warning is not repeated each call
    blocked = d.bash("echo 10")
    assert blocked.verdict is Verdict.BLOCK and codes(blocked) == [CALLS]
    assert "summarise" in blocked.reason
    assert d.bash("echo 11").verdict is Verdict.BLOCK  # still refused: nobody has replied
    d.prompt("ok, keep going for a bit")
    grace = [d.bash(f"echo grace {n}") for n in range(4)]
    # a grace allowance of 25% of the limit (3 calls), announced once, then a new checkpoint
    assert [g.verdict for g in grace] == [Verdict.WARN, Verdict.ALLOW, Verdict.ALLOW, Verdict.BLOCK]
    assert "grace" in grace[0].reason


def test_a_refusal_lifts_after_the_cooldown_without_a_reply(
    make_driver: Callable[..., Driver],
) -> None:
    d = budget_driver(make_driver, session_tool_calls=3, cooldown_seconds=8)
    for n in range(3):
        d.bash(f"echo {n}")
    assert d.bash("echo blocked").verdict is Verdict.BLOCK
    assert d.bash("echo blocked-again").verdict is Verdict.BLOCK  # 5 s later
    assert d.bash("echo after-cooldown").verdict is not Verdict.BLOCK  # 10 s after the refusal


def test_consecutive_failures_budget(make_driver: Callable[..., Driver]) -> None:
    d = budget_driver(make_driver, consecutive_failures=3)
    for n in range(3):
        d.bash(f"./deploy.sh --region r{n}", ok=False, error=f"denied for region {chr(97 + n)}")
    blocked = d.bash("./deploy.sh --region r9")
    assert blocked.verdict is Verdict.BLOCK
    assert codes(blocked) == ["RUNAWAY-BUDGET-CONSECUTIVE-FAILURES"]


def test_wall_time_budget(make_driver: Callable[..., Driver]) -> None:
    d = budget_driver(make_driver, session_wall_minutes=1)
    verdicts = [d.bash(f"echo {n}").verdict for n in range(8)]  # 10 s per call
    assert verdicts[0] is Verdict.ALLOW
    assert verdicts[-1] is Verdict.BLOCK
    assert Verdict.WARN in verdicts


@pytest.mark.parametrize(
    ("counters", "budgets", "verdict"),
    [
        (Counters(cost_usd=4.2), {"session_cost_usd": 5.0}, Verdict.WARN),
        (Counters(cost_usd=5.01), {"session_cost_usd": 5.0}, Verdict.BLOCK),
        (Counters(input_tokens=700, output_tokens=400), {"session_tokens": 1000}, Verdict.BLOCK),
        (Counters(input_tokens=0, output_tokens=0), {"session_tokens": 1000}, Verdict.ALLOW),
    ],
)
def test_token_and_cost_budgets_read_the_host_usage_counters(
    counters: Counters, budgets: dict[str, float], verdict: Verdict
) -> None:
    ctx = make_context(pre_tool("Bash", {"command": "ls"}), SessionState(counters=counters))
    ctx.config.sections["budgets"] = budgets
    findings = RunawayReflex().evaluate(ctx)
    top = max((f.verdict for f in findings), key=lambda v: v.rank, default=Verdict.ALLOW)
    assert top is verdict


def test_project_budget_spans_sessions_and_survives_a_restart(
    make_driver: Callable[..., Driver],
    tmp_path: Path,
) -> None:
    budgets = {"budgets": {"project_tool_calls": 6, "warn_fraction": 0.99}}
    a = make_driver(sections=budgets, session_id="a")
    for n in range(4):
        assert a.bash(f"echo a{n}").verdict is Verdict.ALLOW
    # a new process (fresh reflex, fresh driver) for another session of the same project
    b = make_driver(sections=budgets, session_id="b")
    b.clock = a.clock
    assert b.bash("echo b0").verdict is Verdict.ALLOW
    assert b.bash("echo b1").verdict is Verdict.ALLOW
    blocked = b.bash("echo b2")
    assert blocked.verdict is Verdict.BLOCK
    assert codes(blocked) == ["RUNAWAY-BUDGET-PROJECT-TOOL-CALLS"]
    data = json.loads(Path(ledger.ledger_path(str(tmp_path / "state"))).read_text())
    assert set(data["sessions"]) == {"a", "b"}


def test_project_totals_only_count_recently_active_sessions(tmp_path: Path) -> None:
    old = ledger.Usage(tool_calls=50, last_at=1000.0)
    ledger.record_session(str(tmp_path), "old", old, now=1000.0, window_seconds=3600)
    new = ledger.Usage(tool_calls=5, last_at=9000.0)
    total = ledger.record_session(str(tmp_path), "new", new, now=9000.0, window_seconds=3600)
    assert total.tool_calls == 5


def test_ledger_never_lowers_a_session_total(tmp_path: Path) -> None:
    ledger.record_session(str(tmp_path), "s", ledger.Usage(9, 100, 1.5, 10.0), 10.0, 0)
    total = ledger.record_session(str(tmp_path), "s", ledger.Usage(3, 50, 0.5, 11.0), 11.0, 0)
    assert (total.tool_calls, total.tokens, total.cost_usd) == (9, 100, 1.5)


def test_ledger_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger, "MAX_SESSIONS", 3)
    for n in range(6):
        ledger.record_session(str(tmp_path), f"s{n}", ledger.Usage(1, last_at=float(n)), n, 0)
    data = json.loads(Path(ledger.ledger_path(str(tmp_path))).read_text())
    assert set(data["sessions"]) == {"s3", "s4", "s5"}


def test_a_corrupt_ledger_is_moved_aside_not_lost(tmp_path: Path) -> None:
    path = Path(ledger.ledger_path(str(tmp_path)))
    path.parent.mkdir(parents=True)
    path.write_text('{"sessions": {"x": ')
    total = ledger.record_session(str(tmp_path), "s", ledger.Usage(2, last_at=1.0), 1.0, 0)
    assert total.tool_calls == 2
    assert Path(str(path) + ".corrupt").read_text() == '{"sessions": {"x": '
    assert not list(path.parent.glob("*.tmp-*"))  # no temp files left behind


def test_an_unwritable_state_dir_degrades_budgets_but_never_blocks(tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    ctx = make_context(pre_tool("Bash", {"command": "ls"}), state_dir=str(blocker))
    ctx.config.sections["budgets"] = {"project_tool_calls": 5}
    assert RunawayReflex().evaluate(ctx) == []
    assert any("runaway budgets" in text for text in ctx.degraded)


def test_project_wall_time_adds_up_the_agent_time_of_recent_sessions(
    make_driver: Callable[..., Driver],
) -> None:
    budgets = {"budgets": {"project_wall_minutes": 30, "warn_fraction": 0.99}}
    a = make_driver(sections=budgets, session_id="a")
    assert a.bash("echo start").verdict is Verdict.ALLOW
    a.clock += 20 * 60  # session a works for twenty minutes
    assert a.bash("echo later").verdict is Verdict.ALLOW
    b = make_driver(sections=budgets, session_id="b")
    b.clock = a.clock
    assert b.bash("echo b0").verdict is Verdict.ALLOW
    b.clock += 11 * 60  # 20 + 11 minutes of agent time in this project
    blocked = b.bash("echo b1")
    assert blocked.verdict is Verdict.BLOCK
    assert codes(blocked) == ["RUNAWAY-BUDGET-PROJECT-WALL-MINUTES"]
