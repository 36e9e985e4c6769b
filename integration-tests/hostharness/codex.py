"""Codex CLI, installed from npm at a pinned version and driven offline.

:func:`install_codex` puts ``@openai/codex@VERSION`` under
``integration-tests/.hosts/codex-VERSION/`` (reused when already there).
:class:`CodexProject` is one scenario's world: a git project, a home and a
``CODEX_HOME`` whose ``config.toml`` points Codex at the scripted fake
Responses API (the host-lab settings: no approvals, no sandbox, no analytics,
no retries).  agentreflex is installed into it the user's way, with
``agentreflex install codex``.  :meth:`CodexProject.run` runs ``codex exec``
inside ``unshare -n`` (``python -m hostharness.codex SPEC.json`` starts the
fake model in the namespace, like :mod:`hostharness.jail` does for Claude).

``CODEX_HOME`` lives in the gitignored ``.hosts/`` folder: Codex will not put
its helper binaries under ``/tmp``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hostharness.claude import (
    AGENTREFLEX_SCRIPT,
    HOSTS_DIR,
    TESTS_DIR,
    HostUnavailableError,
    node_dir,
    npm_command,
    request_text,
    run_spec,
)
from hostharness.fake_openai_responses import FakeResponses, ResponsesScript, offered_tools
from hostharness.fakemodel import Turn
from hostharness.jail import bring_loopback_up
from hostharness.project import ScenarioProject

CODEX_VERSION = "0.169.0"
CODEX_PACKAGE = "@openai/codex"
BASE_URL = "{BASE_URL}"  # replaced inside the jail by the fake model's address

CONFIG = """model = "fake-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"
"""


CATALOG_BASE = "gpt-5.5"  # the embedded model entry the fake model takes its tool set from


def model_catalog(codex: Path) -> dict[str, Any]:
    """A one-model catalog for ``fake-model``, cut from the catalog built into the binary.

    Without catalog metadata Codex falls back to a tool set without
    ``apply_patch``; with the entry of a real model (here ``gpt-5.5``, renamed)
    it offers what that model gets: ``exec_command``, ``write_stdin`` and the
    freeform ``apply_patch``.
    """
    binary = next(
        p
        for p in (codex.parent.parent / "@openai").rglob("codex")
        if p.is_file() and p.stat().st_size > 10_000_000
    )
    data = binary.read_bytes()
    at = data.find(b'"apply_patch_tool_type"')
    start = data.rfind(b"{", 0, data.rfind(b'"models"', 0, at))
    text = data[start : start + 4_000_000].decode("utf-8", "replace")
    catalog, _ = json.JSONDecoder().raw_decode(text)
    entry = next(m for m in catalog["models"] if m["slug"] == CATALOG_BASE)
    entry.update(slug="fake-model", display_name="Fake", prefer_websockets=False, upgrade=None)
    return {"models": [entry]}


def install_codex(version: str = CODEX_VERSION) -> Path:
    """Path of the ``codex`` binary at ``version``, installing it with npm if needed."""
    prefix = HOSTS_DIR / f"codex-{version}"
    binary = prefix / "node_modules" / ".bin" / "codex"
    if binary.exists():
        return binary
    HOSTS_DIR.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            *npm_command(),
            "install",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(prefix),
            f"{CODEX_PACKAGE}@{version}",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0 or not binary.exists():
        raise HostUnavailableError(f"npm install {CODEX_PACKAGE}@{version} failed:\n{done.stderr}")
    return binary


@dataclass
class CodexRun:
    rc: int
    stdout: str
    stderr: str
    wall_s: float
    requests: list[dict[str, Any]]

    @property
    def main_requests(self) -> list[dict[str, Any]]:
        """Bodies of the agent loop's requests to the model, in order."""
        return [
            r["body"]
            for r in self.requests
            if r["method"] == "POST"
            and r["path"].split("?")[0].endswith("/responses")
            and isinstance(r["body"], dict)
            and offered_tools(r["body"])
        ]

    def tool_outputs(self) -> list[str]:
        """What the model was shown as each tool call's result, in order (last request)."""
        if not self.main_requests:
            return []
        items = self.main_requests[-1].get("input") or []
        return [
            request_text(item.get("output"))
            for item in items
            if isinstance(item, dict)
            and item.get("type") in ("function_call_output", "custom_tool_call_output")
        ]

    def describe(self) -> str:
        lines = [
            f"codex exit {self.rc} in {self.wall_s} s",
            "stdout:",
            self.stdout[-3000:],
            "stderr:",
            self.stderr[-4000:],
        ]
        for n, body in enumerate(self.main_requests):
            items = body.get("input") or []
            lines.append(f"--- main request {n}: {len(items)} items; last item:")
            lines.append(request_text(items[-1])[-1500:] if items else "")
        return "\n".join(lines)


