"""Gemini CLI and Copilot CLI adapters: the hosts' own payload shapes in, their answers out.

Payload shapes: Gemini CLI ``docs/hooks/reference.md`` and
``packages/core/src/hooks/types.ts`` (google-gemini/gemini-cli: ``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name``, ``timestamp``; tools'
``tool_name``/``tool_input``/``tool_response {llmContent, returnDisplay,
error}``; AfterAgent ``prompt``/``prompt_response``/``stop_hook_active``);
Copilot CLI's hooks reference (docs.github.com "Hooks configuration":
``timestamp``, ``cwd``, ``toolName``, ``toolArgs`` as a JSON string,
``toolResult {resultType, textResultForLlm}``).

The tests that need a sibling reflex package run where it is installed:
``tests/core_with_reflexes/test_hosts_gemini_copilot.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.decision import Decision, Mode, Verdict
from agentreflex.core.events import EventKind, ToolKind
from agentreflex.core.hosts import HOSTS, get_adapter
from agentreflex.core.hosts.base import HostReply, PayloadError
from agentreflex.core.hosts.copilot import CopilotAdapter
from agentreflex.core.hosts.gemini import GeminiAdapter
from agentreflex.core.recap import Recap, RecapSection
from agentreflex.core.testing import copilot_payload as cop
from agentreflex.core.testing import gemini_payload as gem

REASON = "rm -rf ~/ deletes your home directory"


def decision(verdict: Verdict, reason: str = REASON, **kw: Any) -> Decision:
    from agentreflex.core.decision import Finding

    findings = [Finding("gate", "T", verdict, reason)] if verdict is not Verdict.ALLOW else []
    return Decision(verdict=verdict, proposed=verdict, mode=Mode.ENFORCED, findings=findings, **kw)


def out(reply: HostReply) -> dict[str, Any]:
    assert reply.exit_code == 0
    value = json.loads(reply.stdout)
    assert isinstance(value, dict)
    return value


def test_both_hosts_are_registered() -> None:
    assert "gemini" in HOSTS and "copilot" in HOSTS
    assert isinstance(get_adapter("gemini"), GeminiAdapter)
    assert isinstance(get_adapter("copilot"), CopilotAdapter)


# ------------------------------------------------------------------ Gemini


@pytest.mark.parametrize(
    ("tool", "tool_input", "kind", "field", "value"),
    [
        (
            "run_shell_command",
            {"command": "rm -rf ~/", "description": "x"},
            ToolKind.SHELL,
            "command",
            "rm -rf ~/",
        ),
        (
            "write_file",
            {"file_path": "/work/p/a.py", "content": "x = 1\n"},
            ToolKind.WRITE,
            "content",
            "x = 1\n",
        ),
        (
            "replace",
            {
                "file_path": "/work/p/tests/t.py",
                "old_string": "a",
                "new_string": "b",
                "instruction": "fix",
            },
            ToolKind.EDIT,
            "path",
            "/work/p/tests/t.py",
        ),
        ("read_file", {"file_path": "/work/p/.env"}, ToolKind.READ, "path", "/work/p/.env"),
        ("glob", {"pattern": "**/*.py"}, ToolKind.SEARCH, "command", ""),
        ("web_fetch", {"prompt": "https://example.com"}, ToolKind.WEB, "command", ""),
        ("github__create_issue", {"title": "t"}, ToolKind.MCP, "command", ""),
        ("mcp_github_create_issue", {"title": "t"}, ToolKind.MCP, "command", ""),
        ("mcp_", {}, ToolKind.OTHER, "command", ""),
        # Gemini CLI 0.61 packages/core/src/agents/agent-tool.ts: {agent_name, prompt}
        (
            "invoke_agent",
            {"agent_name": "codebase_investigator", "prompt": "find the parser"},
            ToolKind.SUBAGENT,
            "command",
            "",
        ),
    ],
)
def test_gemini_tool_names_map_to_kinds(
    tool: str, tool_input: dict[str, Any], kind: ToolKind, field: str, value: str
) -> None:
    event = GeminiAdapter().parse(gem("BeforeTool", tool_name=tool, tool_input=tool_input))
    assert event.kind is EventKind.PRE_TOOL
    assert event.tool is not None
    if kind is ToolKind.MCP:  # the shared spelling the gate reads the server and verb from
        assert event.tool.name.startswith("mcp__") and event.tool.name.endswith("create_issue")
    else:
        assert event.tool.name == tool  # the host's own name is kept
    assert event.tool.kind is kind
    assert getattr(event.tool, field) == value
    assert event.session_id == "g-1" and event.cwd == "/work/p"
    assert event.transcript_path.endswith("session-1.json")


def test_gemini_mcp_tool_input_is_judged_by_what_it_does() -> None:
    event = GeminiAdapter().parse(
        gem("BeforeTool", tool_name="mcp_fs_delete_file", tool_input={"path": "/etc/passwd"})
    )
    assert event.tool is not None and event.tool.name == "mcp__fs__delete_file"
    assert event.raw["tool_name"] == "mcp_fs_delete_file"


def test_gemini_events() -> None:
    adapter = GeminiAdapter()
    assert adapter.parse(gem("SessionStart", source="startup")).kind is EventKind.SESSION_START
    prompt = adapter.parse(gem("BeforeAgent", prompt="do not modify tests"))
    assert prompt.kind is EventKind.USER_PROMPT and prompt.prompt == "do not modify tests"
    stop = adapter.parse(
        gem("AfterAgent", prompt="p", prompt_response="All done.", stop_hook_active=True)
    )
    assert (
        stop.kind is EventKind.STOP and stop.stop_hook_active and stop.last_message == "All done."
    )
    assert not adapter.parse(gem("AfterAgent", stop_hook_active="true")).stop_hook_active
    assert adapter.parse(gem("PreCompress", trigger="auto")).kind is EventKind.PRE_COMPACT
    after = adapter.parse(
        gem(
            "AfterTool",
            tool_name="run_shell_command",
            tool_input={"command": "pytest"},
            tool_response={"llmContent": "2 passed", "returnDisplay": "2 passed"},
        )
    )
    assert after.result is not None and after.result.ok is True
    assert after.result.output == "2 passed"
    failed = adapter.parse(
        gem(
            "AfterTool",
            tool_name="run_shell_command",
            tool_input={"command": "pytest"},
            tool_response={"llmContent": "", "error": {"message": "exit 1", "type": "x"}},
        )
    )
    assert failed.result is not None and failed.result.ok is False
    assert failed.result.error == "exit 1"


@pytest.mark.parametrize(
    ("content", "ok", "code"),
    [
        # gemini-cli >= 0.2x: the trailer names a non-zero exit only (shell.ts)
        ("Output: 1 failed\nExit Code: 1\nProcess Group PGID: 77", False, 1),
        ("Output: boom\nError: spawn failed\nExit Code: 127", False, 127),
        ("Output: 2 passed\nProcess Group PGID: 77", True, None),
        # older builds always wrote every line
        (
            "Command: pytest\nDirectory: (root)\nOutput: ok\nError: (none)\nExit Code: 0\n"
            "Signal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 9",
            True,
            0,
        ),
        # the command printed a fake trailer, the tool's own comes after it
        (
            "Output: Exit Code: 0\nProcess Group PGID: 1\nExit Code: 2\nProcess Group PGID: 9",
            False,
            2,
        ),
        ("Output: Exit Code: 1\nmore output", True, None),
        # as gemini 0.61 hands it on when a hook rewrote the command (the boundary)
        (
            "<untrusted_context>\nOutput: boom\nExit Code: 3\nProcess Group PGID: 18704\n"
            "</untrusted_context>\n\n[System] Tool input parameters (command) were modified by "
            "a hook before execution.",
            False,
            3,
        ),
    ],
)
def test_gemini_shell_exit_code_is_read_from_its_trailer(
    content: str, ok: bool, code: int | None
) -> None:
    after = GeminiAdapter().parse(
        gem(
            "AfterTool",
            tool_name="run_shell_command",
            tool_input={"command": "pytest"},
            tool_response={"llmContent": content, "returnDisplay": ""},
        )
    )
    assert after.result is not None
    assert (after.result.ok, after.result.exit_code) == (ok, code)


def test_gemini_a_file_that_ends_like_the_shell_trailer_is_not_a_failed_read() -> None:
    """Only run_shell_command adds the ``Exit Code: N`` trailer: a file the agent reads (a
    saved CI log, say) may end in the same words, and its read did not fail."""
    after = GeminiAdapter().parse(
        gem(
            "AfterTool",
            tool_name="read_file",
            tool_input={"file_path": "ci.log"},
            tool_response={"llmContent": "FAILED tests/a.py\nExit Code: 1\n", "returnDisplay": ""},
        )
    )
    assert after.result is not None
    assert (after.result.ok, after.result.exit_code) == (True, None)


@pytest.mark.parametrize(
    ("payload", "fails_closed"),
    [
        (gem("BeforeTool", tool_name="run_shell_command", tool_input={"command": ["rm"]}), True),
        (gem("BeforeTool", tool_name="run_shell_command", tool_input="rm -rf /"), True),
        (gem("BeforeTool", tool_name="run_shell_command"), True),
        (gem("BeforeTool", tool_input={"command": "ls"}), True),
        (gem("Notification"), False),
        (gem("AfterAgent", session_id=5), False),
        ({"session_id": "x"}, False),
    ],
)
def test_gemini_bad_payloads(payload: dict[str, Any], fails_closed: bool) -> None:
    with pytest.raises(PayloadError) as err:
        GeminiAdapter().parse(payload)
    assert "\n" not in str(err.value)
    assert (err.value.kind is EventKind.PRE_TOOL) is fails_closed


def test_gemini_answers() -> None:
    adapter = GeminiAdapter()
    pre = adapter.parse(
        gem("BeforeTool", tool_name="run_shell_command", tool_input={"command": "x"})
    )
    assert out(adapter.render(pre, decision(Verdict.BLOCK))) == {
        "decision": "deny",
        "reason": REASON,
    }
    ask = out(adapter.render(pre, decision(Verdict.ASK_USER)))
    assert ask["decision"] == "deny" and "ask the user" in ask["reason"]
    shadow = Decision(verdict=Verdict.ALLOW, proposed=Verdict.ALLOW, mode=Mode.SHADOW, findings=[])
    assert adapter.render(pre, shadow).stdout == ""  # shadow mode: the command as written
    warn = out(adapter.render(pre, decision(Verdict.WARN)))
    assert warn["hookSpecificOutput"]["hookEventName"] == "BeforeTool"
    assert REASON in warn["hookSpecificOutput"]["additionalContext"]
    stop = adapter.parse(gem("AfterAgent", prompt="p", prompt_response="done"))
    assert out(adapter.render(stop, decision(Verdict.BLOCK))) == {
        "decision": "deny",
        "reason": REASON,
    }
    post = adapter.parse(gem("AfterTool", tool_name="read_file", tool_input={"file_path": "a"}))
    assert out(adapter.render(post, decision(Verdict.BLOCK)))["decision"] == "block"
    user = adapter.parse(gem("BeforeAgent", prompt="p"))
    assert out(adapter.render(user, decision(Verdict.BLOCK)))["decision"] == "block"
    compress = adapter.parse(gem("PreCompress", trigger="auto"))
    assert out(adapter.render(compress, decision(Verdict.WARN))) == {
        "systemMessage": f"agentreflex: {REASON}"
    }


def test_gemini_prompt_without_the_session_start_context_gemini_put_before_it() -> None:
    """``gemini -p`` prepends SessionStart's context to the prompt BeforeAgent receives."""
    adapter = GeminiAdapter()
    recap = "agentreflex session recap:\nThe user's constraints (their words):\n- Do not push."
    given = f"<hook_context>{recap}</hook_context>\n\ncontinue with the parser"
    assert adapter.parse(gem("BeforeAgent", prompt=given)).prompt == "continue with the parser"
    for kept in ("<hook_context>no end", "why is <hook_context>x</hook_context>\n\nhere?"):
        assert adapter.parse(gem("BeforeAgent", prompt=kept)).prompt == kept
    stop = adapter.parse(gem("AfterAgent", prompt=given, prompt_response="ok"))
    assert stop.prompt == given  # the turn's request as Gemini sent it


