"""``agentreflex install gemini|copilot`` on real settings files; the hooks they write run
as real shell commands calling the real ``agentreflex`` script.

The tests that need a sibling reflex package run where it is installed:
``tests/core_with_reflexes/test_install_gemini_copilot.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.cli.commands import dispatch
from agentreflex.core.install import copilot, gemini
from agentreflex.core.install.inspect import host_check
from agentreflex.core.install.launcher import launch
from agentreflex.core.testing import git_project, install_home

SCRIPT = Path(sys.prefix) / "bin" / "agentreflex"
LAUNCH = launch(str(SCRIPT))  # the script through its own Python, isolated
GEMINI_USER = {
    "theme": "GitHub",
    "security": {"folderTrust": {"enabled": True}},
    "hooks": {
        "enabled": True,
        "disabled": ["old-hook"],
        "BeforeTool": [
            {"matcher": "write_file", "hooks": [{"type": "command", "command": "mine.sh"}]}
        ],
    },
}
COPILOT_MINE = {
    "version": 1,
    "hooks": {"sessionStart": [{"type": "command", "bash": "echo hi >> log", "timeoutSec": 5}]},
}


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return install_home(tmp_path, monkeypatch)


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch)


def write_json(path: Path, obj: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(obj, indent=2) + "\n"
    path.write_text(text)
    return text


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = dispatch(args)
    return code, capsys.readouterr().out


def test_gemini_user_install_merges_is_idempotent_and_uninstalls_exactly(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home / ".gemini" / "settings.json"
    original = write_json(path, GEMINI_USER)
    code, out = run(["install", "gemini", "--dry-run", "--bin", str(SCRIPT)], capsys)
    assert code == 0 and "dry run" in out and path.read_text() == original
    assert run(["install", "gemini", "--bin", str(SCRIPT)], capsys)[0] == 0
    settings = json.loads(path.read_text())
    assert settings["theme"] == "GitHub" and settings["hooks"]["enabled"] is True
    assert settings["hooks"]["disabled"] == ["old-hook"]
    assert set(gemini.EVENTS) <= set(settings["hooks"])
    before = settings["hooks"]["BeforeTool"]
    assert before[0]["hooks"][0]["command"] == "mine.sh"  # the user's own hook first, kept
    ours = before[1]["hooks"][0]
    assert before[1]["matcher"] == "*" and ours["timeout"] == 30000  # milliseconds
    assert ours["name"] == "agentreflex-BeforeTool" and "exit 2" in ours["command"]
    assert list(path.parent.glob("settings.json.*.bak"))
    first = path.read_text()
    code, out = run(["install", "gemini", "--bin", str(SCRIPT)], capsys)
    assert "nothing changed" in out and path.read_text() == first
    assert run(["uninstall", "gemini"], capsys)[0] == 0
    assert json.loads(path.read_text()) == GEMINI_USER


def test_gemini_project_install_and_folder_trust_in_doctor(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["install", "gemini", "--project", "--bin", str(SCRIPT)], capsys)[0] == 0
    path = project / ".gemini" / "settings.json"
    assert set(json.loads(path.read_text())["hooks"]) == set(gemini.EVENTS)
    state = str(home / "state")
    check = host_check("gemini", str(project), state, {"HOME": str(home)})
    assert check["ok"] and "waits" in check["detail"] and "6 events" in check["detail"]
    trust = home / ".gemini" / "trustedFolders.json"
    write_json(trust, {str(project): "DO_NOT_TRUST"})
    check = host_check("gemini", str(project), state, {"HOME": str(home)})
    assert not check["ok"] and "will NOT run them" in check["detail"]
    write_json(
        trust, {str(project / "sub"): "DO_NOT_TRUST", str(project.parent / "x"): "TRUST_PARENT"}
    )
    check = host_check("gemini", str(project), state, {"HOME": str(home)})
    assert check["ok"] and "will run them" in check["detail"]
    env = {"HOME": str(home), "GEMINI_CLI_TRUST_WORKSPACE": "false"}
    assert not host_check("gemini", str(project), state, env)["ok"]
    assert run(["uninstall", "gemini", "--project"], capsys)[0] == 0
    assert not path.exists()


def test_gemini_refuses_a_malformed_hooks_table(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home / ".gemini" / "settings.json"
    text = write_json(path, {"hooks": {"BeforeTool": "not a list"}})
    assert dispatch(["install", "gemini", "--bin", str(SCRIPT)]) == 1
    assert "not a list" in capsys.readouterr().err
    assert path.read_text() == text


def test_copilot_project_hooks_file(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / ".github" / "hooks" / "agentreflex.json"
    write_json(path, COPILOT_MINE)
    assert run(["install", "copilot", "--project", "--bin", str(SCRIPT)], capsys)[0] == 0
    data = json.loads(path.read_text())
    assert data["version"] == 1 and set(data["hooks"]) == set(copilot.EVENTS)
    assert data["hooks"]["sessionStart"][0]["bash"] == "echo hi >> log"
    for event in copilot.EVENTS:
        entry = data["hooks"][event][-1]
        assert entry["type"] == "command" and entry["timeoutSec"] == 30
        assert entry["bash"].startswith(f"{LAUNCH} hook copilot {event}")
    first = path.read_text()
    assert (
        "nothing changed"
        in run(["install", "copilot", "--project", "--bin", str(SCRIPT)], capsys)[1]
    )
    assert path.read_text() == first
    check = host_check("copilot", str(project), str(home / "state"), {"HOME": str(home)})
    assert not check["ok"] and "(6 events)" in check["detail"]
    assert "will NOT load" in check["detail"]  # in -p mode, only in a trusted folder
    config = home / ".copilot" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('// managed\n{"trustedFolders": ["' + str(project.parent) + '/"]}\n')
    check = host_check("copilot", str(project), str(home / "state"), {"HOME": str(home)})
    assert check["ok"] and "Copilot CLI loads them" in check["detail"]
    env = {"HOME": str(home / "elsewhere"), "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS": "true"}
    assert host_check("copilot", str(project), str(home / "state"), env)["ok"]
    assert run(["uninstall", "copilot", "--project"], capsys)[0] == 0
    assert json.loads(path.read_text()) == COPILOT_MINE


def test_copilot_user_install_goes_to_copilot_home(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(home / "cop"))
    assert run(["install", "copilot", "--bin", str(SCRIPT)], capsys)[0] == 0
    path = home / "cop" / "hooks" / "agentreflex.json"
    assert set(json.loads(path.read_text())["hooks"]) == set(copilot.EVENTS)
    assert run(["uninstall", "copilot"], capsys)[0] == 0
    assert not path.exists()


def test_gemini_before_tool_command_fails_closed_with_exit_2(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["install", "gemini", "--project", "--bin", str(SCRIPT)], capsys)[0] == 0
    path = project / ".gemini" / "settings.json"
    command = json.loads(path.read_text())["hooks"]["BeforeTool"][0]["hooks"][0]["command"]
    broken = str(command).replace(str(SCRIPT), "/nonexistent/agentreflex")
    done = subprocess.run(
        ["sh", "-c", broken], input="{}", capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 2 and "blocking this tool call" in done.stderr


def test_the_new_hosts_hook_files_are_protected(tmp_path: Path) -> None:
    from agentreflex.core.state.userdirs import protected_paths

    home, project = tmp_path / "h", tmp_path / "p"
    paths = set(protected_paths(str(project), {"HOME": str(home)}))
    for path in (
        home / ".gemini" / "settings.json",
        home / ".gemini" / "trustedFolders.json",
        project / ".gemini" / "settings.json",
        home / ".copilot" / "hooks",
        project / ".github" / "hooks",
    ):
        assert str(path) in paths
    moved = protected_paths(str(project), {"HOME": str(home), "COPILOT_HOME": str(tmp_path / "c")})
    assert str(tmp_path / "c" / "hooks") in moved


def test_gemini_settings_with_comments_are_read_by_doctor_and_refused_clearly(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Gemini CLI reads settings.json with its comments stripped.  Install can't keep
    comments when it rewrites the file, so it refuses, saying that (not "not valid JSON,
    fix it by hand": the file is valid for Gemini); doctor reads such a file as Gemini
    does, so hooks wired in it by hand are seen, not reported as a broken file."""
    settings = home / ".gemini" / "settings.json"
    assert dispatch(["install", "gemini", "--bin", str(SCRIPT)]) == 0
    wired = settings.read_text()
    commented = wired.replace("{", "{\n  // mine: keep this comment", 1)
    settings.write_text(commented)
    capsys.readouterr()
    assert dispatch(["install", "gemini", "--bin", str(SCRIPT)]) == 1
    err = capsys.readouterr().err
    assert "comments" in err and "not valid JSON" not in err and "nothing was written" in err
    assert settings.read_text() == commented
    check = host_check("gemini", str(project), str(home / "state"), {"HOME": str(home)})
    assert "not valid JSON" not in check["detail"]
    assert check["detail"].startswith(f"wired: {settings}")


@pytest.mark.parametrize(
    "hooks", [{"enabled": False}, {"disabled": ["agentreflex-BeforeTool"]}], ids=["off", "named"]
)
def test_doctor_says_when_a_project_turns_gemini_hooks_off(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str], hooks: dict[str, Any]
) -> None:
    """A project's .gemini/settings.json (Gemini merges it over the user's) with
    ``hooks.enabled: false``, or our handler's name in ``hooks.disabled``, and Gemini
    runs none (or not that one) of the hooks the user's install wired: doctor says so."""
    assert dispatch(["install", "gemini", "--bin", str(SCRIPT)]) == 0
    env = {"HOME": str(home), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    assert host_check("gemini", str(project), str(home / "state"), env)["ok"] is True
    off = write_json(project / ".gemini" / "settings.json", {"hooks": hooks}) and (
        project / ".gemini" / "settings.json"
    )
    check = host_check("gemini", str(project), str(home / "state"), env)
    assert check["ok"] is False and str(off) in check["detail"]
