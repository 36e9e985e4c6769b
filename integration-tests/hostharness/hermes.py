"""Hermes Agent, installed from PyPI at a pinned version and driven offline.

:func:`install_hermes` makes a virtualenv with ``hermes-agent==VERSION`` under
``integration-tests/.hosts/hermes-VERSION/`` with uv (reused when already there),
on the Python that runs the tests, so the plugin can run agentreflex in-process.
:class:`HermesProject` is one scenario's world: a git project, a home, a
``HERMES_HOME`` whose ``config.yaml`` points Hermes at the fake chat-completions
model.  :meth:`HermesProject.run` installs the plugin with
``agentreflex install hermes`` (which runs ``hermes plugins enable``) on first
use, then runs ``hermes -z PROMPT``, all inside ``unshare -n`` with the fake
model on 127.0.0.1 (``python -m hostharness.hermes SPEC``, the counterpart of
:mod:`hostharness.jail`).

Hermes facts this relies on (hosts-lab.md section 5): ``-z`` is one-shot and
prints only the final text; ``security.allow_lazy_installs: false`` stops its
run-time ``pip install`` attempts; user plugins load only when enabled.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hostharness.claude import (
    AGENTREFLEX_SCRIPT,
    HOSTS_DIR,
    HostUnavailableError,
    message_text,
    run_spec,
)
from hostharness.fake_openai_chat import ChatScript, FakeOpenAIChat, is_main_loop
from hostharness.fakemodel import Turn
from hostharness.project import ScenarioProject

HERMES_VERSION = "0.19.0"
HERMES_PACKAGE = "hermes-agent"


def _hermes_version(python: Path) -> str | None:
    try:
        done = subprocess.run(
            [str(python), "-c", "import importlib.metadata as m; print(m.version('hermes-agent'))"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def install_hermes(version: str = HERMES_VERSION) -> Path:
    """Path of a working ``hermes`` script at ``version``, installing it with uv if needed."""
    prefix = HOSTS_DIR / f"hermes-{version}"
    binary = prefix / "bin" / "hermes"
    if binary.exists() and _hermes_version(prefix / "bin" / "python") == version:
        return binary
    uv = shutil.which("uv")
    if uv is None:
        raise HostUnavailableError("uv is needed to install Hermes Agent from PyPI")
    HOSTS_DIR.mkdir(parents=True, exist_ok=True)
    if prefix.exists():
        shutil.rmtree(prefix)
    python = os.path.realpath(sys.executable)
    # built in place: a venv's scripts name its absolute path in their #! line
    try:
        for argv in (
            [uv, "venv", "-q", "--python", python, str(prefix)],
            [
                uv,
                "pip",
                "install",
                "-q",
                "--python",
                str(prefix / "bin" / "python"),
                f"{HERMES_PACKAGE}=={version}",
            ],
        ):
            done = subprocess.run(argv, capture_output=True, text=True, timeout=900, check=False)
            if done.returncode != 0:
                raise HostUnavailableError(
                    f"{' '.join(argv[:3])} failed (exit {done.returncode}):\n{done.stderr[-4000:]}"
                )
    except BaseException:
        shutil.rmtree(prefix, ignore_errors=True)  # never leave a half-built host to reuse
        raise
    found = _hermes_version(prefix / "bin" / "python")
    if found != version:
        raise HostUnavailableError(f"{binary}: hermes-agent {found!r}, expected {version}")
    return binary


@dataclass
class HermesRun:
    rc: int
    stdout: str
    stderr: str
    wall_s: float
    requests: list[dict[str, Any]]
    setup: list[dict[str, Any]] = field(default_factory=list)

    @property
    def main_requests(self) -> list[dict[str, Any]]:
        """Bodies of the agent loop's chat-completions requests, in order."""
        return [
            r["body"]
            for r in self.requests
            if r["method"] == "POST"
            and r["path"].split("?")[0].endswith("/chat/completions")
            and isinstance(r["body"], dict)
            and is_main_loop(r["body"])
        ]

    def tool_messages(self, tool: str | None = None) -> list[str]:
        """Every distinct tool result the model was sent (for ``tool`` if given), in order."""
        seen: list[str] = []
        for body in self.main_requests:
            for message in body.get("messages") or []:
                if not isinstance(message, dict) or message.get("role") != "tool":
                    continue
                if tool is not None and message.get("name") not in (tool, None):
                    continue
                text = message_text(message)
                if text not in seen:
                    seen.append(text)
        return seen

    def user_messages(self) -> list[str]:
        seen: list[str] = []
        for body in self.main_requests:
            for message in body.get("messages") or []:
                if isinstance(message, dict) and message.get("role") == "user":
                    text = message_text(message)
                    if text not in seen:
                        seen.append(text)
        return seen

    def describe(self) -> str:
        lines = [
            f"hermes exit {self.rc} in {self.wall_s} s",
            "setup:",
            *[
                f"  {s['argv'][:4]} rc={s['rc']} {s['stdout'][-500:]} {s['stderr'][-800:]}"
                for s in self.setup
            ],
            "stdout:",
            self.stdout[-3000:],
            "stderr:",
            self.stderr[-3000:],
        ]
        for n, body in enumerate(self.main_requests):
            messages = body.get("messages") or []
            lines.append(f"--- main request {n}: {len(messages)} messages; last message:")
            lines.append(json.dumps(messages[-1])[-1500:] if messages else "")
        return "\n".join(lines)


