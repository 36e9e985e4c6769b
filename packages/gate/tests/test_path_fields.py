"""A file tool is judged by every path field its input carries (red-team rt35).

Each host writes the path its own schema names (Claude Code's and Gemini CLI's
``file_path``, OpenCode's ``filePath``, pi's, Copilot CLI's and Hermes' ``path``)
and passes over fields it does not know; Hermes' ``patch`` in replace mode edits
``path`` whatever its ``patch`` field holds.  The hook took the first field it knew,
so a harmless ``file_path`` (or a harmless patch) beside the real one stood for the
call.  Each payload goes through the real hook entry point.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.testing import enforced_project, hook_process

SETTINGS = ".claude/settings.json"


_hook = hook_process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "home" / "proj"
    enforced_project(root)
    return root


def _shim(project: Path, host: str, event: str, tool: str, args: dict[str, Any]) -> str:
    payload = {"hook_event_name": event, "session_id": "s", "cwd": str(project)}
    return _hook(project, host, event, payload | {"tool": tool, "args": args})


def _hermes(project: Path, tool: str, args: dict[str, Any]) -> str:
    payload = {"hook_event_name": "pre_tool_call", "session_id": "s", "cwd": str(project)}
    payload |= {"extra": {}, "tool_name": tool, "tool_input": args}
    return _hook(project, "hermes", "pre_tool_call", payload)


DECOY = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-a\n+b\n*** End Patch\n"


def test_a_decoy_path_field_does_not_stand_for_the_call(project: Path) -> None:
    answers = [
        _shim(
            project,
            "opencode",
            "tool.execute.before",
            "write",
            {"file_path": "notes.txt", "filePath": SETTINGS, "content": "{}"},
        ),
        _shim(
            project,
            "pi",
            "tool_call",
            "write",
            {"file_path": "notes.txt", "path": SETTINGS, "content": "{}"},
        ),
        _hermes(
            project, "write_file", {"file_path": "notes.txt", "path": SETTINGS, "content": "{}"}
        ),
        _hermes(
            project,
            "patch",
            {
                "mode": "replace",
                "path": SETTINGS,
                "old_string": "{",
                "new_string": "[",
                "patch": DECOY,
            },
        ),
    ]
    for answer in answers:
        assert "GATE-SELF-PROTECT" in answer or SETTINGS in answer, answer
        assert '"block"' in answer, answer


def test_one_ordinary_path_stays_allowed(project: Path) -> None:
    write = {"filePath": "notes.txt", "content": "x"}
    assert _shim(project, "opencode", "tool.execute.before", "write", write).strip() == "{}"
    assert _hermes(project, "patch", {"mode": "patch", "patch": DECOY, "path": "notes.txt"}) in (
        "",
        "{}",
        "{}\n",
    )
