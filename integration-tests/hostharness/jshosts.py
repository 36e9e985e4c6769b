"""OpenCode and pi, installed from npm at pinned versions and driven offline.

:func:`install_opencode` / :func:`install_pi` put the host under
``integration-tests/.hosts/<host>-VERSION/`` (reused when already there).
:class:`JsHostProject` is one scenario's world: a git project, a home, the host's
config pointing at the scripted fake chat-completions model (the host-lab settings,
``hosts-lab.md`` sections 3 and 4), and agentreflex installed the user's way with
``agentreflex install opencode|pi``, outside the namespace (OpenCode's install
pre-installs ``@opencode-ai/plugin`` with npm, from the cache or the registry).
:meth:`JsHostProject.run` runs ``opencode run`` or ``pi -p`` inside ``unshare -n``
(``python -m hostharness.jshosts SPEC.json`` starts the fake model in the namespace
and repoints the config at it).
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
    node_dir,
    npm_command,
    run_spec,
)
from hostharness.fake_openai_chat import ChatScript, FakeOpenAIChat, is_main_loop
from hostharness.fakemodel import Turn
from hostharness.project import ScenarioProject

OPENCODE_VERSION = "1.18.33"
PI_VERSION = "0.73.1"
PACKAGES = {
    "opencode": ("opencode-ai", OPENCODE_VERSION, "opencode"),
    "pi": ("@mariozechner/pi-coding-agent", PI_VERSION, "pi"),
}
SHELL_TOOL = "bash"  # both hosts' shell tool: the fake model's main-loop marker
URL = "http://127.0.0.1:9/v1"  # replaced inside the jail by the fake model's address


def install_host(host: str) -> Path:
    """Path of the host's binary at its pinned version, installing it with npm if needed."""
    package, version, name = PACKAGES[host]
    prefix = HOSTS_DIR / f"{host}-{version}"
    binary = prefix / "node_modules" / ".bin" / name
    if binary.exists():
        return binary
    HOSTS_DIR.mkdir(parents=True, exist_ok=True)
    argv = [*npm_command(), "install", "--no-audit", "--no-fund", "--prefix", str(prefix)]
    done = subprocess.run(
        [*argv, f"{package}@{version}"], capture_output=True, text=True, timeout=900, check=False
    )
    if done.returncode != 0 or not binary.exists():
        raise HostUnavailableError(f"npm install {package}@{version} failed:\n{done.stderr}")
    return binary


def opencode_config(url: str) -> dict[str, Any]:
    """The host-lab OpenCode config: the fake provider, everything allowed, no updates."""
    model = {"name": "Fake Model", "tool_call": True, "limit": {"context": 128000, "output": 4096}}
    return {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "model": "fake/fake-model",
        "small_model": "fake/fake-model",
        "permission": {
            "*": "allow",
            "bash": "allow",
            "edit": "allow",
            "external_directory": "allow",
        },
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake loopback",
                "options": {"baseURL": url, "apiKey": "sk-test"},
                "models": {"fake-model": model},
            }
        },
    }


def pi_models(url: str) -> dict[str, Any]:
    model = {
        "id": "fake-model",
        "name": "Fake",
        "reasoning": False,
        "input": ["text"],
        "contextWindow": 128000,
        "maxTokens": 4096,
    }
    provider = {
        "baseUrl": url,
        "api": "openai-completions",
        "apiKey": "sk-test",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [model],
    }
    return {"providers": {"fake": provider}}


@dataclass
class JsRun:
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
            and is_main_loop(r["body"], SHELL_TOOL)
        ]

    def _texts(self, role: str) -> list[str]:
        seen: list[str] = []
        for body in self.main_requests:
            for message in body.get("messages") or []:
                if isinstance(message, dict) and message.get("role") == role:
                    text = message_text(message)
                    if text not in seen:
                        seen.append(text)
        return seen

    def tool_messages(self) -> list[str]:
        """Every distinct tool result the model was sent, in order."""
        return self._texts("tool")

    def user_messages(self) -> list[str]:
        return self._texts("user")

    def system_texts(self, request: int) -> str:
        """The system prompt of one main-loop request."""
        messages = self.main_requests[request].get("messages") or []
        return "\n".join(message_text(m) for m in messages if m.get("role") == "system")

    def describe(self) -> str:
        lines = [f"exit {self.rc} in {self.wall_s} s", "setup:"]
        lines += [f"  {s['argv'][:4]} rc={s['rc']} {s['stdout'][-600:]}" for s in self.setup]
        lines += ["stdout:", self.stdout[-3000:], "stderr:", self.stderr[-3000:]]
        for n, body in enumerate(self.main_requests):
            messages = body.get("messages") or []
            lines.append(f"--- main request {n}: {len(messages)} messages; last two:")
            lines.append(json.dumps(messages[-2:])[-1500:])
        return "\n".join(lines)


