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

from collections.abc import Iterator
from pathlib import Path

import pytest
from agentreflex.core.testing import hook_code_separated, isolated_test_env


@pytest.fixture(autouse=True, scope="session")
def own_code_separated() -> None:
    hook_code_separated()


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield from isolated_test_env(tmp_path, monkeypatch)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """An empty project directory (with a .git marker so it is its own root)."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root
