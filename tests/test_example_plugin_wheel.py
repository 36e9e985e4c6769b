"""A new reflex package, and a new host, plug in without a line of core changing (issue 32).

The test writes a small reflex package (``agentreflex-example``) into a tmp
dir: one ``plugin.py`` declaration, two reflexes and a ``[example]`` config
section; its ``pyproject.toml`` names the declaration under
``agentreflex.plugins`` and nothing else.  It is built as a wheel with
``uv build`` and installed, beside core's own wheel, into a throwaway venv.
Core then finds its reflexes (in their declared order), runs them on
``agentreflex check``, reads the section's value from the user config, and
``config check`` accepts the section's keys and rejects a bad value with the
key, the value and what is allowed.  The same package adds a host, ``acme``:
its adapter (the shared shim shape) and its installer, named in the same
declaration, so ``agentreflex hook acme``, ``install acme``, ``doctor`` and
``uninstall acme`` know it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]

PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "agentreflex-example"
version = "0.0.1"
requires-python = ">=3.11"
dependencies = ["agentreflex-core>=0.1,<0.2"]

[project.entry-points."agentreflex.plugins"]
example = "agentreflex.example_reflex.plugin:PLUGIN"

[tool.hatch.build.targets.wheel]
packages = ["src/agentreflex"]
"""

PLUGIN = """\
from agentreflex.core.plugin import Plugin, PolicyFile, ReflexEntry, Section, Setting

SECTION = Section(
    "example",
    "The example package's settings.",
    (Setting("max_words", "int", 3, "Longest command allowed, in words.", low=1, high=9),),
    title="Example",
)
PLUGIN = Plugin(
    name="example",
    reflexes=(
        ReflexEntry("long_commands", "agentreflex.example_reflex.reflex:LongCommands", order=5),
        ReflexEntry("aaa_quiet", "agentreflex.example_reflex.reflex:Quiet"),
    ),
    sections=(SECTION,),
    hosts=(("acme", "agentreflex.example_reflex.host:AcmeAdapter"),),
    installers=(("acme", "agentreflex.example_reflex.host:AcmeInstaller"),),
    files=(
        PolicyFile(
            "example-words",
            "agentreflex.example_reflex.files:WordsFile",
            "example/words.schema.json",
            names=("words.toml",),
        ),
    ),
)
"""

FILES = """\
from pydantic import BaseModel, ConfigDict, Field


class WordsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    words: list[str] = Field(default_factory=list)
"""

REFLEX = """\
from agentreflex.core.decision import Finding, Verdict
from agentreflex.core.events import EventKind
from agentreflex.example_reflex.plugin import SECTION


class LongCommands:
    name = "long_commands"
    floor = False
    events = frozenset({EventKind.PRE_TOOL})

    def evaluate(self, ctx):
        limit = SECTION.setting("max_words").read(ctx.config, SECTION.key)
        words = len(ctx.event.tool.command.split()) if ctx.event.tool else 0
        if words <= limit:
            return []
        return [
            Finding(
                reflex=self.name,
                code="EXAMPLE-LONG-COMMAND",
                verdict=Verdict.BLOCK,
                title="COMMAND TOO LONG",
                message=f"{words} words; the limit is {limit}",
            )
        ]


class Quiet:
    name = "aaa_quiet"
    floor = False
    events = frozenset({EventKind.PRE_TOOL})

    def evaluate(self, ctx):
        return []
"""


HOST = """\
import os

from agentreflex.core.events import EventKind
from agentreflex.core.hosts.jsshim import ShimAdapter
from agentreflex.core.install.base import quote

EVENTS = {"before_tool": EventKind.PRE_TOOL, "after_tool": EventKind.POST_TOOL}


class AcmeAdapter(ShimAdapter):
    name = "acme"
    events = EVENTS


class AcmeInstaller:
    name = "acme"

    def settings_path(self, scope, project, env):
        base = env.get("HOME", "") if scope == "user" else project
        return os.path.join(base, ".acme", "hooks.json")

    def wire(self, settings, opts, log):
        command = quote(opts.binary) + " hook acme "
        hooks = {e: [{"hooks": [{"type": "command", "command": command + e}]}] for e in EVENTS}
        return {**settings, "hooks": hooks}

    def unwire(self, settings, path):
        return {k: v for k, v in settings.items() if k != "hooks"}

    def notes(self, opts, settings):
        return []

    def locations(self, project, env):
        return [self.settings_path("user", project, env), self.settings_path("project", project, env)]

    def extra_install(self, opts):
        return []

    def extra_uninstall(self, scope, project):
        return []
"""


def _wheelhouse() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wheelhouse", ROOT / "tools" / "wheelhouse.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


wheelhouse = _wheelhouse()


def _example_package(where: Path) -> Path:
    src = where / "src" / "agentreflex" / "example_reflex"
    src.mkdir(parents=True)
    (where / "pyproject.toml").write_text(PYPROJECT)
    (src / "__init__.py").write_text("")
    (src / "plugin.py").write_text(PLUGIN)
    (src / "reflex.py").write_text(REFLEX)
    (src / "files.py").write_text(FILES)
    (src / "host.py").write_text(HOST)
    return where


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("example")
    wheels = base / "wheels"
    uv = [wheelhouse.uv(), "build", "--wheel", "--quiet", "--out-dir", str(wheels)]
    env = wheelhouse._env()
    subprocess.run([*uv, str(_example_package(base / "pkg"))], check=True, env=env)
    subprocess.run([*uv, "--package", "agentreflex-core"], cwd=ROOT, check=True, env=env)
    bin_dir: Path = wheelhouse.install(
        base / "venv", wheels, ["agentreflex-core", "agentreflex-example"], compile_bytecode=False
    )
    return bin_dir


