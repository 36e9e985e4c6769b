"""Host adapters: payloads in, exactly what each host accepts out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.decision import Decision, Finding, Mode, Verdict, merge
from agentreflex.core.events import Event, EventKind, ToolKind
from agentreflex.core.hosts import HOSTS, get_adapter
from agentreflex.core.hosts.base import HostReply, PayloadError, cap, tool_response_text
from agentreflex.core.hosts.claude_code import EVENTS as CLAUDE_EVENTS
from agentreflex.core.hosts.claude_code import HOST_NAMES, ClaudeCodeAdapter
from agentreflex.core.hosts.codex import CodexAdapter
from agentreflex.core.hosts.hermes import EVENTS as HERMES_EVENTS
from agentreflex.core.hosts.hermes import HermesAdapter

REASON = "rm -rf ~/ deletes your home directory"


def _decision(
    verdict: Verdict, mode: Mode = Mode.ENFORCED, context: str = "", message: str = REASON
) -> Decision:
    findings = []
    if verdict is not Verdict.ALLOW:
        findings.append(Finding("gate", "GATE-TEST", verdict, message, context=context))
    elif context:
        findings.append(Finding("context", "CTX", Verdict.ALLOW, "", context=context))
    return merge(findings, mode)


def _event(kind: EventKind, host: str = "claude-code") -> Event:
    return Event(kind=kind, host=host, session_id="s1", cwd="/w")


def _json(reply: HostReply) -> dict[str, Any]:
    data = json.loads(reply.stdout)
    assert isinstance(data, dict)
    return data


def claude_payload(event: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/w",
        "permission_mode": "default",
        "hook_event_name": event,
    }
    base.update(fields)
    return base


# ------------------------------------------------------------------ parsing


def test_claude_parses_every_event() -> None:
    adapter = ClaudeCodeAdapter()
    extra: dict[str, dict[str, Any]] = {
        "PreToolUse": {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"},
        "PostToolUse": {
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_response": {"stdout": "a", "stderr": "", "interrupted": False},
            "tool_use_id": "t",
        },
        "PostToolUseFailure": {
            "tool_name": "Bash",
            "tool_input": {"command": "false"},
            "error": "exit 1",
            "is_interrupt": False,
            "tool_use_id": "t",
        },
        "UserPromptSubmit": {"prompt": "fix it"},
        "Stop": {"stop_hook_active": True, "last_assistant_message": "done"},
        "SubagentStop": {"stop_hook_active": False, "agent_id": "a1", "agent_type": "x"},
        "SessionStart": {"source": "startup", "model": {"id": "claude-x"}},
        "PreCompact": {"trigger": "auto", "custom_instructions": ""},
        "SessionEnd": {"reason": "other"},
    }
    assert set(extra) == set(CLAUDE_EVENTS)
    for name, fields in extra.items():
        event = adapter.parse(claude_payload(name, **fields))
        assert event.kind is CLAUDE_EVENTS[name]
        assert event.host == "claude-code"
        assert event.host_event == name
        assert (event.session_id, event.cwd, event.transcript_path) == ("s1", "/w", "/tmp/t.jsonl")
    pre = adapter.parse(claude_payload("PreToolUse", **extra["PreToolUse"]))
    assert pre.tool is not None and pre.tool.command == "ls" and pre.tool.tool_use_id == "t"
    post = adapter.parse(claude_payload("PostToolUse", **extra["PostToolUse"]))
    assert post.result is not None and post.result.ok is True and post.result.output == "a"
    fail = adapter.parse(claude_payload("PostToolUseFailure", **extra["PostToolUseFailure"]))
    assert fail.result is not None and fail.result.ok is False and fail.result.error == "exit 1"
    stop = adapter.parse(claude_payload("Stop", **extra["Stop"]))
    assert stop.stop_hook_active and stop.last_message == "done"
    prompt = adapter.parse(claude_payload("UserPromptSubmit", prompt="fix it"))
    assert prompt.prompt == "fix it"
    start = adapter.parse(claude_payload("SessionStart", **extra["SessionStart"]))
    assert start.model == "claude-x"


def test_claude_unknown_fields_are_ignored() -> None:
    event = ClaudeCodeAdapter().parse(
        claude_payload(
            "PreToolUse",
            tool_name="Write",
            tool_input={"file_path": "/w/a", "content": "x", "future_field": 1},
            brand_new_top_level={"nested": [1, 2]},
            effort={"level": "high"},
        )
    )
    assert event.tool is not None and event.tool.kind is ToolKind.WRITE
    assert event.raw["brand_new_top_level"] == {"nested": [1, 2]}


@pytest.mark.parametrize(
    ("payload", "fragment", "kind"),
    [
        ({}, "missing field 'hook_event_name'", None),
        ({"hook_event_name": 3}, "must be a string", None),
        ({"hook_event_name": "pre_tool_call"}, "unsupported hook_event_name", None),
        ({"hook_event_name": "PreToolUse"}, "missing field 'tool_name'", EventKind.PRE_TOOL),
        (
            {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": ["ls"]},
            "'tool_input' must be an object",
            EventKind.PRE_TOOL,
        ),
        (
            {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": 7},
            "'cwd' must be a string",
            EventKind.PRE_TOOL,
        ),
        (
            {"hook_event_name": "UserPromptSubmit", "prompt": ["x"]},
            "'prompt'",
            EventKind.USER_PROMPT,
        ),
    ],
)
def test_claude_bad_payloads(
    payload: dict[str, Any], fragment: str, kind: EventKind | None
) -> None:
    for adapter in (ClaudeCodeAdapter(), CodexAdapter()):
        with pytest.raises(PayloadError) as info:
            adapter.parse(payload)
        assert fragment in str(info.value)
        assert "\n" not in str(info.value)
        assert info.value.kind is kind


def test_codex_payloads() -> None:
    adapter = CodexAdapter()
    pre = adapter.parse(
        {
            "session_id": "019a-thread",
            "turn_id": "t1",
            "transcript_path": None,
            "cwd": "/w",
            "hook_event_name": "PreToolUse",
            "model": "gpt-5",
            "permission_mode": "default",
            "tool_name": "apply_patch",
            "tool_input": {"command": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n"},
            "tool_use_id": "call_1",
        }
    )
    assert pre.host == "codex"
    assert pre.model == "gpt-5"
    assert pre.transcript_path == ""
    assert pre.tool is not None and pre.tool.kind is ToolKind.PATCH
    assert pre.tool.paths == ["a.txt"]
    stop = adapter.parse(
        {"session_id": "s", "hook_event_name": "Stop", "last_assistant_message": None}
    )
    assert stop.kind is EventKind.STOP and stop.last_message == ""
    mcp = adapter.parse(
        {"hook_event_name": "PreToolUse", "tool_name": "mcp__fs__rm", "tool_input": {"p": 1}}
    )
    assert mcp.tool is not None and mcp.tool.kind is ToolKind.MCP
    assert mcp.session_id == "unknown-session"


def test_hermes_parses_shell_hook_payloads() -> None:
    adapter = HermesAdapter()
    pre = adapter.parse(
        {
            "hook_event_name": "pre_tool_call",
            "tool_name": "terminal",
            "tool_input": {"command": "rm -rf /"},
            "session_id": "s",
            "cwd": "/w",
            "profile": "default",
            "extra": {"task_id": "", "tool_call_id": "c"},
        }
    )
    assert pre.kind is EventKind.PRE_TOOL
    assert pre.tool is not None
    assert (pre.tool.kind, pre.tool.command, pre.tool.tool_use_id) == (
        ToolKind.SHELL,
        "rm -rf /",
        "c",
    )
    post = adapter.parse(
        {
            "hook_event_name": "post_tool_call",
            "tool_name": "terminal",
            "tool_input": {"command": "pytest"},
            "session_id": "s",
            "extra": {"result": '{"output": "1 failed", "exit_code": 1}', "status": "error"},
        }
    )
    assert post.result is not None
    assert (post.result.ok, post.result.exit_code, post.result.output) == (False, 1, "1 failed")
    ran_and_failed = adapter.parse(
        {
            "hook_event_name": "post_tool_call",
            "tool_name": "terminal",
            "tool_input": {"command": "pytest"},
            "session_id": "s",
            "extra": {
                "result": '{"output": "1 failed", "exit_code": 1, "error": null}',
                "status": "ok",
            },
        }
    )
    assert ran_and_failed.result is not None
    assert ran_and_failed.result.ok is False  # Hermes' "ok": the tool ran, the tests failed
    tool_ok = adapter.parse(
        {
            "hook_event_name": "post_tool_call",
            "tool_name": "write_file",
            "tool_input": {"path": "a.py"},
            "session_id": "s",
            "extra": {"result": '{"bytes_written": 3}', "status": "ok"},
        }
    )
    assert tool_ok.result is not None and tool_ok.result.ok is True
    llm = adapter.parse(
        {
            "hook_event_name": "pre_llm_call",
            "tool_name": None,
            "tool_input": None,
            "session_id": "s",
            "extra": {"user_message": "deploy it"},
        }
    )
    assert llm.kind is EventKind.USER_PROMPT and llm.prompt == "deploy it"
    verify = adapter.parse(
        {"hook_event_name": "pre_verify", "session_id": "s", "extra": {"final_response": "ok"}}
    )
    assert verify.kind is EventKind.STOP and verify.last_message == "ok"
    assert not verify.stop_hook_active
    again = adapter.parse(
        {"hook_event_name": "pre_verify", "session_id": "s", "extra": {"stop_hook_active": True}}
    )
    assert again.stop_hook_active  # the plugin's second pre_verify of a turn
    for name, kind in HERMES_EVENTS.items():
        if kind in (EventKind.PRE_TOOL, EventKind.POST_TOOL):
            continue
        assert adapter.parse({"hook_event_name": name, "extra": "not a dict"}).kind is kind


def test_hermes_bad_payloads() -> None:
    adapter = HermesAdapter()
    with pytest.raises(PayloadError, match="unsupported hook_event_name 'PreToolUse'"):
        adapter.parse(claude_payload("PreToolUse", tool_name="Bash", tool_input={}))
    with pytest.raises(PayloadError, match="'tool_name'") as info:
        adapter.parse({"hook_event_name": "pre_tool_call", "tool_name": None})
    assert info.value.kind is EventKind.PRE_TOOL
    with pytest.raises(PayloadError, match="'tool_input' must be an object"):
        adapter.parse({"hook_event_name": "pre_tool_call", "tool_name": "x", "tool_input": "ls"})


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (None, (None, "", "", None, False)),
        ("plain text", (None, "plain text", "", None, False)),
        (
            [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            (None, "a\nb", "", None, False),
        ),
        ({"stdout": "ok", "stderr": "", "interrupted": False}, (True, "ok", "", None, False)),
        ({"stdout": "", "stderr": "boom", "interrupted": True}, (False, "", "boom", None, True)),
        ({"filePath": "/w/a", "success": True}, (True, "", "", None, False)),
        ({"success": False, "error": "denied"}, (False, "", "denied", None, False)),
        ({"output": "x", "exit_code": 2}, (False, "x", "", 2, False)),
        ({"output": "x", "exitCode": 0}, (True, "x", "", 0, False)),
        (
            {"content": [{"type": "text", "text": "r"}], "is_error": True},
            (False, "r", "", None, False),
        ),
        ({"exit_code": True}, (None, "", "", None, False)),
        ({"weird": 1}, (None, "", "", None, False)),
        (42, (None, "42", "", None, False)),
    ],
)
def test_tool_response_shapes(response: Any, expected: tuple[Any, ...]) -> None:
    assert tool_response_text(response) == expected


def test_error_words_in_successful_output_do_not_mean_failure() -> None:
    ok, *_ = tool_response_text({"stdout": "0 errors, 0 failures", "stderr": ""})
    assert ok is True


def test_cap() -> None:
    assert cap("x" * 20_000) == "x" * 8999 + "…"
    assert cap("short") == "short"


def test_get_adapter() -> None:
    assert set(HOSTS) == {
        "claude-code",
        "codex",
        "hermes",
        "opencode",
        "pi",
        "omp",
        "gemini",
        "copilot",
    }
    assert get_adapter("claude").name == "claude-code"
    for host in HOSTS:
        assert get_adapter(host).name == host
    with pytest.raises(
        ValueError,
        match="supported: claude-code, codex, hermes, opencode, pi, omp, gemini, copilot",
    ):
        get_adapter("cursor")


# ------------------------------------------------------------ Claude render


def test_claude_pre_tool_deny() -> None:
    reply = ClaudeCodeAdapter().render(_event(EventKind.PRE_TOOL), _decision(Verdict.BLOCK))
    assert reply.exit_code == 0
    assert _json(reply) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": REASON,
        }
    }


def test_claude_pre_tool_ask() -> None:
    reply = ClaudeCodeAdapter().render(_event(EventKind.PRE_TOOL), _decision(Verdict.ASK_USER))
    out = _json(reply)["hookSpecificOutput"]
    assert out["permissionDecision"] == "ask"
    assert out["permissionDecisionReason"] == REASON


@pytest.mark.parametrize("mode", ["bypassPermissions", "dontAsk"])
def test_claude_ask_is_a_deny_when_nobody_would_be_asked(mode: str) -> None:
    event = _event(EventKind.PRE_TOOL)
    event.raw = {**event.raw, "permission_mode": mode}
    out = _json(ClaudeCodeAdapter().render(event, _decision(Verdict.ASK_USER)))
    spec = out["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny"
    assert "ask the user" in spec["permissionDecisionReason"]
    assert REASON in spec["permissionDecisionReason"]
    event.raw = {**event.raw, "permission_mode": "default"}
    spec = _json(ClaudeCodeAdapter().render(event, _decision(Verdict.ASK_USER)))
    assert spec["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_claude_pre_tool_warn_is_additional_context() -> None:
    reply = ClaudeCodeAdapter().render(_event(EventKind.PRE_TOOL), _decision(Verdict.WARN))
    out = _json(reply)
    assert set(out) == {"hookSpecificOutput"}
    assert out["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    assert "permissionDecision" not in out["hookSpecificOutput"]
    assert REASON in out["hookSpecificOutput"]["additionalContext"]


def test_claude_allow_is_empty_and_shadow_is_silent() -> None:
    adapter = ClaudeCodeAdapter()
    for kind in EventKind:
        assert adapter.render(_event(kind), _decision(Verdict.ALLOW)) == HostReply()
        for verdict in Verdict:
            shadow = _decision(verdict, mode=Mode.SHADOW, context="ctx")
            assert adapter.render(_event(kind), shadow) == HostReply(), (kind, verdict)


@pytest.mark.parametrize("kind", [EventKind.STOP, EventKind.SUBAGENT_STOP])
def test_claude_stop_block(kind: EventKind) -> None:
    reply = ClaudeCodeAdapter().render(_event(kind), _decision(Verdict.BLOCK))
    assert _json(reply) == {"decision": "block", "reason": REASON}


def test_claude_post_tool_block_and_context() -> None:
    adapter = ClaudeCodeAdapter()
    block = adapter.render(_event(EventKind.POST_TOOL), _decision(Verdict.BLOCK))
    assert _json(block) == {"decision": "block", "reason": REASON}
    ctx = adapter.render(
        _event(EventKind.POST_TOOL), _decision(Verdict.ALLOW, context="the same error as before")
    )
    assert _json(ctx) == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": "the same error as before",
        }
    }
    warn = adapter.render(_event(EventKind.POST_TOOL_FAILURE), _decision(Verdict.WARN))
    assert _json(warn)["hookSpecificOutput"]["hookEventName"] == "PostToolUseFailure"


def test_claude_user_prompt_submit() -> None:
    adapter = ClaudeCodeAdapter()
    block = adapter.render(_event(EventKind.USER_PROMPT), _decision(Verdict.BLOCK))
    assert _json(block) == {"decision": "block", "reason": REASON}
    ctx = adapter.render(
        _event(EventKind.USER_PROMPT), _decision(Verdict.ALLOW, context="Session digest: ...")
    )
    assert _json(ctx)["hookSpecificOutput"] == {
        "hookEventName": "UserPromptSubmit",
        "additionalContext": "Session digest: ...",
    }


def test_claude_session_start_context_and_stop_warning() -> None:
    adapter = ClaudeCodeAdapter()
    ctx = adapter.render(_event(EventKind.SESSION_START), _decision(Verdict.ALLOW, context="hi"))
    assert _json(ctx)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    warn = adapter.render(_event(EventKind.STOP), _decision(Verdict.WARN))
    assert set(_json(warn)) == {"systemMessage"}


def test_claude_reasons_are_capped_and_never_empty() -> None:
    adapter = ClaudeCodeAdapter()
    long = adapter.render(
        _event(EventKind.PRE_TOOL), _decision(Verdict.BLOCK, message="z" * 50_000)
    )
    assert len(_json(long)["hookSpecificOutput"]["permissionDecisionReason"]) <= 10_000
    empty = adapter.render(_event(EventKind.PRE_TOOL), _decision(Verdict.BLOCK, message=""))
    assert _json(empty)["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.parametrize("host", ["claude-code", "codex", "hermes"])
def test_default_reasons_never_say_blocked_for_a_warning(host: str) -> None:
    adapter = get_adapter(host)
    for kind in (EventKind.PRE_TOOL, EventKind.USER_PROMPT, EventKind.POST_TOOL, EventKind.STOP):
        warn = adapter.render(_event(kind, host), _decision(Verdict.WARN, message=""))
        assert "blocked" not in warn.stdout
        block = adapter.render(_event(kind, host), _decision(Verdict.BLOCK, message="   "))
        if block.stdout not in ("", "{}"):
            out = _json(block)
            reason = out.get("reason") or out["hookSpecificOutput"]["permissionDecisionReason"]
            assert reason.strip()


# ------------------------------------------------------------ render_error


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_render_error_fails_closed_only_on_pre_tool(host: str) -> None:
    adapter = get_adapter(host)
    closed = adapter.render_error(EventKind.PRE_TOOL, "boom", True)
    out = _json(closed)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "boom" in out["permissionDecisionReason"]
    assert closed.stderr == "agentreflex error: boom\n"
    assert closed.exit_code == 0
    for kind in [*EventKind, None]:
        if kind is EventKind.PRE_TOOL:
            continue
        reply = adapter.render_error(kind, "boom", True)
        assert "deny" not in reply.stdout and "block" not in reply.stdout
        assert _json(reply) == {"systemMessage": "agentreflex error: boom"}
        assert reply.stderr.count("\n") == 1
    opened = adapter.render_error(EventKind.PRE_TOOL, "boom", False)
    assert _json(opened) == {"systemMessage": "agentreflex error: boom"}


def test_hermes_render_error() -> None:
    adapter = HermesAdapter()
    closed = adapter.render_error(EventKind.PRE_TOOL, "boom", True)
    assert _json(closed) == {"decision": "block", "reason": "agentreflex error: boom"}
    for kind in (EventKind.STOP, EventKind.USER_PROMPT, None):
        assert adapter.render_error(kind, "boom", True).stdout == "{}"
    assert adapter.render_error(EventKind.PRE_TOOL, "boom", False).stdout == "{}"


# ------------------------------------------------------------ Hermes render


def test_hermes_render() -> None:
    adapter = HermesAdapter()
    pre = _event(EventKind.PRE_TOOL, "hermes")
    assert _json(adapter.render(pre, _decision(Verdict.BLOCK))) == {
        "decision": "block",
        "reason": REASON,
    }
    assert _json(adapter.render(pre, _decision(Verdict.ASK_USER)))["decision"] == "block"
    assert adapter.render(pre, _decision(Verdict.ALLOW)).stdout == "{}"
    assert adapter.render(pre, _decision(Verdict.WARN)).stdout == "{}"
    assert adapter.render(pre, _decision(Verdict.BLOCK, mode=Mode.SHADOW)).stdout == "{}"
    llm = _event(EventKind.USER_PROMPT, "hermes")
    assert _json(adapter.render(llm, _decision(Verdict.ALLOW, context="digest"))) == {
        "context": "digest"
    }
    assert adapter.render(llm, _decision(Verdict.ALLOW)).stdout == "{}"
    verify = _event(EventKind.STOP, "hermes")
    assert _json(adapter.render(verify, _decision(Verdict.BLOCK)))["decision"] == "block"
    for kind in EventKind:
        for verdict in Verdict:
            out = _json(adapter.render(_event(kind, "hermes"), _decision(verdict, context="c")))
            assert set(out) <= {"decision", "reason", "context"}


def test_hermes_refuses_execute_code_in_enforced_mode() -> None:
    """execute_code runs Python outside the boundary (only terminal is contained): refused
    in enforced mode, left to the gate in shadow mode; terminal is not refused."""
    adapter = HermesAdapter()
    payload = {
        "hook_event_name": "pre_tool_call",
        "tool_name": "execute_code",
        "tool_input": {"code": "print(1)"},
        "session_id": "s1",
        "cwd": "/w",
    }
    code = adapter.parse(payload)
    out = _json(adapter.render(code, _decision(Verdict.ALLOW)))
    assert out["decision"] == "block" and "terminal" in out["reason"]
    assert adapter.render(code, _decision(Verdict.ALLOW, mode=Mode.SHADOW)).stdout == "{}"
    terminal = adapter.parse({**payload, "tool_name": "terminal", "tool_input": {"command": "ls"}})
    assert _json(adapter.render(terminal, _decision(Verdict.ALLOW))).get("decision") != "block"


def test_claude_codes_powershell_is_refused_where_bash_is_contained(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code 2.1.328 offers ``PowerShell`` {command} outside Windows when
    ``CLAUDE_CODE_USE_POWERSHELL_TOOL`` is set (its binary's ``JA()``); the boundary's
    POSIX line can't take its command's place, so in enforced mode, where each Bash
    command is contained (permissions bypassed), it ran outside the boundary.  It is
    refused there, and left to Claude Code where Bash is."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / ".claude"))
    adapter = ClaudeCodeAdapter()
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": str(tmp_path),
        "tool_name": "PowerShell",
        "tool_input": {"command": "python3 w.py", "description": "d"},
        "permission_mode": "bypassPermissions",
    }
    bash = adapter.parse(payload | {"tool_name": "Bash"})
    bash_spec = _json(adapter.render(bash, _decision(Verdict.ALLOW)))["hookSpecificOutput"]
    if "updatedInput" not in bash_spec:
        pytest.skip("no boundary on this machine: Bash is not contained either")
    event = adapter.parse(payload)
    spec = _json(adapter.render(event, _decision(Verdict.ALLOW)))["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny" and "Bash" in spec["permissionDecisionReason"]
    shadow = adapter.render(event, _decision(Verdict.ALLOW, mode=Mode.SHADOW))
    assert "deny" not in shadow.stdout
    ruled = adapter.parse(payload | {"permission_mode": "default"})
    assert "deny" not in adapter.render(ruled, _decision(Verdict.ALLOW)).stdout


def test_claude_codes_workflow_is_a_subagent_refused_in_enforced_mode() -> None:
    """Claude Code 2.1.328's ``Workflow`` {script | name | scriptPath, args} runs a
    JavaScript program in a ``node:vm`` context of Claude's own process (its binary:
    ``new Lo.Script(r,{filename:"workflow.js"...})`` in a context built with
    ``codeGeneration:{strings:!1}``), not in a shell and not in Claude's sandbox, whose
    steps are subagents (``agent()``).  It was read as a shell command (its ``script``
    field).  It is a subagent, not a command: and in enforced mode it is refused, as
    Hermes' execute_code is, for Node documents ``vm`` as no security mechanism."""
    adapter = ClaudeCodeAdapter()
    script = 'export const meta = {name: "x", description: "d", phases: []}\nawait agent("hi")'
    for tool_input in ({"script": script}, {"name": "review"}, {"scriptPath": "/s/w.js"}):
        payload = {
            "hook_event_name": "PreToolUse",
            "session_id": "s1",
            "cwd": "/w",
            "tool_name": "Workflow",
            "tool_input": tool_input,
        }
        event = adapter.parse(payload)
        assert event.tool is not None and event.tool.kind is ToolKind.SUBAGENT
        spec = _json(adapter.render(event, _decision(Verdict.ALLOW)))["hookSpecificOutput"]
        assert spec["permissionDecision"] == "deny" and "Agent" in spec["permissionDecisionReason"]
        shadow = adapter.render(event, _decision(Verdict.ALLOW, mode=Mode.SHADOW))
        assert "deny" not in shadow.stdout
    agent = adapter.parse(payload | {"tool_name": "Agent", "tool_input": {"prompt": "p"}})
    assert "deny" not in adapter.render(agent, _decision(Verdict.ALLOW)).stdout


