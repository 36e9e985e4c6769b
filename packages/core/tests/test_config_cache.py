"""The parsed-TOML cache: a config file is parsed by tomllib once, never read stale.

The tests that need a sibling reflex package run where it is installed:
``tests/core_with_reflexes/test_config_cache.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentreflex.core.config.settings import ConfigError, load_config
from agentreflex.core.decision import Mode
from agentreflex.core.testing import cache_env as _env
from agentreflex.core.testing import cached_toml_copies as _cached_copies
from agentreflex.core.testing import project_config as _write_config


def test_an_edit_is_never_missed_and_copies_do_not_pile_up(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _write_config(project, 'mode = "shadow"\n')
    assert load_config(str(project), _env(tmp_path)).mode is Mode.SHADOW
    _write_config(project, 'mode = "enforced"\n')
    assert load_config(str(project), _env(tmp_path)).mode is Mode.ENFORCED
    _write_config(project, 'mode = "shadow"\n')
    assert load_config(str(project), _env(tmp_path)).mode is Mode.SHADOW
    assert len(_cached_copies(tmp_path)) == 1


@pytest.mark.parametrize("garbage", ["{not json", "[1, 2]", ""])
def test_a_corrupt_cached_copy_is_parsed_again(tmp_path: Path, garbage: str) -> None:
    project = tmp_path / "project"
    _write_config(project, 'mode = "shadow"\n')
    load_config(str(project), _env(tmp_path))
    (copy,) = _cached_copies(tmp_path)
    copy.write_text(garbage)
    assert load_config(str(project), _env(tmp_path)).mode is Mode.SHADOW
    assert json.loads(copy.read_text())["data"] == {"mode": "shadow"}


def test_unwritable_cache_dir_still_loads(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _write_config(project, 'mode = "shadow"\n')
    cache = tmp_path / "home" / ".cache"
    cache.mkdir(parents=True)
    (cache / "agentreflex").write_text("a file where the cache dir should be")
    assert load_config(str(project), _env(tmp_path)).mode is Mode.SHADOW


def test_invalid_toml_is_an_error_every_time(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _write_config(project, "mode = \n")
    for _ in range(2):
        with pytest.raises(ConfigError, match="not valid TOML"):
            load_config(str(project), _env(tmp_path))
    assert _cached_copies(tmp_path) == []


def test_a_copy_of_other_content_is_not_used(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _write_config(project, 'mode = "shadow"\n')
    load_config(str(project), _env(tmp_path))
    (copy,) = _cached_copies(tmp_path)
    copy.write_text(json.dumps({"sha256": "0" * 64, "data": {"mode": "enforced"}}))
    assert load_config(str(project), _env(tmp_path)).mode is Mode.SHADOW


def test_the_first_bad_key_is_the_same_with_or_without_the_cached_copy(tmp_path: Path) -> None:
    # the copy keeps the file's key order: "zeta" comes before "alpha" in the file
    user_config = tmp_path / "home" / ".config" / "agentreflex" / "config.toml"
    user_config.parent.mkdir(parents=True)
    user_config.write_text("zeta = 1\nalpha = 2\n")
    messages = []
    for _ in range(2):  # the first load writes the copy, the second reads it
        with pytest.raises(ConfigError) as err:
            load_config(str(tmp_path / "project"), _env(tmp_path))
        messages.append(str(err.value))
    assert len(_cached_copies(tmp_path)) == 1
    assert messages[0] == messages[1]
    assert "zeta" in messages[0]
