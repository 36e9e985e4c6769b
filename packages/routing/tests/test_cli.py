"""``agentreflex routing check|explain`` through the real console script."""

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from agentreflex.routing.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[3]
POLICY = REPO / "policies" / "routing.toml"
SCRIPT = Path(sys.prefix) / "bin" / "agentreflex"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """``agentreflex routing ARGS`` in this process (measured by coverage), as a finished process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def test_the_console_script_runs_it() -> None:
    done = subprocess.run(
        [str(SCRIPT), "routing", "check", str(POLICY)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "4 lanes, 4 rules: ok" in done.stdout


def test_explain_shows_every_rule_considered_and_the_lane() -> None:
    done = run(
        "explain", str(FIXTURES / "claude_code_2.1.328_subagent.json"), "--policy", str(POLICY)
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "no     rule background: not background work" in out
    assert "no     rule long-context: ~" in out
    assert "MATCH  rule sub-agent: system block 0 carries 'cc_is_subagent=true'" in out
    assert "lane: fast (rule 'sub-agent'" in out


def test_explain_json_and_failures_climb_the_ladder() -> None:
    done = run(
        "explain",
        str(FIXTURES / "claude_code_2.1.328_subagent.json"),
        "--policy",
        str(POLICY),
        "--json",
        "--failures",
        "2",
    )
    data = json.loads(done.stdout)
    assert data["lane"] == "main"
    assert data["trace"][-1]["step"] == "ladder"


def test_check_and_errors(tmp_path: Path) -> None:
    assert "4 lanes" in run("check", str(POLICY)).stdout
    bad = tmp_path / "routing.toml"
    bad.write_text(POLICY.read_text().replace('lane = "fast"', 'lane = "fats"', 1))
    done = run("check", str(bad))
    assert done.returncode == 2
    assert f"{bad}:" in done.stderr and "rules.0.lane: unknown lane 'fats'" in done.stderr
    assert "Traceback" not in done.stderr
    garbage = tmp_path / "req.json"
    garbage.write_text("[1, 2")
    done = run("explain", str(garbage), "--policy", str(POLICY))
    assert done.returncode == 2 and "not a readable JSON request" in done.stderr
    garbage.write_text("[1, 2]")
    assert (
        "a request body is a JSON object"
        in run("explain", str(garbage), "--policy", str(POLICY)).stderr
    )
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps({"path": "/v1/chat/completions", "body": {"model": "g", "messages": []}})
    )
    assert "api=openai-chat" in run("explain", str(chat), "--policy", str(POLICY)).stdout


def test_the_request_api_is_read_from_a_wrapper_a_path_or_the_body(tmp_path: Path) -> None:
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"api": "openai-responses", "body": {"model": "g", "input": "hi"}}))
    assert "api=openai-responses" in run("explain", str(req), "--policy", str(POLICY)).stdout
    req.write_text(json.dumps({"path": "/v1/responses", "body": {"model": "g"}}))
    assert "api=openai-responses" in run("explain", str(req), "--policy", str(POLICY)).stdout
    roles = {"model": "g", "messages": [{"role": "system", "content": "be brief"}]}
    req.write_text(json.dumps(roles))
    assert "api=openai-chat" in run("explain", str(req), "--policy", str(POLICY)).stdout
    plain = {"model": "g", "messages": [{"role": "user", "content": "hi"}]}
    req.write_text(json.dumps(plain))
    assert "api=anthropic" in run("explain", str(req), "--policy", str(POLICY)).stdout


def test_an_unknown_name_is_an_attribute_error() -> None:
    import agentreflex.routing as routing

    with pytest.raises(AttributeError, match="no_such_name"):
        routing.no_such_name  # noqa: B018
