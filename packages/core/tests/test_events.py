"""The normalised event model: every host's tool shapes become one ToolCall."""

from __future__ import annotations

import shlex
from typing import Any

import pytest
from agentreflex.core.events import (
    SHARED_TOOLS,
    Event,
    EventKind,
    ToolCall,
    ToolKind,
    build_tool_call,
    patch_paths,
    tool_kind,
)
from agentreflex.core.hosts import claude_code, codex, hermes
from agentreflex.core.hosts.opencode import OpenCodeAdapter
from agentreflex.core.hosts.pi import PiAdapter

CODEX_PATCH = (
    "*** Begin Patch\n"
    "*** Update File: src/app.py\n"
    "@@ def main():\n"
    "-    x = 1\n"
    "--- a removed SQL comment line\n"
    "+    x = 2\n"
    "+++ an added line that looks like a header\n"
    "*** Add File: docs/NEW.md\n"
    "+# New\n"
    "*** Delete File: old/legacy.txt\n"
    "*** Update File: src/util.py\n"
    "*** Move to: src/helpers.py\n"
    "@@\n"
    "-a\n"
    "+b\n"
    "*** End Patch\n"
)

UNIFIED_DIFF = (
    "diff --git a/src/app.py b/src/app.py\n"
    "--- a/src/app.py\t2024-01-01 00:00:00\n"
    "+++ b/src/app.py\t2024-01-02 00:00:00\n"
    "@@ -1,3 +1,3 @@\n"
    " context\n"
    "--- removed line that looks like a header\n"
    "+++ added line that looks like a header\n"
    " context\n"
    "--- /dev/null\n"
    "+++ b/src/new_file.py\n"
    "@@ -0,0 +1 @@\n"
    "+print('hi')\n"
)


CLAUDE, CODEX, HERMES = claude_code.TOOL_KINDS, codex.TOOL_KINDS, hermes.TOOL_KINDS


@pytest.mark.parametrize(
    ("host", "name", "kind"),
    [
        (CLAUDE, "Bash", ToolKind.SHELL),
        (None, "bash", ToolKind.SHELL),
        (CODEX, "exec_command", ToolKind.SHELL),
        (CODEX, "local_shell", ToolKind.SHELL),
        (HERMES, "terminal", ToolKind.SHELL),
        (HERMES, "execute_code", ToolKind.SHELL),
        (CLAUDE, "Read", ToolKind.READ),
        (HERMES, "read_file", ToolKind.READ),
        (CLAUDE, "Write", ToolKind.WRITE),
        (HERMES, "write_file", ToolKind.WRITE),
        (CLAUDE, "Edit", ToolKind.EDIT),
        (CLAUDE, "MultiEdit", ToolKind.EDIT),
        (CLAUDE, "NotebookEdit", ToolKind.EDIT),
        (CODEX, "apply_patch", ToolKind.PATCH),
        (HERMES, "patch", ToolKind.PATCH),
        (OpenCodeAdapter.tools, "patch", ToolKind.PATCH),
        (OpenCodeAdapter.tools, "list", ToolKind.SEARCH),
        (PiAdapter.tools, "find", ToolKind.SEARCH),
        (CLAUDE, "Glob", ToolKind.SEARCH),
        (CLAUDE, "Grep", ToolKind.SEARCH),
        (CLAUDE, "WebFetch", ToolKind.WEB),
        (CODEX, "web_search", ToolKind.WEB),
        (HERMES, "web_extract", ToolKind.WEB),
        (CLAUDE, "Task", ToolKind.SUBAGENT),
        (CLAUDE, "Agent", ToolKind.SUBAGENT),
        (HERMES, "delegate_task", ToolKind.SUBAGENT),
        (None, "mcp__github__create_issue", ToolKind.MCP),
        (CLAUDE, "MCP__Server__Tool", ToolKind.MCP),
        (None, "mcp__plugin_x_srv__do", ToolKind.MCP),
        (CLAUDE, "SomethingNew", ToolKind.OTHER),
        (CLAUDE, "  Bash  ", ToolKind.SHELL),
    ],
)
def test_each_host_classifies_its_own_tool_names(
    host: dict[str, ToolKind] | None, name: str, kind: ToolKind
) -> None:
    assert tool_kind(name, host) is kind


@pytest.mark.parametrize(
    ("host", "name"),
    [
        (CLAUDE, "terminal"),  # Hermes' shell is nothing to Claude Code
        (CLAUDE, "exec_command"),  # Codex's
        (CODEX, "delegate_task"),  # Hermes' sub-agent
        (PiAdapter.tools, "list"),  # OpenCode's listing
        (None, "terminal"),  # no host: only the shared names are known
    ],
)
def test_a_name_another_host_uses_is_not_taken_for_this_hosts_tool(
    host: dict[str, ToolKind] | None, name: str
) -> None:
    """Each adapter owns its names: a tool a host does not have is OTHER there."""
    assert tool_kind(name, host) is ToolKind.OTHER


