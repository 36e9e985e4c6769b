"""The payload cannot talk its way past a hook (issue 21, item 6).

The registration (``agentreflex hook claude-code PreToolUse``) wins over the
payload's ``hook_event_name``; a disagreement is handled as the stricter event
and reported; fields a floor reads have strict types on a proposed call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentreflex.core.decision import Finding, Verdict
from agentreflex.core.events import EventKind
from agentreflex.core.hook import runtime
from agentreflex.core.hook.runtime import Plugins, reconcile_event, run_hook
from agentreflex.core.hosts.claude_code import ClaudeCodeAdapter
from agentreflex.core.reflex import ReflexContext


class SentinelFloor:
    """Blocks any shell command containing SENTINEL; records what it was shown."""

    name = "sentinel"
    events = frozenset({EventKind.PRE_TOOL})
    floor = True

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        call = ctx.event.tool
        if call is not None and "SENTINEL" in call.command:
            return [Finding("sentinel", "TEST-SENTINEL", Verdict.BLOCK, "no SENTINEL")]
        return []


class StopWatcher:
    """Blocks every stop unless the host says it is already re-prompting."""

    name = "stopwatch"
    events = frozenset({EventKind.STOP})
    floor = False

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        if ctx.event.stop_hook_active:
            return []
        return [Finding("stopwatch", "TEST-STOP", Verdict.BLOCK, "verify first")]


@pytest.fixture(autouse=True)
def floors() -> None:
    runtime.set_plugins(Plugins(reflexes=[SentinelFloor(), StopWatcher()]))


def body(event: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"session_id": "strict", "cwd": "/tmp", "hook_event_name": event}
    if event in ("PreToolUse", "PostToolUse", "pre_tool_call"):
        base.update(tool_name="Bash", tool_input={"command": "echo SENTINEL"})
    base.update(fields)
    return base


def hook(
    env: dict[str, str], data: dict[str, Any] | bytes, hint: str = "", host: str = "claude-code"
) -> runtime.HookOutcome:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return run_hook(host, raw, {**env, "REFLEX_MODE": "enforced"}, hint or None)


def denied(outcome: runtime.HookOutcome) -> str:
    spec = json.loads(outcome.reply.stdout)["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny", outcome.reply.stdout
    return str(spec["permissionDecisionReason"])


def test_a_pre_tool_registration_wins_over_a_payload_that_says_stop(
    hook_env: dict[str, str],
) -> None:
    outcome = hook(
        hook_env, body("Stop", tool_name="Bash", tool_input={"command": "SENTINEL"}), "PreToolUse"
    )
    assert "no SENTINEL" in denied(outcome)
    assert outcome.event is not None and outcome.event.kind is EventKind.PRE_TOOL
    assert "registered for PreToolUse" in outcome.reply.stderr
    assert "'Stop'" in outcome.reply.stderr


def test_a_payload_claiming_pre_tool_on_a_stop_registration_is_handled_as_pre_tool(
    hook_env: dict[str, str],
) -> None:
    outcome = hook(hook_env, body("PreToolUse"), "Stop")
    assert outcome.event is not None and outcome.event.kind is EventKind.PRE_TOOL
    assert "no SENTINEL" in denied(outcome)
    assert "handled as PreToolUse" in outcome.reply.stderr


def test_non_tool_disagreements_follow_the_registration(hook_env: dict[str, str]) -> None:
    outcome = hook(hook_env, body("SessionStart"), "Stop")
    assert outcome.event is not None and outcome.event.kind is EventKind.STOP
    assert json.loads(outcome.reply.stdout)["decision"] == "block"
    assert "handled as Stop" in outcome.reply.stderr


def test_agreement_and_a_missing_name_are_not_reported(hook_env: dict[str, str]) -> None:
    agree = hook(hook_env, body("PreToolUse"), "PreToolUse")
    assert "registered" not in agree.reply.stderr
    unnamed = body("PreToolUse")
    del unnamed["hook_event_name"]
    fixed, note = reconcile_event("claude-code", unnamed, "PreToolUse", EventKind.PRE_TOOL)
    assert fixed["hook_event_name"] == "PreToolUse" and note == ""
    assert "hook_event_name" not in unnamed  # the caller's payload is left alone


def test_the_payload_name_is_kept_in_the_note_but_never_a_secret() -> None:
    secret = "ghp_" + "aB3" * 12
    _fixed, note = reconcile_event(
        "claude-code", {"hook_event_name": secret}, "PreToolUse", EventKind.PRE_TOOL
    )
    assert "registered for PreToolUse" in note and secret not in note


@pytest.mark.parametrize("host", ["codex", "hermes"])
@pytest.mark.parametrize("data", [b"not json", b"", b"[1]", b'{"hook_event_name": 7}'])
def test_unreadable_payloads_fail_closed_without_an_event_argument_on_codex_and_hermes(
    host: str, data: bytes, hook_env: dict[str, str]
) -> None:
    outcome = hook(hook_env, data, host=host)
    answer = json.loads(outcome.reply.stdout)
    if host == "codex":
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    else:
        assert answer["decision"] == "block"
    assert outcome.reply.stderr.startswith(f"agentreflex error: bad {host} payload")


def test_claude_code_without_an_event_argument_keeps_failing_open(
    hook_env: dict[str, str],
) -> None:
    """Claude's plugin always passes the event; a bare settings hook may be any event."""
    outcome = hook(hook_env, b"not json")
    assert "permissionDecision" not in outcome.reply.stdout