def test_gemini_recap_on_session_start_and_prompt_only() -> None:
    adapter = GeminiAdapter()
    recap = Recap([RecapSection("Constraints", ["do not modify tests"])], "compact")
    for name in ("SessionStart", "BeforeAgent"):
        event = adapter.parse(gem(name, prompt="p"))
        text = out(adapter.render(event, decision(Verdict.ALLOW, recap=recap)))
        assert "do not modify tests" in text["hookSpecificOutput"]["additionalContext"]
        assert text["hookSpecificOutput"]["hookEventName"] == name
    compress = adapter.parse(gem("PreCompress"))
    assert adapter.render(compress, decision(Verdict.ALLOW, recap=recap)).stdout == ""


def test_gemini_render_error() -> None:
    adapter = GeminiAdapter()
    closed = out(adapter.render_error(EventKind.PRE_TOOL, "boom", True))
    assert closed["decision"] == "deny" and "boom" in closed["reason"]
    for kind in (EventKind.STOP, EventKind.POST_TOOL, None):
        assert out(adapter.render_error(kind, "boom", True)) == {
            "systemMessage": "agentreflex error: boom"
        }
    assert "decision" not in out(adapter.render_error(EventKind.PRE_TOOL, "boom", False))


# ------------------------------------------------------------------ Copilot


