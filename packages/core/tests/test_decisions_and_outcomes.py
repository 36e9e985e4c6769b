"""Decision merge, panels, what a call did (outcome helpers) and fingerprints."""

from __future__ import annotations

import itertools
import os
import stat
import time
from pathlib import Path

import pytest
from agentreflex.core.config.settings import Config
from agentreflex.core.decision import Decision, Finding, Mode, Verdict, merge
from agentreflex.core.events import Event, EventKind, ToolResult, build_tool_call
from agentreflex.core.hook.client import encode_request, try_daemon
from agentreflex.core.hook.daemon import parse_request
from agentreflex.core.hook.panels import decision_panels, finding_panel, write_panels
from agentreflex.core.redaction.redact import redact as redact_text
from agentreflex.core.reflex import JudgeAnswer, Reflex, ReflexContext
from agentreflex.core.state.fingerprint import canonical_input, fingerprint, normalise_command
from agentreflex.core.state.model import SessionState
from agentreflex.core.state.outcome import (
    SUMMARY_LIMIT,
    error_signature,
    is_mutating_shell,
    is_mutation,
    is_verification,
    outcome_of,
    summarize,
)
from agentreflex.core.testing import pre_tool

# ------------------------------------------------------------------ merge


def _f(verdict: Verdict, reflex: str = "r", enforce: bool = True, msg: str = "") -> Finding:
    return Finding(
        reflex, f"C-{verdict.value}", verdict, msg or f"{verdict.value} msg", enforce=enforce
    )


def test_most_restrictive_wins_in_any_order() -> None:
    verdicts = list(Verdict)
    for combo in itertools.permutations(verdicts, 3):
        decision = merge([_f(v) for v in combo], Mode.ENFORCED)
        top = max(combo, key=lambda v: v.rank)
        assert decision.verdict is top and decision.proposed is top
    assert merge([], Mode.ENFORCED).verdict is Verdict.ALLOW
    assert [v.rank for v in (Verdict.ALLOW, Verdict.WARN, Verdict.ASK_USER, Verdict.BLOCK)] == [
        0,
        1,
        2,
        3,
    ]


@pytest.mark.parametrize("verdict", list(Verdict))
def test_shadow_mode_turns_everything_into_would(verdict: Verdict) -> None:
    decision = merge([_f(verdict)], Mode.SHADOW)
    assert decision.verdict is Verdict.ALLOW
    assert decision.proposed is verdict
    assert decision.label == ("ALLOW" if verdict is Verdict.ALLOW else f"WOULD_{verdict.value}")


def test_report_only_findings_never_enforce() -> None:
    decision = merge([_f(Verdict.BLOCK, enforce=False), _f(Verdict.WARN)], Mode.ENFORCED)
    assert decision.verdict is Verdict.WARN
    assert decision.proposed is Verdict.BLOCK
    assert decision.label == "WOULD_BLOCK"


def test_reason_primary_and_json() -> None:
    findings = [
        _f(Verdict.WARN, "a", msg="careful"),
        _f(Verdict.BLOCK, "b", msg="no"),
        _f(Verdict.BLOCK, "c", msg="no"),
        _f(Verdict.BLOCK, "d", msg="never"),
    ]
    findings[1].signals = {"destructive_irreversible": 0.912345}
    findings[1].threshold = 0.75
    decision = merge(findings, Mode.ENFORCED)
    assert decision.reason == "no never"  # deduplicated, proposed verdict only
    assert decision.primary is findings[1]
    out = decision.to_json()
    assert (out["decision"], out["reflex"], out["code"]) == ("BLOCK", "b", "C-BLOCK")
    assert out["signals"] == {"destructive_irreversible": 0.912345}
    assert out["findings"][1]["signals"] == {"destructive_irreversible": 0.9123}
    assert out["findings"][1]["threshold"] == 0.75
    assert "enforce" not in out["findings"][0]


def test_context_only_travels_in_enforced_mode() -> None:
    f = Finding("x", "X", Verdict.ALLOW, "", context="remember the constraint")
    assert merge([f], Mode.ENFORCED).context == ["remember the constraint"]
    assert merge([f], Mode.SHADOW).context == []
    f.enforce = False
    assert merge([f], Mode.ENFORCED).context == []


