"""A checked section (``Section.checked``): core loads, checks and compares it from its declaration.

A small ``[demo]`` section, declared the way a package declares its own,
exercises what a declaration can say: sub-tables read by dotted key, an
ordered choice, per-profile defaults, an environment override and a setting
that ``follows`` another (``inherit``, and ``off`` as a master switch).
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
from agentreflex.core import registry
from agentreflex.core.config import schema, trust
from agentreflex.core.config.settings import (
    NOT_DECLARED,
    Config,
    ConfigError,
    field_names,
    field_value,
    load_config,
)
from agentreflex.core.plugin import Plugin, Section, Setting

LEVELS = ("off", "low", "mid", "high")  # weakest first
DEMO = Section(
    "demo",
    "A demo section.",
    settings=(
        Setting(
            "level",
            "choice",
            "mid",
            "How hard to look.",
            allowed=LEVELS,
            stricter="order",
            order=LEVELS,
            env="DEMO_LEVEL",
            profiles=(("lean", "low"), ("thorough", "high")),
        ),
    ),
    tables=(
        Section(
            "limits",
            "Bounds.",
            settings=(Setting("count", "int", 5, low=1, high=10, stricter="higher"),),
        ),
        Section(
            "parts",
            settings=(
                Setting(
                    "eyes",
                    "choice",
                    "inherit",
                    allowed=("inherit", *LEVELS),
                    stricter="order",
                    order=LEVELS,
                    follows="level",
                ),
            ),
        ),
    ),
    checked=True,
    after="judge",
)


@pytest.fixture()
def declared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the demo package is installed: its declaration is what the registry reads."""
    module = types.ModuleType("demo_declaration")
    module.PLUGIN = Plugin("demo", sections=(DEMO,))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "demo_declaration", module)
    monkeypatch.setattr(registry, "_MEMO", registry.flatten([("demo", "demo_declaration:PLUGIN")]))


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    home = tmp_path / "home"
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".state"),
        **extra,
    }


def _write(project: Path, text: str) -> Path:
    path = project / ".agentreflex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _load(project: Path, tmp_path: Path, **env: str) -> Config:
    return load_config(str(project), _env(tmp_path, **env))


def _approved_load(project: Path, tmp_path: Path, text: str, **env: str) -> Config:
    trust.approve(str(_write(project, text)), _env(tmp_path))
    return _load(project, tmp_path, **env)


@pytest.mark.usefixtures("declared")
def test_defaults_come_from_the_declaration_and_the_profile(project: Path, tmp_path: Path) -> None:
    cfg = _load(project, tmp_path)
    assert (DEMO.value(cfg, "level"), DEMO.value(cfg, "limits.count")) == ("mid", 5)
    assert DEMO.value(cfg, "parts.eyes") == "mid"  # inherit
    lean = _load(project, tmp_path, AGENTREFLEX_PROFILE="lean")
    assert (DEMO.value(lean, "level"), DEMO.value(lean, "parts.eyes")) == ("low", "low")
    assert DEMO.value(_load(project, tmp_path, AGENTREFLEX_PROFILE="thorough"), "level") == "high"


@pytest.mark.usefixtures("declared")
def test_sub_tables_are_read_by_dotted_key(project: Path, tmp_path: Path) -> None:
    cfg = _approved_load(
        project,
        tmp_path,
        '[demo]\nlevel = " HIGH "\n[demo.limits]\ncount = 7\n[demo.parts]\neyes = "low"\n',
    )
    assert DEMO.value(cfg, "level") == "high"  # coerced as core's own choices are
    assert (DEMO.value(cfg, "limits.count"), DEMO.value(cfg, "parts.eyes")) == (7, "low")


@pytest.mark.usefixtures("declared")
def test_off_switches_a_follower_off(project: Path, tmp_path: Path) -> None:
    cfg = _approved_load(project, tmp_path, '[demo]\nlevel = "off"\n[demo.parts]\neyes = "high"\n')
    assert DEMO.value(cfg, "parts.eyes") == "off"


@pytest.mark.usefixtures("declared")
def test_the_environment_beats_the_file(project: Path, tmp_path: Path) -> None:
    cfg = _approved_load(project, tmp_path, '[demo]\nlevel = "low"\n', DEMO_LEVEL="high")
    assert DEMO.value(cfg, "level") == "high"
    with pytest.raises(ConfigError, match="DEMO_LEVEL: 'max' is not one of off, low, mid, high"):
        _load(project, tmp_path, DEMO_LEVEL="max")