@pytest.mark.parametrize(
    ("tool", "args", "kind", "field", "value"),
    [
        (
            "bash",
            {"command": "rm -rf ~/", "description": "d", "mode": "sync"},
            ToolKind.SHELL,
            "command",
            "rm -rf ~/",
        ),
        (
            "powershell",
            {"command": "Remove-Item -Recurse C:\\"},
            ToolKind.SHELL,
            "command",
            "Remove-Item -Recurse C:\\",
        ),
        (
            "create",
            {"path": "/work/p/tests/t.py", "file_text": "x"},
            ToolKind.WRITE,
            "content",
            "x",
        ),
        (
            "edit",
            {"path": "/work/p/tests/t.py", "old_str": "a", "new_str": "b"},
            ToolKind.EDIT,
            "content",
            "b",
        ),
        (
            "str_replace",
            {"path": "/work/p/a.py", "old_str": "a", "new_str": "b"},
            ToolKind.EDIT,
            "path",
            "/work/p/a.py",
        ),
        ("view", {"path": "/work/p/.env"}, ToolKind.READ, "path", "/work/p/.env"),
        ("web_fetch", {"url": "https://example.com"}, ToolKind.WEB, "command", ""),
        ("github-mcp-server-get_issue", {"issue_number": 1}, ToolKind.OTHER, "command", ""),
        # Copilot CLI 1.0.102's tool list as it sends it to the model (captured from a real
        # run): task {description, prompt, agent_type, name, mode ...}, write_agent
        # {agent_id | agent_ids | scope, message}
        (
            "task",
            {"description": "d", "prompt": "p", "agent_type": "task", "name": "t"},
            ToolKind.SUBAGENT,
            "command",
            "",
        ),
        (
            "write_agent",
            {"agent_id": "a-1", "message": "now run it"},
            ToolKind.SUBAGENT,
            "command",
            "",
        ),
    ],
)
def test_copilot_tool_names_map_to_kinds(
    tool: str, args: dict[str, Any], kind: ToolKind, field: str, value: str
) -> None:
    adapter = CopilotAdapter()
    for encoded in (json.dumps(args), args):  # the CLI sends a string, the SDK an object
        event = adapter.parse(cop("preToolUse", toolName=tool, toolArgs=encoded))
        assert event.kind is EventKind.PRE_TOOL and event.tool is not None
        assert event.tool.name == tool and event.tool.kind is kind
        assert getattr(event.tool, field) == value
        assert event.session_id == "unknown-session" and event.cwd == "/work/p"


