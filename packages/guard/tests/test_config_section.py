"""``[reasoning_guard]``: declared by this package, loaded, checked and compared by core.

Moved from core's tests when the guard's section left core: the keys, the
errors, the profiles, ``AGENTREFLEX_REASONING_GUARD`` and the strictness of a
project file are what they were when core wrote them by name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agentreflex.core.config import trust
from agentreflex.core.config.settings import (
    Config,
    ConfigError,
    field_names,
    field_value,
    load_config,
)
from agentreflex.guard import plugin
from agentreflex.guard.plugin import CATEGORIES


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    home = tmp_path / "home"
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".state"),
        **extra,
    }


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def _write(project: Path, text: str) -> Path:
    path = project / ".agentreflex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _approved(project: Path, tmp_path: Path, text: str) -> Path:
    path = _write(project, text)
    trust.approve(str(path), _env(tmp_path))
    return path


def _load(project: Path, tmp_path: Path, **env: str) -> Config:
    return load_config(str(project), _env(tmp_path, **env))


def test_defaults(project: Path, tmp_path: Path) -> None:
    cfg = _load(project, tmp_path)
    assert plugin.mode(cfg) == "report"
    assert plugin.backfill(cfg) == ("recent", 20)
    assert plugin.category_modes(cfg) == {c: "report" for c in CATEGORIES}  # all inherit


@pytest.mark.parametrize(
    ("profile", "guard"),
    [("off", "off"), ("lean", "off"), ("balanced", "report"), ("thorough", "on")],
)
def test_profiles_set_the_mode_every_category_inherits(
    profile: str, guard: str, project: Path, tmp_path: Path
) -> None:
    cfg = _load(project, tmp_path, AGENTREFLEX_PROFILE=profile)
    assert plugin.mode(cfg) == guard
    assert set(plugin.category_modes(cfg).values()) == {guard}


def test_section(project: Path, tmp_path: Path) -> None:
    _approved(
        project,
        tmp_path,
        """
[reasoning_guard]
mode = "on"

[reasoning_guard.backfill]
mode = "full"
limit = 50

