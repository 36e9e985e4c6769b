"""The plugin bundle itself: manifests, `claude plugin validate`, and the hook launcher."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hostharness.claude import REPO_ROOT, ClaudeProject

PLUGIN_DIR = REPO_ROOT / "plugins" / "claude-code"
LAUNCHER = PLUGIN_DIR / "bin" / "agentreflex-hook"
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
    "PreCompact",
)
PRE_TOOL = json.dumps(
    {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
)
STOP = json.dumps({"hook_event_name": "Stop", "stop_hook_active": False})


def test_manifests_name_the_plugin() -> None:
    plugin = json.loads((PLUGIN_DIR / ".claude-plugin" / "plugin.json").read_text())
    market = json.loads((REPO_ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert plugin["name"] == "agentreflex"
    assert market["name"] == "agentreflex"
    assert market["plugins"] == [
        {**market["plugins"][0], "name": "agentreflex", "source": "./plugins/claude-code"}
    ]


def test_hooks_json_registers_every_event_through_the_launcher() -> None:
    hooks = json.loads((PLUGIN_DIR / "hooks" / "hooks.json").read_text())["hooks"]
    assert sorted(hooks) == sorted(EVENTS)
    for event, groups in hooks.items():
        (group,) = groups
        (handler,) = group["hooks"]
        assert handler["type"] == "command"
        assert handler["command"].startswith('"${CLAUDE_PLUGIN_ROOT}/bin/agentreflex-hook"')
        # the event name is passed on, so a malformed PreToolUse payload still fails closed
        assert handler["command"].endswith(f" claude-code {event}")
        assert 0 < handler["timeout"] <= 60
        assert ("--fail-closed" in handler["command"]) == (event == "PreToolUse")
        if event.startswith(("PreToolUse", "PostToolUse")):
            assert group["matcher"] == "*"


@pytest.mark.integration
@pytest.mark.parametrize("target", [PLUGIN_DIR, REPO_ROOT], ids=["plugin", "marketplace"])
def test_claude_plugin_validate_passes(claude_project: ClaudeProject, target: Path) -> None:
    outcome = claude_project.plugin("validate", str(target))
    assert outcome["rc"] == 0, outcome
    assert "Validation passed" in outcome["stdout"], outcome
    assert "✘" not in outcome["stdout"], outcome["stdout"]


# The launcher, run directly: fast, no host needed.


def write_stub(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def launch(args: list[str], payload: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent-home"}
    return subprocess.run(
        [str(LAUNCHER), *args],
        input=payload,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


ECHO_STUB = 'echo "args:$*"; cat; echo; echo "from $0" >&2'


def test_launcher_runs_agentreflex_bin_with_payload(tmp_path: Path) -> None:
    stub = write_stub(tmp_path / "ar" / "agentreflex", ECHO_STUB)
    done = launch(["--fail-closed", "claude-code"], PRE_TOOL, {"AGENTREFLEX_BIN": str(stub)})
    assert done.returncode == 0, done
    assert done.stdout.startswith("args:hook claude-code\n")
    assert PRE_TOOL in done.stdout
    assert "AGENTREFLEX_STATE_DIR" not in done.stdout


def test_launcher_passes_a_block_through(tmp_path: Path) -> None:
    stub = write_stub(
        tmp_path / "agentreflex", 'cat >/dev/null; echo "no: destructive" >&2; exit 2'
    )
    done = launch(["--fail-closed", "claude-code"], PRE_TOOL, {"AGENTREFLEX_BIN": str(stub)})
    assert done.returncode == 2
    assert "no: destructive" in done.stderr


@pytest.mark.parametrize("flag", [["--fail-closed"], []], ids=["flag", "payload"])
def test_launcher_fails_closed_on_pre_tool_use_when_missing(flag: list[str]) -> None:
    done = launch([*flag, "claude-code"], PRE_TOOL, {})
    assert done.returncode == 2
    assert "agentreflex command was not found" in done.stderr
    assert "uv tool install --from" in done.stderr


def test_launcher_warns_elsewhere_when_missing() -> None:
    done = launch(["claude-code"], STOP, {})
    assert done.returncode == 0
    message = json.loads(done.stdout)["systemMessage"]
    assert "NOT running" in message


def test_launcher_refuses_a_bad_agentreflex_bin(tmp_path: Path) -> None:
    write_stub(tmp_path / "bin" / "agentreflex", ECHO_STUB)  # on PATH, but not used
    for bad in ("relative/agentreflex", str(tmp_path / "missing"), str(tmp_path)):
        done = launch(
            ["--fail-closed", "claude-code"],
            PRE_TOOL,
            {"AGENTREFLEX_BIN": bad, "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"},
        )
        assert done.returncode == 2, (bad, done)
        assert "AGENTREFLEX_BIN" in done.stderr


@pytest.mark.parametrize("status", [1, 127])
def test_launcher_fails_closed_when_agentreflex_crashes(tmp_path: Path, status: int) -> None:
    stub = write_stub(tmp_path / "agentreflex", f"cat >/dev/null; echo partial; exit {status}")
    env = {"AGENTREFLEX_BIN": str(stub)}
    pre = launch(["--fail-closed", "claude-code"], PRE_TOOL, env)
    assert pre.returncode == 2
    assert f"exit status {status}" in pre.stderr
    stop = launch(["claude-code"], STOP, env)
    assert stop.returncode == 0
    assert f"exit status {status}" in json.loads(stop.stdout)["systemMessage"]


def test_launcher_search_order(tmp_path: Path) -> None:
    shims = write_stub(tmp_path / ".pyenv" / "shims" / "agentreflex", "echo shim")
    on_path = write_stub(tmp_path / "tools" / "agentreflex", "echo path")
    data = tmp_path / "plugin-data"
    path = f"relative-dir:{shims.parent}:{on_path.parent}:/usr/bin:/bin"
    done = launch(["claude-code"], STOP, {"PATH": path, "CLAUDE_PLUGIN_DATA": str(data)})
    assert done.stdout.strip() == "path", done
    write_stub(data / "venv" / "bin" / "agentreflex", "echo data")
    done = launch(["claude-code"], STOP, {"PATH": path, "CLAUDE_PLUGIN_DATA": str(data)})
    assert done.stdout.strip() == "data", done
    home = tmp_path / "home"
    write_stub(home / ".local" / "bin" / "agentreflex", "echo local")
    done = launch(
        ["claude-code"], STOP, {"PATH": f"{shims.parent}:/usr/bin:/bin", "HOME": str(home)}
    )
    assert done.stdout.strip() == "local", done


def test_launcher_skips_relative_path_entries(tmp_path: Path) -> None:
    write_stub(tmp_path / "rel" / "agentreflex", "echo relative")
    done = subprocess.run(
        [str(LAUNCHER), "claude-code"],
        input=STOP,
        cwd=tmp_path,
        env={"PATH": "rel:/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert "relative" not in done.stdout
    assert "systemMessage" in done.stdout


def test_launcher_is_posix_sh() -> None:
    assert LAUNCHER.read_text().startswith("#!/bin/sh\n")
    assert os.access(LAUNCHER, os.X_OK)
    dash = Path("/bin/dash")
    if dash.exists():
        subprocess.run([str(dash), "-n", str(LAUNCHER)], check=True)
