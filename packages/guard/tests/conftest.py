"""Fixtures for the guard tests; puts ``guard_testkit`` on the import path."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from guard_testkit import Runner, guard_config, make_runner


@pytest.fixture
def state_dir(tmp_path: Any) -> str:
    return str(tmp_path / ".agentreflex")


@pytest.fixture
def run_on(state_dir: str) -> Runner:
    return make_runner(state_dir, guard_config("on"))


@pytest.fixture
def run_report(state_dir: str) -> Runner:
    return make_runner(state_dir, guard_config("report"))


@pytest.fixture(autouse=True)
def private_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-user key and the ledger seals go to the test's tmp dir, never the real home."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (("XDG_STATE_HOME", ".local/state"), ("XDG_CONFIG_HOME", ".config")):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
