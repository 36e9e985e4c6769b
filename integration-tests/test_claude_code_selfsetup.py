"""The plugin, installed from the marketplace and nothing else, sets itself up in the real host.

No ``AGENTREFLEX_BIN``, no agentreflex on PATH, no environment made beforehand: the
only steps are ``claude plugin marketplace add`` and ``claude plugin install``. The
first session's SessionStart hook starts the setup in the background (from the
bundle the plugin carries); a tool call made while it builds is refused with the
"setting itself up" reason. Once the environment is ready, the next session blocks
``git reset --hard`` over uncommitted work while a benign command runs.

Two scenarios:

* **cold cache, registries reachable**: an empty uv cache, so uv must download the
  third-party wheels (tree-sitter, httpx, ...) and the build backend. Such a setup
  needs the network, so Claude Code runs in this machine's network namespace
  (``network=True``); the model is still the fake one on 127.0.0.1, and nothing else
  Claude Code does needs the network (telemetry, updates and non-essential traffic
  are switched off, as in every scenario).
* **warm cache, no network**: the machine's uv cache after one earlier setup, and
  Claude Code inside ``unshare -n`` as in every other scenario: the setup runs
  offline, from the bundle and the cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hostharness.claude import REPO_ROOT, ClaudeProject, RunResult, message_text
from hostharness.fakemodel import bash, say

BUNDLE = REPO_ROOT / "plugins" / "claude-code" / "bundle"
SETUP_TIMEOUT = 900.0
# What a user's shell would pass on to uv to reach a registry (none need be set).
NETWORK_ENV = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_EXTRA_INDEX_URL",
)


def real_uv() -> str:
    """The uv binary itself (a pyenv shim would need the real HOME to run)."""
    found = os.environ.get("UV") or shutil.which("uv")
    assert found, "uv is needed for these scenarios"
    if "/shims/" in found:
        found = subprocess.run(
            ["pyenv", "which", "uv"], capture_output=True, text=True, check=True
        ).stdout.strip()
    return found


def plugin_data(project: ClaudeProject) -> Path:
    """Claude Code's ${CLAUDE_PLUGIN_DATA} for agentreflex@agentreflex."""
    return project.config_dir / "plugins" / "data" / "agentreflex-agentreflex"


def plugin_only(project: ClaudeProject, uv_cache: Path) -> None:
    """Nothing but the plugin: no AGENTREFLEX_BIN, PATH with python3 and uv, no agentreflex."""
    project.agentreflex_bin = None
    bindir = project.root / "user-bin"
    bindir.mkdir()
    (bindir / "uv").symlink_to(real_uv())
    project.path = f"{bindir}:{project.path}"
    for directory in project.path.split(":"):
        assert not (Path(directory) / "agentreflex").exists(), directory
    project.extra_env["UV_CACHE_DIR"] = str(uv_cache)
    project.set_mode("enforced")
    project.write("README.md", "uncommitted work\n")  # a tracked file, changed, not committed


def wait_until_ready(project: ClaudeProject) -> dict[str, object]:
    state_file = plugin_data(project) / "setup.json"
    deadline = time.monotonic() + SETUP_TIMEOUT
    state: dict[str, object] = {}
    while time.monotonic() < deadline:
        if state_file.exists():
            state = json.loads(state_file.read_text())
            if state.get("state") in ("ready", "failed"):
                break
        time.sleep(0.5)
    log = plugin_data(project) / "setup.log"
    assert state.get("state") == "ready", (state, log.read_text()[-3000:] if log.exists() else "")
    return state


def tool_result_for(run: RunResult, command: str) -> dict[str, Any]:
    """The tool result the model was sent for its Bash call running ``command``."""
    ids: set[str] = set()
    results: dict[str, dict[str, Any]] = {}
    for body in run.main_requests:
        for message in body.get("messages") or []:
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use" and block["input"].get("command") == command:
                    ids.add(str(block.get("id")))
                if block.get("type") == "tool_result":
                    results[str(block.get("tool_use_id"))] = block
    found = [results[i] for i in ids if i in results]
    assert len(found) == 1, (command, run.describe())
    return found[0]