def test_every_hosts_table_is_lower_case_and_names_a_kind() -> None:
    for table in (CLAUDE, CODEX, HERMES, OpenCodeAdapter.tools, PiAdapter.tools, SHARED_TOOLS):
        assert all(name == name.lower() and isinstance(k, ToolKind) for name, k in table.items())


def test_claude_bash_keeps_command_and_id() -> None:
    call = build_tool_call(
        "Bash", {"command": "npm test", "description": "run tests", "timeout": 1000}, "toolu_01"
    )
    assert call.kind is ToolKind.SHELL
    assert call.name == "Bash"
    assert call.command == "npm test"
    assert call.tool_use_id == "toolu_01"
    assert call.paths == []
    assert not call.mutates_files


def test_claude_write_edit_multiedit_read() -> None:
    write = build_tool_call("Write", {"file_path": "/w/a.py", "content": "print(1)\n"})
    assert (write.kind, write.path, write.paths, write.content) == (
        ToolKind.WRITE,
        "/w/a.py",
        ["/w/a.py"],
        "print(1)\n",
    )
    assert write.mutates_files

    edit = build_tool_call(
        "Edit", {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 2"}
    )
    assert (edit.kind, edit.path, edit.old_content, edit.content) == (
        ToolKind.EDIT,
        "/w/a.py",
        "x = 1",
        "x = 2",
    )

    multi = build_tool_call(
        "MultiEdit",
        {
            "file_path": "/w/b.py",
            "edits": [
                {"old_string": "a", "new_string": "A"},
                {"old_string": "b", "new_string": "B", "replace_all": True},
                "not an edit",
            ],
        },
        host_tools=CLAUDE,
    )
    assert multi.kind is ToolKind.EDIT
    assert multi.path == "/w/b.py"
    assert multi.content.splitlines() == ["A", "B"]
    assert multi.old_content.splitlines() == ["a", "b"]

    read = build_tool_call("Read", {"file_path": "/w/c.py", "offset": 10, "limit": 5})
    assert (read.kind, read.path, read.content) == (ToolKind.READ, "/w/c.py", "")
    assert not read.mutates_files


def test_codex_bash_and_exec_command_shapes() -> None:
    bash = build_tool_call("Bash", {"command": "cargo test"}, "call_1")
    assert (bash.kind, bash.command, bash.tool_use_id) == (ToolKind.SHELL, "cargo test", "call_1")
    exec_cmd = build_tool_call(
        "exec_command", {"cmd": "ls -la", "yield_time_ms": 1000}, host_tools=CODEX
    )
    assert exec_cmd.command == "ls -la"
    argv = build_tool_call(
        "local_shell", {"command": ["bash", "-lc", "rm -rf build"]}, host_tools=CODEX
    )
    assert argv.command == "bash -lc rm -rf build"


def test_codex_apply_patch_body_names_every_file() -> None:
    call = build_tool_call("apply_patch", {"command": CODEX_PATCH}, "call_2")
    assert call.kind is ToolKind.PATCH
    assert call.patch == CODEX_PATCH
    assert call.content == CODEX_PATCH
    assert call.paths == [
        "src/app.py",
        "docs/NEW.md",
        "old/legacy.txt",
        "src/util.py",
        "src/helpers.py",
    ]
    assert call.path == "src/app.py"
    assert call.mutates_files


def test_codex_patch_hunk_lines_that_look_like_headers_are_not_paths() -> None:
    paths = patch_paths(CODEX_PATCH)
    assert "a removed SQL comment line" not in paths
    assert "an added line that looks like a header" not in paths


def test_unified_diff_paths_skip_hunk_bodies_and_dev_null() -> None:
    assert patch_paths(UNIFIED_DIFF) == ["src/app.py", "src/new_file.py"]


def test_patch_body_under_other_keys() -> None:
    for key in ("patch", "input", "content"):
        call = build_tool_call("apply_patch", {key: CODEX_PATCH})
        assert call.paths[0] == "src/app.py", key
    # a raw string input is kept under "value"
    raw = build_tool_call("apply_patch", CODEX_PATCH)
    assert raw.input == {"value": CODEX_PATCH}
    assert raw.paths[0] == "src/app.py"


def test_patch_without_markers_falls_back_to_path_field() -> None:
    call = build_tool_call("apply_patch", {"patch": "just text", "path": "/w/x.py"})
    assert call.paths == ["/w/x.py"]
    assert call.path == "/w/x.py"


def test_opencode_camel_case_fields() -> None:
    edit = build_tool_call(
        "edit", {"filePath": "/w/a.ts", "oldString": "let a", "newString": "const a"}
    )
    assert (edit.kind, edit.path, edit.old_content, edit.content) == (
        ToolKind.EDIT,
        "/w/a.ts",
        "let a",
        "const a",
    )
    write = build_tool_call("write", {"filePath": "/w/b.ts", "content": "x"})
    assert (write.kind, write.path, write.content) == (ToolKind.WRITE, "/w/b.ts", "x")
    bash = build_tool_call("bash", {"command": "bun test", "description": "tests"})
    assert bash.command == "bun test"


def test_pi_path_old_text_new_text() -> None:
    edit = build_tool_call("edit", {"path": "src/a.ts", "oldText": "foo", "newText": "bar"})
    assert (edit.path, edit.old_content, edit.content) == ("src/a.ts", "foo", "bar")
    multi = build_tool_call(
        "edit", {"path": "src/a.ts", "edits": [{"oldText": "a", "newText": "b"}]}
    )
    assert (multi.old_content, multi.content) == ("a", "b")
    write = build_tool_call("write", {"path": "src/b.ts", "content": "y"})
    assert (write.path, write.content) == ("src/b.ts", "y")
    read = build_tool_call("read", {"path": "README.md"})
    assert (read.kind, read.path) == (ToolKind.READ, "README.md")


def test_hermes_terminal_write_file_patch() -> None:
    term = build_tool_call(
        "terminal", {"command": "rm -rf /tmp/x", "background": False}, host_tools=HERMES
    )
    assert (term.kind, term.command) == (ToolKind.SHELL, "rm -rf /tmp/x")
    write = build_tool_call(
        "write_file", {"path": "notes.md", "content": "hello"}, host_tools=HERMES
    )
    assert (write.kind, write.path, write.content) == (ToolKind.WRITE, "notes.md", "hello")
    replace = build_tool_call(
        "patch",
        {"mode": "replace", "path": "app.py", "old_string": "a = 1", "new_string": "a = 2"},
        host_tools=HERMES,
    )
    assert replace.kind is ToolKind.PATCH
    assert (replace.path, replace.paths) == ("app.py", ["app.py"])
    assert (replace.old_content, replace.content) == ("a = 1", "a = 2")
    patch_mode = build_tool_call(
        "patch", {"mode": "patch", "patch": CODEX_PATCH}, host_tools=HERMES
    )
    assert patch_mode.paths[:2] == ["src/app.py", "docs/NEW.md"]


def test_hermes_other_ways_to_execute() -> None:
    """execute_code runs Python, process types into a running shell, delegate_task spawns."""
    code = _hermes_call("execute_code", {"code": "import shutil; shutil.rmtree('x')"})
    # spelled as the one-liner it amounts to, for the gate's interpreter scan (Hermes' adapter)
    assert code.kind is ToolKind.SHELL
    assert shlex.split(code.command) == ["python3", "-c", "import shutil; shutil.rmtree('x')"]
    quoted = _hermes_call("execute_code", {"code": "print('it''s')"})
    assert shlex.split(quoted.command) == ["python3", "-c", "print('it''s')"]
    # the quirk is Hermes': elsewhere the name means nothing special
    assert build_tool_call("execute_code", {"code": "ls"}, host_tools=HERMES).command == "ls"
    typed = build_tool_call(
        "process", {"action": "submit", "session_id": "p1", "data": "rm -rf ~"}, host_tools=HERMES
    )
    assert (typed.kind, typed.command) == (ToolKind.SHELL, "rm -rf ~")
    polled = build_tool_call("process", {"action": "poll", "session_id": "p1"}, host_tools=HERMES)
    assert (polled.kind, polled.command) == (ToolKind.SHELL, "")
    sub = build_tool_call("delegate_task", {"goal": "delete the tests"}, host_tools=HERMES)
    assert sub.kind is ToolKind.SUBAGENT


def test_mcp_tool() -> None:
    call = build_tool_call("mcp__github__delete_repository", {"owner": "me", "repo": "x"})
    assert call.kind is ToolKind.MCP
    assert call.name == "mcp__github__delete_repository"
    assert call.input == {"owner": "me", "repo": "x"}
    assert call.command == ""
    fs = build_tool_call("mcp__filesystem__write_file", {"path": "/w/a", "content": "z"})
    assert (fs.kind, fs.path) == (ToolKind.MCP, "/w/a")


@pytest.mark.parametrize(
    "weird",
    [None, 42, "a string", ["a", "list"], {"command": None}, {"command": 7}, {}],
)
def test_odd_inputs_never_raise(weird: Any) -> None:
    for name in ("Bash", "Write", "Edit", "apply_patch", "mcp__x__y", "Unknown"):
        call = build_tool_call(name, weird)
        assert isinstance(call.input, dict)
        assert isinstance(call.command, str)
        assert isinstance(call.path, str)


def test_event_properties() -> None:
    pre = Event(kind=EventKind.PRE_TOOL, host="claude-code", session_id="s")
    stop = Event(kind=EventKind.SUBAGENT_STOP, host="claude-code", session_id="s")
    assert pre.is_pre_tool and not pre.is_stop
    assert stop.is_stop and not stop.is_pre_tool
    assert pre.timestamp > 0


def _hermes_call(name: str, tool_input: dict[str, Any]) -> ToolCall:
    """A proposed call as Hermes' adapter reads it."""
    from agentreflex.core.hosts.hermes import HermesAdapter

    payload = {"hook_event_name": "pre_tool_call", "tool_name": name, "tool_input": tool_input}
    tool = HermesAdapter().parse({**payload, "session_id": "h"}).tool
    assert tool is not None
    return tool