def test_claude_codes_monitor_is_a_shell_held_where_bash_is(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's ``Monitor`` runs its ``command`` in a shell (sdk-tools.d.ts
    ``MonitorInput``).  It was unmapped: judged only through its input, and never put in
    the boundary, so in enforced mode it overwrote .agentreflex/config.toml in the real
    2.1.328 (red-team rt41).  It is a shell: contained as Bash is where permissions are
    bypassed, left as written where the user's Bash rules decide."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / ".claude"))
    adapter = ClaudeCodeAdapter()
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": str(tmp_path),
        "tool_name": "Monitor",
        "tool_input": {"description": "d", "timeout_ms": 5000, "command": "python3 w.py"},
        "permission_mode": "bypassPermissions",
    }
    event = adapter.parse(payload)
    assert event.tool is not None and event.tool.kind is ToolKind.SHELL
    assert event.tool.command == "python3 w.py"
    spec = _json(adapter.render(event, _decision(Verdict.ALLOW)))["hookSpecificOutput"]
    updated = spec["updatedInput"]
    assert updated["command"] != "python3 w.py" and "python3 w.py" in updated["command"]
    assert updated["description"] == "d" and updated["timeout_ms"] == 5000
    ruled = adapter.parse(payload | {"permission_mode": "default"})
    assert "updatedInput" not in adapter.render(ruled, _decision(Verdict.ALLOW)).stdout


