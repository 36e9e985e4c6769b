"""Shared fixtures for core's tests that need its sibling reflex packages installed.

These tests moved here from ``packages/core/tests``: there tox installs core
alone, so a test that needs the gate, runaway, guard or judge2 could only skip.
Here every package is installed and every reflex runs (no ``core_alone``).

Each test still runs in core's clean environment: no REFLEX_* / JEV_* /
AGENTREFLEX_* variables from the developer's shell, HOME and the XDG folders
in the test's tmp dir (no user config read, no key or cache written outside),
the daemon switched off.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

_PREFIXES = ("REFLEX_", "JEV_", "AGENTREFLEX_")


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for key in list(os.environ):
        if key.startswith(_PREFIXES):
            monkeypatch.delenv(key)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("AGENTREFLEX_DAEMON", "off")
    monkeypatch.setenv("AGENTREFLEX_SOCKET", str(tmp_path / "no-daemon.sock"))
    yield
    from agentreflex.core.contain import pidns

    pidns.stop()  # the project's process namespaces the test's contained commands made


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """An empty project directory (with a .git marker so it is its own root)."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root
