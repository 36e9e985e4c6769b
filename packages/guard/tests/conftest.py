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