def test_hermes_refuses_a_cron_script_in_enforced_mode() -> None:
    """Hermes' ``cronjob`` runs ``~/.hermes/scripts/<script>`` on its schedule from its own
    scheduler (tools/cronjob_tools.py), outside the boundary and unjudged: it was an
    unmapped tool whose ``script`` read as a harmless command (red-team rt41).  A job
    that only schedules a prompt is left to the gate."""
    adapter = HermesAdapter()
    payload = {
        "hook_event_name": "pre_tool_call",
        "tool_name": "cronjob",
        "tool_input": {"action": "create", "schedule": "* * * * *", "script": "w.sh"},
        "session_id": "s1",
        "cwd": "/w",
    }
    job = adapter.parse(payload)
    out = _json(adapter.render(job, _decision(Verdict.ALLOW)))
    assert out["decision"] == "block" and "terminal" in out["reason"]
    job = adapter.parse(
        payload
        | {"tool_input": {"action": "update", "job_id": "1", "script": "w.sh", "no_agent": True}}
    )
    assert _json(adapter.render(job, _decision(Verdict.ALLOW)))["decision"] == "block"
    assert adapter.render(job, _decision(Verdict.ALLOW, mode=Mode.SHADOW)).stdout == "{}"
    prompt = {"action": "create", "schedule": "0 9 * * *", "prompt": "summarise the logs"}
    job = adapter.parse(payload | {"tool_input": prompt})
    assert _json(adapter.render(job, _decision(Verdict.ALLOW))).get("decision") != "block"
    clear = adapter.parse(
        payload | {"tool_input": {"action": "update", "job_id": "1", "script": ""}}
    )
    assert _json(adapter.render(clear, _decision(Verdict.ALLOW))).get("decision") != "block"


