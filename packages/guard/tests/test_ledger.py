"""Ledgers, the schema 3.0 report, bounds, migration and fail-safe recovery."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from agentreflex.core.decision import Verdict
from agentreflex.core.testing import make_context, pre_tool, prompt, stop
from agentreflex.guard import bounds as B
from agentreflex.guard.engine import process
from agentreflex.guard.ledger import SNAPSHOT, load_ledger, provider_of, update
from agentreflex.guard.reflex import settings_from
from agentreflex.guard.report import (
    add_latency,
    new_report,
    percentile,
    record_finding,
)
from agentreflex.guard.schema import check_report, migrate
from guard_testkit import Runner, codes, guard_config, ledger, make_runner, marker, session

SEED_FIELDS = {
    "schema_version",
    "mode",
    "categories",
    "session",
    "updated_at",
    "coverage",
    "reasoning_summary_ingestion",
    "obligations",
    "findings",
    "actions",
    "event_digests",
    "text_digests",
    "seen_tool_ids",
    "diagnostics",
    "summary",
    "clearance",
    "classification",
    "latency",
}


def local(state_dir: str, name: str) -> str:
    return os.path.join(state_dir, "local", name)


def write(path: str, data: Any) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(data if isinstance(data, str) else json.dumps(data))


def test_an_empty_session_still_gets_a_valid_report(run_report: Runner, state_dir: str) -> None:
    run_report(stop("hello"))
    env = ledger(state_dir)
    assert env["schema"] == 1 and env["host"] == "claude"
    assert env["active_session"] == "test-session"
    report = env["sessions"][0]
    assert set(report) >= SEED_FIELDS
    assert report["schema_version"] == "3.0"
    assert check_report(report) is None
    assert report["session"] == {
        "id": "test-session",
        "provider": "claude",
        "surface": "unknown",
        "model": "unknown",
        "effort": "unknown",
        "started_at": report["session"]["started_at"],
    }
    ing = report["reasoning_summary_ingestion"]
    assert {
        "backfill_mode",
        "backfill_limit",
        "source_identity",
        "cursor",
        "processed_interval",
        "complete",
        "anchor",
        "selected",
        "processed",
        "last_error",
    } <= set(ing)
    assert report["clearance"]["state"] == "conditional"  # no summary seen: reduced coverage
    with open(local(state_dir, SNAPSHOT)) as fh:
        assert json.load(fh)["session"]["id"] == "test-session"
    with open(local(state_dir, ".gitignore")) as fh:
        assert "*" in fh.read()
    assert not [n for n in os.listdir(local(state_dir, "")) if ".tmp" in n]


def test_hosts_get_separate_ledgers(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("report"))
    for host in ("claude-code", "codex", "opencode"):
        run(stop("x", host=host))
    assert {provider_of(h) for h in ("claude-code", "codex", "opencode")} == {
        "claude",
        "codex",
        "opencode",
    }
    for provider in ("claude", "codex", "opencode"):
        assert ledger(state_dir, provider)["host"] == provider
    assert session(state_dir, "opencode")["session"]["surface"] == "opencode"


def test_at_most_twenty_sessions_per_host_oldest_dropped(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("report"))
    for i in range(23):
        run(stop("x", session_id=f"s{i:02d}", timestamp=1000.0 + i))
    env = ledger(state_dir)
    ids = [s["session"]["id"] for s in env["sessions"]]
    assert len(ids) == B.MAX_SESSIONS_PER_HOST
    assert "s00" not in ids and "s22" in ids and env["active_session"] == "s22"


def test_a_new_session_does_not_overwrite_the_previous(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("on"))
    run(prompt(marker(), session_id="a"))
    run(stop("x", session_id="b"))
    sessions = {s["session"]["id"]: s for s in ledger(state_dir)["sessions"]}
    assert len(sessions["a"]["obligations"]) == 1 and sessions["b"]["obligations"] == []


def test_retention_bounds() -> None:
    report = new_report("s", "claude", 0.0)
    for i in range(B.MAX_FINDINGS + 20):
        ob = {"id": f"ob-{i}", "name": "n", "state": "PLANNED"}
        record_finding(
            report,
            "RG-EVIDENCE-OPEN-001",
            "evidence_follow_through",
            ob,
            "stop",
            "m",
            float(i),
            f"d{i}",
        )
    assert len(report["findings"]) == B.MAX_FINDINGS
    for i in range(B.MAX_LATENCY_SAMPLES + 10):
        add_latency(report, float(i))
    assert len(report["latency"]["samples"]) == B.MAX_LATENCY_SAMPLES


def test_obligation_and_digest_bounds_hold_through_the_reflex(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("report"))
    text = "\n".join(f"Investigating why service{i} fails after the change." for i in range(140))
    run(stop(text))
    report = session(state_dir)
    assert len(report["obligations"]) == B.MAX_OBLIGATIONS
    settings = settings_from(make_context(stop("x"), config=guard_config("report")))
    for i in range(B.MAX_EVENT_DIGESTS + 5):
        event = pre_tool("Read", {"file_path": f"/x/{i}"}, tool_use_id=f"r{i}")
        process(report, event, settings, {}, float(i))
        add_latency(report, 1.0)
    assert len(report["event_digests"]) == B.MAX_EVENT_DIGESTS
    assert len(report["seen_tool_ids"]) == B.MAX_SEEN_TOOL_IDS
    assert len(report["latency"]["samples"]) == B.MAX_LATENCY_SAMPLES
    assert check_report(report) is None


def test_latency_percentiles_are_nearest_rank() -> None:
    assert percentile([], 95) is None
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50) == 3.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0


LEGACY_1 = {
    "schema_version": "1.0",
    "session_id": "old-1",
    "obligations": [
        {"id": "o1", "summary": "check the cache", "status": "open"},
        {"id": "o2", "summary": "check the lock", "status": "resolved"},
    ],
    "findings": [
        {"code": "RG-EVIDENCE-OPEN-001", "obligation_id": "o1", "at": 10.0},
        {"code": "RG-EVIDENCE-OPEN-001", "obligation_id": "o1", "at": 20.0},
        {"code": "RG-EVIDENCE-OPEN-001", "obligation_id": "o1", "at": 30.0},
    ],
}
LEGACY_2 = {
    "schema_version": "2.0",
    "session_id": "old-2",
    "provider": "claude",
    "mode": "on",
    "obligations": [{"id": "o9", "summary": "verify routing", "state": "EXECUTED"}],
    "findings": [
        {"code": "RG-CAUSAL-AHEAD-001", "obligation_id": "o9", "first_seen": 1.0, "last_seen": 2.0},
        {"code": "RG-CAUSAL-AHEAD-001", "obligation_id": "o9", "first_seen": 3.0, "last_seen": 4.0},
    ],
}


def test_migrating_schema_1_coalesces_and_makes_obligations_non_blocking() -> None:
    report = migrate(LEGACY_1, "claude", 99.0)
    assert check_report(report) is None
    states = {o["id"]: (o["state"], o["confidence"], o["blocking"]) for o in report["obligations"]}
    assert states == {"o1": ("PLANNED", "low", False), "o2": ("RESOLVED", "low", False)}
    assert len(report["findings"]) == 1
    f = report["findings"][0]
    assert (f["count"], f["first_seen"], f["last_seen"]) == (3, 10.0, 30.0)


def test_migrating_schema_2_keeps_states() -> None:
    report = migrate(LEGACY_2, "claude", 99.0)
    assert report["mode"] == "on"
    assert report["obligations"][0]["state"] == "EXECUTED"
    assert report["findings"][0]["count"] == 2


def test_legacy_snapshot_is_migrated_into_its_host_ledger(
    run_report: Runner, state_dir: str
) -> None:
    write(local(state_dir, SNAPSHOT), LEGACY_2)
    run_report(stop("x"))
    ids = [s["session"]["id"] for s in ledger(state_dir)["sessions"]]
    assert ids == ["old-2", "test-session"]
    with open(local(state_dir, SNAPSHOT)) as fh:
        assert json.load(fh)["schema_version"] == "3.0"


def test_legacy_session_inside_a_ledger_is_migrated(run_report: Runner, state_dir: str) -> None:
    write(
        local(state_dir, "claude_reasoning_guard.json"),
        {"schema": 1, "host": "claude", "active_session": "old-1", "sessions": [LEGACY_1]},
    )
    run_report(stop("x"))
    migrated = ledger(state_dir)["sessions"][0]
    assert migrated["schema_version"] == "3.0" and migrated["session"]["id"] == "old-1"


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        json.dumps({"schema": 9, "sessions": []}),
        json.dumps({"schema": 1, "host": "claude", "sessions": [{"schema_version": "4.0"}]}),
        json.dumps({"schema": 1, "host": "claude", "sessions": [{"schema_version": "3.0"}]}),
        json.dumps({"schema": 1, "host": "claude", "sessions": "nope"}),
    ],
)
def test_report_mode_replaces_bad_state_with_a_diagnostic(
    run_report: Runner, state_dir: str, content: str
) -> None:
    path = local(state_dir, "claude_reasoning_guard.json")
    write(path, content)
    found = run_report(pre_tool("Read", {"file_path": "/x"}))
    assert codes(found) == ["RG-STATE-RECOVERED-001"] and not found[0].enforce
    report = session(state_dir)
    assert check_report(report) is None
    assert report["diagnostics"][0]["message"].startswith("recovered:")
    with open(path + ".corrupt") as fh:
        assert fh.read() == content


def test_on_mode_fails_closed_once_at_a_protected_boundary(run_on: Runner, state_dir: str) -> None:
    write(local(state_dir, "claude_reasoning_guard.json"), "garbage")
    assert run_on(prompt("hi")) == []  # a prompt is not a protected boundary
    found = run_on(pre_tool("Read", {"file_path": "/x"}))
    assert codes(found) == ["RG-STATE-RECOVERED-001"]
    assert found[0].verdict is Verdict.BLOCK and found[0].enforce
    assert run_on(pre_tool("Read", {"file_path": "/y"})) == []


def test_future_snapshot_is_recovered(run_report: Runner, state_dir: str) -> None:
    write(local(state_dir, SNAPSHOT), {"schema_version": "7.0"})
    run_report(stop("x"))
    assert "newer than 3.0" in session(state_dir)["diagnostics"][0]["message"]


def test_load_of_a_missing_ledger_is_fresh(tmp_path: Any) -> None:
    led = load_ledger(str(tmp_path / "none.json"), "claude", 0.0)
    assert led.sessions == [] and led.problems == []


def test_update_returns_the_work_result_and_persists(tmp_path: Any) -> None:
    def work(report: dict[str, Any], problems: list[str]) -> int:
        report["mode"] = "on"
        return 42

    assert update(str(tmp_path), "codex", "sid", 1.0, work) == 42
    with open(tmp_path / "local" / "codex_reasoning_guard.json") as fh:
        assert json.load(fh)["sessions"][0]["mode"] == "on"


def test_secret_shaped_values_are_redacted_in_stored_excerpts(
    run_on: Runner, state_dir: str
) -> None:
    run_on(stop("Investigating why API_TOKEN=abc123secret makes the router fail."))
    with open(local(state_dir, "claude_reasoning_guard.json")) as fh:
        text = fh.read()
    assert "abc123secret" not in text and "[REDACTED]" in text