def test_copilot_events() -> None:
    adapter = CopilotAdapter()
    start = adapter.parse(cop("sessionStart", source="new", initialPrompt="hi", sessionId="c-9"))
    assert start.kind is EventKind.SESSION_START and start.session_id == "c-9"
    prompt = adapter.parse(cop("userPromptSubmitted", prompt="do not modify tests"))
    assert prompt.kind is EventKind.USER_PROMPT and prompt.prompt == "do not modify tests"
    post = adapter.parse(
        cop(
            "postToolUse",
            toolName="bash",
            toolArgs='{"command": "pytest"}',
            toolResult={"resultType": "success", "textResultForLlm": "3 passed"},
        )
    )
    assert post.result is not None and post.result.ok is True and post.result.output == "3 passed"
    failed = adapter.parse(
        cop(
            "postToolUse",
            toolName="bash",
            toolArgs='{"command": "pytest"}',
            toolResult={"resultType": "failure", "textResultForLlm": "1 failed"},
        )
    )
    assert failed.result is not None and failed.result.ok is False
    assert failed.result.error == "1 failed"
    stop = adapter.parse(cop("agentStop", stopReason="end_turn", stop_hook_active=True))
    assert stop.kind is EventKind.STOP and stop.stop_hook_active
    assert adapter.parse(cop("subagentStop")).kind is EventKind.SUBAGENT_STOP


