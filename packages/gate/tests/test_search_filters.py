"""A search tool's file filter that picks a credential file is a read of it (issue #28).

Every host's content search takes a glob beside its folder and searches only the files
it picks, printing their matching lines into the transcript: Claude Code's ``Grep``
``glob`` (``{pattern, path?, glob?, output_mode?}``, shared/reference/hosts-protocols.md;
ripgrep's ``-g``, which "always overrides any other ignore logic", so a gitignored or
hidden ``.env`` is searched), Copilot CLI's and pi's ``grep`` ``glob``, OpenCode's
``grep`` ``include``, Gemini CLI's ``grep_search`` ``include_pattern`` (0.61 bundle
chunk-JDPZ4CE3.js:280380 ``GREP_PARAM_INCLUDE_PATTERN``; ``include`` before it) and
Hermes' ``search_files`` ``file_glob`` (hermes-agent 0.19 tools/file_operations.py:2054).
The read floor read only the folder, so ``Grep {"pattern": "KEY", "glob": ".env"}``
printed the keys where ``Read .env`` was refused.  A filter that picks ordinary files as
well (``*.py``, ``src/**``, ``*``) is no selection of a credential and stays allowed.
Each payload goes through the real hook entry point.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.testing import enforced_project, hook_process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "home" / "proj"
    enforced_project(root)
    (root / ".env").write_text("OPENAI_API_KEY=sk-proj-abcdefabcdefabcdefabcdef1234\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    return root


def _ask(project: Path, host: str, tool: str, args: dict[str, Any]) -> str:
    """The hook's answer to one pre-tool call of ``host``'s search tool."""
    base = {"session_id": "s", "cwd": str(project)}
    if host == "claude":
        payload = base | {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": args}
        return hook_process(project, "claude", "PreToolUse", payload)
    if host == "gemini":
        payload = base | {"hook_event_name": "BeforeTool", "tool_name": tool, "tool_input": args}
        return hook_process(project, "gemini", "BeforeTool", payload)
    if host == "hermes":
        payload = base | {"hook_event_name": "pre_tool_call", "tool_name": tool}
        payload |= {"extra": {}, "tool_input": args}
        return hook_process(project, "hermes", "pre_tool_call", payload)
    if host == "copilot":
        payload = {"timestamp": 1, "cwd": str(project), "toolName": tool}
        payload["toolArgs"] = json.dumps(args)
        return hook_process(project, "copilot", "preToolUse", payload)
    event = {"opencode": "tool.execute.before", "pi": "tool_call"}[host]
    payload = base | {"hook_event_name": event, "tool": tool, "args": args}
    return hook_process(project, host, event, payload)


SEARCHES = [
    ("claude", "Grep", "glob"),
    ("copilot", "grep", "glob"),
    ("pi", "grep", "glob"),
    ("opencode", "grep", "include"),
    ("gemini", "grep_search", "include_pattern"),
    ("gemini", "search_file_content", "include"),
    ("hermes", "search_files", "file_glob"),
]


def _refused(answer: str) -> bool:
    return "credential" in answer


@pytest.mark.parametrize(("host", "tool", "field"), SEARCHES)
@pytest.mark.parametrize(
    ("folder", "picked"),
    [
        (None, ".env"),
        (".", "**/.env*"),
        ("src/..", "*.{py,env}"),
        (None, ".e*"),
        ("~/.ssh", "id_*"),
        (None, "*.pem"),
    ],
)
def test_a_filter_picking_a_credential_file_is_a_read_of_it(
    project: Path, host: str, tool: str, field: str, folder: str | None, picked: str
) -> None:
    args: dict[str, Any] = {"pattern": "KEY", field: picked}
    if folder is not None:
        args["path"] = args["dir_path"] = folder.replace("~", str(project.parent))
    assert _refused(_ask(project, host, tool, args)), (host, tool, args)


@pytest.mark.parametrize(("host", "tool", "field"), SEARCHES)
@pytest.mark.parametrize("picked", ["*.py", "src/**", "*", "**/*", ".*", "*.json", "!.env"])
def test_a_filter_of_ordinary_files_stays_allowed(
    project: Path, host: str, tool: str, field: str, picked: str
) -> None:
    args = {"pattern": "def ", field: picked, "path": ".", "dir_path": "."}
    assert not _refused(_ask(project, host, tool, args)), (host, tool, args)


@pytest.mark.parametrize(
    ("command", "refused"),
    [
        ("grep -r --include=.env KEY .", True),
        ("grep -r --include '.e*' KEY .", True),
        ("rg --glob=.e* KEY", True),
        ("rg -g.env KEY", True),
        ("grep -rl --include=.env KEY .", False),  # names only, as grep -l .env is
        ("grep -r --include=*.py KEY .", False),
        ("rg --glob='*.{ts,tsx}' KEY", False),
        ("grep -r KEY --include='*.md' .", False),
    ],
)
def test_a_shell_searchs_file_filter_is_read_as_the_tools_are(
    project: Path, command: str, refused: bool
) -> None:
    """The same filter on the shell: ``grep --include=`` and ripgrep's ``--glob=``/``-g``
    joined to their value were no file the read floor saw (and grep and rg passed the
    pre-filter as plain words)."""
    answer = _ask(project, "claude", "Bash", {"command": command})
    assert _refused(answer) is refused, (command, answer)


def test_a_multi_file_read_of_a_glob_picking_a_credential_is_refused(project: Path) -> None:
    """Gemini's ``read_many_files`` reads each path or glob of ``include`` (its paths): a
    glob that picks ``.env`` reads it; one of ordinary files does not."""
    for include, refused in (([".e*"], True), (["src/.e*"], True), (["src/*.py"], False)):
        answer = _ask(project, "gemini", "read_many_files", {"include": include})
        assert _refused(answer) is refused, (include, answer)