[reasoning_guard.categories]
causal_claims = "report"
completion_claims = "off"
""",
    )
    cfg = _load(project, tmp_path)
    assert plugin.mode(cfg) == "on"
    assert plugin.backfill(cfg) == ("full", 50)
    assert plugin.category_modes(cfg) == {
        "causal_claims": "report",
        "completion_claims": "off",
        "evidence_follow_through": "on",  # inherit
        "permanent_mutations": "on",
    }


def test_user_and_project_files_merge_key_by_key(project: Path, tmp_path: Path) -> None:
    user = tmp_path / "home" / ".config" / "agentreflex" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("[reasoning_guard.backfill]\nlimit = 70\n")
    _approved(project, tmp_path, '[reasoning_guard.backfill]\nmode = "live"\n')
    assert plugin.backfill(_load(project, tmp_path)) == ("live", 70)


def test_off_is_a_master_switch(project: Path, tmp_path: Path) -> None:
    _approved(
        project,
        tmp_path,
        '[reasoning_guard]\nmode = "off"\n[reasoning_guard.categories]\ncausal_claims = "on"\n',
    )
    cfg = _load(project, tmp_path)
    assert cfg.section("reasoning_guard")["categories"]["causal_claims"] == "on"
    assert plugin.category_modes(cfg)["causal_claims"] == "off"
    env_on = _load(project, tmp_path, AGENTREFLEX_REASONING_GUARD="on")
    assert plugin.category_modes(env_on)["causal_claims"] == "on"


def test_the_environment_beats_files_and_is_checked(project: Path, tmp_path: Path) -> None:
    _approved(project, tmp_path, '[reasoning_guard]\nmode = "on"\n')
    assert plugin.mode(_load(project, tmp_path, AGENTREFLEX_REASONING_GUARD="Report")) == "report"
    with pytest.raises(ConfigError, match="AGENTREFLEX_REASONING_GUARD: 'loud' is not one of"):
        _load(project, tmp_path, AGENTREFLEX_REASONING_GUARD="loud")


def test_the_file_overrides_the_profile(project: Path, tmp_path: Path) -> None:
    _approved(project, tmp_path, 'profile = "lean"\n[reasoning_guard]\nmode = "report"\n')
    cfg = _load(project, tmp_path)
    assert cfg.profile == "lean"
    assert plugin.mode(cfg) == "report"


@pytest.mark.parametrize(
    ("text", "key", "allowed"),
    [
        ('[reasoning_guard]\nmode = "yes"\n', "reasoning_guard.mode", "off, report, on"),
        ('[reasoning_guard]\nlevel = "x"\n', "level", "mode, backfill, categories"),
        ("reasoning_guard = 1\n", "reasoning_guard", "must be a table"),
        ("[reasoning_guard]\nbackfill = 1\n", "reasoning_guard.backfill", "must be a table"),
        ('[reasoning_guard.backfill]\nmode = "all"\n', "backfill.mode", "recent, live, full"),
        ("[reasoning_guard.backfill]\nlimit = 0\n", "backfill.limit", "from 1 to 100000"),
        ("[reasoning_guard.backfill]\nsize = 0\n", "backfill.size", "known: mode, limit"),
        ('[reasoning_guard.categories]\nvibes = "on"\n', "vibes", "causal_claims"),
        (
            '[reasoning_guard.categories]\ncausal_claims = "always"\n',
            "causal_claims",
            "inherit, on, report, off",
        ),
    ],
)
def test_bad_values_name_the_file_the_key_and_what_is_allowed(
    text: str, key: str, allowed: str, project: Path, tmp_path: Path
) -> None:
    path = _write(project, text)
    with pytest.raises(ConfigError) as info:
        _load(project, tmp_path)
    msg = str(info.value)
    assert str(path) in msg
    assert key in msg
    assert allowed in msg


def test_a_hook_ignores_an_invalid_project_file(project: Path, tmp_path: Path) -> None:
    _write(project, '[reasoning_guard]\nmode = "of"\n')
    cfg = load_config(str(project), _env(tmp_path), bad_project_file="ignore")
    assert plugin.mode(cfg) == "report"
    assert "reasoning_guard.mode" in cfg.untrusted[0]


@pytest.mark.parametrize(
    ("text", "field", "expected", "line"),
    [
        ('[reasoning_guard]\nmode = "off"\n', "reasoning_guard.mode", "report", "mode = 'off'"),
        ('profile = "lean"\n', "reasoning_guard.mode", "report", "mode = 'off'"),
        (
            "[reasoning_guard.backfill]\nlimit = 5\n",
            "reasoning_guard.backfill.limit",
            20,
            "limit = 5 withheld; 20 applies",
        ),
        (
            '[reasoning_guard.backfill]\nmode = "full"\n',
            "reasoning_guard.backfill.mode",
            "recent",
            "mode = 'full' withheld; 'recent' applies",
        ),
        (
            '[reasoning_guard.categories]\ncausal_claims = "off"\n',
            "reasoning_guard.categories.causal_claims",
            "report",
            "causal_claims = 'off' withheld; 'report' applies",
        ),
    ],
)
def test_a_weakening_project_file_is_withheld_until_approved(
    project: Path, tmp_path: Path, text: str, field: str, expected: object, line: str
) -> None:
    conf = _write(project, text)
    cfg = _load(project, tmp_path)
    assert field_value(cfg, field) == expected
    assert any(field in w and line in w for w in cfg.untrusted), cfg.untrusted
    trust.approve(str(conf), _env(tmp_path))
    assert field_value(_load(project, tmp_path), field) != expected


def test_a_category_line_is_left_out_when_only_the_mode_differs(
    project: Path, tmp_path: Path
) -> None:
    _write(project, '[reasoning_guard]\nmode = "off"\n')
    cfg = _load(project, tmp_path)
    assert [w for w in cfg.untrusted if "withheld" in w] == [
        f"{project}/.agentreflex/config.toml: reasoning_guard.mode = 'off' withheld; 'report' applies"
    ]
    assert set(plugin.category_modes(cfg).values()) == {"report"}


def test_tightening_applies_without_approval(project: Path, tmp_path: Path) -> None:
    _write(project, '[reasoning_guard]\nmode = "on"\n[reasoning_guard.backfill]\nlimit = 90\n')
    cfg = _load(project, tmp_path)
    assert cfg.untrusted == []
    assert (plugin.mode(cfg), plugin.backfill(cfg)) == ("on", ("recent", 90))


def test_every_setting_is_a_compared_field() -> None:
    names = field_names()
    assert "reasoning_guard.mode" in names
    assert {f"reasoning_guard.categories.{c}" for c in CATEGORIES} <= set(names)
    assert {"reasoning_guard.backfill.mode", "reasoning_guard.backfill.limit"} <= set(names)
