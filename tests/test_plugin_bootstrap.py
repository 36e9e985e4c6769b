"""The Claude Code plugin sets itself up: the launcher and bundle/bootstrap.py, run for real.

Each test copies ``plugins/claude-code`` (the launcher and the assembled bundle) to a
temporary folder and gives it an empty ``CLAUDE_PLUGIN_DATA``, as Claude Code does
after ``claude plugin install``. Setups are real: uv (or venv + pip) builds a real
environment from the bundle, using the machine's warm uv cache.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from machine_env import scrubbed_env  # noqa: E402

PLUGIN = REPO / "plugins" / "claude-code"
SETUP_TIMEOUT = 300.0


def real_uv() -> str:
    """The uv binary itself (a pyenv shim would need the real HOME to run)."""
    found = os.environ.get("UV") or shutil.which("uv")
    assert found, "uv is needed to run these tests"
    if "/shims/" in found:
        found = subprocess.run(
            ["pyenv", "which", "uv"], capture_output=True, text=True, check=True
        ).stdout.strip()
    return found


def uv_cache() -> str:
    done = subprocess.run([real_uv(), "cache", "dir"], capture_output=True, text=True, check=True)
    return done.stdout.strip()


class Plugin:
    """A copy of the plugin folder with its own empty data folder and a git project."""

    def __init__(self, root: Path, with_uv: bool = True) -> None:
        self.root = root / "plugin"
        shutil.copytree(PLUGIN, self.root, ignore=shutil.ignore_patterns("__pycache__"))
        # the bootstrap's source, not the last assembled copy of it (the bundle is regenerated)
        shutil.copy(REPO / "plugins" / "shared" / "bootstrap.py", self.root / "bundle")
        self.data = root / "data"
        self.home = root / "home"
        self.home.mkdir()
        bindir = root / "bin"
        bindir.mkdir()
        if with_uv:
            (bindir / "uv").symlink_to(real_uv())
        self.env = scrubbed_env(
            {
                "PATH": f"{bindir}:/usr/bin:/bin",
                "HOME": str(self.home),
                "CLAUDE_PLUGIN_ROOT": str(self.root),
                "CLAUDE_PLUGIN_DATA": str(self.data),
                "AGENTREFLEX_DAEMON": "off",
                "UV_CACHE_DIR": uv_cache(),
                "LANG": "C.UTF-8",
            }
        )
        self.project = root / "project"
        self._make_project()

    def _make_project(self) -> None:
        git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid"]
        (self.project / ".agentreflex").mkdir(parents=True)
        (self.project / "work.txt").write_text("committed\n")
        subprocess.run([*git, "init", "-q"], cwd=self.project, check=True)
        subprocess.run([*git, "add", "work.txt"], cwd=self.project, check=True)
        subprocess.run([*git, "commit", "-q", "-m", "init"], cwd=self.project, check=True)
        (self.project / "work.txt").write_text("uncommitted work\n")
        (self.project / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')

    @property
    def ident(self) -> str:
        return (self.root / "bundle" / "id").read_text().strip()

    def bootstrap(
        self, *args: str, timeout: float = SETUP_TIMEOUT
    ) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, str(self.root / "bundle" / "bootstrap.py"), *args]
        argv += ["--bundle", str(self.root / "bundle"), "--data", str(self.data)]
        return subprocess.run(
            argv, env=self.env, capture_output=True, text=True, timeout=timeout, check=False
        )

    def hook(self, event: str, command: str = "ls") -> subprocess.CompletedProcess[str]:
        payload = {"hook_event_name": event, "session_id": "s1", "cwd": str(self.project)}
        args = ["claude-code", event]
        if event == "PreToolUse":
            payload.update(tool_name="Bash", tool_input={"command": command})
            args.insert(0, "--fail-closed")
        return subprocess.run(
            [str(self.root / "bin" / "agentreflex-hook"), *args],
            input=json.dumps(payload),
            env=self.env,
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def state(self) -> dict[str, object]:
        state: dict[str, object] = json.loads((self.data / "setup.json").read_text())
        return state

    def env_dirs(self) -> list[Path]:
        return sorted(p for p in (self.data / "envs").iterdir() if not p.is_symlink())

    def wait_setup(self, since: float) -> dict[str, object]:
        """Until a setup started at or after ``since`` (by a hook, in the background) is over."""
        deadline = time.monotonic() + SETUP_TIMEOUT
        while time.monotonic() < deadline:
            state = self.state() if (self.data / "setup.json").exists() else {}
            started = state.get("started")
            if (
                isinstance(started, float)
                and started >= since
                and state.get("state") != "running"
                and self.lock_is_free()
            ):
                return state
            time.sleep(0.2)
        raise AssertionError(f"no setup since {since} finished: {self.state()}")

    def ready(self) -> bool:
        """Whether the environment the hooks use is published (envs/<id> links to it)."""
        return (self.data / "envs" / self.ident / "bin" / "agentreflex").exists()

    def lock_is_free(self) -> bool:
        with (self.data / "setup.lock").open("a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False
            fcntl.flock(handle, fcntl.LOCK_UN)
            return True

    def age_failure(self, seconds: float) -> None:
        """Pretend the last failed attempt finished ``seconds`` ago (the back-off clock)."""
        state = self.state()
        state["finished"] = time.time() - seconds
        (self.data / "setup.json").write_text(json.dumps(state))

    def assert_blocks_reset_and_allows_ls(self) -> None:
        reset = self.hook("PreToolUse", "git reset --hard")
        assert reset.returncode == 0, reset
        decision = json.loads(reset.stdout)["hookSpecificOutput"]
        assert decision["permissionDecision"] == "deny", decision
        assert "GATE-GIT-RESET-HARD" in decision["permissionDecisionReason"]
        benign = self.hook("PreToolUse", "ls")
        assert benign.returncode == 0, benign
        assert "deny" not in benign.stdout


def test_first_hooks_start_setup_then_the_env_decides(tmp_path: Path) -> None:
    plugin = Plugin(tmp_path)
    since = time.time()
    start = plugin.hook("SessionStart")
    assert start.returncode == 0, start
    said = json.loads(start.stdout)["systemMessage"]
    if plugin.ready():  # the warm cache served it within SessionStart's wait
        assert "set itself up (" in said and "guards this session" in said, said
        # the first tool call is not refused: the environment decides it (the gate blocks)
        first = plugin.hook("PreToolUse", "git reset --hard")
        assert first.returncode == 0 and '"deny"' in first.stdout, first
    else:
        assert "setting itself up" in said and "more" in said, said
        # A tool call while it builds fails closed and says why and for how long.
        early = plugin.hook("PreToolUse", "git reset --hard")
        if early.returncode == 2:  # normally; unless the build already finished
            assert "setting itself up" in early.stderr and "about" in early.stderr, early
        for event in ("UserPromptSubmit", "PostToolUse", "Stop"):  # other events pass meanwhile
            other = plugin.hook(event)
            assert other.returncode == 0 and other.stdout == "", other
    state = plugin.wait_setup(since)
    assert state["state"] == "ready", state
    assert state["installer"] == "uv"
    env = plugin.data / "envs" / plugin.ident
    assert env.is_symlink()
    script = env / "bin" / "agentreflex"
    # an absolute interpreter in the entry point: no shell shim between hook and Python
    assert script.read_text().splitlines()[0] == f"#!{env.resolve()}/bin/python"
    cli_pyc = list(
        (env.resolve() / "lib").glob(
            "python3*/site-packages/agentreflex/core/cli/__pycache__/__init__.*.pyc"
        )
    )
    assert cli_pyc, "bytecode was not compiled"
    plugin.assert_blocks_reset_and_allows_ls()
    assert (plugin.project / "work.txt").read_text() == "uncommitted work\n"


def test_killed_setup_leaves_no_usable_env(tmp_path: Path) -> None:
    plugin = Plugin(tmp_path)
    builder = subprocess.Popen(
        [
            sys.executable,
            str(plugin.root / "bundle" / "bootstrap.py"),
            "setup",
            *("--bundle", str(plugin.root / "bundle"), "--data", str(plugin.data)),
        ],
        env=plugin.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        envs = (plugin.data / "envs").glob(f"{plugin.ident}.*/pyvenv.cfg")
        if any(envs):
            break
        time.sleep(0.05)
    os.killpg(builder.pid, signal.SIGKILL)  # the builder and its installers, as a reboot would
    builder.wait()
    (half,) = plugin.env_dirs()
    assert not (plugin.data / "envs" / plugin.ident).exists()
    # Make the half-made env look runnable: if the launcher ever used it, we would know.
    marker = tmp_path / "half-env-ran"
    stub = half / "bin" / "agentreflex"
    stub.parent.mkdir(parents=True, exist_ok=True)
    stub.write_text(f"#!/bin/sh\ntouch {marker}\n")
    stub.chmod(0o755)
    since = time.time()
    blocked = plugin.hook("PreToolUse", "git reset --hard")
    assert blocked.returncode == 2, blocked
    assert "setting itself up" in blocked.stderr
    assert not marker.exists()
    assert plugin.wait_setup(since)["state"] == "ready"  # the hook started a fresh setup
    (final,) = plugin.env_dirs()  # the half-made one is gone
    assert final != half and not half.exists()
    plugin.assert_blocks_reset_and_allows_ls()
    assert not marker.exists()


def test_two_concurrent_setups_make_one_env(tmp_path: Path) -> None:
    plugin = Plugin(tmp_path)
    (plugin.data / "envs").mkdir(parents=True)
    argv = [sys.executable, str(plugin.root / "bundle" / "bootstrap.py"), "setup"]
    argv += ["--bundle", str(plugin.root / "bundle"), "--data", str(plugin.data)]
    builders = [
        subprocess.Popen(argv, env=plugin.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    said = []
    for builder in builders:
        out, err = builder.communicate(timeout=SETUP_TIMEOUT)
        assert builder.returncode == 0, err
        said.append(out.decode().strip().split(":")[0])
    # one built it; the other waited for the lock and found it ready
    assert sorted(said) == ["agentreflex is ready", "agentreflex was already set up"], said
    assert len(plugin.env_dirs()) == 1
    plugin.assert_blocks_reset_and_allows_ls()


def test_failed_setup_is_recorded_and_retried_with_backoff(tmp_path: Path) -> None:
    plugin = Plugin(tmp_path)
    packages = plugin.root / "bundle" / "packages.txt"
    good = packages.read_text()
    packages.write_text(good + "packages/no-such-package\n")
    failed = plugin.bootstrap("setup")
    assert failed.returncode == 1
    state = plugin.state()
    assert state["state"] == "failed" and state["failures"] == 1
    assert "no-such-package" in str(state["error"]), state
    assert plugin.env_dirs() == []
    # Within the back-off a tool call is refused with the reason, and no new attempt starts.
    refused = plugin.hook("PreToolUse")
    assert refused.returncode == 2
    assert "could not set itself up" in refused.stderr and "no-such-package" in refused.stderr
    time.sleep(1)
    assert plugin.lock_is_free() and plugin.state() == state
    # A new session retries (it fails again: still broken), counting the failures.
    plugin.age_failure(60)
    since = time.time()
    assert "setting itself up" in plugin.hook("SessionStart").stdout
    assert plugin.wait_setup(since)["failures"] == 2
    # Repaired; once the back-off (30 s, then 60 s) has passed, a tool call retries.
    packages.write_text(good)
    plugin.age_failure(30)
    assert "could not set itself up" in plugin.hook("PreToolUse").stderr  # 60 s not over
    plugin.age_failure(61)
    since = time.time()
    retry = plugin.hook("PreToolUse")
    assert retry.returncode == 2 and "setting itself up" in retry.stderr
    assert plugin.wait_setup(since)["state"] == "ready"
    plugin.assert_blocks_reset_and_allows_ls()


def test_an_upgraded_bundle_gets_a_new_env(tmp_path: Path) -> None:
    plugin = Plugin(tmp_path)
    assert plugin.bootstrap("setup").returncode == 0
    old_id = plugin.ident
    old_env = (plugin.data / "envs" / old_id).resolve()
    # A new plugin version: different sources, so a different bundle id.
    readme = plugin.root / "bundle" / "packages" / "core" / "README.md"
    readme.write_text(readme.read_text() + "\nupgraded\n")
    (plugin.root / "bundle" / "id").write_text("0123456789abcdef\n")
    since = time.time()
    blocked = plugin.hook("PreToolUse", "git reset --hard")
    assert blocked.returncode == 2 and "setting itself up" in blocked.stderr
    plugin.wait_setup(since)
    new_env = (plugin.data / "envs" / "0123456789abcdef").resolve()
    assert new_env != old_env
    assert plugin.state()["bundle"] == "0123456789abcdef"
    assert old_env.is_dir()  # kept: a session of the old version may still use it
    plugin.assert_blocks_reset_and_allows_ls()


def test_without_uv_it_uses_venv_and_pip(tmp_path: Path) -> None:
    plugin = Plugin(tmp_path, with_uv=False)
    plugin.env["HOME"] = os.environ.get("HOME", "/root")  # pip's own config and cache
    done = plugin.bootstrap("setup", timeout=600)
    assert done.returncode == 0, (done.stderr, (plugin.data / "setup.log").read_text()[-3000:])
    assert plugin.state()["installer"] == "pip"
    env = (plugin.data / "envs" / plugin.ident).resolve()
    assert list(env.glob("lib/python3*/site-packages/agentreflex/gate/__pycache__/*.pyc"))
    plugin.assert_blocks_reset_and_allows_ls()


def test_python3_missing_fails_closed(tmp_path: Path) -> None:
    plugin = Plugin(tmp_path)
    plugin.env["PATH"] = str(tmp_path / "bin")  # only uv: no python3, no sed
    done = plugin.hook("PreToolUse")
    assert done.returncode == 2
    assert "python3 was not found" in done.stderr


def stub(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def test_launcher_prefers_its_own_env_and_rebuilds_a_broken_one(tmp_path: Path) -> None:
    plugin = Plugin(tmp_path)
    on_path = stub(tmp_path / "bin" / "agentreflex", "echo from-path")
    done = plugin.hook("Stop")
    assert done.stdout.strip() == "from-path", done  # someone's own install: no setup
    assert not (plugin.data / "setup.json").exists()
    real = plugin.data / "envs" / f"{plugin.ident}.x"
    stub(real / "bin" / "agentreflex", "echo from-own-env")
    (real / "bin" / "python").symlink_to(tmp_path / "no-such-python")
    (plugin.data / "envs" / plugin.ident).symlink_to(real.name)
    # its base python is gone: not usable, so the PATH one runs
    assert plugin.hook("Stop").stdout.strip() == "from-path"
    (real / "bin" / "python").unlink()
    (real / "bin" / "python").symlink_to(sys.executable)
    assert plugin.hook("Stop").stdout.strip() == "from-own-env"
    on_path.unlink()
    assert plugin.hook("Stop").stdout.strip() == "from-own-env"


def test_agentreflex_bin_set_means_no_setup(tmp_path: Path) -> None:
    plugin = Plugin(tmp_path)
    plugin.env["AGENTREFLEX_BIN"] = str(tmp_path / "missing")
    done = plugin.hook("PreToolUse")
    assert done.returncode == 2 and "AGENTREFLEX_BIN" in done.stderr
    assert not (plugin.data / "setup.json").exists()


def test_a_pythonpath_into_the_project_runs_nothing_there(tmp_path: Path) -> None:
    """The user's ``PYTHONPATH=src`` reaches the hook: the launcher runs the script's Python
    with -E -P, so a ``sitecustomize.py`` a contained command wrote in ``src`` never runs."""
    plugin = Plugin(tmp_path)
    marker = tmp_path / "project-code-ran"
    (plugin.project / "src").mkdir()
    (plugin.project / "src" / "sitecustomize.py").write_text(f"open({str(marker)!r}, 'w')\n")
    plugin.env["PYTHONPATH"] = str(plugin.project / "src")
    plugin.env["AGENTREFLEX_BIN"] = str(Path(sys.prefix) / "bin" / "agentreflex")
    plugin.assert_blocks_reset_and_allows_ls()
    assert not marker.exists()


def test_the_project_cannot_supply_python3_uv_or_uv_config(tmp_path: Path) -> None:
    """A hook runs in the project: relative PATH entries and the project's uv config are ignored."""
    plugin = Plugin(tmp_path)
    marker = tmp_path / "project-code-ran"
    for name in ("python3", "uv"):
        stub(plugin.project / "rel" / name, f"touch {marker}; exit 1")
    (plugin.project / "uv.toml").write_text('index-url = "http://127.0.0.1:9/simple"\n')
    plugin.env["PATH"] = f"rel:{plugin.env['PATH']}"
    since = time.time()
    blocked = plugin.hook("PreToolUse")
    assert blocked.returncode == 2 and "setting itself up" in blocked.stderr, blocked
    state = plugin.wait_setup(since)
    assert state["state"] == "ready", state
    assert not marker.exists()