@pytest.fixture()
def home(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENTREFLEX_"))}
    env.pop("VIRTUAL_ENV", None)
    env.update(
        HOME=str(tmp_path),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        AGENTREFLEX_DAEMON="off",
        JEV_MODE="off",
    )
    return env


def _run(venv_bin: Path, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(venv_bin / "agentreflex"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=env["HOME"],
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _user_config(env: dict[str, str], text: str) -> Path:
    path = Path(env["XDG_CONFIG_HOME"]) / "agentreflex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_core_finds_the_packages_reflexes_in_their_declared_order(
    venv_bin: Path, home: dict[str, str]
) -> None:
    done = _run(venv_bin, ["doctor", "--json"], home)
    checks = {c["check"]: c["detail"] for c in json.loads(done.stdout)["checks"]}
    assert checks["packages"] == "agentreflex-core 0.1.0, agentreflex-example 0.0.1"
    # by name, aaa_quiet would come first: long_commands declares place 5
    assert checks["reflexes"] == "long_commands, aaa_quiet"
    assert "plugin load" not in checks


def test_its_reflex_runs_with_its_own_config_section(venv_bin: Path, home: dict[str, str]) -> None:
    blocked = _run(venv_bin, ["check", "--", "echo", "one", "two", "three"], home)
    assert blocked.returncode == 2, blocked.stdout + blocked.stderr
    assert "EXAMPLE-LONG-COMMAND" in blocked.stdout
    assert "4 words; the limit is 3" in blocked.stdout
    _user_config(home, "[example]\nmax_words = 5\n")
    allowed = _run(venv_bin, ["check", "--", "echo", "one", "two", "three"], home)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr


def test_config_check_knows_the_section_it_declares(venv_bin: Path, home: dict[str, str]) -> None:
    good = _user_config(home, "[example]\nmax_words = 5\n")
    done = _run(venv_bin, ["config", "check", str(good)], home)
    assert done.returncode == 0, done.stderr
    assert f"ok   {good}" in done.stdout
    bad = _user_config(home, "[example]\nmax_words = 12\ncolour = 1\n")
    done = _run(venv_bin, ["config", "check", str(bad)], home)
    assert done.returncode == 1
    assert f"{bad}:2: example.max_words: 12 is not an integer from 1 to 9" in done.stderr
    assert f"{bad}:3: example.colour: unknown key; known: max_words" in done.stderr
    unknown = _user_config(home, "[exampel]\nmax_words = 5\n")
    done = _run(venv_bin, ["config", "check", str(unknown)], home)
    assert done.returncode == 1
    assert "exampel: unknown key; known: " in done.stderr
    assert "worktree, example, export (no installed agentreflex package declares this table" in (
        done.stderr
    )


def test_config_check_knows_the_policy_file_it_declares(
    venv_bin: Path, home: dict[str, str]
) -> None:
    words = Path(home["HOME"]) / "words.toml"
    words.write_text('words = ["a", "b"]\n')
    done = _run(venv_bin, ["config", "check", str(words)], home)
    assert done.returncode == 0, done.stderr
    words.write_text("words = 3\ncolour = 1\n")
    done = _run(venv_bin, ["config", "check", str(words)], home)
    assert done.returncode == 1
    assert f"{words}:1: words: " in done.stderr
    assert f"{words}:2: colour: " in done.stderr
    done = _run(venv_bin, ["config", "check", str(words), "--as", "example-words"], home)
    assert done.returncode == 1, done.stderr


def test_its_host_is_hooked_installed_checked_and_removed(
    venv_bin: Path, home: dict[str, str]
) -> None:
    project = Path(home["HOME"]) / "proj"
    (project / ".agentreflex").mkdir(parents=True)
    (project / ".agentreflex" / "config.toml").write_text("")  # a project: every reflex runs
    payload = {
        "hook_event_name": "before_tool",
        "session_id": "acme-1",
        "cwd": str(project),
        "tool": "bash",
        "args": {"command": "echo one two three"},
    }
    done = subprocess.run(
        [str(venv_bin / "agentreflex"), "hook", "acme", "before_tool"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**home, "REFLEX_MODE": "enforced"},
        cwd=project,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    reply = json.loads(done.stdout)
    assert reply.get("block") is True and "4 words; the limit is 3" in reply["reason"], reply
    settings = Path(home["HOME"]) / ".acme" / "hooks.json"
    installed = _run(venv_bin, ["install", "acme"], home)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    hooks = json.loads(settings.read_text())["hooks"]
    assert sorted(hooks) == ["after_tool", "before_tool"]
    assert hooks["before_tool"][0]["hooks"][0]["command"].endswith(
        "agentreflex hook acme before_tool"
    )
    checks = json.loads(_run(venv_bin, ["doctor", "--json"], home).stdout)["checks"]
    acme = next(c for c in checks if c["check"] == "host acme")
    assert acme["detail"].startswith(f"wired: {settings} (2 events)"), acme
    assert _run(venv_bin, ["uninstall", "acme"], home).returncode == 0
    assert not settings.exists()  # nothing else was in it: the file it made is gone
    unknown = _run(venv_bin, ["install", "acmee"], home)
    assert unknown.returncode != 0 and "acme" in unknown.stderr  # the known hosts include it


def test_the_example_touches_no_core_file() -> None:
    """What the package adds is its own files and its pyproject's one entry point."""
    assert "example" not in (ROOT / "packages" / "core" / "pyproject.toml").read_text()
    core = ROOT / "packages" / "core" / "src"
    assert not [p for p in core.rglob("*.py") if "example_reflex" in p.read_text()]
    assert not [p for p in core.rglob("*.py") if '"acme"' in p.read_text()]