@pytest.mark.parametrize(
    ("payload", "fails_closed"),
    [
        (cop("preToolUse", toolName="bash", toolArgs="{not json"), True),
        (cop("preToolUse", toolName="bash", toolArgs='"rm -rf /"'), True),
        (cop("preToolUse", toolName="bash", toolArgs={"command": 7}), True),
        (cop("preToolUse", toolArgs="{}"), True),
        (cop("errorOccurred"), False),
        ({"timestamp": 1, "cwd": "/"}, False),
    ],
)
def test_copilot_bad_payloads(payload: dict[str, Any], fails_closed: bool) -> None:
    with pytest.raises(PayloadError) as err:
        CopilotAdapter().parse(payload)
    assert "\n" not in str(err.value)
    assert (err.value.kind is EventKind.PRE_TOOL) is fails_closed


def test_copilot_answers() -> None:
    adapter = CopilotAdapter()
    pre = adapter.parse(cop("preToolUse", toolName="bash", toolArgs='{"command": "x"}'))
    assert out(adapter.render(pre, decision(Verdict.BLOCK))) == {
        "permissionDecision": "deny",
        "permissionDecisionReason": REASON,
    }
    ask = out(adapter.render(pre, decision(Verdict.ASK_USER)))
    assert ask["permissionDecision"] == "deny" and "ask the user" in ask["permissionDecisionReason"]
    shadow = Decision(verdict=Verdict.ALLOW, proposed=Verdict.ALLOW, mode=Mode.SHADOW, findings=[])
    assert adapter.render(pre, shadow).stdout == ""  # shadow mode: the command as written
    assert REASON in out(adapter.render(pre, decision(Verdict.WARN)))["additionalContext"]
    stop = adapter.parse(cop("agentStop"))
    assert out(adapter.render(stop, decision(Verdict.BLOCK))) == {
        "decision": "block",
        "reason": REASON,
    }
    recap = Recap([RecapSection("Constraints", ["do not modify tests"])], "start")
    start = adapter.parse(cop("sessionStart", source="new"))
    assert (
        "do not modify tests"
        in out(adapter.render(start, decision(Verdict.ALLOW, recap=recap)))["additionalContext"]
    )
    post = adapter.parse(cop("postToolUse", toolName="bash", toolArgs="{}"))
    assert adapter.render(post, decision(Verdict.WARN)).stdout == ""