def new_codex_home() -> Path:
    """A fresh CODEX_HOME outside the temp dir: Codex refuses to put its helper binaries
    under it (its sandbox then fails to start: ``bwrap: execvp codex-linux-sandbox``), and
    a checkout under /tmp (as a CI clone may be) puts HOSTS_DIR there too, as a fresh HOME
    under /tmp (``.ci/fresh-clone``) puts ``~/.cache``.  Resolved, because Codex records
    hook trust under the canonical path and a ``.hosts`` reached through a symlink (a cache
    shared between checkouts) would never match it."""
    temp = Path(tempfile.gettempdir()).resolve()
    candidates = (
        HOSTS_DIR.resolve(),
        (Path.home() / ".cache" / "agentreflex-tests").resolve(),
        Path("/var/tmp") / f"agentreflex-tests-{os.getuid()}",
    )
    parent = next(c for c in candidates if not c.is_relative_to(temp) or c == candidates[-1])
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="codex-home-", dir=parent))


def remove_codex_home(home: Path) -> None:
    """``home`` gone, and every process still running from it first.

    Why: Codex 0.169 starts a file-system helper (``codex --codex-run-as-fs-helper``)
    inside its own bwrap, in a session of its own, so it is not in the process group a
    run's timeout kills, and it outlived ``codex exec`` by an hour on this project's CI
    machine.  Its command line names the helper binaries Codex put in ``home``.
    """
    mark = os.fsencode(str(home)) + b"/"
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if mark in (entry / "cmdline").read_bytes():
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError):
            continue  # gone already, or not ours to read
    shutil.rmtree(home, ignore_errors=True)