def test_hermes_refuses_desktop_control_in_enforced_mode() -> None:
    """Hermes' ``computer_use`` (one of its core tools wherever cua-driver is installed:
    toolsets.py ``_HERMES_CORE_TOOLS``; actions in tools/computer_use/schema.py) types
    keys and clicks into any window, a terminal's included, from Hermes' own process: a
    command typed there runs unjudged and outside the boundary.  It was an unmapped tool
    whose ``text`` read as nothing.  Looking (capture, list, wait) is left alone."""
    adapter = HermesAdapter()
    payload = {
        "hook_event_name": "pre_tool_call",
        "tool_name": "computer_use",
        "session_id": "s1",
        "cwd": "/w",
    }
    for given in (
        {"action": "type", "text": "rm -rf ~\n", "app": "Terminal"},
        {"action": "key", "keys": "ctrl+alt+t"},
        {"action": "click", "element": 3},
        {"action": "focus_app", "app": "Terminal"},
    ):
        call = adapter.parse(payload | {"tool_input": given})
        out = _json(adapter.render(call, _decision(Verdict.ALLOW)))
        assert out["decision"] == "block" and "terminal" in out["reason"], given
        shadow = adapter.render(call, _decision(Verdict.ALLOW, mode=Mode.SHADOW))
        assert shadow.stdout == "{}"
    for given in ({"action": "capture", "mode": "som"}, {"action": "list_windows"}):
        call = adapter.parse(payload | {"tool_input": given})
        assert _json(adapter.render(call, _decision(Verdict.ALLOW))).get("decision") != "block"


