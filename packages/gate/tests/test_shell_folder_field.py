"""A shell call is judged where the host runs it: its own folder field (red-team rt36).

OpenCode's bash tool takes ``workdir`` and Gemini CLI's ``run_shell_command``
takes ``dir_path`` (``directory`` before it); the host runs the command there.
The floors resolved the command's paths in the session's folder instead, so
``echo x > settings.json`` with ``workdir: .claude`` was a write to the
project's root (allowed), and ``rm -rf ./proj`` from the folder above deleted the
project unseen.  Each payload goes through the real hook entry point.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.testing import enforced_project, hook_process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "home" / "proj"
    enforced_project(root)
    (root / ".claude").mkdir()
    (root / "src").mkdir()
    return root


def _opencode(project: Path, args: dict[str, Any]) -> str:
    event = "tool.execute.before"
    payload = {"hook_event_name": event, "session_id": "s", "cwd": str(project)}
    return hook_process(project, "opencode", event, payload | {"tool": "bash", "args": args})


def _gemini(project: Path, args: dict[str, Any]) -> str:
    payload = {"hook_event_name": "BeforeTool", "session_id": "s", "cwd": str(project)}
    payload |= {"tool_name": "run_shell_command", "tool_input": args}
    return hook_process(project, "gemini", "BeforeTool", payload)


def _refused(answer: str) -> bool:
    return '"block": true' in answer or 'ecision": "deny"' in answer


@pytest.mark.parametrize(
    ("host", "field"),
    [(_opencode, "workdir"), (_gemini, "dir_path"), (_gemini, "directory")],
)
def test_the_floors_resolve_a_shell_command_in_its_own_folder(
    project: Path, host: Any, field: str
) -> None:
    guarded = host(project, {"command": "echo '{}' > settings.json", field: ".claude"})
    assert _refused(guarded) and "settings.json" in guarded
    above = host(project, {"command": "rm -rf ./proj", field: str(project.parent)})
    assert _refused(above) and "GATE-RM-PROJECT" in above
    # an ordinary command in a subfolder still runs
    assert not _refused(host(project, {"command": "ls -la", field: "src"}))


@pytest.mark.parametrize(
    "args",
    [
        {"command": "ls", "workdir": ["."]},
        {"command": "ls", "dir_path": 7},
        {"command": "ls", "dir_path": "src", "directory": ".claude"},
    ],
)
def test_a_folder_that_is_not_one_string_fails_closed(project: Path, args: dict[str, Any]) -> None:
    host = _opencode if "workdir" in args else _gemini
    answer = host(project, args)
    assert _refused(answer) and "folder" in answer


def _hermes(project: Path, args: dict[str, Any], cwd: Path | None = None) -> str:
    payload = {"hook_event_name": "pre_tool_call", "session_id": "s"}
    payload |= {"cwd": str(cwd or project), "extra": {}, "tool_name": "terminal"}
    return hook_process(project, "hermes", "pre_tool_call", payload | {"tool_input": args})


def test_hermes_shell_hooks_resolve_a_terminal_call_in_its_absolute_workdir(
    project: Path,
) -> None:
    """Hermes' shell hooks report Hermes' own folder as ``cwd``; its ``terminal`` runs in
    ``workdir``."""
    args = {"command": "echo '{}' > settings.json", "workdir": str(project / ".claude")}
    answer = _hermes(project, args)
    assert '"decision": "block"' in answer and "settings.json" in answer, answer


@pytest.mark.parametrize("workdir", [".claude", "./.claude", "src/../.claude"])
def test_hermes_resolves_a_relative_workdir_against_the_payloads_folder(
    project: Path, workdir: str
) -> None:
    """Hermes runs ``terminal`` as ``cd -- WORKDIR`` from the session's folder
    (tools/environments/base.py ``_wrap_command``).  A relative ``workdir`` was read only
    when absolute, so ``workdir: .claude`` given to a shell hook was judged as a write
    to the project's own ``settings.json`` (red-team rt41).  The plugin now sends the
    session's folder as ``cwd`` (tests/test_hermes_plugin.py), the same shape.  A leading
    ``~`` is the home folder there (``_quote_cwd_for_cd``)."""
    answer = _hermes(project, {"command": "echo '{}' > settings.json", "workdir": workdir})
    assert '"decision": "block"' in answer and "settings.json" in answer, answer
    above = _hermes(project / "src", {"command": "rm -rf ./proj", "workdir": "../.."})
    assert '"decision": "block"' in above and "GATE-RM-PROJECT" in above, above
    assert '"decision": "block"' not in _hermes(project, {"command": "ls", "workdir": "src"})
    # a leading ``~`` is the home folder there (the project's parent here)
    home = _hermes(project, {"command": "rm -rf ./proj", "workdir": "~"})
    assert '"decision": "block"' in home and "GATE-RM-PROJECT" in home, home
    home = _hermes(project, {"command": "rm -rf ../../proj", "workdir": "~/proj/src"})
    assert '"decision": "block"' in home and "GATE-RM-PROJECT" in home, home
