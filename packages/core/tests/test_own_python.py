"""agentreflex's own Python runs deaf to ``PYTHON*`` variables and the working directory.

The threat (issue #28): the user started the agent from a shell with
``PYTHONPATH=src`` (a direnv ``.envrc``), and a contained command wrote
``src/sitecustomize.py``; or the cwd is the project and a command wrote
``json.py`` there.  Every way a host starts our Python outside the boundary is
run here for real, with both planted, and nothing planted may run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from agentreflex.core.hook import client
from agentreflex.core.install import claude_code, codex, copilot, gemini, hookentries, launcher
from agentreflex.core.install.base import default_binary
from agentreflex.core.util.ownpython import ISOLATED

BIN = default_binary()
SHIMS = Path(launcher.__file__).with_name("js_plugins")


class Planted:
    """A ``sitecustomize.py`` on a ``PYTHONPATH`` and a ``json.py`` in a project, each leaving a mark."""

    def __init__(self, tmp: Path) -> None:
        self.marks = tmp / "marks"
        self.marks.mkdir()
        self.path_dir = tmp / "src"
        self.project = tmp / "project"
        for folder, module in ((self.path_dir, "sitecustomize"), (self.project, "json")):
            folder.mkdir()
            (folder / f"{module}.py").write_text(
                f"open({str(self.marks / module)!r}, 'w').close()\n"
                + ("from json import *\n" if module == "json" else "")
            )
        (self.project / ".git").mkdir()
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENTREFLEX_"))
        }
        self.env.update(
            HOME=str(tmp / "home"),
            XDG_CACHE_HOME=str(tmp / "cache"),
            XDG_CONFIG_HOME=str(tmp / "config"),
            XDG_RUNTIME_DIR=str(tmp / "run"),
            AGENTREFLEX_STATE_DIR=str(tmp / "state"),
            AGENTREFLEX_DAEMON="off",
            JEV_MODE="off",
            PYTHONPATH=str(self.path_dir),
        )
        (tmp / "run").mkdir(mode=0o700)

    def ran(self) -> list[str]:
        return sorted(p.name for p in self.marks.iterdir())


@pytest.fixture()
def planted(tmp_path: Path) -> Planted:
    return Planted(tmp_path)


def _script(tmp: Path, first_line: str) -> str:
    path = tmp / "agentreflex"
    path.write_text(first_line + "\n")
    path.chmod(0o755)
    return str(path)


def test_a_console_script_is_launched_through_its_python_with_the_flags(tmp_path: Path) -> None:
    assert BIN is not None
    assert launcher.launch_argv(BIN) == [sys.executable, *ISOLATED, BIN]
    other = _script(tmp_path, f"#!{sys.executable}")
    assert launcher.launch_argv(other) == [sys.executable, *ISOLATED, other]


@pytest.mark.parametrize(
    "first_line", ["#!/bin/sh", "#!/usr/bin/env python3", "#!/no/such/python3", "print()"]
)
def test_anything_else_is_run_as_it_is(tmp_path: Path, first_line: str) -> None:
    """A wrapper of the user's, ``env`` lookups and a missing interpreter: no guess."""
    script = _script(tmp_path, first_line)
    assert launcher.launch_argv(script) == [script]
    assert launcher.launch(script) == script


def test_both_forms_are_recognised_as_ours(tmp_path: Path) -> None:
    """Entries an older installation wrote (the bare script) are still replaced, not doubled."""
    spaced = tmp_path / "a dir" / "agentreflex"
    new = f"/usr/bin/python3 {' '.join(ISOLATED)} '{spaced}' hook codex PreToolUse"
    old = f"'{spaced}' hook codex PreToolUse"
    for command in (new, old):
        assert hookentries.is_ours(command, "codex")
        assert not hookentries.is_ours(command, "claude-code")
        assert launcher.script_words(command)[:3] == [str(spaced), "hook", "codex"]
    assert launcher.programs(new) == ["/usr/bin/python3", str(spaced)]
    assert launcher.programs(old) == [str(spaced)]
    # an interpreter without our flags is not a launcher form: its script is "-c"
    assert not hookentries.is_ours("python3 -c x agentreflex hook codex", "codex")
    assert launcher.script_words("'unclosed") == []


PAYLOADS: dict[str, tuple[Callable[[str, str], str], str, dict[str, object]]] = {
    "claude-code": (
        claude_code.hook_command,
        "PreToolUse",
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}},
    ),
    "codex": (
        lambda binary, event: launcher.launch(binary) + f" hook codex {event}",
        "PreToolUse",
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}},
    ),
    "copilot": (
        copilot.hook_command,
        "preToolUse",
        {"toolName": "bash", "toolArgs": json.dumps({"command": "ls"}), "timestamp": 1},
    ),
    "gemini": (
        gemini.hook_command,
        "BeforeTool",
        {
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "ls"},
        },
    ),
}


