"""``agentreflex guard validate-directive`` / ``status`` and the status entry point."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from agentreflex.core.testing import stop
from agentreflex.guard import cli
from agentreflex.guard.status import status
from guard_testkit import DIRECTIVE, guard_config, make_runner, marker


def run_cli(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    return cli.main(argv), out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "text", [json.dumps(DIRECTIVE), json.dumps(json.dumps(DIRECTIVE)), marker() + "\n"]
)
def test_valid_directive_exits_zero(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run_cli(["validate-directive"], text, monkeypatch)
    assert code == 0 and out.startswith("valid: ob-") and "blocking=true" in out and err == ""


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "no directive on stdin"),
        ("Evidence-Check: nope", "not followed by a JSON object"),
        (marker() + " trailing", "unexpected text after the directive JSON"),
        (marker() + "\n" + marker(), "more than one Evidence-Check marker"),
        ('{"version": 1}', "missing key 'kind'"),
        ("not json at all", "directive is not valid JSON"),
    ],
)
def test_invalid_directive_exits_one_with_reason(
    text: str, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = run_cli(["guard", "validate-directive"], text, monkeypatch)
    assert code == 1 and err.startswith("invalid: ") and reason in err


def test_json_output(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run_cli(["validate-directive", "--json"], '{"version": 1}', monkeypatch)
    assert code == 1 and json.loads(out) == {
        "valid": False,
        "reason": "directive: missing key 'kind'",
    }


def test_usage_errors_exit_two(monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli([], "", monkeypatch)[0] == 2
    assert run_cli(["nope"], "", monkeypatch)[0] == 2
    assert run_cli(["validate-directive", "--bad"], "", monkeypatch)[0] == 2


def test_status_lists_sessions_with_readable_labels(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    state_dir = str(tmp_path / ".agentreflex")
    run = make_runner(state_dir, guard_config("on"), env={"CLAUDE_CODE_ENTRYPOINT": "cli"})
    run(stop("x " + marker(), raw={"model": "claude-opus-4", "effort": {"level": "high"}}))
    data = status(state_dir)
    row = data["sessions"][0]
    assert row["provider"] == "Claude Code" and row["surface"] == "Claude CLI"
    assert (row["model"], row["effort"]) == ("claude-opus-4", "high")
    assert row["clearance"] == "Blocked" and row["coverage"] == "reduced coverage"
    assert row["p95_ms"] is not None and row["processed_summaries"] == 0
    assert any("Claude CLI" in line and "Blocked" in line for line in data["lines"])
    code, out, _ = run_cli(["status", state_dir], "", monkeypatch)
    assert code == 0 and "Reasoning Guard" in out


def test_status_without_reports_and_with_a_bad_ledger(tmp_path: Any) -> None:
    assert "no guard report yet" in status(str(tmp_path))["lines"][1]
    (tmp_path / "local").mkdir()
    (tmp_path / "local" / "codex_reasoning_guard.json").write_text("{bad")
    data = status(str(tmp_path))
    assert data["errors"] and "unreadable ledger codex" in data["lines"][-1]