class JsHostProject(ScenarioProject):
    """One scenario's world for ``opencode run`` or ``pi -p`` with the fake model."""

    def __init__(self, root: Path, host: str, binary: Path) -> None:
        self.xdg = root / "xdg"
        self.pi_agent = root / "pi-agent"
        super().__init__(root, self.xdg / "config" / "opencode", self.pi_agent)
        self.host = host
        self.binary = binary
        self.installed = False
        self.install_args: list[str] = ["--user"]
        self.agentreflex_bin = AGENTREFLEX_SCRIPT
        # a subagent's turns, for requests whose first user message holds the marker
        self.sub_script: tuple[str, Sequence[Turn]] = ("", ())
        self._write_config(URL)

    @property
    def config_path(self) -> Path:
        if self.host == "opencode":
            return self.xdg / "config" / "opencode" / "opencode.json"
        return self.pi_agent / "models.json"

    def _write_config(self, url: str) -> None:
        text = opencode_config(url) if self.host == "opencode" else pi_models(url)
        self.config_path.write_text(json.dumps(text, indent=2))

    def env(self) -> dict[str, str]:
        path = f"{self.binary.parent}:{node_dir()}:/usr/local/bin:/usr/bin:/bin"
        return {
            "PATH": path,
            "HOME": str(self.home),
            "USER": "tester",
            "SHELL": "/bin/bash",
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.root),
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "XDG_CONFIG_HOME": str(self.xdg / "config"),
            "XDG_DATA_HOME": str(self.xdg / "data"),
            "XDG_CACHE_HOME": str(self.xdg / "cache"),
            "XDG_STATE_HOME": str(self.xdg / "state"),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "PI_CODING_AGENT_DIR": str(self.pi_agent),
            "PI_OFFLINE": "1",
            "PI_TELEMETRY": "0",
            "AGENTREFLEX_SOCKET": str(self.root / "run" / "daemon.sock"),
            "AGENTREFLEX_DAEMON": "off",
        }

    def agentreflex(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``agentreflex ARGS`` as the user runs it (outside the namespace: npm may be needed)."""
        # the machine's npm cache (HOME is the scenario's): @opencode-ai/plugin comes from it
        cache = os.environ.get("NPM_CONFIG_CACHE") or str(Path.home() / ".npm")
        env = {**self.env(), "NPM_CONFIG_CACHE": cache}
        if self.host == "opencode":
            env["OPENCODE_BIN"] = str(self.binary)
        return subprocess.run(
            [str(self.agentreflex_bin), *args],
            cwd=self.project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    def install(self) -> subprocess.CompletedProcess[str]:
        done = self.agentreflex("install", self.host, *self.install_args)
        if done.returncode != 0:
            raise AssertionError(f"agentreflex install {self.host} failed:\n{done.stderr}")
        self.installed = True
        return done

    def command(self, prompt: str, extra: Sequence[str]) -> list[str]:
        if self.host == "opencode":
            # one word per argument: `opencode run` quotes an argument holding spaces
            # ("Do not modify tests." would reach the model as "...tests.\"")
            return [str(self.binary), "run", *extra, *prompt.split()]
        pi = [str(self.binary), "-p", "--provider", "fake", "--model", "fake-model"]
        return [*pi, "--no-session", *extra, prompt]

    def run_messages(
        self, prompts: Sequence[str], script: Sequence[Turn], timeout: float = 120
    ) -> JsRun:
        """pi with several prompts, one after the other in one session (``pi -p A B``)."""
        assert self.host != "opencode", "opencode run takes one message"
        *first, last = prompts
        return self.run(last, script, *first, timeout=timeout)

    def run(self, prompt: str, script: Sequence[Turn], *extra: str, timeout: float = 120) -> JsRun:
        setup: list[dict[str, Any]] = []
        if not self.installed:
            done = self.install()
            setup.append({"argv": ["agentreflex", "install"], "rc": 0, "stdout": done.stdout})
        step = {
            "argv": self.command(prompt, extra),
            "cwd": str(self.project),
            "env": self.env(),
            "timeout": timeout,
        }
        outcome = run_in_jail(self, [step], script, timeout=timeout + 60)
        last = outcome["steps"][-1]
        return JsRun(
            rc=last["rc"],
            stdout=last["stdout"],
            stderr=last["stderr"],
            wall_s=last["wall_s"],
            requests=outcome["requests"],
            setup=setup,
        )


def run_in_jail(
    project: JsHostProject, steps: Sequence[dict[str, Any]], script: Sequence[Turn], timeout: float
) -> dict[str, Any]:
    """Run ``steps`` in a loopback-only network namespace with the fake model serving
    (``project.sub_script``: a subagent's turns, see :class:`ChatScript`)."""
    workdir = project.root / "jail"
    sub_marker, sub_script = project.sub_script
    spec = {
        "host": project.host,
        "script": [t.to_json() for t in script],
        "sub_marker": sub_marker,
        "sub_script": [t.to_json() for t in sub_script],
        "steps": list(steps),
        "config": str(project.config_path),
    }
    return run_spec("hostharness.jshosts", spec, workdir, timeout)


def _repoint(spec: dict[str, Any], url: str) -> None:
    """The host's config with this namespace's fake-model address, everything else kept."""
    path = Path(spec["config"])
    data = json.loads(path.read_text())
    if spec["host"] == "opencode":
        data["provider"]["fake"]["options"]["baseURL"] = url
    else:
        data["providers"]["fake"]["baseUrl"] = url
    path.write_text(json.dumps(data, indent=2))


def main(argv: list[str]) -> int:
    from hostharness.jail import bring_loopback_up, run_step

    spec = json.loads(Path(argv[1]).read_text())
    bring_loopback_up()
    sub = [Turn.from_json(t) for t in spec.get("sub_script") or []]
    script = [Turn.from_json(t) for t in spec["script"]]
    fake = FakeOpenAIChat(ChatScript(script, SHELL_TOOL, sub, spec.get("sub_marker", "")))
    fake.start()
    _repoint(spec, fake.base_url)
    results: list[dict[str, Any]] = []
    try:
        for step in spec["steps"]:
            results.append(run_step(step, fake.base_url))
    finally:
        fake.stop()
    Path(spec["result"]).write_text(json.dumps({"steps": results, "requests": fake.requests}))
    return 0


def copy_script(target: Path) -> Path:
    """A copy of this environment's agentreflex script (a scenario may then delete it)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(AGENTREFLEX_SCRIPT, target)
    return target


if __name__ == "__main__":
    sys.exit(main(sys.argv))