# ------------------------------------------------------------------ panels


def _event() -> Event:
    return pre_tool("Bash", {"command": "rm -rf ~/"}, session_id="panel-session-123456")


def test_finding_panel_in_the_seed_style() -> None:
    finding = Finding(
        "gate",
        "GATE-RM-HOME",
        Verdict.BLOCK,
        "deletes your home",
        title="DESTRUCTIVE REFLEX",
        signals={"destructive_irreversible": 0.93, "repeats": 3.0},
        threshold=0.75,
    )
    enforced = finding_panel(finding, merge([finding], Mode.ENFORCED))
    assert enforced.splitlines()[0] == "⚡ DESTRUCTIVE REFLEX  [GATE-RM-HOME]"
    assert "Destructive irreversible: 0.93" in " ".join(enforced.split())
    assert "Repeats: 3" in " ".join(enforced.split())
    assert "Threshold: 0.75" in " ".join(enforced.split())
    assert "→ BLOCKED" in enforced
    assert enforced.endswith("Reason: deletes your home")
    shadow = finding_panel(finding, merge([finding], Mode.SHADOW))
    assert "→ WOULD_BLOCK (shadow mode, not enforced)" in shadow
    finding.enforce = False
    assert "WOULD_BLOCK (report only)" in finding_panel(finding, merge([finding], Mode.ENFORCED))


def test_panels_are_redacted_and_written_only_when_something_happened(tmp_path: Path) -> None:
    token = "ghp_" + "Mn4Bv5Cx6Za7" * 3
    finding = Finding("gate", "G", Verdict.BLOCK, f"you leaked {token}")
    event = pre_tool("Bash", {"command": f"echo {token}"})
    text = decision_panels(event, merge([finding], Mode.ENFORCED))
    assert token not in text and "[REDACTED]" in text
    state_dir = str(tmp_path / "st")
    write_panels(state_dir, event, merge([], Mode.ENFORCED))
    assert not (tmp_path / "st" / "reflex.log").exists()
    write_panels(state_dir, event, merge([finding], Mode.ENFORCED))
    log = (tmp_path / "st" / "reflex.log").read_text()
    assert token not in log and "session test-session" in log
    degraded = Decision(Verdict.ALLOW, Verdict.ALLOW, Mode.ENFORCED, degraded=["judge down"])
    write_panels(state_dir, event, degraded)
    assert "(judge degraded: judge down)" in (tmp_path / "st" / "reflex.log").read_text()


def test_write_panels_never_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "f"
    blocker.write_text("")
    write_panels(str(blocker / "x"), _event(), merge([_f(Verdict.BLOCK)], Mode.ENFORCED))


# ------------------------------------------------------------------ outcome


def _bash(command: str) -> bool:
    return is_verification(build_tool_call("Bash", {"command": command}))


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q",
        "python -m pytest tests/",
        "python3 -m unittest discover",
        "uv run --frozen pytest packages",
        "cd app && npm test",
        "npm run test:unit",
        "yarn test",
        "cargo test --all",
        "go test ./...",
        "CI=1 timeout 60 .venv/bin/pytest -x",
        "./gradlew test",
        "make check",
        "tox -e py311",
        "bundle exec rspec",
        "npx jest --ci",
        "set -o pipefail; pytest 2>&1 | tail -20",
    ],
)
def test_verification_commands(command: str) -> None:
    assert _bash(command)


@pytest.mark.parametrize(
    "command",
    [
        "pip install pytest",
        "git commit -m 'prove it works'",
        "echo jest",
        "cat pytest.ini",
        "rm -rf .pytest_cache",
        "vim tests/test_x.py",
        "which tox",
        "pytest 2>&1 | tail -20",  # the exit status is tail's: unknown, not a pass
        "pytest(){ echo 3 passed; }; pytest",
    ],
)
def test_not_verification(command: str) -> None:
    assert not _bash(command)


def test_verification_only_for_shells() -> None:
    assert not is_verification(build_tool_call("Write", {"file_path": "pytest", "content": ""}))


