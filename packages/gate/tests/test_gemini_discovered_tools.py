"""Gemini CLI's discovered tools, and the project settings that would name them (issue #28).

Gemini CLI 0.61 runs ``tools.discoveryCommand`` at start and registers each tool it lists
as ``discovered_tool_<name>``; a call runs ``tools.callCommand <name>`` with the model's
arguments as JSON on stdin, in Gemini's own process (inside Gemini's sandbox only when
one is set), so outside agentreflex's boundary (0.61 bundle chunk-JDPZ4CE3.js:312166
``DiscoveredToolInvocation.execute``, :312490 the registration, chunk-2YTYPKEZ.js:13875
the two settings, gemini-3HFX2LNT.js:8557 read from the merged settings).  They are the user's own configured tools, as MCP servers are: each
call is judged by what its input does, and the settings that name them are protected,
so the agent can't configure one: ``.gemini/settings.json`` of the project and of the
user ask first, whichever tool writes it (a folder below the project is the planted-
settings look's, core/contain/planted.py).  Real hook processes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.testing import enforced_project, hook_process

SETTINGS = json.dumps({"tools": {"discoveryCommand": "python3 d.py", "callCommand": "sh -c"}})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "home" / "proj"
    enforced_project(root)
    return root


def _gemini(project: Path, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "BeforeTool"}
    payload |= {"tool_name": tool, "tool_input": args}
    out = hook_process(project, "gemini", "BeforeTool", payload)
    answer: dict[str, Any] = json.loads(out) if out.strip() else {}
    return answer


def test_a_discovered_tool_is_judged_by_its_input(project: Path) -> None:
    assert _gemini(project, "discovered_tool_deploy", {"command": "rm -rf ~"})["decision"] == (
        "deny"
    )
    assert _gemini(project, "discovered_tool_deploy", {"env": "staging"}).get("decision") is None


def test_the_agent_cannot_configure_a_discovered_tool(project: Path) -> None:
    home_settings = str(project.parent / ".gemini" / "settings.json")
    for tool, args in (
        ("write_file", {"file_path": ".gemini/settings.json", "content": SETTINGS}),
        ("write_file", {"file_path": home_settings, "content": SETTINGS}),
        ("replace", {"file_path": ".gemini/settings.json", "old_string": "{", "new_string": "{"}),
        (
            "run_shell_command",
            {"command": f"mkdir -p .gemini && echo '{SETTINGS}' > .gemini/settings.json"},
        ),
    ):
        assert _gemini(project, tool, args).get("decision") == "deny", (tool, args)
