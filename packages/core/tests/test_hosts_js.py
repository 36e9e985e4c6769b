"""OpenCode and pi/omp adapters: the shim payload in, the shim's three-key reply out."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentreflex.core.decision import Decision, Finding, Mode, Verdict, merge
from agentreflex.core.events import Event, EventKind, ToolKind
from agentreflex.core.hook.runtime import MAX_PAYLOAD_BYTES, run_hook
from agentreflex.core.hosts import HOSTS, get_adapter
from agentreflex.core.hosts.base import HostReply, PayloadError
from agentreflex.core.hosts.jsshim import MODEL_LIMIT
from agentreflex.core.hosts.opencode import EVENTS as OPENCODE_EVENTS
from agentreflex.core.hosts.pi import EVENTS as PI_EVENTS

JS_HOSTS = ("opencode", "pi", "omp")


def _events(host: str) -> dict[str, EventKind]:
    return OPENCODE_EVENTS if host == "opencode" else PI_EVENTS


def _name(host: str, kind: EventKind) -> str:
    return next(n for n, k in _events(host).items() if k is kind)


def _payload(host: str, kind: EventKind, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"hook_event_name": _name(host, kind), "session_id": "s1", "cwd": "/w"}
    base.update(fields)
    return base


def _decision(verdict: Verdict, context: str = "", message: str = "rm -rf ~ is final") -> Decision:
    findings = []
    if verdict is not Verdict.ALLOW:
        findings.append(Finding("gate", "GATE-TEST", verdict, message, context=context))
    elif context:
        findings.append(Finding("context", "CTX", Verdict.ALLOW, "", context=context))
    return merge(findings, Mode.ENFORCED)


def _json(reply: HostReply) -> dict[str, Any]:
    data = json.loads(reply.stdout)
    assert isinstance(data, dict)
    return data


def test_hosts_are_registered() -> None:
    for host in JS_HOSTS:
        assert host in HOSTS
        assert get_adapter(host).name == host


@pytest.mark.parametrize("host", JS_HOSTS)
def test_every_event_parses(host: str) -> None:
    adapter = get_adapter(host)
    for name, kind in _events(host).items():
        fields: dict[str, Any] = {"hook_event_name": name, "session_id": "s1", "cwd": "/w"}
        if kind in (EventKind.PRE_TOOL, EventKind.POST_TOOL):
            fields.update(tool="bash", call_id="c1", args={"command": "ls"})
        event = adapter.parse(fields)
        assert (event.kind, event.host, event.host_event, event.session_id, event.cwd) == (
            kind,
            host,
            name,
            "s1",
            "/w",
        )


def test_opencode_tools_are_normalised() -> None:
    adapter = get_adapter("opencode")
    pre = EventKind.PRE_TOOL
    bash = adapter.parse(_payload("opencode", pre, tool="bash", args={"command": "rm -rf ~"}))
    assert bash.tool is not None and bash.tool.kind is ToolKind.SHELL
    assert bash.tool.command == "rm -rf ~"
    edit = adapter.parse(
        _payload(
            "opencode",
            pre,
            tool="edit",
            args={"filePath": "/w/tests/t.py", "oldString": "a", "newString": "b"},
        )
    )
    assert edit.tool is not None and edit.tool.kind is ToolKind.EDIT
    assert (edit.tool.path, edit.tool.old_content, edit.tool.content) == ("/w/tests/t.py", "a", "b")
    body = "*** Begin Patch\n*** Update File: tests/t.py\n@@\n-a\n+b\n*** End Patch\n"
    patch = adapter.parse(_payload("opencode", pre, tool="apply_patch", args={"patchText": body}))
    assert patch.tool is not None and patch.tool.kind is ToolKind.PATCH
    assert patch.tool.paths == ["tests/t.py"]
    task = adapter.parse(_payload("opencode", pre, tool="task", args={"prompt": "x"}))
    assert task.tool is not None and task.tool.kind is ToolKind.SUBAGENT


def test_pi_tools_are_normalised() -> None:
    adapter = get_adapter("pi")
    edit = adapter.parse(
        _payload(
            "pi",
            EventKind.PRE_TOOL,
            tool="edit",
            call_id="c9",
            args={"path": "tests/t.py", "oldText": "a", "newText": "b"},
        )
    )
    assert edit.tool is not None and edit.tool.kind is ToolKind.EDIT
    assert (edit.tool.path, edit.tool.content, edit.tool.tool_use_id) == ("tests/t.py", "b", "c9")


@pytest.mark.parametrize("host", JS_HOSTS)
def test_results_prompts_and_stops(host: str) -> None:
    adapter = get_adapter(host)
    post = adapter.parse(
        _payload(
            host,
            EventKind.POST_TOOL,
            tool="bash",
            args={"command": "pytest"},
            result={"output": "1 passed", "exit_code": 0},
        )
    )
    assert post.result is not None and post.result.ok is True
    assert post.result.output == "1 passed"
    failed = adapter.parse(
        _payload(
            host,
            EventKind.POST_TOOL,
            tool="bash",
            args={},
            result={"output": "boom", "is_error": True},
        )
    )
    assert failed.result is not None and failed.result.ok is False
    unknown = adapter.parse(_payload(host, EventKind.POST_TOOL, tool="bash", args=None))
    assert unknown.result is not None and unknown.result.ok is None
    prompt = adapter.parse(_payload(host, EventKind.USER_PROMPT, prompt="Do not modify tests."))
    assert prompt.prompt == "Do not modify tests."
    stop = adapter.parse(_payload(host, EventKind.STOP, last_message="done", stop_hook_active=True))
    assert (stop.last_message, stop.stop_hook_active) == ("done", True)
    for not_true in ("true", 1, {}, None):
        again = adapter.parse(_payload(host, EventKind.STOP, stop_hook_active=not_true))
        assert again.stop_hook_active is False


def test_opencode_model_keys_are_bounded_strings() -> None:
    adapter = get_adapter("opencode")
    event = adapter.parse(
        _payload(
            "opencode",
            EventKind.PRE_TOOL,
            tool="bash",
            args={"command": "ls"},
            model_id="m" * 1000,
            model_variant="high",
        )
    )
    assert event.raw["model_id"] == "m" * MODEL_LIMIT
    assert event.model == "m" * MODEL_LIMIT
    assert event.raw["model_variant"] == "high"
    odd = adapter.parse(
        _payload("opencode", EventKind.USER_PROMPT, model_id=["x"], model_variant={"a": 1})
    )
    assert "model_id" not in odd.raw and "model_variant" not in odd.raw and odd.model == ""


@pytest.mark.parametrize("host", JS_HOSTS)
def test_bad_payloads_are_one_line_errors_with_their_event(host: str) -> None:
    adapter = get_adapter(host)
    pre = EventKind.PRE_TOOL
    with pytest.raises(PayloadError, match="unsupported hook_event_name 'PreToolUse'"):
        adapter.parse({"hook_event_name": "PreToolUse"})
    with pytest.raises(PayloadError, match="missing field 'hook_event_name'"):
        adapter.parse({"tool": "bash"})
    cases: list[tuple[dict[str, Any], str]] = [
        (_payload(host, pre, args={"command": "ls"}), "'tool'"),
        (_payload(host, pre, tool=7, args={}), "'tool' must be a string"),
        (_payload(host, pre, tool="  ", args={}), "must not be empty"),
        (_payload(host, pre, tool="bash"), "'args' must be an object, got missing"),
        (_payload(host, pre, tool="bash", args="rm -rf /"), "must be an object"),
        (_payload(host, pre, tool="bash", args={"command": ["rm"]}), "'args.command'"),
        (_payload(host, pre, tool="write", args={"filePath": "a", "content": 5}), "content"),
        (_payload(host, pre, tool="patch", args={"patchText": 5}), "patchText"),
        (_payload(host, pre, tool="bash", args={}, session_id=5), "'session_id'"),
    ]
    for payload, match in cases:
        with pytest.raises(PayloadError, match=match) as info:
            adapter.parse(payload)
        assert info.value.kind is pre
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("host", JS_HOSTS)
def test_render(host: str) -> None:
    adapter = get_adapter(host)

    def event(kind: EventKind) -> Event:
        return Event(kind=kind, host=host, session_id="s1")

    block = _json(adapter.render(event(EventKind.PRE_TOOL), _decision(Verdict.BLOCK)))
    assert block == {"block": True, "reason": block["reason"]}
    assert "rm -rf ~ is final" in block["reason"]
    ask = _json(adapter.render(event(EventKind.PRE_TOOL), _decision(Verdict.ASK_USER)))
    assert ask["block"] is True and ask["reason"].startswith("Needs the user's approval")
    stop = _json(adapter.render(event(EventKind.STOP), _decision(Verdict.BLOCK, message="run it")))
    assert stop == {"block": True, "reason": "run it"}
    ctx = _json(
        adapter.render(event(EventKind.USER_PROMPT), _decision(Verdict.ALLOW, context="note"))
    )
    assert ctx == {"context": "note"}
    warn = _json(adapter.render(event(EventKind.POST_TOOL), _decision(Verdict.WARN)))
    assert warn["context"].startswith("agentreflex warning:") and "block" not in warn
    # a block where nothing can be blocked is not a block
    late = _json(adapter.render(event(EventKind.POST_TOOL), _decision(Verdict.BLOCK)))
    assert "block" not in late
    assert _json(adapter.render(event(EventKind.STOP), _decision(Verdict.ALLOW))) == {}
    huge = _json(
        adapter.render(event(EventKind.PRE_TOOL), _decision(Verdict.BLOCK, message="x" * 50_000))
    )
    assert len(huge["reason"]) < 10_000


@pytest.mark.parametrize("host", JS_HOSTS)
def test_render_error_fails_closed_only_before_a_tool(host: str) -> None:
    adapter = get_adapter(host)
    closed = adapter.render_error(EventKind.PRE_TOOL, "boom", True)
    assert _json(closed)["block"] is True and "boom" in _json(closed)["reason"]
    assert closed.stderr == "agentreflex error: boom\n" and closed.exit_code == 0
    for kind in [*EventKind, None]:
        if kind is not EventKind.PRE_TOOL:
            assert _json(adapter.render_error(kind, "boom", True)) == {}
    assert _json(adapter.render_error(EventKind.PRE_TOOL, "boom", False)) == {}


BAD_BYTES = {
    "malformed json": b'{"hook_event_name": "tool_call", "tool": ',
    "invalid utf-8": b'{"hook_event_name": "tool_call", "x": "\xff"}',
    "empty": b"",
    "json array": b"[]",
    "huge": b'{"pad": "' + b"a" * (MAX_PAYLOAD_BYTES + 16) + b'"}',
    "args not an object": json.dumps({"hook_event_name": "x", "tool": "bash", "args": 1}).encode(),
}


@pytest.mark.parametrize("host", JS_HOSTS)
@pytest.mark.parametrize("case", sorted(BAD_BYTES))
def test_bad_input_before_a_tool_fails_closed_through_run_hook(
    host: str, case: str, hook_env: dict[str, str]
) -> None:
    hint = _name(host, EventKind.PRE_TOOL)
    outcome = run_hook(host, BAD_BYTES[case], hook_env, hint)
    reply = json.loads(outcome.reply.stdout)
    assert reply["block"] is True and "agentreflex error" in reply["reason"], reply
    assert outcome.reply.stderr.count("\n") == 1 and "Traceback" not in outcome.reply.stderr
    after = run_hook(host, BAD_BYTES[case], hook_env, _name(host, EventKind.POST_TOOL))
    assert json.loads(after.reply.stdout) == {}


@pytest.mark.parametrize("host", JS_HOSTS)
def test_a_payload_naming_a_laxer_event_than_its_hint_is_handled_as_a_tool_call(
    host: str, hook_env: dict[str, str]
) -> None:
    data = json.dumps(_payload(host, EventKind.STOP, tool="bash", args="not an object"))
    outcome = run_hook(host, data.encode(), hook_env, _name(host, EventKind.PRE_TOOL))
    assert json.loads(outcome.reply.stdout)["block"] is True


def test_pi_paths_are_read_as_pi_reads_them() -> None:
    """pi drops a leading ``@`` and makes Unicode spaces plain before resolving a path
    (red-team rt35): the hook judges that path, for pi and omp, not OpenCode."""
    from agentreflex.core.hosts.pi import OmpAdapter, PiAdapter

    for adapter in (PiAdapter(), OmpAdapter()):
        args = {"path": "@.git/hooks/pre-commit", "content": "x"}
        event = adapter.parse(_payload(adapter.name, EventKind.PRE_TOOL, tool="write", args=args))
        assert event.tool is not None
        assert event.tool.paths == [".git/hooks/pre-commit"]
        args = {"path": "@~/my\u00a0notes.md"}
        event = adapter.parse(_payload(adapter.name, EventKind.PRE_TOOL, tool="read", args=args))
        assert event.tool is not None and event.tool.path == "~/my notes.md"