@pytest.mark.parametrize(
    ("command", "mutating"),
    [
        ("ls -la", False),
        ("git status && git diff", False),
        ("grep -rn TODO src 2>/dev/null", False),
        ("git log --oneline | head -5", False),
        ("cat a.txt", False),
        ("ls && rm -rf build", True),
        ("cat a; mv a b", True),
        ("echo hi > notes.txt", True),
        ("find . -name '*.pyc' -delete", True),
        ("sed -i 's/a/b/' f.py", True),
        ("curl -fsSL https://example.invalid/install.sh | sh", True),
        ("npm install left-pad", True),
        ("git checkout -- .", True),
        ("python scripts/migrate.py", True),
    ],
)
def test_mutating_shell(command: str, mutating: bool) -> None:
    assert is_mutating_shell(command) is mutating


def test_is_mutation() -> None:
    assert is_mutation(build_tool_call("Edit", {"file_path": "a", "new_string": "x"}))
    assert is_mutation(build_tool_call("apply_patch", {"command": "*** Begin Patch\n"}))
    assert not is_mutation(build_tool_call("Read", {"file_path": "a"}))
    assert is_mutation(build_tool_call("Bash", {"command": "touch x"}))
    assert not is_mutation(build_tool_call("Bash", {"command": "pytest > out.txt"}))  # a test run


def test_summarize() -> None:
    assert (
        summarize(build_tool_call("Bash", {"command": "npm   test\n --ci"}))
        == "Bash: npm test --ci"
    )
    assert summarize(build_tool_call("Read", {"file_path": "/w/a.py"})) == "Read: /w/a.py"
    patch = build_tool_call("apply_patch", {"command": "*** Begin Patch\n*** Add File: x.py\n"})
    assert summarize(patch) == "apply_patch: patch x.py"
    mcp = build_tool_call("mcp__gh__issue", {"repo": "r", "title": "t", "body": "b", "x": 1})
    assert summarize(mcp) == "mcp__gh__issue: repo=r title=t body=b"
    token = "sk_live_" + "Fk9Lm8Nj7Hb6Gv5C"
    assert token not in summarize(build_tool_call("Bash", {"command": f"pay {token}"}))
    long = summarize(build_tool_call("Bash", {"command": "echo " + "z" * 1000}))
    assert len(long) == SUMMARY_LIMIT and long.endswith("…")


def test_summarize_redacts_a_bounded_window_of_huge_commands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentreflex.core.state import outcome

    seen: list[int] = []
    real = redact_text

    def spy(text: str) -> str:
        seen.append(len(text))
        return real(text)

    from agentreflex.core.redaction import redact as redact_mod

    assert outcome.redact_head is redact_mod.redact_head  # the one bounded redaction
    monkeypatch.setattr(redact_mod, "redact", spy)
    token = "ghp_" + "Po9Iu8Yt7Re6" * 3
    command = "echo " + "x" * 180 + " " + token + " " + "filler " * 700_000  # ~5 MB
    text = summarize(build_tool_call("Bash", {"command": command}))
    assert len(text) == SUMMARY_LIMIT and text.endswith("…")
    assert "ghp_" not in text  # the token straddles the cut and still does not leak
    assert "[REDACT" in text
    assert max(seen) <= SUMMARY_LIMIT + 2048


def test_error_signature_is_stable_across_runs() -> None:
    a = (
        'Traceback (most recent call last):\n  File "/home/u/p/app.py", line 12\n'
        "ModuleNotFoundError: No module named 'bcrypt' at 0x7f3a2b1c 2024-05-01 10:11:12"
    )
    b = (
        'Traceback (most recent call last):\n  File "/tmp/other/app.py", line 99\n'
        "ModuleNotFoundError: No module named 'bcrypt' at 0x7f000001 2025-01-02 03:04:05"
    )
    assert error_signature(a) == error_signature(b)
    assert "ModuleNotFoundError" in error_signature(a)
    assert error_signature("") == ""
    assert error_signature("just one line") == "just one line"
    assert len(error_signature("error " * 1000)) <= 160
    token = "ghp_" + "Lk4Jh5Gf6Ds7" * 3
    assert token not in error_signature(f"auth failed for {token}")


