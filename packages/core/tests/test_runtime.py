"""The hook path in-process: bad input, fail-closed floors, shadow vs enforced."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.config import trust
from agentreflex.core.config.settings import load_config
from agentreflex.core.decision import Finding, Mode, Verdict
from agentreflex.core.events import EventKind
from agentreflex.core.hook import runtime
from agentreflex.core.hook.runtime import (
    MAX_PAYLOAD_BYTES,
    UNGUARDED_NOTICE,
    HookOutcome,
    Plugins,
    check_command,
    decode_payload,
    load_plugins,
    run_hook,
)
from agentreflex.core.hosts.base import HostReply
from agentreflex.core.reflex import JudgeAnswer, ReflexContext
from agentreflex.core.state.store import SessionStore


class SentinelReflex:
    """Blocks any shell command containing SENTINEL (a floor)."""

    name = "sentinel"
    events = frozenset({EventKind.PRE_TOOL})
    floor = True

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        call = ctx.event.tool
        if call is not None and "SENTINEL" in call.command:
            return [
                Finding(
                    reflex=self.name,
                    code="TEST-SENTINEL",
                    verdict=Verdict.BLOCK,
                    message="SENTINEL commands are not allowed here.",
                    title="SENTINEL REFLEX",
                    signals={"sentinel_probability": 0.97},
                    threshold=0.5,
                )
            ]
        return []


class RaisingReflex:
    name = "raiser"

    def __init__(self, floor: bool, events: frozenset[EventKind] | None = None) -> None:
        self.floor = floor
        self.events = events or frozenset(EventKind)

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        raise RuntimeError("the reflex tripped over itself")


class NoteReflex:
    """Notes a constraint from every prompt and warns with context on pre-tool."""

    name = "noter"
    events = frozenset({EventKind.USER_PROMPT, EventKind.PRE_TOOL})
    floor = False

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        if ctx.event.kind is EventKind.USER_PROMPT:
            ctx.note(self.name, "constraints", {"text": "do not touch tests"})
            return []
        seen = len(ctx.state.constraints)
        return [
            Finding(
                self.name,
                "TEST-NOTE",
                Verdict.WARN,
                f"{seen} constraint(s) on record",
                context=f"Remember: {seen} constraint(s)",
            )
        ]


def payload(event: str = "PreToolUse", **fields: Any) -> bytes:
    base: dict[str, Any] = {
        "session_id": "sess-rt",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "hook_event_name": event,
    }
    if event in ("PreToolUse", "PostToolUse"):
        base.update({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"})
    base.update(fields)
    return json.dumps(base).encode()


def rm_home(**fields: Any) -> bytes:
    return payload(tool_input={"command": "rm -rf ~/"}, **fields)


def assert_one_line_error(outcome: HookOutcome) -> str:
    err = outcome.reply.stderr
    assert err.endswith("\n")
    assert err.count("\n") == 1, err
    assert err.startswith("agentreflex")
    assert "Traceback" not in err and "Traceback" not in outcome.reply.stdout
    return err


def deny_reason(stdout: str) -> str:
    out = json.loads(stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse"
    assert out["permissionDecision"] == "deny"
    reason = out["permissionDecisionReason"]
    assert isinstance(reason, str) and reason
    return reason


def assert_fail_open(stdout: str) -> None:
    """A fail-open answer: nothing, or a JSON object that blocks nothing."""
    if not stdout:
        return
    out = json.loads(stdout)
    assert isinstance(out, dict)
    assert "decision" not in out
    spec = out.get("hookSpecificOutput", {})
    assert spec.get("permissionDecision") in (None, "allow")


# ------------------------------------------------------------- bad input

BAD_INPUTS: dict[str, bytes] = {
    "malformed json": b'{"hook_event_name": "PreToolUse", "tool_name": ',
    "wrong host": json.dumps(
        {
            "hook_event_name": "pre_tool_call",
            "tool_name": "terminal",
            "tool_input": {"command": "ls"},
            "session_id": "s",
            "extra": {},
        }
    ).encode(),
    "huge": b'{"pad": "' + b"a" * (MAX_PAYLOAD_BYTES + 16) + b'"}',
    "invalid utf-8": b'{"hook_event_name": "PreToolUse", "x": "\xff\xfe"}',
    "empty": b"",
    "whitespace": b"  \n\t ",
    "json array": b'[{"hook_event_name": "PreToolUse"}]',
    "json null": b"null",
    "json string": b'"PreToolUse"',
    "deep nesting": b"[" * 200_000 + b"]" * 200_000,
    "no event name": json.dumps({"session_id": "s", "tool_name": "Bash"}).encode(),
    "event name not a string": json.dumps({"hook_event_name": ["PreToolUse"]}).encode(),
    "tool_input not an object": payload(tool_input="rm -rf /"),
}


@pytest.mark.parametrize("case", sorted(set(BAD_INPUTS) - {"wrong host"}))
def test_bad_input_with_a_pre_tool_hint_fails_closed(case: str, hook_env: dict[str, str]) -> None:
    outcome = run_hook("claude-code", BAD_INPUTS[case], hook_env, "PreToolUse")
    assert outcome.reply.exit_code == 0
    assert outcome.decision is None
    assert outcome.error
    assert_one_line_error(outcome)
    assert "agentreflex error" in deny_reason(outcome.reply.stdout)


@pytest.mark.parametrize("case", sorted(set(BAD_INPUTS) - {"tool_input not an object"}))
def test_bad_input_without_a_known_event_fails_open(case: str, hook_env: dict[str, str]) -> None:
    outcome = run_hook("claude-code", BAD_INPUTS[case], hook_env)
    assert outcome.reply.exit_code == 0
    err = assert_one_line_error(outcome)
    assert_fail_open(outcome.reply.stdout)
    assert len(err) < 700


@pytest.mark.parametrize("hint", ["Stop", "UserPromptSubmit", "PostToolUse", "SessionStart"])
def test_bad_input_on_other_events_fails_open(hint: str, hook_env: dict[str, str]) -> None:
    outcome = run_hook("claude-code", b"{not json", hook_env, hint)
    assert outcome.reply.exit_code == 0
    assert_one_line_error(outcome)
    assert_fail_open(outcome.reply.stdout)


def test_error_messages_say_what_was_wrong(hook_env: dict[str, str]) -> None:
    expect = {
        "malformed json": "not valid JSON",
        "huge": "over the",
        "invalid utf-8": "not valid UTF-8",
        "empty": "empty payload",
        "json array": "must be a JSON object, got list",
        "wrong host": "unsupported hook_event_name 'pre_tool_call'",
        "deep nesting": "nested too deeply",
        "no event name": "missing field 'hook_event_name'",
    }
    for case, fragment in expect.items():
        outcome = run_hook("claude-code", BAD_INPUTS[case], hook_env)
        assert fragment in outcome.reply.stderr, (case, outcome.reply.stderr)


def test_a_pre_tool_payload_missing_its_tool_fails_closed_without_a_hint(
    hook_env: dict[str, str],
) -> None:
    """The payload itself says PreToolUse, so the event is known: fail closed."""
    data = json.dumps({"session_id": "s", "cwd": "/tmp", "hook_event_name": "PreToolUse"})
    outcome = run_hook("claude-code", data.encode(), hook_env)
    assert outcome.reply.exit_code == 0
    assert_one_line_error(outcome)
    assert "missing field 'tool_name'" in deny_reason(outcome.reply.stdout)


def test_bad_input_is_also_written_to_the_log(hook_env: dict[str, str]) -> None:
    outcome = run_hook("claude-code", b"{broken", hook_env, "PreToolUse")
    assert outcome.error
    log = Path(hook_env["AGENTREFLEX_STATE_DIR"]) / "reflex.log"
    assert log.exists(), "a bad payload left no trace in reflex.log"
    assert "not valid JSON" in log.read_text()


def test_unknown_fields_are_ignored(hook_env: dict[str, str]) -> None:
    data = payload(
        tool_input={"command": "ls", "brand_new": True},
        future_top_level={"a": [1, {"b": None}]},
        permission_mode="bypassPermissions",
    )
    outcome = run_hook("claude-code", data, hook_env)
    assert outcome.reply.stderr == ""
    assert outcome.reply.stdout == ""
    assert outcome.decision is not None and outcome.decision.verdict is Verdict.ALLOW


def test_unknown_host(hook_env: dict[str, str]) -> None:
    outcome = run_hook("cursor", payload(), hook_env)
    assert outcome.reply.exit_code == 1
    assert outcome.reply.stdout == ""
    assert_one_line_error(outcome)
    assert "supported: claude-code, codex, hermes" in outcome.reply.stderr


def test_decode_payload_accepts_a_large_but_legal_payload() -> None:
    big = {"hook_event_name": "PostToolUse", "tool_response": {"stdout": "x" * 5_000_000}}
    assert decode_payload(json.dumps(big).encode())["hook_event_name"] == "PostToolUse"


@pytest.mark.parametrize("kind", ["file", "under a file"])
def test_unwritable_state_dir_fails_open_with_one_line(
    kind: str, tmp_path: Path, hook_env: dict[str, str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    state = blocker if kind == "file" else blocker / "state"
    env = {**hook_env, "AGENTREFLEX_STATE_DIR": str(state)}
    for data in (payload(), payload("Stop"), payload("UserPromptSubmit", prompt="hi")):
        outcome = run_hook("claude-code", data, env)
        assert outcome.reply.exit_code == 0
        assert outcome.reply.stdout == ""
        err = assert_one_line_error(outcome)
        assert "state" in err
        assert blocker.read_text() == "not a directory"


def test_unwritable_state_dir_keeps_the_floor(tmp_path: Path, hook_env: dict[str, str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    env = {**hook_env, "AGENTREFLEX_STATE_DIR": str(blocker / "state"), "REFLEX_MODE": "enforced"}
    plugins = Plugins(reflexes=[SentinelReflex()])
    outcome = run_hook(
        "claude-code", payload(tool_input={"command": "echo SENTINEL"}), env, plugins=plugins
    )
    assert "SENTINEL commands are not allowed" in deny_reason(outcome.reply.stdout)


class StopBlocker:
    """A judgment call (not a floor): blocks every stop for want of evidence."""

    name = "stopper"
    events = frozenset({EventKind.STOP})
    floor = False

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        return [Finding(self.name, "TEST-NO-EVIDENCE", Verdict.BLOCK, "no tests recorded")]


def test_unwritable_state_dir_never_blocks_a_judgment_call(
    tmp_path: Path, hook_env: dict[str, str]
) -> None:
    """A reflex that saw no history because the store failed must not block (fail open)."""
    plugins = Plugins(reflexes=[StopBlocker()])
    env = {**hook_env, "REFLEX_MODE": "enforced"}
    healthy = run_hook("claude-code", payload("Stop"), env, plugins=plugins)
    assert json.loads(healthy.reply.stdout)["decision"] == "block"
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    broken = {**env, "AGENTREFLEX_STATE_DIR": str(blocker / "state")}
    outcome = run_hook("claude-code", payload("Stop"), broken, plugins=plugins)
    assert outcome.reply.exit_code == 0
    assert_fail_open(outcome.reply.stdout)
    assert "state" in outcome.reply.stderr


def test_configuration_error_fails_closed_on_pre_tool_only(hook_env: dict[str, str]) -> None:
    env = {**hook_env, "REFLEX_MODE": "enforcd"}
    pre = run_hook("claude-code", payload(), env)
    assert_one_line_error(pre)
    assert "REFLEX_MODE" in deny_reason(pre.reply.stdout)
    stop = run_hook("claude-code", payload("Stop"), env)
    assert_one_line_error(stop)
    assert_fail_open(stop.reply.stdout)


# ---------------------------------------------------------- core alone


def test_core_alone_allows_rm_rf_home_and_records_it(hook_env: dict[str, str]) -> None:
    runtime.set_plugins(Plugins())
    outcome = run_hook("claude-code", rm_home(), {**hook_env, "REFLEX_MODE": "enforced"})
    assert outcome.reply == HostReply()
    assert outcome.decision is not None
    assert outcome.decision.verdict is Verdict.ALLOW
    assert outcome.decision.findings == []
    assert outcome.state is not None and outcome.state.counters.tool_calls == 1


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_every_event_of_a_session_answers(host: str, hook_env: dict[str, str]) -> None:
    for event in (
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "SubagentStop",
        "PreCompact",
        "SessionEnd",
    ):
        extra: dict[str, Any] = {}
        if event == "PostToolUseFailure":
            extra = {"tool_name": "Bash", "tool_input": {"command": "false"}, "error": "1"}
        outcome = run_hook(host, payload(event, **extra), hook_env)
        assert outcome.reply.exit_code == 0, event
        assert outcome.reply.stdout == "", event
        unguarded = event == "SessionStart" and not load_plugins().reflexes
        assert outcome.reply.stderr == (UNGUARDED_NOTICE if unguarded else ""), event
    store = SessionStore(hook_env["AGENTREFLEX_STATE_DIR"], "sess-rt")
    st, _ = store.load()
    assert st.counters.events == 9
    assert st.host == host


def test_hermes_end_to_end(hook_env: dict[str, str]) -> None:
    data = json.dumps(
        {
            "hook_event_name": "pre_tool_call",
            "tool_name": "terminal",
            "tool_input": {"command": "echo SENTINEL"},
            "session_id": "h",
            "cwd": "/tmp",
            "extra": {"tool_call_id": "c"},
        }
    ).encode()
    plugins = Plugins(reflexes=[SentinelReflex()])
    enforced = run_hook("hermes", data, {**hook_env, "REFLEX_MODE": "enforced"}, plugins=plugins)
    assert json.loads(enforced.reply.stdout)["decision"] == "block"
    shadow = run_hook("hermes", data, hook_env, plugins=plugins)
    assert shadow.reply.stdout == "{}"
    broken = run_hook("hermes", b"{", hook_env, "pre_tool_call")
    assert json.loads(broken.reply.stdout)["decision"] == "block"
    assert_one_line_error(broken)


# ---------------------------------------------------- shadow vs enforced


def test_enforced_sentinel_is_denied(hook_env: dict[str, str]) -> None:
    plugins = Plugins(reflexes=[SentinelReflex()])
    env = {**hook_env, "REFLEX_MODE": "enforced"}
    outcome = run_hook(
        "claude-code", payload(tool_input={"command": "echo SENTINEL"}), env, plugins=plugins
    )
    assert deny_reason(outcome.reply.stdout) == "SENTINEL commands are not allowed here."
    assert outcome.reply.stderr == ""
    assert outcome.decision is not None and outcome.decision.label == "BLOCK"
    log = (Path(hook_env["AGENTREFLEX_STATE_DIR"]) / "reflex.log").read_text()
    assert "SENTINEL REFLEX  [TEST-SENTINEL]" in log
    assert "→ BLOCKED" in log
    assert re.search(r"Sentinel probability:\s+0\.97", log)
    assert re.search(r"Threshold:\s+0\.5", log)
    harmless = run_hook("claude-code", payload(), env, plugins=plugins)
    assert harmless.reply.stdout == ""


def test_shadow_sentinel_changes_nothing_but_logs_would_block(hook_env: dict[str, str]) -> None:
    plugins = Plugins(reflexes=[SentinelReflex()])
    outcome = run_hook(
        "claude-code", payload(tool_input={"command": "echo SENTINEL"}), hook_env, plugins=plugins
    )
    assert outcome.reply.stdout == ""
    assert outcome.reply.stderr == ""
    assert outcome.reply.exit_code == 0
    assert outcome.decision is not None
    assert outcome.decision.mode is Mode.SHADOW
    assert (outcome.decision.verdict, outcome.decision.proposed) == (Verdict.ALLOW, Verdict.BLOCK)
    assert outcome.decision.label == "WOULD_BLOCK"
    log = (Path(hook_env["AGENTREFLEX_STATE_DIR"]) / "reflex.log").read_text()
    assert "WOULD_BLOCK" in log
    assert "shadow mode, not enforced" in log
    assert outcome.state is not None
    assert [i.label for i in outcome.state.interventions] == ["WOULD_BLOCK"]
    assert outcome.state.actions[-1].outcome == "pending"


def test_floor_that_raises_on_pre_tool_fails_closed(hook_env: dict[str, str]) -> None:
    env = {**hook_env, "REFLEX_MODE": "enforced"}
    plugins = Plugins(reflexes=[RaisingReflex(floor=True)])
    outcome = run_hook("claude-code", payload(), env, plugins=plugins)
    reason = deny_reason(outcome.reply.stdout)
    assert "could not evaluate the raiser safety floor" in reason
    assert outcome.decision is not None
    assert [f.code for f in outcome.decision.findings] == ["CORE-FLOOR-ERROR"]
    assert "the reflex tripped over itself" in outcome.reply.stderr
    assert "Traceback" not in outcome.reply.stderr
    # the same floor failing on a stop does not block
    stop = run_hook("claude-code", payload("Stop"), env, plugins=plugins)
    assert stop.reply.stdout == ""
    assert "the reflex tripped over itself" in stop.reply.stderr


def test_judgment_reflex_that_raises_fails_open(hook_env: dict[str, str]) -> None:
    env = {**hook_env, "REFLEX_MODE": "enforced"}
    plugins = Plugins(reflexes=[RaisingReflex(floor=False), SentinelReflex()])
    outcome = run_hook("claude-code", payload(), env, plugins=plugins)
    assert outcome.reply.stdout == ""
    assert outcome.reply.exit_code == 0
    err = assert_one_line_error(outcome)
    assert "reflex raiser failed: RuntimeError: the reflex tripped over itself" in err
    # ... and never disarms the floor next to it
    blocked = run_hook(
        "claude-code", payload(tool_input={"command": "SENTINEL"}), env, plugins=plugins
    )
    assert deny_reason(blocked.reply.stdout)


def test_plugin_load_errors_are_reported(hook_env: dict[str, str]) -> None:
    plugins = Plugins(errors=["reflex broken (x:Y): ImportError: nope"])
    outcome = run_hook("claude-code", payload(), hook_env, plugins=plugins)
    assert "reflex broken" in assert_one_line_error(outcome)


def test_a_reflex_package_that_cannot_load_fails_closed_on_pre_tool_only(
    hook_env: dict[str, str],
) -> None:
    plugins = Plugins(errors=["reflex gate (agentreflex.gate.reflex:X): ImportError: nope"])
    env = {**hook_env, "REFLEX_MODE": "enforced"}
    pre = run_hook("claude-code", payload(), env, plugins=plugins)
    assert "could not load an installed reflex package" in deny_reason(pre.reply.stdout)
    assert pre.decision is not None
    assert [f.code for f in pre.decision.findings] == ["CORE-PLUGIN-ERROR"]
    assert "ImportError: nope" in assert_one_line_error(pre)
    stop = run_hook("claude-code", payload("Stop"), env, plugins=plugins)
    assert stop.reply.stdout == ""
    assert "ImportError: nope" in assert_one_line_error(stop)


def test_disabled_reflexes_and_profile_off(project: Path, hook_env: dict[str, str]) -> None:
    plugins = Plugins(reflexes=[SentinelReflex()])
    data = payload(cwd=str(project), tool_input={"command": "SENTINEL"})
    env = {**hook_env, "REFLEX_MODE": "enforced"}
    conf = project / ".agentreflex" / "config.toml"
    conf.parent.mkdir()
    conf.write_text('disabled_reflexes = ["sentinel"]\n')
    # not approved: the reflex still runs, and the hook says why once
    first = run_hook("claude-code", data, env, plugins=plugins)
    assert deny_reason(first.reply.stdout)
    assert "not approved" in first.reply.stderr
    again = run_hook("claude-code", data, env, plugins=plugins)
    assert "not approved" not in again.reply.stderr  # once per session and content
    trust.approve(str(conf), env)
    assert run_hook("claude-code", data, env, plugins=plugins).reply.stdout == ""
    conf.write_text('profile = "off"\n')
    assert deny_reason(run_hook("claude-code", data, env, plugins=plugins).reply.stdout)
    trust.approve(str(conf), env)
    assert run_hook("claude-code", data, env, plugins=plugins).reply.stdout == ""
    conf.write_text('profile = "lean"\n')
    assert deny_reason(run_hook("claude-code", data, env, plugins=plugins).reply.stdout)


def test_notes_are_folded_and_seen_by_later_events(hook_env: dict[str, str]) -> None:
    env = {**hook_env, "REFLEX_MODE": "enforced"}
    plugins = Plugins(reflexes=[NoteReflex()])
    run_hook(
        "claude-code",
        payload("UserPromptSubmit", prompt="do not touch tests"),
        env,
        plugins=plugins,
    )
    outcome = run_hook("claude-code", payload(), env, plugins=plugins)
    out = json.loads(outcome.reply.stdout)["hookSpecificOutput"]
    assert out == {"hookEventName": "PreToolUse", "additionalContext": "Remember: 1 constraint(s)"}


def test_shadow_mode_hides_context_too(hook_env: dict[str, str]) -> None:
    plugins = Plugins(reflexes=[NoteReflex()])
    outcome = run_hook("claude-code", payload(), hook_env, plugins=plugins)
    assert outcome.reply.stdout == ""


def test_secrets_in_payloads_never_reach_state_or_log(hook_env: dict[str, str]) -> None:
    token = "ghp_" + "Zq8Wx7Vy6Ut5" * 3
    env = {**hook_env, "REFLEX_MODE": "enforced"}
    plugins = Plugins(reflexes=[SentinelReflex()])
    run_hook(
        "claude-code",
        payload("UserPromptSubmit", prompt=f"push with {token}"),
        env,
        plugins=plugins,
    )
    run_hook(
        "claude-code", payload(tool_input={"command": f"SENTINEL {token}"}), env, plugins=plugins
    )
    for path in Path(hook_env["AGENTREFLEX_STATE_DIR"]).rglob("*"):
        if path.is_file():
            assert token not in path.read_text(errors="replace"), path


# ------------------------------------------------------------------ judge

JUDGE_MODULE = """
from agentreflex.core.reflex import JudgeAnswer

