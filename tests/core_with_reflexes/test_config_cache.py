"""The parsed-TOML cache on a config holding the gate's ``[gate]`` section.

Moved from ``packages/core/tests/test_config_cache.py`` (core alone does not know ``[gate]``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agentreflex.core.config import trust
from agentreflex.core.config.settings import load_config
from agentreflex.core.decision import Mode
from agentreflex.core.testing import cache_env as _env
from agentreflex.core.testing import cached_toml_copies as _cached_copies
from agentreflex.core.testing import project_config as _write_config


def test_second_load_reads_the_cached_copy_without_tomllib(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _write_config(project, 'mode = "shadow"\n[gate]\nextra = ["a"]\n')
    # approved, so the [gate] section applies (the trust record is read, never TOML)
    trust.approve(str(project / ".agentreflex" / "config.toml"), _env(tmp_path))
    first = load_config(str(project), _env(tmp_path))
    assert first.mode is Mode.SHADOW and len(_cached_copies(tmp_path)) == 1
    code = (
        "import sys; from agentreflex.core.config.settings import load_config;"
        f"cfg = load_config({str(project)!r}, {_env(tmp_path)!r});"
        "print(cfg.mode.value, 'tomllib' in sys.modules, cfg.sections.get('gate'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split(maxsplit=2) == ["shadow", "False", "{'extra': ['a']}\n"]


def test_dates_are_not_cached_and_still_load(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _write_config(project, "[gate]\nsince = 2026-01-01\n")
    trust.approve(str(project / ".agentreflex" / "config.toml"), _env(tmp_path))
    cfg = load_config(str(project), _env(tmp_path))
    assert str(cfg.sections["gate"]["since"]) == "2026-01-01"
    assert _cached_copies(tmp_path) == []