class HermesProject(ScenarioProject):
    """One scenario's world: project dir, home, ``HERMES_HOME`` with the fake model."""

    def __init__(self, root: Path, hermes: Path) -> None:
        self.hermes_home = root / "hermes-home"
        super().__init__(root, self.hermes_home)
        self.hermes = hermes
        self.plugin_installed = False
        self.with_plugin = True
        # more config.yaml (the shell-hook form's ``hooks:``); set it before the first
        # step: the file is written once, later steps only repoint ``base_url``
        self.extra_config = ""
        self.extra_env: dict[str, str] = {}

    def config_yaml(self, base_url: str) -> str:
        return (
            "model:\n"
            "  default: fake-model\n"
            "  provider: custom\n"
            f"  base_url: {base_url}\n"
            "  api_key: sk-test-fake\n"
            "  context_length: 128000\n"
            "security:\n"
            "  allow_lazy_installs: false\n" + self.extra_config
        )

    def env(self) -> dict[str, str]:
        env = {
            "PATH": f"{self.hermes.parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.home),
            "USER": "tester",
            "SHELL": "/bin/bash",
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.root),
            "HERMES_HOME": str(self.hermes_home),
            "HERMES_DISABLE_LAZY_INSTALLS": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "AGENTREFLEX_SOCKET": str(self.root / "run" / "daemon.sock"),
            "AGENTREFLEX_DAEMON": "off",
        }
        env.update(self.extra_env)
        return env

    def install_steps(self) -> list[dict[str, Any]]:
        """The user's install: ``agentreflex install hermes`` (it runs ``hermes plugins enable``)."""
        return [
            {
                "argv": [str(AGENTREFLEX_SCRIPT), "install", "hermes", "--user"],
                "cwd": str(self.project),
                "env": self.env(),
                "timeout": 90,
                "must_succeed": True,
            }
        ]

    def run(
        self, prompt: str, script: Sequence[Turn], *extra: str, timeout: float = 120
    ) -> HermesRun:
        install = self.with_plugin and not self.plugin_installed
        steps = self.install_steps() if install else []
        steps.append(
            {
                "argv": [str(self.hermes), *extra, "-z", prompt],
                "cwd": str(self.project),
                "env": self.env(),
                "timeout": timeout,
            }
        )
        outcome = run_in_jail(self, steps, script, timeout=timeout + 120)
        done = outcome["steps"]
        if len(done) < len(steps):
            raise AssertionError(f"installing the plugin failed: {done[-1]}")
        self.plugin_installed = self.plugin_installed or install
        last = done[-1]
        return HermesRun(
            rc=last["rc"],
            stdout=last["stdout"],
            stderr=last["stderr"],
            wall_s=last["wall_s"],
            requests=outcome["requests"],
            setup=done[:-1],
        )

    def session(
        self, script: Sequence[Turn], dialogue: Sequence[dict[str, str]], timeout: float = 120
    ) -> HermesRun:
        """``hermes chat`` on a terminal, a person typing ``dialogue`` (see hostharness.terminal)."""
        install = self.with_plugin and not self.plugin_installed
        steps = self.install_steps() if install else []
        steps.append(
            {
                "argv": [str(self.hermes), "chat"],
                "cwd": str(self.project),
                "env": self.env(),
                "timeout": timeout,
                "dialogue": list(dialogue),
            }
        )
        outcome = run_in_jail(self, steps, script, timeout=timeout + 120)
        done = outcome["steps"]
        if len(done) < len(steps):
            raise AssertionError(f"installing the plugin failed: {done[-1]}")
        self.plugin_installed = self.plugin_installed or install
        last = done[-1]
        return HermesRun(
            rc=last["rc"],
            stdout=last["stdout"],
            stderr=last["stderr"],
            wall_s=last["wall_s"],
            requests=outcome["requests"],
            setup=done[:-1],
        )

    def agentreflex(self, *args: str) -> dict[str, Any]:
        """Run ``agentreflex ARGS`` offline (``install``/``uninstall`` run ``hermes plugins``)."""
        step = {
            "argv": [str(AGENTREFLEX_SCRIPT), *args],
            "cwd": str(self.project),
            "env": self.env(),
            "timeout": 90,
        }
        outcome = run_in_jail(self, [step], [], timeout=200)
        result: dict[str, Any] = outcome["steps"][0]
        return result

    def hermes_config(self) -> dict[str, Any]:
        """``config.yaml`` as Hermes reads it (parsed by Hermes' own PyYAML)."""
        code = "import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"
        python = self.hermes.parent / "python"
        path = self.hermes_home / "config.yaml"
        done = subprocess.run(
            [str(python), "-c", code, str(path)], capture_output=True, text=True, check=True
        )
        config: dict[str, Any] = json.loads(done.stdout)
        return config


