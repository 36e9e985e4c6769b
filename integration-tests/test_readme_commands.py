"""Every command quoted in the root README is run here, so the README cannot rot.

Each ``$ command`` line of a ``console`` block must be listed in ``RUNNERS``
(a new command without a runner fails :func:`test_every_readme_command_has_a_runner`).
Commands run from the repository root with an isolated HOME, config, cache
and state, and each run checks what a reader would expect to see.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hostharness.claude import REPO_ROOT, node_dir

README = REPO_ROOT / "README.md"
BIN = Path(sys.executable).parent


def readme_commands() -> list[str]:
    blocks = re.findall(r"```console\n(.*?)```", README.read_text(), flags=re.S)
    return [
        line[2:].strip() for block in blocks for line in block.splitlines() if line.startswith("$ ")
    ]


def _env(tmp: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("REFLEX_", "AGENTREFLEX_", "JEV_", "UV_TOOL", "CLAUDE_"))
    }
    env.update(
        HOME=str(tmp / "home"),
        XDG_CONFIG_HOME=str(tmp / "config"),
        XDG_CACHE_HOME=str(tmp / "cache"),
        AGENTREFLEX_STATE_DIR=str(tmp / "state"),
        AGENTREFLEX_SOCKET=str(tmp / "run" / "daemon.sock"),
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
    )
    (tmp / "home").mkdir(exist_ok=True)
    return env


def _sh(
    command: str, env: dict[str, str], timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=REPO_ROOT,
        env=env,
        text=True,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def _demo(command: str, tmp: Path, env: dict[str, str]) -> None:
    # `python3 -m uv run` syncs the workspace venv this test already runs in; run the
    # same entry point directly so the test does not re-sync a checkout under test.
    assert command.endswith("uv run agentreflex demo")
    done = _sh("agentreflex demo", env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 beats not as scripted" in done.stdout


def _pytest(command: str, tmp: Path, env: dict[str, str]) -> None:
    # This is the command running this very test (CI runs it through .ci/run).
    assert command.endswith("uv run pytest")
    assert "uv run --frozen pytest" in (REPO_ROOT / ".ci" / "run").read_text()


def _tool_install(command: str, tmp: Path, env: dict[str, str]) -> None:
    env = dict(env, UV_TOOL_DIR=str(tmp / "tools"), UV_TOOL_BIN_DIR=str(tmp / "tools-bin"))
    done = _sh(command, env)
    assert done.returncode == 0, done.stderr
    doctor = subprocess.run(
        [str(tmp / "tools-bin" / "agentreflex"), "doctor", "--json"],
        env=env,
        text=True,
        capture_output=True,
        timeout=120,
        check=False,
    )
    report = json.loads(doctor.stdout)
    reflexes = next(c for c in report["checks"] if c["check"] == "reflexes")["detail"]
    for name in ("gate", "runaway", "done", "guard"):
        assert name in reflexes
    # installed with its bytecode: a hook process never compiles our sources
    assert list((tmp / "tools").rglob("agentreflex/core/hook/__pycache__/runtime.cpython-*.pyc"))


def _claude(claude_binary: Path) -> Callable[[str, Path, dict[str, str]], None]:
    def run(command: str, tmp: Path, env: dict[str, str]) -> None:
        env = dict(
            env,
            CLAUDE_CONFIG_DIR=str(tmp / "claude-config"),
            DISABLE_AUTOUPDATER="1",
            PATH=f"{claude_binary.parent}{os.pathsep}{node_dir()}{os.pathsep}{env['PATH']}",
        )
        if "install agentreflex@" in command:  # needs the marketplace added first
            added = _sh("claude plugin marketplace add ./", env, 120)
            assert added.returncode == 0, added.stderr
        done = _sh(command, env, 120)
        assert done.returncode == 0, done.stdout + done.stderr
        settings = json.loads((tmp / "claude-config" / "settings.json").read_text())
        if "install" in command:
            assert settings["enabledPlugins"]["agentreflex@agentreflex"] is True
        else:
            assert "agentreflex" in settings["extraKnownMarketplaces"]

    return run


def _expect(code: int, *needles: str) -> Callable[[str, Path, dict[str, str]], None]:
    def run(command: str, tmp: Path, env: dict[str, str]) -> None:
        done = _sh(command, env)
        assert done.returncode == code, done.stdout + done.stderr
        for needle in needles:
            assert needle in done.stdout, done.stdout
        assert "Traceback" not in done.stdout + done.stderr

    return run


def _replay(command: str, tmp: Path, env: dict[str, str]) -> None:
    session = REPO_ROOT / "session.jsonl"
    assert not session.exists()
    rows = [
        {
            "session_id": "readme",
            "cwd": str(tmp),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git push --force origin main"},
            "tool_use_id": "t1",
        }
    ]
    session.write_text("".join(json.dumps(r) + "\n" for r in rows))
    try:
        done = _sh(command, env)
    finally:
        session.unlink()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["decision"] == "BLOCK"


def _serve(command: str, tmp: Path, env: dict[str, str]) -> None:
    done = _sh(command, env)
    assert done.returncode == 0, done.stderr
    try:
        status = _sh(
            "for i in $(seq 100); do agentreflex serve --status && exit 0; sleep 0.1; done; exit 1",
            env,
        )
        assert "running" in status.stdout
    finally:
        _sh("agentreflex serve --stop", env)


def _report(command: str, tmp: Path, env: dict[str, str]) -> None:
    # run where the reader would: the HTML lands in the working directory, not the checkout
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=tmp,
        env=env,
        text=True,
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    page = (tmp / "report.html").read_text(encoding="utf-8")
    assert page.lstrip().lower().startswith("<!doctype html")
    assert "Content-Security-Policy" in page
    assert "Traceback" not in done.stdout + done.stderr


def _undo(command: str, tmp: Path, env: dict[str, str]) -> None:
    # In a fresh repository of its own: the repository root's snapshots are the CI's.
    project = tmp / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], env=env, check=True)
    done = subprocess.run(
        ["bash", "-c", command], cwd=project, env=env, text=True, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no snapshots for this repository" in done.stdout, done.stdout
    assert "Traceback" not in done.stdout + done.stderr


@pytest.fixture
def runners(claude_binary: Path) -> dict[str, Callable[[str, Path, dict[str, str]], None]]:
    claude = _claude(claude_binary)
    return {
        "python3 -m pip install uv && python3 -m uv run agentreflex demo": _demo,
        "python3 -m pip install uv && python3 -m uv run pytest": _pytest,
        # the root distribution is a meta-package: `./[all]` brings every package (issue 20)
        "uv tool install --compile-bytecode --from ./packages/core agentreflex-core "
        "--with './[all]'": _tool_install,
        "claude plugin marketplace add ./": claude,
        "claude plugin install agentreflex@agentreflex": claude,
        "agentreflex check --mode shadow -- rm -rf ~/": _expect(0, "WOULD_BLOCK"),
        "agentreflex check --json -- git push origin +main": _expect(2, '"decision": "BLOCK"'),
        "echo 'token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB' | agentreflex redact": _expect(
            0, "token [REDACTED]"
        ),
        "agentreflex status": _expect(0, "agentreflex status"),
        "agentreflex doctor": _expect(0, "all good"),
        "agentreflex replay session.jsonl --host claude-code --mode enforced": _replay,
        "agentreflex serve --detach": _serve,
        "agentreflex undo": _undo,
        "agentreflex --version": _expect(0, "agentreflex-core", "agentreflex-gate"),
        "agentreflex install claude-code --dry-run": _expect(0, "hook claude-code PreToolUse"),
        "agentreflex trust --show": _expect(0, "no approved configuration files"),
        "agentreflex config check": _expect(0, "ok "),
        "agentreflex report --since 7d -o report.html    # or --session ID": _report,
    }


def test_every_readme_command_has_a_runner(
    runners: dict[str, Callable[[str, Path, dict[str, str]], None]],
) -> None:
    assert set(readme_commands()) <= set(runners), set(readme_commands()) - set(runners)


@pytest.mark.parametrize("command", readme_commands())
def test_readme_command_works(
    command: str,
    tmp_path: Path,
    runners: dict[str, Callable[[str, Path, dict[str, str]], None]],
) -> None:
    runners[command](command, tmp_path, _env(tmp_path))
