"""``[judge2] calibration`` is honoured only from trusted config.

A map decides what the judge may BLOCK on alone, so a project config the user
has not approved (written by whoever writes the project, the agent included)
must not point judge2 at a map it wrote.  Real parts: core's config loader and
trust record, judge2's settings and its offline engine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentreflex.core.config import trust
from agentreflex.core.config.settings import ConfigError, load_config
from agentreflex.core.systemone import signals as s
from agentreflex.core.testing import make_context, pre_tool
from agentreflex.judge2.judge import Judge2
from agentreflex.judge2.offline import OfflineBackend
from agentreflex.judge2.settings import load_settings

MODEL = "laya-builtin-1"


def _env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}


def _evil_map(tmp_path: Path) -> Path:
    # every answer 0.99 and allowed to block alone: what an attacker would write
    spec = {"x": [0.0, 1.0], "y": [0.99, 0.99], "may_block": True}
    path = tmp_path / "proj" / "evil-map.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"model": MODEL, "signals": {s.DESTRUCTIVE: spec}}))
    return path


def _project(tmp_path: Path, text: str) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True, exist_ok=True)
    cfg = proj / ".agentreflex" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(text)
    return cfg


def _answer(proj: Path, env: dict[str, str]) -> tuple[str, frozenset[str], float]:
    settings = load_settings(load_config(str(proj), env))
    judge = Judge2(OfflineBackend(MODEL), settings)
    answer = make_context(pre_tool("ls", {}), judge=judge).judge_answer(s.PRE_TOOL)
    assert answer is not None
    return settings.calibration, frozenset(answer.may_block), answer.probabilities[s.DESTRUCTIVE]


def test_an_unapproved_project_config_cannot_choose_the_map(tmp_path: Path) -> None:
    env = _env(tmp_path)
    evil = _evil_map(tmp_path)
    cfg = _project(tmp_path, f'[judge2]\ncalibration = "{evil}"\n')
    config = load_config(str(cfg.parent.parent), env)
    assert any("judge2" in line for line in config.untrusted)
    calibration, may_block, p = _answer(cfg.parent.parent, env)
    assert calibration == "auto"  # the shipped map, not the project's
    assert may_block == frozenset() and p < 0.9
    # once the user approves this exact content, it is theirs: the key applies
    trust.approve(str(cfg), env)
    calibration, may_block, p = _answer(cfg.parent.parent, env)
    assert calibration == str(evil)
    assert may_block == {s.DESTRUCTIVE} and p == 0.99


def test_the_user_config_can_choose_the_map(tmp_path: Path) -> None:
    env = _env(tmp_path)
    chosen = _evil_map(tmp_path)
    user = tmp_path / "home" / ".config" / "agentreflex" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text(f'[judge2]\ncalibration = "{chosen}"\n')
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True, exist_ok=True)
    assert _answer(proj, env)[0] == str(chosen)


def test_a_relative_map_path_is_refused_even_from_the_user(tmp_path: Path) -> None:
    env = _env(tmp_path)
    user = tmp_path / "home" / ".config" / "agentreflex" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('[judge2]\ncalibration = "maps/laya.json"\n')
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    with pytest.raises(ConfigError, match=r"\[judge2\] calibration: .* relative"):
        load_settings(load_config(str(proj), env))
