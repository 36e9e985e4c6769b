"""``agentreflex install copilot`` with the gate installed: the hook it writes blocks and fails closed.

Moved from ``packages/core/tests/test_install_gemini_copilot.py`` (core alone has no
gate to block with); the rest of the installer's tests are there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from agentreflex.core.cli.commands import dispatch
from agentreflex.core.testing import git_project, install_home

SCRIPT = Path(sys.prefix) / "bin" / "agentreflex"


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return install_home(tmp_path, monkeypatch)


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = dispatch(args)
    return code, capsys.readouterr().out


def _pre_tool_command(project: Path, binary: str) -> str:
    path = project / ".github" / "hooks" / "agentreflex.json"
    command = json.loads(path.read_text())["hooks"]["preToolUse"][-1]["bash"]
    return str(command).replace(str(SCRIPT), binary, 1)


def test_copilot_pre_tool_command_blocks_and_fails_closed(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".agentreflex").mkdir()
    (project / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
    assert run(["install", "copilot", "--project", "--bin", str(SCRIPT)], capsys)[0] == 0
    payload = json.dumps(
        {
            "timestamp": 1,
            "cwd": str(project),
            "toolName": "bash",
            "toolArgs": '{"command": "rm -rf ~/"}',
        }
    )
    for binary, expect in (
        (str(SCRIPT), "GATE-RM-ROOT"),
        ("/nonexistent/agentreflex", "failed or is missing"),
    ):
        done = subprocess.run(
            ["bash", "-c", _pre_tool_command(project, binary)],
            input=payload,
            capture_output=True,
            text=True,
            cwd=project,
            timeout=60,
            check=False,
        )
        answer = json.loads(done.stdout)
        assert answer["permissionDecision"] == "deny"
        assert expect in answer["permissionDecisionReason"]