# ---------------------------------------------------------- Codex validity

# The Codex output shapes of hosts-protocols §2.4, as allowlists.  Codex
# validates with additionalProperties:false and treats an invalid answer as a
# failed hook: the tool runs.  So anything not listed here is a bug.
_UNIVERSAL = {"continue", "stopReason", "suppressOutput", "systemMessage"}
_SPECIFIC = {
    "PreToolUse": {
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
        "additionalContext",
    },
    "PostToolUse": {
        "hookEventName",
        "additionalContext",
        "updatedToolOutput",
        "updatedMCPToolOutput",
    },
    "UserPromptSubmit": {"hookEventName", "additionalContext"},
    "SessionStart": {"hookEventName", "additionalContext"},
}
_BLOCKABLE = {"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"}


def codex_output_problems(event_name: str, stdout: str) -> list[str]:
    """Why Codex would reject this hook stdout for this event ([] when valid)."""
    if stdout.strip() == "":
        return []
    try:
        out = json.loads(stdout)
    except ValueError:
        return ["stdout is not JSON"]
    if not isinstance(out, dict):
        return ["stdout is not a JSON object"]
    problems: list[str] = []
    allowed_top = set(_UNIVERSAL)
    if event_name in _BLOCKABLE:
        allowed_top |= {"decision", "reason"}
    if event_name in _SPECIFIC:
        allowed_top.add("hookSpecificOutput")
    problems += [f"unknown top-level key {k!r}" for k in set(out) - allowed_top]
    if "decision" in out:
        if out["decision"] != "block":
            problems.append(f"decision {out['decision']!r} (only 'block')")
        if not isinstance(out.get("reason"), str) or not out["reason"].strip():
            problems.append("decision without a non-empty reason")
    elif "reason" in out:
        problems.append("reason without decision")
    stops = out.get("continue") is False or "stopReason" in out or out.get("suppressOutput")
    if event_name == "PreToolUse" and stops:
        problems.append("continue:false / stopReason / suppressOutput on PreToolUse")
    for key in ("systemMessage", "stopReason"):
        if key in out and not isinstance(out[key], str):
            problems.append(f"{key} is not a string")
    spec = out.get("hookSpecificOutput")
    if spec is not None:
        if not isinstance(spec, dict):
            return [*problems, "hookSpecificOutput is not an object"]
        problems += [
            f"unknown hookSpecificOutput key {k!r}"
            for k in set(spec) - _SPECIFIC.get(event_name, set())
        ]
        if spec.get("hookEventName") != event_name:
            problems.append(f"hookEventName {spec.get('hookEventName')!r} != {event_name!r}")
        if "additionalContext" in spec and not isinstance(spec["additionalContext"], str):
            problems.append("additionalContext is not a string")
        decision = spec.get("permissionDecision")
        if decision is not None:
            if decision == "ask":
                problems.append("permissionDecision 'ask' is unsupported by Codex")
            elif decision == "allow" and "updatedInput" not in spec:
                problems.append("allow without updatedInput")
            elif decision not in ("deny", "allow"):
                problems.append(f"permissionDecision {decision!r}")
            if decision == "deny" and not str(spec.get("permissionDecisionReason", "")).strip():
                problems.append("deny without a non-empty reason")
        if "updatedInput" in spec and decision != "allow":
            problems.append("updatedInput without allow")
    return problems


