"""Shared fixtures: a real project folder with a .git marker, HOME inside tmp."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentreflex.instructions import ruleset


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    proj = home / "proj"
    (proj / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("TMPDIR", raising=False)
    ruleset.clear_memo()
    return proj