@pytest.mark.parametrize(
    ("result", "outcome"),
    [
        (None, "unknown"),
        (ToolResult(ok=None), "unknown"),
        (ToolResult(ok=None, exit_code=0), "success"),
        (ToolResult(ok=None, exit_code=3), "failure"),
        (ToolResult(ok=True, output="ERROR: 0 errors"), "success"),
        (ToolResult(ok=False), "failure"),
    ],
)
def test_outcome_of(result: ToolResult | None, outcome: str) -> None:
    assert outcome_of(result) == outcome


# --------------------------------------------------------------- fingerprint


def test_same_command_same_fingerprint_across_hosts() -> None:
    claude = build_tool_call("Bash", {"command": "npm  test", "description": "run", "timeout": 5})
    from agentreflex.core.hosts import codex as codex_host
    from agentreflex.core.hosts import hermes as hermes_host

    codex = build_tool_call(
        "exec_command", {"cmd": "npm test\n", "yield_time_ms": 10}, host_tools=codex_host.TOOL_KINDS
    )
    hermes = build_tool_call(
        "terminal", {"command": " npm test"}, host_tools=hermes_host.TOOL_KINDS
    )
    assert fingerprint(claude) == fingerprint(codex) == fingerprint(hermes)
    assert len(fingerprint(claude)) == 16
    assert fingerprint(claude) != fingerprint(build_tool_call("Bash", {"command": "npm run test"}))
    assert normalise_command(" a \n\t b ") == "a b"


def test_file_tools_ignore_volatile_keys_but_not_content() -> None:
    a = build_tool_call("Edit", {"file_path": "x", "old_string": "1", "new_string": "2"})
    b = build_tool_call(
        "Edit", {"new_string": "2", "old_string": "1", "file_path": "x", "description": "again"}
    )
    c = build_tool_call("Edit", {"file_path": "x", "old_string": "1", "new_string": "3"})
    assert fingerprint(a) == fingerprint(b) != fingerprint(c)
    assert canonical_input(a) == canonical_input(b)


def test_different_tools_with_the_same_input_differ() -> None:
    grep = build_tool_call("Grep", {"pattern": "TODO"})
    glob = build_tool_call("Glob", {"pattern": "TODO"})
    assert fingerprint(grep) != fingerprint(glob)
    delete = build_tool_call("mcp__gh__delete_repo", {"repo": "x"})
    get = build_tool_call("mcp__gh__get_repo", {"repo": "x"})
    assert fingerprint(delete) != fingerprint(get)
    one = build_tool_call("CustomTool", {"a": 1})
    two = build_tool_call("OtherTool", {"a": 1})
    assert fingerprint(one) != fingerprint(two)
    write = build_tool_call("Write", {"file_path": "x", "content": "y"})
    read = build_tool_call("Read", {"file_path": "x", "content": "y"})
    assert fingerprint(write) != fingerprint(read)


# --------------------------------------------------------- reflex context


class _Judge:
    name = "j"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def ask(self, battery: str, ctx: ReflexContext) -> JudgeAnswer:
        self.asked.append(battery)
        if battery == "completion":
            return JudgeAnswer({}, backend="j", degraded=True, error="timeout")
        return JudgeAnswer({"goal_alignment": 0.9}, backend="j")


def test_reflex_context_asks_the_judge_once_per_battery() -> None:
    judge = _Judge()
    ctx = ReflexContext(
        event=_event(),
        state=SessionState(),
        config=Config(),
        state_dir="/nonexistent",
        deadline=time.monotonic() + 1,
        judge_factory=lambda: judge,
    )
    assert ctx.probabilities("pre_tool") == {"goal_alignment": 0.9}
    assert ctx.probabilities("pre_tool") == {"goal_alignment": 0.9}
    assert ctx.probabilities("completion") == {}
    assert judge.asked == ["pre_tool", "completion"]
    assert ctx.degraded == ["judge j: timeout"]
    assert 0.0 <= ctx.time_left() <= 1.0
    ctx.note("x", "k", [1])
    assert ctx.notes[0].key == "k"