def test_copilot_render_error() -> None:
    adapter = CopilotAdapter()
    closed = out(adapter.render_error(EventKind.PRE_TOOL, "boom", True))
    assert closed["permissionDecision"] == "deny" and "boom" in closed["permissionDecisionReason"]
    for kind in (EventKind.STOP, EventKind.POST_TOOL, None):
        reply = adapter.render_error(kind, "boom", True)
        assert reply.stdout == "" and reply.stderr == "agentreflex error: boom\n"


def test_without_the_engine_the_command_runs_as_written_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No bubblewrap: the gate has answered, the command is not replaced, stderr says why."""
    monkeypatch.setenv("PATH", "/nonexistent")
    gemini = GeminiAdapter()
    pre = gemini.parse(
        gem("BeforeTool", tool_name="run_shell_command", tool_input={"command": "x"})
    )
    reply = gemini.render(pre, decision(Verdict.ALLOW))
    assert reply.stdout == "" and "not contained" in reply.stderr
    copilot = CopilotAdapter()
    pre = copilot.parse(cop("preToolUse", toolName="bash", toolArgs='{"command": "x"}'))
    reply = copilot.render(pre, decision(Verdict.ALLOW))
    assert reply.stdout == "" and "not contained" in reply.stderr


def test_only_shell_tools_are_rewritten() -> None:
    gemini = GeminiAdapter()
    read = gemini.parse(gem("BeforeTool", tool_name="read_file", tool_input={"file_path": "a"}))
    assert gemini.render(read, decision(Verdict.ALLOW)) == HostReply()
    copilot = CopilotAdapter()
    view = copilot.parse(cop("preToolUse", toolName="view", toolArgs='{"path": "a"}'))
    assert copilot.render(view, decision(Verdict.ALLOW)) == HostReply()


def test_after_a_contained_command_the_reflexes_read_the_agents_own(tmp_path: Path) -> None:
    """The hosts report the replaced arguments after the tool; the evidence needs the command run."""
    from agentreflex.core.contain import boundary as contain

    if contain.engine_path() is None:
        pytest.fail(
            "bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does this)"
        )
    wrapped = contain.rewrite("pytest -q", str(tmp_path))
    response = {"llmContent": "1 passed", "returnDisplay": "1 passed"}
    post = GeminiAdapter().parse(
        gem(
            "AfterTool",
            tool_name="run_shell_command",
            tool_input={"command": wrapped, "description": "d"},
            tool_response=response,
        )
    )
    assert post.tool is not None and post.tool.input["command"] == "pytest -q"
    assert post.tool.input["description"] == "d"
    args = json.dumps({"command": wrapped, "description": "run"})
    result = {"resultType": "success", "textResultForLlm": "1 passed"}
    cpost = CopilotAdapter().parse(
        cop("postToolUse", toolName="bash", toolArgs=args, toolResult=result)
    )
    assert cpost.tool is not None and cpost.tool.input["command"] == "pytest -q"


@pytest.mark.parametrize(
    ("copilot", "env", "contained"),
    [
        (["/usr/bin/node", "/x/node_modules/@github/copilot/npm-loader.js", "-p", "hi"], "", False),
        (["copilot", "-p", "hi", "--allow-all-tools"], "", True),
        (["copilot", "--yolo"], "", True),
        (["copilot", "--allow-all"], "", True),
        (["copilot", "-p", "hi", "--allow-tool", "shell(touch)"], "", False),
        (["copilot"], "true", True),
        (["copilot"], " On ", True),
        (["copilot"], "0", False),
        (["bash"], "", False),  # no Copilot above the hook: as written
    ],
)
def test_copilot_contains_only_where_it_runs_every_tool_without_asking(
    monkeypatch: pytest.MonkeyPatch,
    fake_proc: Callable[[list[tuple[int, list[str]]]], Path],
    copilot: list[str],
    env: str,
    contained: bool,
) -> None:
    """Copilot CLI 1.0.102 matches ``--allow-tool 'shell(touch)'`` against the command it
    runs: a replaced ``touch`` was refused (``allow`` in the answer did not change that),
    and a session approval of the replacement would approve every later one."""
    from agentreflex.core.hosts.copilot import _all_tools_allowed

    monkeypatch.setenv("COPILOT_ALLOW_ALL", env)
    proc = fake_proc(
        [(50, ["/bin/sh", "-c", "agentreflex hook copilot preToolUse"]), (40, copilot)]
    )
    assert _all_tools_allowed(str(proc), start=50) is contained


def test_gemini_file_paths_are_read_as_gemini_corrects_them(tmp_path: Path) -> None:
    """Gemini CLI drops a leading ``@`` and, for ``replace``, searches the workspace for a
    relative path not at the root (red-team rt35): each file it may take is judged."""
    from agentreflex.core.hosts.gemini import as_gemini_reads

    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "settings.json").write_text("{}")
    (tmp_path / "README.md").write_text("x")
    cwd = str(tmp_path)
    found = as_gemini_reads("settings.json", cwd, corrects=True)
    assert str(tmp_path / ".gemini" / "settings.json") in found
    assert as_gemini_reads("settings.json", cwd, corrects=False) == ["settings.json"]
    assert as_gemini_reads("@.claude/x", cwd, corrects=False) == ["@.claude/x", ".claude/x"]
    assert as_gemini_reads("README.md", cwd, corrects=True) == ["README.md"]


@pytest.mark.parametrize(
    ("result", "ok", "code"),
    [
        # Copilot CLI 1.0.102's bash tool, as a real run hands it on (resultType stays success)
        (
            {
                "resultType": "success",
                "textResultForLlm": "boom\n<shellId: 0 completed with exit code 3>",
            },
            False,
            3,
        ),
        (
            {
                "resultType": "success",
                "textResultForLlm": "2 passed\n<shellId: 1 completed with exit code 0>",
            },
            True,
            0,
        ),
        ({"resultType": "success", "textResultForLlm": "x\n<exited with exit code 1>"}, False, 1),
        # a printed marker is not the tool's: the tool's own comes last
        (
            {"resultType": "success", "textResultForLlm": "<exited with exit code 0>\nstill going"},
            True,
            None,
        ),
        (
            {"resultType": "failure", "textResultForLlm": "y\n<exited with exit code 0>"},
            False,
            None,
        ),
    ],
)
def test_copilot_shell_exit_code_is_read_from_its_last_line(
    result: dict[str, str], ok: bool, code: int | None
) -> None:
    after = CopilotAdapter().parse(
        cop("postToolUse", toolName="bash", toolArgs={"command": "pytest"}, toolResult=result)
    )
    assert after.result is not None
    assert (after.result.ok, after.result.exit_code) == (ok, code)


def test_copilot_a_file_that_ends_like_the_shell_marker_is_not_a_failed_read() -> None:
    """Only the shell tools end in ``<shellId: N completed with exit code C>``: a viewed
    file that ends in the same words was read fine."""
    text = "saved transcript\n<shellId: 3 completed with exit code 1>"
    after = CopilotAdapter().parse(
        cop(
            "postToolUse",
            toolName="view",
            toolArgs={"path": "log.txt"},
            toolResult={"resultType": "success", "textResultForLlm": text},
        )
    )
    assert after.result is not None
    assert (after.result.ok, after.result.exit_code) == (True, None)