class FakeJudge:
    name = "fake"
    def __init__(self, config):
        self.config = config
        self.calls = []
    def ask(self, battery, ctx):
        if "JUDGE-DOWN" in ctx.event.tool.command:
            raise ConnectionError("judge unreachable")
        return JudgeAnswer({"destructive_irreversible": 0.9}, backend="fake")

def factory(config):
    return FakeJudge(config)
"""


class JudgeReading:
    name = "judgy"
    events = frozenset({EventKind.PRE_TOOL})
    floor = False

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        first = ctx.probabilities("pre_tool")
        second = ctx.judge_answer("pre_tool")  # asked once, cached
        if first is None:
            return []
        assert isinstance(second, JudgeAnswer) and second.probabilities is first
        p = first["destructive_irreversible"]
        return [Finding(self.name, "TEST-JUDGE", Verdict.WARN, f"p={p}", signals=dict(first))]


def test_judge_probabilities_reach_reflexes_and_failures_degrade(
    tmp_path: Path, hook_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "fake_judge_mod.py").write_text(JUDGE_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins = Plugins(reflexes=[JudgeReading()], judges=[("fake", "fake_judge_mod:factory")])
    # no key: the configured judge is the offline stand-in, whose guesses are never used
    offline = run_hook(
        "claude-code", payload(), {**hook_env, "REFLEX_MODE": "enforced"}, plugins=plugins
    )
    assert offline.decision is not None and offline.decision.findings == []
    env = {**hook_env, "REFLEX_MODE": "enforced", "JEV_MODE": "jev"}  # a calibrated judge
    ok = run_hook("claude-code", payload(), env, plugins=plugins)
    assert ok.decision is not None
    assert ok.decision.reason == "p=0.9"
    down = run_hook(
        "claude-code", payload(tool_input={"command": "JUDGE-DOWN"}), env, plugins=plugins
    )
    assert down.decision is not None
    assert down.decision.verdict is Verdict.ALLOW
    assert any("judge unreachable" in d for d in down.decision.degraded)
    off = run_hook("claude-code", payload(), {**env, "JEV_MODE": "off"}, plugins=plugins)
    assert off.decision is not None and off.decision.findings == []
    sys.modules.pop("fake_judge_mod", None)


# ------------------------------------------------------------------ check


def test_check_command_core_alone(project: Path) -> None:
    decision, event = check_command("rm -rf ~/", str(project), env=dict(os.environ))
    assert decision.verdict is Verdict.ALLOW and decision.findings == []
    assert decision.mode is Mode.ENFORCED
    assert event.tool is not None and event.tool.command == "rm -rf ~/"
    decision, event = check_command("/etc/passwd", str(project), tool="Write", env=dict(os.environ))
    assert event.tool is not None and event.tool.path == "/etc/passwd"


def test_check_command_runs_floors(project: Path) -> None:
    plugins = Plugins(reflexes=[SentinelReflex()])
    decision, _ = check_command(
        "echo SENTINEL", str(project), env=dict(os.environ), plugins=plugins
    )
    assert decision.verdict is Verdict.BLOCK
    assert decision.to_json()["code"] == "TEST-SENTINEL"


def test_load_config_default_state_dir_is_in_the_project(project: Path) -> None:
    cfg = load_config(str(project), {"HOME": str(project)})
    assert cfg.state_dir == str(project / ".agentreflex")