def test_reflex_context_without_a_judge_and_with_a_broken_factory() -> None:
    plain = ReflexContext(
        event=_event(), state=SessionState(), config=Config(), state_dir="/x", deadline=0.0
    )
    assert plain.probabilities("pre_tool") is None
    assert plain.time_left() == 0.0

    def broken() -> _Judge:
        raise OSError("no socket")

    ctx = ReflexContext(
        event=_event(),
        state=SessionState(),
        config=Config(),
        state_dir="/x",
        deadline=0.0,
        judge_factory=broken,
    )
    assert ctx.probabilities("pre_tool") is None
    assert ctx.degraded == ["judge unavailable: OSError: no socket"]


def test_reflex_protocol_is_runtime_checkable() -> None:
    class Good:
        name = "g"
        events = frozenset({EventKind.STOP})
        floor = False

        def evaluate(self, ctx: ReflexContext) -> list[Finding]:
            return []

    assert isinstance(Good(), Reflex)
    assert not isinstance(object(), Reflex)


# ------------------------------------------------------- daemon wire format


def test_daemon_request_round_trip() -> None:
    env = {"REFLEX_MODE": "enforced", "HOME": "/home/u", "BAD\0KEY": "x"}
    payload = b'{"hook_event_name": "PreToolUse", "x": "\x00 bytes \xff"}'
    data = encode_request("claude-code", "PreToolUse", env, payload, "/venv\n3.11")
    install, host, hint, got_env, got_payload = parse_request(data)
    assert (install, host, hint, got_payload) == (
        "/venv\n3.11",
        "claude-code",
        "PreToolUse",
        payload,
    )
    assert got_env == {"REFLEX_MODE": "enforced", "HOME": "/home/u"}
    with pytest.raises(ValueError):
        parse_request(b"HTTP/1.1 GET /")


def test_client_never_trusts_a_foreign_or_open_socket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    sock = run / "daemon.sock"
    monkeypatch.setenv("AGENTREFLEX_SOCKET", str(sock))
    monkeypatch.setenv("AGENTREFLEX_DAEMON", "on")
    assert try_daemon("claude-code", "", b"{}") is None  # nothing there
    sock.write_text("")
    sock.chmod(0o666)
    assert try_daemon("claude-code", "", b"{}") is None  # readable by others
    sock.chmod(0o600)
    assert try_daemon("claude-code", "", b"{}") is None  # not a socket: connect fails
    monkeypatch.setenv("AGENTREFLEX_DAEMON", "off")
    assert try_daemon("claude-code", "", b"{}") is None
    assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600


def test_decision_dataclass_defaults() -> None:
    d = Decision(Verdict.ALLOW, Verdict.ALLOW, Mode.SHADOW)
    assert d.to_json()["reflex"] is None
    assert d.label == "ALLOW"
    assert EventKind.PRE_TOOL.value == "pre_tool"


@pytest.mark.parametrize(
    "command",
    [
        "true || pytest",
        "pytest || true",
        "npm test || echo failed",
        "pytest; true",
        "pytest --version",
        "pytest --co -q",
        "python -m pytest --collect-only tests/",
        "cargo test --no-run",
        "make -n test",
        "jest --listTests",
    ],
)
def test_fake_verification_is_not_verification(command: str) -> None:
    assert not _bash(command)


@pytest.mark.parametrize(
    "command", ["pytest -n 4", "pytest -x; pytest", "pytest -q && echo ok", "pytest &> log.txt"]
)
def test_real_runs_still_count(command: str) -> None:
    assert _bash(command)


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("===== 3 passed in 0.12s =====", "passed"),
        ("==== 1 failed, 2 passed in 0.3s ====", "failed"),
        ("collected 0 items\n\n==== no tests ran in 0.01s ====", "none"),
        ("test result: ok. 0 passed; 0 failed; 0 ignored", "none"),
        ("test result: FAILED. 1 passed; 1 failed", "failed"),
        ("Ran 3 tests in 0.001s\n\nOK", "passed"),
        ("Tests:       1 failed, 3 passed, 4 total", "failed"),
        ("ok  \texample.com/pkg\t0.10s", "passed"),
        ("building...", ""),
    ],
)
def test_runner_summaries(text: str, summary: str) -> None:
    from agentreflex.core.state.outcome import test_summary

    assert test_summary(text) == summary