@pytest.mark.parametrize("host", sorted(PAYLOADS))
def test_the_installed_hook_command_runs_nothing_planted(host: str, planted: Planted) -> None:
    """The command install writes, run by ``sh -c`` as the hosts run it."""
    assert BIN is not None
    command_for, event, payload = PAYLOADS[host]
    command = command_for(BIN, event)
    if host == "codex":  # the installer's own spec, not this test's copy of it
        assert command in [spec.command for spec in codex.specs(BIN)]
    payload = {**payload, "session_id": "s1", "cwd": str(planted.project)}
    done = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload),
        env=planted.env,
        cwd=planted.project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert planted.ran() == [], done.stderr
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def _kill_serving(marker: str) -> None:
    """Every ``serve`` process whose environment holds ``marker`` (this test's own daemons)."""
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if b"serve" in argv and marker.encode() in environ:
            os.kill(int(entry.name), signal.SIGTERM)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="the daemon's check reads /proc")
def test_the_daemon_runs_nothing_planted_and_is_still_trusted(planted: Planted) -> None:
    """The daemon outlives the hook that started it: whatever it ran would run for long."""
    sock = Path(planted.env["XDG_RUNTIME_DIR"]) / "daemon.sock"
    env = {**planted.env, "AGENTREFLEX_SOCKET": str(sock)}
    start = "from agentreflex.core.hook.daemon import start_detached; start_detached(60)"
    # the starter itself is deaf to PYTHONPATH (-E): only the daemon's own start is tried
    subprocess.run([sys.executable, "-E", "-c", start], env=env, cwd="/", check=True, timeout=60)
    try:
        deadline = time.monotonic() + 60
        while not sock.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sock.exists()
        assert planted.ran() == []
        # checked as a hook checks it: from the same environment (its startup variables count)
        check = "import sys; from agentreflex.core.hook.client import verified_socket as v; "
        check += "print(v(sys.argv[1]) is not None)"
        done = subprocess.run(
            [sys.executable, *ISOLATED, "-c", check, str(sock)],
            env=env,
            cwd="/",
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.stdout.strip() == "True", done.stderr
        assert client.verified_socket(str(sock)) is None  # pytest's own environment differs
    finally:
        _kill_serving(str(sock))


NODE_CLIENT = """
import { createClient } from "./transport.js";
const client = createClient("pi", import.meta.url);
const reply = await client.send(
  "tool_call",
  { tool: "bash", call_id: "c1", args: { command: "ls" }, cwd: process.cwd(), session_id: "s1" },
  true,
);
process.stdout.write(JSON.stringify(reply));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="the shims run in Node")
def test_the_javascript_shims_run_nothing_planted(planted: Planted, tmp_path: Path) -> None:
    """pi's and OpenCode's shim: its hook call and its ``python -c`` daemon lookups (cwd: the project)."""
    assert BIN is not None
    shim = tmp_path / "shim"
    shim.mkdir()
    shutil.copy(SHIMS / "transport.js", shim / "transport.js")
    (shim / "package.json").write_text('{"type": "module"}')
    (shim / "client.js").write_text(NODE_CLIENT)
    (shim / "agentreflex.json").write_text(
        json.dumps({"binary": BIN, "python": sys.executable, "host": "pi"})
    )
    # a daemon that is not "off" is looked up (and not started: "manual")
    env = {**planted.env, "AGENTREFLEX_DAEMON": "manual"}
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run(
        [node, str(shim / "client.js")],
        env=env,
        cwd=planted.project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {}  # "ls" is allowed: nothing to say
    assert planted.ran() == []


def test_the_javascript_flags_are_these() -> None:
    """One definition: the shims' copy of the flags is pinned to Python's."""
    text = (SHIMS / "transport.js").read_text()
    match = re.search(r"^export const ISOLATED = (\[.*\]);$", text, re.MULTILINE)
    assert match is not None
    assert tuple(json.loads(match.group(1))) == ISOLATED


def test_the_plugin_launchers_flags_are_these() -> None:
    """One definition: the Claude Code plugin's shell launcher writes the flags literally."""
    launcher_sh = Path(__file__).parents[3] / "plugins" / "claude-code" / "bin" / "agentreflex-hook"
    runs = re.findall(r'"\$python" (.*?) "\$found" hook', launcher_sh.read_text())
    assert runs and all(tuple(flags.split()) == ISOLATED for flags in runs)
