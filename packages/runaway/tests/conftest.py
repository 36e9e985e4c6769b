"""Fixtures for the runaway tests; the driver itself lives in runaway_testkit."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from runaway_testkit import Driver


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A plain (non-git) project directory."""
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def make_driver(tmp_path: Path, project: Path) -> Callable[..., Driver]:
    state_dir = tmp_path / "state"

    def factory(**kw: Any) -> Driver:
        return Driver(kw.pop("state_dir", state_dir), project, **kw)

    return factory


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config, no judge, no daemon from the environment leaks into a test."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("JEV_MODE", "off")
    for var in list(os.environ):
        if var.startswith(("REFLEX_", "AGENTREFLEX_")) or var == "JEV_API_KEY":
            monkeypatch.delenv(var, raising=False)