def test_the_codex_checker_rejects_what_codex_rejects() -> None:
    bad = [
        (
            "PreToolUse",
            '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
            '"permissionDecision": "ask", "permissionDecisionReason": "x"}}',
        ),
        (
            "PreToolUse",
            '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
            '"permissionDecision": "deny", "permissionDecisionReason": ""}}',
        ),
        (
            "PreToolUse",
            '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
            '"permissionDecision": "allow"}}',
        ),
        ("PreToolUse", '{"decision": "approve", "reason": "x"}'),
        ("PreToolUse", '{"continue": false}'),
        ("PreToolUse", '{"reason": "x"}'),
        ("PreToolUse", '{"systemMessage": "x", "extra": 1}'),
        ("Stop", '{"decision": "block"}'),
        ("Stop", '{"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "x"}}'),
        (
            "PostToolUse",
            '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "x"}}',
        ),
        ("SessionStart", '{"decision": "block", "reason": "x"}'),
        ("PreToolUse", "not json"),
        ("PreToolUse", "[]"),
    ]
    for event_name, stdout in bad:
        assert codex_output_problems(event_name, stdout), stdout
    good = [
        ("PreToolUse", ""),
        (
            "PreToolUse",
            '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
            '"permissionDecision": "deny", "permissionDecisionReason": "no"}}',
        ),
        ("PreToolUse", '{"decision": "block", "reason": "no"}'),
        ("Stop", '{"decision": "block", "reason": "run the tests"}'),
        (
            "SessionStart",
            '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "x"}}',
        ),
        ("PreCompact", '{"systemMessage": "x"}'),
    ]
    for event_name, stdout in good:
        assert codex_output_problems(event_name, stdout) == [], stdout


