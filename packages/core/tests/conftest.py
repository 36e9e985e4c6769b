"""Shared fixtures for agentreflex-core's tests.

Every test runs with a clean environment: no REFLEX_* / JEV_* / AGENTREFLEX_*
variables from the developer's shell, HOME and the XDG dirs pointing into the
test's tmp dir (so no user config is read and no cache is written outside),
the daemon switched off, and *no reflex plug-ins*: core is tested alone,
whatever sibling packages happen to be installed in the workspace venv.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from agentreflex.core.hook import runtime
from agentreflex.core.testing import hook_code_separated, isolated_test_env

_PREFIXES = ("REFLEX_", "JEV_", "AGENTREFLEX_")


@pytest.fixture(autouse=True, scope="session")
def own_code_separated() -> None:
    hook_code_separated()


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield from isolated_test_env(tmp_path, monkeypatch)


@pytest.fixture(autouse=True)
def core_alone() -> Iterator[None]:
    """No reflex plug-ins in-process (core alone); restores whatever was loaded."""
    saved = runtime._PLUGINS
    runtime.set_plugins(runtime.Plugins())
    yield
    runtime.set_plugins(saved)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """An empty project directory (with a .git marker so it is its own root)."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture()
def hook_env(tmp_path: Path, project: Path) -> dict[str, str]:
    """An explicit environment for ``run_hook``: isolated HOME, state in tmp, shadow mode."""
    home = tmp_path / "home"
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "PWD": str(project),
        "AGENTREFLEX_STATE_DIR": str(tmp_path / "state"),
        "AGENTREFLEX_DAEMON": "off",
    }


@pytest.fixture()
def cli_env(tmp_path: Path, hook_env: dict[str, str]) -> dict[str, str]:
    """The environment for a real ``python -m agentreflex.core.cli`` subprocess."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_PREFIXES)}
    env.update(hook_env)
    env["AGENTREFLEX_SOCKET"] = str(tmp_path / "no-daemon.sock")
    env["PYTHONIOENCODING"] = "utf-8"
    env.pop("PYTHONWARNINGS", None)
    return env


@pytest.fixture()
def python() -> str:
    return sys.executable


FakeProc = Callable[[list[tuple[int, list[str]]]], Path]


@pytest.fixture
def fake_proc(tmp_path: Path) -> FakeProc:
    """A ``/proc`` with one process per (pid, argv), each the parent of the one before.

    For the hook's look at the host process it runs under
    (:mod:`agentreflex.core.hosts.hostprocess`); the last one's parent is init.
    """

    def build(chain: list[tuple[int, list[str]]]) -> Path:
        root = tmp_path / "proc"
        parents = [pid for pid, _ in chain[1:]] + [1]
        for (pid, argv), parent in zip(chain, parents, strict=True):
            folder = root / str(pid)
            folder.mkdir(parents=True)
            (folder / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
            (folder / "stat").write_bytes(f"{pid} (x y) S {parent} 0 0".encode())
        return root

    return build