@pytest.mark.usefixtures("declared")
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[demo]\nlevel = "max"\n', "demo.level: 'max' is not one of off, low, mid, high"),
        ("[demo]\ncolour = 1\n", "demo.colour: unknown key; known: level, limits, parts"),
        ("[demo.limits]\ncount = 11\n", "demo.limits.count: 11 is not an integer from 1 to 10"),
        ("[demo.limits]\nsize = 1\n", "demo.limits.size: unknown key; known: count"),
        ("[demo]\nlimits = 3\n", "demo.limits: must be a table"),
        ("demo = 3\n", "demo: must be a table"),
    ],
)
def test_a_bad_value_names_the_file_and_the_key(
    project: Path, tmp_path: Path, text: str, message: str
) -> None:
    path = _write(project, text)
    with pytest.raises(ConfigError) as info:
        _load(project, tmp_path)
    assert str(info.value) == f"{path}: {message}"


def test_without_the_package_its_table_is_not_declared(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "_MEMO", registry.flatten([]))
    _write(project, '[demo]\nlevel = "high"\n')
    with pytest.raises(ConfigError, match="demo: unknown key") as info:
        _load(project, tmp_path)
    assert str(info.value).endswith(NOT_DECLARED)
    assert "demo.level" not in field_names()


@pytest.mark.usefixtures("declared")
def test_a_project_file_may_tighten_but_not_weaken(project: Path, tmp_path: Path) -> None:
    path = _write(project, '[demo]\nlevel = "low"\n[demo.limits]\ncount = 9\n')
    cfg = _load(project, tmp_path)
    assert (DEMO.value(cfg, "level"), DEMO.value(cfg, "limits.count")) == ("mid", 9)
    # the follower's line is left out: only what it follows differs, and that has its line
    assert cfg.untrusted == [f"{path}: demo.level = 'low' withheld; 'mid' applies"]
    assert DEMO.value(cfg, "parts.eyes") == "mid"
    trust.approve(str(path), _env(tmp_path))
    assert DEMO.value(_load(project, tmp_path), "level") == "low"


@pytest.mark.usefixtures("declared")
def test_a_follower_written_weaker_has_its_own_line(project: Path, tmp_path: Path) -> None:
    path = _write(project, '[demo.parts]\neyes = "off"\n')
    cfg = _load(project, tmp_path)
    assert cfg.untrusted == [f"{path}: demo.parts.eyes = 'off' withheld; 'mid' applies"]
    assert field_value(cfg, "demo.parts.eyes") == "mid"


@pytest.mark.usefixtures("declared")
def test_the_schema_model_has_sub_tables_choices_and_its_place() -> None:
    model = schema._config_file()
    names = list(model.model_fields)
    assert names[names.index("judge") + 1] == "demo"
    demo = json.loads(json.dumps(model.model_json_schema()))["$defs"]
    assert demo["Demo"]["properties"]["level"]["enum"] == list(LEVELS)
    assert demo["Limits"]["properties"]["count"]["maximum"] == 10
    assert list(demo["Demo"]["properties"]) == ["level", "limits", "parts"]
    assert demo["Limits"]["additionalProperties"] is False


@pytest.mark.parametrize("text", ["", 'mode = "enforced"\n'])
def test_core_alone_loads_a_config_without_any_package_section(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setattr(registry, "_MEMO", registry.flatten([]))
    _approved_load(project, tmp_path, text)
    path = _write(project, '[reasoning_guard]\nmode = "on"\n')  # the guard is not installed
    with pytest.raises(ConfigError, match="reasoning_guard: unknown key") as info:
        _load(project, tmp_path)
    assert str(info.value).startswith(f"{path}: ")
    assert str(info.value).endswith(NOT_DECLARED)


def _problems(section: Section) -> list[str]:
    """What is inconsistent in a checked section's declaration (empty: nothing)."""
    from agentreflex.core.config.settings import PROFILES
    from agentreflex.core.plugin import STRICTER

    keys = {key for key, _setting in section.each()}
    out = []
    for key, item in section.each():
        if item.stricter not in STRICTER:
            out.append(f"{key}: stricter {item.stricter!r}")
        if item.kind == "choice" and not set(item.order) <= set(item.allowed):
            out.append(f"{key}: order outside allowed")
        if item.kind == "choice" and item.stricter == "order" and not item.order:
            out.append(f"{key}: no order")
        if any(profile not in PROFILES for profile, _value in item.profiles):
            out.append(f"{key}: unknown profile")
        if item.follows and item.follows not in keys:
            out.append(f"{key}: follows {item.follows!r}, not a key of the section")
    return out


def test_the_demo_declaration_is_consistent() -> None:
    assert _problems(DEMO) == []
    broken = Section(
        "x",
        settings=(
            Setting("a", "choice", "b", follows="nope", stricter="up"),
            Setting("c", "choice", "d", allowed=("d",), stricter="order", order=("d", "e")),
        ),
    )
    assert _problems(broken) == [
        "a: stricter 'up'",
        "a: follows 'nope', not a key of the section",
        "c: order outside allowed",
    ]


def test_every_installed_checked_section_is_consistent() -> None:
    checked = [s for p in registry.declarations() for s in p.sections if s.checked]
    assert {s.key: _problems(s) for s in checked} == {s.key: [] for s in checked}
