"""Configuration with the reflex packages' own sections: ``[gate]``, ``[runaway]``.

Moved from ``packages/core/tests/test_config.py`` (a package's table is known only
where that package is installed).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from agentreflex.core.config.settings import ConfigError, section_value
from agentreflex.core.decision import Mode
from agentreflex.core.testing import approved_project_config as _approved_config
from agentreflex.core.testing import check_bad_value_named
from agentreflex.core.testing import load_project_config as _load


def test_project_file_settings(project: Path, tmp_path: Path) -> None:
    path = _approved_config(
        project,
        tmp_path,
        """
mode = "enforced"
state_dir = "var/reflex"
disabled_reflexes = ["runaway"]

[thresholds]
destructive_block = 0.6

[loop]
hard_repeat_count = 4
recent_action_window = 30

[judge]
mode = "mock"
timeout_ms = 900
retries = 0
model = "jev-small"
base_url = "http://127.0.0.1:9"

[hook]
floor_budget_ms = 500

[daemon]
idle_seconds = 60

[gate]
protected_paths = ["secrets/"]
""",
    )
    cfg = _load(project, tmp_path)
    assert cfg.mode is Mode.ENFORCED
    assert cfg.state_dir == os.path.join(str(project), "var/reflex")
    assert cfg.disabled_reflexes == ("runaway",)
    assert not cfg.reflex_enabled("runaway") and cfg.reflex_enabled("gate")
    assert cfg.threshold("destructive_block") == 0.6
    assert (cfg.hard_loop_repeat_count, cfg.recent_action_window) == (4, 30)
    assert (cfg.judge.mode, cfg.judge.timeout_ms, cfg.judge.retries) == ("mock", 900, 0)
    assert (cfg.judge.model, cfg.judge.base_url) == ("jev-small", "http://127.0.0.1:9")
    assert cfg.floor_budget_ms == 500
    assert cfg.daemon_idle_seconds == 60
    assert cfg.section("gate") == {"protected_paths": ["secrets/"]}
    assert cfg.section("runaway") == {}
    assert cfg.sources == [str(path)]


@pytest.mark.parametrize(
    ("text", "key", "allowed"),
    [
        ("gate = 3\n", "gate", "must be a table"),
    ],
)
def test_bad_file_values_name_the_key_and_allowed_values(
    text: str, key: str, allowed: str, project: Path, tmp_path: Path
) -> None:
    check_bad_value_named(project, tmp_path, text, key, allowed)


def test_section_value_validation(project: Path, tmp_path: Path) -> None:
    _approved_config(
        project,
        tmp_path,
        """
[runaway]
max_tool_calls = 200
wall_minutes = 1.5
ratio = 0.4
strict = "yes"
style = "Loud"
names = ["a", "b"]
label = "x"
bad_int = "many"
bad_list = [1, 2]
bad_prob = 2
""",
    )
    cfg = _load(project, tmp_path)
    assert section_value(cfg, "runaway", "max_tool_calls", 0, "int", low=1, high=1000) == 200
    assert section_value(cfg, "runaway", "wall_minutes", 0.0, "float", low=0.0) == 1.5
    assert section_value(cfg, "runaway", "ratio", 0.0, "prob") == 0.4
    assert section_value(cfg, "runaway", "strict", False, "bool") is True
    assert section_value(cfg, "runaway", "style", "", "choice", allowed=("loud", "quiet")) == "loud"
    assert section_value(cfg, "runaway", "names", [], "list") == ["a", "b"]
    assert section_value(cfg, "runaway", "label", "") == "x"
    assert section_value(cfg, "runaway", "missing", "dflt") == "dflt"
    assert section_value(cfg, "nosection", "x", 7, "int") == 7
    for key, kind in (("bad_int", "int"), ("bad_list", "list"), ("bad_prob", "prob")):
        with pytest.raises(ConfigError, match=re.escape(f"runaway.{key}")):
            section_value(cfg, "runaway", key, None, kind)
    with pytest.raises(ConfigError, match=r"runaway\.max_tool_calls"):
        section_value(cfg, "runaway", "max_tool_calls", 0, "int", low=1, high=10)
    with pytest.raises(ConfigError, match=r"runaway\.max_tool_calls.*not a string"):
        section_value(cfg, "runaway", "max_tool_calls", "")