def run_in_jail(
    project: HermesProject, steps: Sequence[dict[str, Any]], script: Sequence[Turn], timeout: float
) -> dict[str, Any]:
    """Run ``steps`` in a loopback-only network namespace with the fake model serving."""
    workdir = project.root / "jail"
    spec = {
        "script": [t.to_json() for t in script],
        "steps": list(steps),
        "config_yaml": str(project.hermes_home / "config.yaml"),
        "config_text": project.config_yaml("{base_url}"),
    }
    return run_spec("hostharness.hermes", spec, workdir, timeout)


def _write_config(spec: dict[str, Any], base_url: str) -> None:
    """Point config.yaml at this run's fake model (a port is per namespace), keeping the rest."""
    path = Path(spec["config_yaml"])
    fresh = spec["config_text"].replace("{base_url}", base_url)
    if not path.exists():
        path.write_text(fresh)
        return
    import re

    text = re.sub(r"(?m)^  base_url: .*$", f"  base_url: {base_url}", path.read_text())
    path.write_text(text)


def main(argv: list[str]) -> int:
    from hostharness.jail import bring_loopback_up, run_step

    spec = json.loads(Path(argv[1]).read_text())
    bring_loopback_up()
    fake = FakeOpenAIChat(ChatScript([Turn.from_json(t) for t in spec["script"]]))
    fake.start()
    _write_config(spec, fake.base_url)
    results: list[dict[str, Any]] = []
    try:
        for step in spec["steps"]:
            if "dialogue" in step:  # a person at the interactive UI
                from hostharness.terminal import run_dialogue

                outcome = run_dialogue(step)
            else:
                outcome = run_step(step, fake.base_url)
            results.append(outcome)
            if outcome["rc"] != 0 and step.get("must_succeed", False):
                break
    finally:
        fake.stop()
    Path(spec["result"]).write_text(json.dumps({"steps": results, "requests": fake.requests}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