class CodexProject(ScenarioProject):
    """One scenario's world: project dir, home, CODEX_HOME pointing at the fake model."""

    def __init__(self, root: Path, codex: Path) -> None:
        super().__init__(root)
        self.codex = codex
        self.codex_home = new_codex_home()
        catalog = self.codex_home / "fake-catalog.json"
        catalog.write_text(json.dumps(model_catalog(codex)))
        (self.codex_home / "config.toml").write_text(
            f"model_catalog_json = {json.dumps(str(catalog))}\n" + CONFIG
        )
        self.path = f"{node_dir()}{os.pathsep}/usr/local/bin:/usr/bin:/bin"
        self.extra_env: dict[str, str] = {}

    def rollouts(self) -> list[Path]:
        """The rollout files Codex wrote under ``CODEX_HOME/sessions`` (non-ephemeral runs)."""
        return sorted((self.codex_home / "sessions").rglob("rollout-*.jsonl*"))

    def cleanup(self) -> None:
        remove_codex_home(self.codex_home)

    def add_mcp_server(self, name: str, argv: Sequence[str]) -> None:
        """Configure a stdio MCP server the user's way (``[mcp_servers.NAME]``).

        The model is told all its tools up front: the fake model cannot search
        for deferred tools (``tool_search``), so the catalog entry says it has none.
        """
        command, *args = argv
        with (self.codex_home / "config.toml").open("a") as config:
            config.write(
                f"\n[mcp_servers.{name}]\ncommand = {json.dumps(command)}\n"
                f"args = {json.dumps(list(args))}\n"
            )
        catalog_file = self.codex_home / "fake-catalog.json"
        catalog = json.loads(catalog_file.read_text())
        for model in catalog["models"]:
            model["supports_search_tool"] = False
        catalog_file.write_text(json.dumps(catalog))

    def env(self) -> dict[str, str]:
        env = {
            "PATH": self.path,
            "HOME": str(self.home),
            "USER": "tester",
            "SHELL": "/bin/bash",
            "LANG": "C.UTF-8",
            "CODEX_HOME": str(self.codex_home),
            "FAKE_API_KEY": "sk-test-fake",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "AGENTREFLEX_SOCKET": str(self.root / "run" / "daemon.sock"),
            "AGENTREFLEX_DAEMON": "off",
        }
        env.update(self.extra_env)
        return env

    def agentreflex(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run this checkout's ``agentreflex`` in the scenario's environment."""
        return subprocess.run(
            [str(AGENTREFLEX_SCRIPT), *args],
            cwd=self.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def install(self, *args: str) -> str:
        """``agentreflex install codex ARGS`` the user's way; returns its output."""
        done = self.agentreflex("install", "codex", *args)
        if done.returncode != 0:
            raise AssertionError(f"agentreflex install codex failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def exec_argv(self, prompt: str, *extra_args: str, ephemeral: bool = True) -> list[str]:
        """``codex exec`` argv; ``ephemeral=False`` lets Codex write its rollout file."""
        return [
            str(self.codex),
            "exec",
            "--skip-git-repo-check",
            *(["--ephemeral"] if ephemeral else []),
            "-c",
            f'model_providers.fake.base_url="{BASE_URL}"',
            "--disable",
            "plugins",
            *extra_args,
            prompt,
        ]

    def run(
        self,
        prompt: str,
        script: Sequence[Turn],
        *extra_args: str,
        timeout: float = 120,
        ephemeral: bool = True,
    ) -> CodexRun:
        step = {
            "argv": self.exec_argv(prompt, *extra_args, ephemeral=ephemeral),
            "cwd": str(self.project),
            "env": self.env(),
            "timeout": timeout,
        }
        outcome = run_in_jail([step], script, self.root / "jail", timeout=timeout + 60)
        last = outcome["steps"][-1]
        return CodexRun(
            rc=last["rc"],
            stdout=last["stdout"],
            stderr=last["stderr"],
            wall_s=last["wall_s"],
            requests=outcome["requests"],
        )

    def hooks_list(self) -> list[dict[str, Any]]:
        """Codex's own view of its hooks (``codex app-server``, ``hooks/list``), offline."""
        step = {
            "argv": [sys.executable, "-m", "hostharness.codex", "--hooks-list", str(self.codex)],
            "cwd": str(self.project),
            "env": {**self.env(), "PYTHONPATH": str(TESTS_DIR)},
            "timeout": 60,
        }
        outcome = run_in_jail([step], [], self.root / "jail", timeout=120)
        done = outcome["steps"][-1]
        if done["rc"] != 0:
            raise AssertionError(f"hooks/list failed: {done['stderr'][-3000:]}")
        hooks: list[dict[str, Any]] = json.loads(done["stdout"])
        return hooks


def run_in_jail(
    steps: Sequence[Mapping[str, Any]], script: Sequence[Turn], workdir: Path, timeout: float
) -> dict[str, Any]:
    """Run ``steps`` inside a loopback-only network namespace with the fake Responses API."""
    spec = {
        "script": [t.to_json() for t in script],
        "steps": list(steps),
    }
    return run_spec("hostharness.codex", spec, workdir, timeout)


def run_step(step: dict[str, Any]) -> dict[str, Any]:
    """One command; on a timeout it is killed and what it printed so far is kept."""
    started = time.monotonic()
    proc = subprocess.Popen(
        step["argv"],
        cwd=step["cwd"],
        env=step["env"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # so a timeout can end codex and everything it started
    )
    try:
        stdout, stderr = proc.communicate(timeout=step.get("timeout", 120))
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        rc = -999
        stderr += f"\n[timed out after {step.get('timeout', 120)} s]"
    return {
        "argv": step["argv"],
        "rc": rc,
        "stdout": stdout,
        "stderr": stderr,
        "wall_s": round(time.monotonic() - started, 3),
    }


def _substitute(step: dict[str, Any], base_url: str) -> dict[str, Any]:
    return {**step, "argv": [a.replace(BASE_URL, base_url) for a in step["argv"]]}


def jail_main(spec_file: str) -> int:
    """Inside ``unshare -n``: lo up, fake model up, the steps in order, results written."""
    spec = json.loads(Path(spec_file).read_text())
    bring_loopback_up()
    fake = FakeResponses(ResponsesScript([Turn.from_json(t) for t in spec["script"]]))
    fake.start()
    results: list[dict[str, Any]] = []
    try:
        for step in spec["steps"]:
            results.append(run_step(_substitute(step, fake.base_url)))
    finally:
        fake.stop()
    Path(spec["result"]).write_text(json.dumps({"steps": results, "requests": fake.requests}))
    return 0


def hooks_list_main(codex: str) -> int:
    """Print ``hooks/list``'s hooks for the cwd as JSON (talks JSON-RPC to ``codex app-server``)."""
    proc = subprocess.Popen(
        [codex, "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for message in (
            {
                "id": 1,
                "method": "initialize",
                "params": {"clientInfo": {"name": "t", "version": "0"}},
            },
            {"method": "initialized"},
            {"id": 2, "method": "hooks/list", "params": {"cwds": [os.getcwd()]}},
        ):
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
        deadline = time.monotonic() + 50
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            reply = json.loads(line)
            if reply.get("id") == 2:
                hooks = [h for entry in reply["result"]["data"] for h in entry["hooks"]]
                print(json.dumps(hooks))
                return 0
        return 1
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    if sys.argv[1] == "--hooks-list":
        sys.exit(hooks_list_main(sys.argv[2]))
    sys.exit(jail_main(sys.argv[1]))