STRICT_CASES: dict[str, dict[str, Any]] = {
    "command is a list": {"tool_input": {"command": ["rm", "-rf", "/"]}},
    "command is null": {"tool_input": {"command": None}},
    "command is an object": {"tool_input": {"command": {"SENTINEL": 1}}},
    "tool_input is null": {"tool_input": None},
    "tool_input is a string": {"tool_input": "rm -rf /"},
    "tool_input is missing": {"tool_input": "__delete__"},
    "file_path is a list": {"tool_name": "Write", "tool_input": {"file_path": ["/etc/passwd"]}},
    "path is a number": {"tool_name": "Read", "tool_input": {"path": 7}},
    "content is an object": {
        "tool_name": "Write",
        "tool_input": {"file_path": "/tmp/x", "content": {"a": 1}},
    },
    "edits is not a list of objects": {
        "tool_name": "MultiEdit",
        "tool_input": {"file_path": "/tmp/x", "edits": ["x"]},
    },
}


@pytest.mark.parametrize("case", sorted(STRICT_CASES))
@pytest.mark.parametrize("hint", ["", "PreToolUse"])
def test_wrong_types_on_a_proposed_call_fail_closed(
    case: str, hint: str, hook_env: dict[str, str]
) -> None:
    data = body("PreToolUse", **STRICT_CASES[case])
    if data["tool_input"] == "__delete__":
        del data["tool_input"]
    outcome = hook(hook_env, data, hint)
    reason = denied(outcome)
    assert "tool_input" in reason and "must be" in reason
    assert outcome.decision is None


@pytest.mark.parametrize("host", ["codex", "hermes"])
def test_wrong_types_fail_closed_on_every_host(host: str, hook_env: dict[str, str]) -> None:
    name = "pre_tool_call" if host == "hermes" else "PreToolUse"
    data = body(name, tool_name="terminal" if host == "hermes" else "Bash")
    data["tool_input"] = {"command": ["rm", "-rf", "/"]}
    outcome = hook(hook_env, data, host=host)
    assert "'tool_input.command' must be a string, got a list" in outcome.reply.stdout
    answer = json.loads(outcome.reply.stdout)
    assert answer.get("decision") == "block" or (
        answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    )


def test_unknown_extra_fields_are_fine(hook_env: dict[str, str]) -> None:
    data = body("PreToolUse", brand_new_field={"x": [1]})
    data["tool_input"] = {"command": "ls", "description": ["odd", "but", "unread"], "x": None}
    outcome = hook(hook_env, data, "PreToolUse")
    assert outcome.reply.stdout == "" and outcome.decision is not None


def test_wrong_types_after_the_tool_ran_only_lose_detail(hook_env: dict[str, str]) -> None:
    data = body("PostToolUse", tool_input={"command": ["ls"]}, tool_response={"stdout": "ok"})
    outcome = hook(hook_env, data, "PostToolUse")
    assert outcome.decision is not None  # evaluated and recorded, nothing to deny


@pytest.mark.parametrize("value", ["true", 1, "yes", {}, [True], None, False])
def test_stop_hook_active_counts_only_as_json_true(value: object, hook_env: dict[str, str]) -> None:
    outcome = hook(hook_env, body("Stop", stop_hook_active=value), "Stop")
    assert json.loads(outcome.reply.stdout)["decision"] == "block"
    assert ClaudeCodeAdapter().parse(body("Stop", stop_hook_active=value)).stop_hook_active is False


def test_stop_hook_active_true_is_honoured(hook_env: dict[str, str]) -> None:
    outcome = hook(hook_env, body("Stop", stop_hook_active=True), "Stop")
    assert outcome.reply.stdout == ""