def first_session_starts_setup(project: ClaudeProject) -> RunResult:
    """Session 1: SessionStart starts the setup; a tool call meanwhile fails closed."""
    early = project.project / "early"  # in the project: a contained command may write it
    run = project.run("hello", [bash(f"touch {early}"), say("Hello.")])
    assert run.result.get("subtype") == "success", run.describe()
    assert (plugin_data(project) / "setup.json").exists(), "SessionStart did not start a setup"
    if not early.exists():  # the build was not finished: refused, with the reason
        assert run.denied_tools() == ["Bash"], run.describe()
        result = tool_result_for(run, f"touch {early}")
        told = message_text({"content": result.get("content")})
        assert result.get("is_error") is True, result
        assert "agentreflex is setting itself up" in told and "about" in told, told
    return run


def set_up_session_blocks_reset(project: ClaudeProject) -> RunResult:
    """Session 2: `ls` runs; `git reset --hard` over the uncommitted README is refused."""
    run = project.run("tidy up", [bash("ls"), bash("git reset --hard"), say("Done.")])
    listing = tool_result_for(run, "ls")
    assert listing.get("is_error") is not True, listing
    assert "README.md" in message_text({"content": listing.get("content")}), listing
    assert (project.project / "README.md").read_text() == "uncommitted work\n", run.describe()
    assert run.denied_tools() == ["Bash"], run.describe()
    (denial,) = run.denials
    assert denial["tool_input"]["command"] == "git reset --hard"
    refused = tool_result_for(run, "git reset --hard")
    assert refused.get("is_error") is True, refused
    assert "GATE-GIT-RESET-HARD" in message_text({"content": refused.get("content")}), refused
    return run


def test_cold_cache_with_registries_sets_itself_up_then_blocks(
    claude_project: ClaudeProject,
) -> None:
    cache = claude_project.root / "uv-cache"  # empty: everything is downloaded
    plugin_only(claude_project, cache)
    claude_project.network = True
    for name in NETWORK_ENV:
        if name in os.environ:
            claude_project.extra_env[name] = os.environ[name]
    first_session_starts_setup(claude_project)
    state = wait_until_ready(claude_project)
    assert state["installer"] == "uv"
    assert any((cache / "wheels-v5").rglob("*")) or any(cache.rglob("*.whl*")), (
        "the cold setup did not fill the empty cache"
    )
    set_up_session_blocks_reset(claude_project)


def warm_the_cache(cache: str) -> None:
    """One earlier setup on this machine, online (a user who has used uv before)."""
    data = Path(tempfile.mkdtemp(prefix="warm-"))
    try:
        done = subprocess.run(
            [sys.executable, str(BUNDLE / "bootstrap.py"), "setup", "--data", str(data)],
            env={
                **os.environ,
                "UV_CACHE_DIR": cache,
                "PATH": f"{Path(real_uv()).parent}:/usr/bin:/bin",
            },
            capture_output=True,
            text=True,
            timeout=SETUP_TIMEOUT,
            check=False,
        )
        assert done.returncode == 0, done.stderr + (data / "setup.log").read_text()[-3000:]
    finally:
        shutil.rmtree(data, ignore_errors=True)


def test_warm_cache_offline_sets_itself_up_then_blocks(claude_project: ClaudeProject) -> None:
    cache = subprocess.run(
        [real_uv(), "cache", "dir"], capture_output=True, text=True, check=True
    ).stdout.strip()
    warm_the_cache(cache)
    plugin_only(claude_project, Path(cache))
    assert claude_project.network is False  # unshare -n: loopback only
    first_session_starts_setup(claude_project)
    state = wait_until_ready(claude_project)
    assert state["installer"] == "uv"
    log = (plugin_data(claude_project) / "setup.log").read_text()
    assert "--offline" in log
    set_up_session_blocks_reset(claude_project)