def test_a_path_folder_inside_the_project_is_passed_over(tmp_path: Path) -> None:
    """An activated ``.venv/bin`` of the project first on PATH: the agent writes it, so an
    ``agentreflex`` or ``python3`` planted there is never what the launcher runs."""
    plugin = Plugin(tmp_path)
    marker = tmp_path / "project-code-ran"
    for name in ("agentreflex", "python3"):
        stub(plugin.project / ".venv" / "bin" / name, f"touch {marker}; exit 0")
    plugin.env["PATH"] = f"{plugin.project / '.venv' / 'bin'}:{plugin.env['PATH']}"
    plugin.env["CLAUDE_PROJECT_DIR"] = str(plugin.project)
    since = time.time()
    blocked = plugin.hook("PreToolUse")
    assert blocked.returncode == 2 and "setting itself up" in blocked.stderr, blocked
    state = plugin.wait_setup(since)
    assert state["state"] == "ready", state
    assert not marker.exists()
    plugin.assert_blocks_reset_and_allows_ls()
    assert not marker.exists()


def test_a_relative_plugin_data_is_not_set_up(tmp_path: Path) -> None:
    """A relative CLAUDE_PLUGIN_DATA would put the environment inside the project."""
    plugin = Plugin(tmp_path)
    plugin.env["CLAUDE_PLUGIN_DATA"] = "data"
    done = plugin.hook("PreToolUse")
    assert done.returncode == 2 and "was not found" in done.stderr
    assert not (plugin.project / "data").exists()
