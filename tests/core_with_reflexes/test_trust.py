"""The trust record over the reflex packages' sections: ``[gate]``, ``[budgets]``, ``[reasoning_guard]``.

Moved from ``packages/core/tests/test_trust.py`` (a package's table is known only where
that package is installed): each of those weakenings is withheld until approved, and
the property that the effective config is never weaker than the approved one, drawn
over every knob including theirs.
"""

from __future__ import annotations

import json
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.config import trust
from agentreflex.core.config.settings import (
    DEFAULT_THRESHOLDS,
    Config,
    _build,
    field_names,
    field_value,
    load_config,
    weaker,
)
from agentreflex.core.registry import checked_sections
from agentreflex.core.testing import check_withheld_until_approved
from agentreflex.core.testing import user_config as _user
from agentreflex.core.testing import user_config_path as _user_path
from agentreflex.core.testing import user_dirs_env as _env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    return _env(tmp_path / "home")


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        ('[reasoning_guard]\nmode = "off"\n', "reasoning_guard.mode", "report"),
        # the lean profile turns the Reasoning Guard off too, where that package is installed
        ('profile = "lean"\n', "reasoning_guard.mode", "report"),
        ('[gate]\nallow = ["rm -rf /"]\n', "sections.gate", None),
        ("[budgets]\nmax_tool_calls = 100000\n", "sections.budgets", None),
    ],
)
def test_each_weakening_is_withheld_until_approved(
    project: Path, env: dict[str, str], text: str, field: str, expected: Any
) -> None:
    check_withheld_until_approved(project, env, text, field, expected)


# --- the property: never weaker than approved ----------------------------------

_REFLEXES = ("gate", "runaway", "done", "guard")
# The guard package's categories (its plugin.py declares them), written out here.
_GUARD_CATEGORIES = (
    "evidence_follow_through",
    "causal_claims",
    "permanent_mutations",
    "completion_claims",
)
_URLS = ("https://api.typesafe.ai", "http://127.0.0.1:9", "https://evil.example")


@st.composite
def project_configs(draw: Any) -> str:
    """TOML text over every knob that can weaken or tighten."""
    lines: list[str] = []
    tables: dict[str, list[str]] = {}

    def maybe(key: str, strategy: Any, table: str = "") -> None:
        if draw(st.booleans()):
            value = draw(strategy)
            text = json.dumps(value) if not isinstance(value, bool) else str(value).lower()
            (tables.setdefault(table, []) if table else lines).append(f"{key} = {text}")

    maybe("mode", st.sampled_from(["shadow", "enforced"]))
    maybe("profile", st.sampled_from(["off", "lean", "balanced", "thorough"]))
    maybe("disabled_reflexes", st.lists(st.sampled_from(_REFLEXES), unique=True))
    maybe("state_dir", st.sampled_from(["var/a", "var/b"]))
    for name in DEFAULT_THRESHOLDS:
        maybe(name, st.sampled_from([0.0, 0.1, 0.5, 0.75, 0.9, 1.0]), "thresholds")
    maybe("hard_repeat_count", st.integers(2, 9), "loop")
    maybe("recent_action_window", st.integers(5, 40), "loop")
    maybe("floor_budget_ms", st.integers(10, 2000), "hook")
    maybe("idle_seconds", st.integers(5, 100), "daemon")
    maybe("mode", st.sampled_from(["auto", "mock", "jev", "off"]), "judge")
    maybe("base_url", st.sampled_from(_URLS), "judge")
    maybe("model", st.sampled_from(["jev-latest", "jev-small"]), "judge")
    maybe("timeout_ms", st.integers(50, 5000), "judge")
    maybe("retries", st.integers(0, 5), "judge")
    maybe("mode", st.sampled_from(["off", "report", "on"]), "reasoning_guard")
    maybe("mode", st.sampled_from(["recent", "live", "full"]), "reasoning_guard.backfill")
    maybe("limit", st.integers(1, 100), "reasoning_guard.backfill")
    for name in _GUARD_CATEGORIES:
        maybe(
            name,
            st.sampled_from(["inherit", "on", "report", "off"]),
            "reasoning_guard.categories",
        )
    maybe("allow", st.lists(st.sampled_from(["rm", "curl"]), unique=True), "gate")
    maybe("max_tool_calls", st.integers(1, 1000), "budgets")
    out = "\n".join(lines) + "\n"
    for table, items in tables.items():
        out += f"[{table}]\n" + "\n".join(items) + "\n"
    return out


def _no_field_weaker(effective: Config, approved: Config) -> list[str]:
    return [
        f"{name}: {field_value(effective, name)!r} weaker than {field_value(approved, name)!r}"
        for name in field_names()
        if weaker(name, field_value(effective, name), field_value(approved, name))
    ]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    user=st.one_of(st.just(""), project_configs()),
    approved=st.one_of(st.none(), project_configs()),
    current=project_configs(),
)
def test_effective_config_is_never_weaker_than_the_approved_one(
    user: str, approved: str | None, current: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = _env(root / "home")
        project = root / "proj"
        (project / ".git").mkdir(parents=True)
        if user:
            _user(env, user)
        conf = project / ".agentreflex" / "config.toml"
        conf.parent.mkdir()
        if approved is not None:
            conf.write_text(approved)
            trust.approve(str(conf), env)
        baseline = load_config(str(project), env)  # defaults + user + approved content
        conf.write_text(current)
        effective = load_config(str(project), env)
        assert _no_field_weaker(effective, baseline) == []
        # independent spot checks of the table's meaning
        if baseline.enforced:
            assert effective.enforced
        if baseline.reflexes_enabled:
            assert effective.reflexes_enabled
        assert set(effective.disabled_reflexes) <= set(baseline.disabled_reflexes)
        assert effective.threshold("destructive_block") <= baseline.threshold("destructive_block")
        assert effective.hard_loop_repeat_count <= baseline.hard_loop_repeat_count
        # "same" fields: only the approved value applies
        assert effective.state_dir == baseline.state_dir
        checked = set(checked_sections())  # compared setting by setting, above
        assert {k: v for k, v in effective.sections.items() if k not in checked} == {
            k: v for k, v in baseline.sections.items() if k not in checked
        }
        assert effective.judge.base_url == baseline.judge.base_url
        # approving the current content makes it apply exactly
        trust.approve(str(conf), env)
        now = load_config(str(project), env)
        assert now.untrusted == [] and now.pending_config == ""
        exact = _build(
            str(project),
            [
                *([(str(_user_path(env)), tomllib.loads(user), True)] if user else []),
                (str(conf), tomllib.loads(current), True),
            ],
            env,
        )
        for name in field_names():
            assert field_value(now, name) == field_value(exact, name), name