@pytest.mark.parametrize("mode", list(Mode))
@pytest.mark.parametrize("verdict", list(Verdict))
@pytest.mark.parametrize("kind", list(EventKind))
@pytest.mark.parametrize("context", ["", "some context"])
def test_every_codex_answer_is_schema_valid(
    kind: EventKind, verdict: Verdict, mode: Mode, context: str
) -> None:
    adapter = CodexAdapter()
    reply = adapter.render(_event(kind, "codex"), _decision(verdict, mode, context))
    assert reply.exit_code == 0
    assert codex_output_problems(HOST_NAMES[kind], reply.stdout) == []
    assert '"ask"' not in reply.stdout
    for fail_closed in (True, False):
        err = adapter.render_error(kind, "boom", fail_closed)
        assert codex_output_problems(HOST_NAMES[kind], err.stdout) == []


def test_codex_ask_user_becomes_a_deny_that_says_ask_the_user() -> None:
    reply = CodexAdapter().render(_event(EventKind.PRE_TOOL, "codex"), _decision(Verdict.ASK_USER))
    out = _json(reply)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "ask the user" in out["permissionDecisionReason"]
    assert REASON in out["permissionDecisionReason"]


def test_codex_block_shapes() -> None:
    adapter = CodexAdapter()
    deny = _json(adapter.render(_event(EventKind.PRE_TOOL, "codex"), _decision(Verdict.BLOCK)))
    assert deny == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": REASON,
        }
    }
    stop = _json(adapter.render(_event(EventKind.STOP, "codex"), _decision(Verdict.BLOCK)))
    assert stop == {"decision": "block", "reason": REASON}
    assert (
        adapter.render(_event(EventKind.PRE_TOOL, "codex"), _decision(Verdict.ALLOW)).stdout == ""
    )


