"""Every folder or file a host's search or multi-file read names meets the read floor.

Claude Code's ``Read .env`` and ``Grep`` in ``~/.ssh`` are refused (a credential into
the transcript).  Gemini CLI names the same reads in fields of its own: ``dir_path``
(``grep_search``, ``glob``, ``list_directory``) and ``include`` (``read_many_files``, a
list of paths and globs), in Gemini CLI 0.61 packages/core/src/tools/definitions
(``PARAM_DIR_PATH``, ``READ_MANY_PARAM_INCLUDE``); Copilot CLI's ``grep`` and ``glob``
in ``paths``, one folder or a list (its 1.0.102 tool list).  Those were read as no path
at all, so ``read_many_files {"include": [".env"]}`` and a Copilot ``grep`` of
``~/.ssh`` were allowed (red-team rt46).  Real
``agentreflex hook`` processes with the installed reflexes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

AGENTREFLEX = str(Path(sys.executable).with_name("agentreflex"))


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project, home = tmp_path / "proj", tmp_path / "home"
    (project / ".agentreflex").mkdir(parents=True)
    (project / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
    (project / ".env").write_text("OPENAI_API_KEY=sk-proj-abcdefabcdefabcdefabcdef1234\n")
    (project / "src").mkdir()
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("key\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "AGENTREFLEX_STATE_DIR": str(tmp_path / "state"),
        "AGENTREFLEX_DAEMON": "off",
    }
    return project, env


def gemini(world: tuple[Path, dict[str, str]], tool: str, tool_input: dict[str, Any]) -> str:
    payload = {
        "session_id": "g-1",
        "transcript_path": "",
        "cwd": str(world[0]),
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-01-15T10:00:00.000Z",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    answer = _hook(world, "gemini", "BeforeTool", payload)
    return str(answer.get("decision", "allow"))


def copilot(world: tuple[Path, dict[str, str]], tool: str, args: dict[str, Any]) -> str:
    payload = {"timestamp": 1704614600000, "cwd": str(world[0]), "toolName": tool}
    payload["toolArgs"] = json.dumps(args)  # a JSON string, as the CLI sends it
    answer = _hook(world, "copilot", "preToolUse", payload)
    return str(answer.get("permissionDecision", "allow"))


def _hook(
    world: tuple[Path, dict[str, str]], host: str, event: str, payload: dict[str, Any]
) -> dict[str, Any]:
    project, env = world
    done = subprocess.run(
        [AGENTREFLEX, "hook", host, event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
    return answer


def test_gemini_searches_and_multi_file_reads_of_a_credential_are_refused(
    world: tuple[Path, dict[str, str]],
) -> None:
    ssh = str(Path(world[1]["HOME"]) / ".ssh")
    for tool, tool_input in (
        ("read_many_files", {"include": [".env"]}),
        ("read_many_files", {"include": ["src/", f"{ssh}/*"]}),
        ("grep_search", {"pattern": "KEY", "dir_path": ssh}),
        ("glob", {"pattern": "*", "dir_path": ssh}),
        ("list_directory", {"dir_path": ssh}),
    ):
        assert gemini(world, tool, tool_input) == "deny", (tool, tool_input)


def test_gemini_searches_of_the_project_stay_allowed(world: tuple[Path, dict[str, str]]) -> None:
    for tool, tool_input in (
        ("read_many_files", {"include": ["src/**/*.ts", "README.md", "docs/"]}),
        ("grep_search", {"pattern": "def ", "dir_path": "src"}),
        ("grep_search", {"pattern": "def "}),
        ("glob", {"pattern": "**/*.py", "dir_path": "."}),
        ("list_directory", {"dir_path": "src"}),
    ):
        assert gemini(world, tool, tool_input) == "allow", (tool, tool_input)


def test_copilot_searches_of_a_credential_folder_are_refused(
    world: tuple[Path, dict[str, str]],
) -> None:
    ssh = str(Path(world[1]["HOME"]) / ".ssh")
    for tool in ("grep", "glob"):
        for paths in (ssh, [str(world[0] / "src"), ssh]):
            assert copilot(world, tool, {"pattern": "*", "paths": paths}) == "deny", paths
        assert copilot(world, tool, {"pattern": "*", "paths": ["src"]}) == "allow"
        assert copilot(world, tool, {"pattern": "*"}) == "allow"