@pytest.mark.parametrize("verdict", list(Verdict))
@pytest.mark.parametrize("kind", list(EventKind))
def test_claude_answers_use_only_documented_keys(kind: EventKind, verdict: Verdict) -> None:
    reply = ClaudeCodeAdapter().render(_event(kind), _decision(verdict, context="c"))
    if not reply.stdout:
        return
    out = _json(reply)
    assert set(out) <= {"decision", "reason", "hookSpecificOutput", "systemMessage"}
    if "decision" in out:
        assert out["decision"] == "block" and out["reason"]
    spec = out.get("hookSpecificOutput")
    if spec is not None:
        assert spec["hookEventName"] == HOST_NAMES[kind]
        assert set(spec) <= {
            "hookEventName",
            "permissionDecision",
            "permissionDecisionReason",
            "additionalContext",
        }
        if "permissionDecision" in spec:
            assert kind is EventKind.PRE_TOOL
            assert spec["permissionDecision"] in ("deny", "ask")


@pytest.mark.parametrize("form", ["plugin", "shell-hook"])
def test_hermes_background_terminal_is_judged_where_hermes_starts_it(
    tmp_path: Path, form: str
) -> None:
    """Hermes 0.19 starts ``terminal`` with ``background: true`` as ``Popen(cwd=
    _resolve_safe_cwd(workdir))`` from its own process folder (tools/terminal_tool.py
    ``terminal_tool`` -> tools/process_registry.py ``spawn_local``), not with ``cd --
    WORKDIR`` from the session's folder as a foreground command: a relative ``workdir``
    is Hermes' own folder's, ``~`` is no home there, and a missing folder is its nearest
    existing parent.  The plugin's payload names the session's folder as ``cwd`` (and
    Hermes' own as ``extra.process_cwd``); a shell hook's ``cwd`` is Hermes' own folder."""
    from agentreflex.core.hosts.base import shell_folder

    process = tmp_path / "proj"
    (process / ".git" / "hooks").mkdir(parents=True)
    session = process / "notes"
    (session / ".git").mkdir(parents=True)

    def parsed(**given: Any) -> Event:
        extra: dict[str, Any] = {"tool_call_id": "c"}
        if form == "plugin":
            extra["process_cwd"] = str(process)
        payload = {
            "hook_event_name": "pre_tool_call",
            "tool_name": "terminal",
            "tool_input": {"command": "echo x > hooks/pre-commit", **given},
            "session_id": "s",
            "cwd": str(session if form == "plugin" else process),
            "extra": extra,
        }
        return HermesAdapter().parse(payload)

    for workdir, folder in ((".git", process / ".git"), (".git/none/x", process / ".git")):
        event = parsed(background=True, workdir=workdir)
        assert event.tool is not None
        assert shell_folder(event.tool, event.cwd, home=True) == str(folder)
        assert event.tool.command.startswith(f"cd -- '{folder}'\n")
    import tempfile

    event = parsed(background=True, workdir="~/none")
    assert event.tool is not None
    assert shell_folder(event.tool, event.cwd, home=True) == tempfile.gettempdir()
    if form == "plugin":  # a foreground command: ``cd -- WORKDIR`` from the session's folder
        for background in (False, "false"):
            event = parsed(background=background, workdir=".git")
            assert event.tool is not None
            assert shell_folder(event.tool, event.cwd, home=True) == str(session / ".git")
