"""The hook's fast loaders and the pydantic models agree on every config file.

Random ``config.toml`` files (right and wrong types, numbers out of range,
unknown keys and tables, bad choices, the spellings the loader coerces) are
written with ``tomli_w`` and read twice:

* the hot path: ``load_config`` (core's keys; it raises at the first bad key),
  then the packages' own readers of their sections, as a hook runs them
  (``agentreflex.judge2.settings`` raises at its first bad key;
  ``agentreflex.runaway.settings`` reports every bad key in ``problems``);
* the cold path: ``agentreflex config check``'s ``check_file`` (the pydantic
  models, every problem at once).

Both must accept and reject the same files, and every message the hot path
gives must be one the check gives, word for word. This needs every reflex
package installed, hence its place in ``tests/``.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from agentreflex.core.cli.configcheck import check_file
from agentreflex.core.config import settings as fast
from agentreflex.core.config.settings import ConfigError, load_config
from agentreflex.core.util.record import fields
from agentreflex.guard import plugin as guard
from agentreflex.judge2.settings import load_settings as judge2_settings
from agentreflex.runaway.settings import BudgetSettings, LoopSettings
from agentreflex.runaway.settings import load_settings as runaway_settings
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

S = st.SearchStrategy

JUNK: S[Any] = st.one_of(
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.booleans(),
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 3), max_size=2),
)
UNKNOWN_KEYS = st.sampled_from(["colour", "Mode", "hard-repeat", "x y", "api_key2"])


def choice(allowed: tuple[str, ...]) -> S[Any]:
    spelled = st.sampled_from(allowed).flatmap(
        lambda a: st.sampled_from([a, a.upper(), f" {a} ", a.title()])
    )
    return st.one_of(spelled, st.sampled_from(["", "maybe", "shadowy"]), JUNK)


def integer(low: float, high: float) -> S[Any]:
    near = st.sampled_from([low - 1, low, high, high + 1]).map(int)
    inside = st.integers(int(low), int(min(high, low + 10_000)))
    return st.one_of(
        near,
        inside,
        inside.map(str),
        inside.map(lambda n: f" {n} "),
        st.floats(low - 2, high + 2),
        JUNK,
    )


def number(low: float, high: float) -> S[Any]:
    return st.one_of(
        st.floats(low - 1, high + 1),
        st.sampled_from([low, high, math.nan, math.inf]),
        st.integers(int(low) - 1, int(min(high, 1e6)) + 1),
        st.floats(low, high).map(str),
        JUNK,
    )


def boolean() -> S[Any]:
    return st.one_of(
        st.booleans(), st.sampled_from(["yes", "no", "on", "off", "maybe", 0, 1, 2]), JUNK
    )


def tables(spec: dict[str, S[Any]], free: bool = False, size: int = 4) -> S[dict[str, Any]]:
    """TOML tables holding some of ``spec``'s keys and maybe an unknown one."""
    if spec:
        keys = st.lists(st.sampled_from(sorted(spec)), unique=True, max_size=min(size, len(spec)))
        known = keys.flatmap(lambda ks: st.fixed_dictionaries({k: spec[k] for k in ks}))
    else:
        known = st.just({})
    extra = (
        st.dictionaries(st.text(min_size=1, max_size=5), JUNK, max_size=2)
        if free
        else st.dictionaries(UNKNOWN_KEYS, JUNK, max_size=1)
    )
    return st.tuples(known, extra).map(lambda t: {**t[1], **t[0]})


def table(spec: dict[str, S[Any]], free: bool = False) -> S[Any]:
    """A table value: mostly a table, sometimes something that is not one."""
    made = tables(spec, free)
    return st.one_of(made, made, made, JUNK)


PROB = number(0.0, 1.0)
THRESHOLDS = table({name: PROB for name in fast.DEFAULT_THRESHOLDS})
LOOP = table({"hard_repeat_count": integer(2, 1000), "recent_action_window": integer(5, 500)})
JUDGE = table(
    {
        "mode": choice(fast.JUDGE_MODES),
        "base_url": st.one_of(st.text(max_size=10), JUNK),
        "model": st.one_of(st.text(max_size=10), JUNK),
        "timeout_ms": integer(50, 60000),
        "retries": integer(0, 10),
        "api_key": st.just("sk-nope"),
    }
)
GUARD = table(
    {
        "mode": choice(guard.MODES),
        "backfill": table({"mode": choice(guard.BACKFILL_MODES), "limit": integer(1, 100_000)}),
        "categories": table({c: choice(guard.CATEGORY_MODES) for c in guard.CATEGORIES}),
    }
)
RUNAWAY = table(
    {
        k: boolean() if k == "fuzzy" else integer(0, 10**12)
        for k in ("fuzzy", *(f for f in fields(LoopSettings) if f != "fuzzy"))
    }
)
_BUDGET_FLOATS = {
    "session_wall_minutes",
    "session_cost_usd",
    "project_cost_usd",
    "project_wall_minutes",
    "project_window_hours",
    "cooldown_seconds",
}
BUDGETS = table(
    {
        k: number(0.01, 1.0)
        if k.endswith("_fraction")
        else number(0.0, 1e12)
        if k in _BUDGET_FLOATS
        else integer(0, 10**12)
        for k in fields(BudgetSettings)
    }
)
JUDGE2 = table(
    {
        "cache": boolean(),
        "cache_ttl_s": number(0.0, 86400.0),
        "cache_max_entries": integer(1, 100_000),
        "claims_unsupported_block": PROB,
        "action_window": integer(1, 100),
    }
)
CONFIG = tables(
    {
        "mode": choice(("shadow", "enforced")),
        "profile": choice(fast.PROFILES),
        "state_dir": st.one_of(st.sampled_from(["state", "/tmp/x", " "]), JUNK),
        "disabled_reflexes": st.one_of(st.lists(st.sampled_from(["gate", "done"])), JUNK),
        "thresholds": THRESHOLDS,
        "loop": LOOP,
        "judge": JUDGE,
        "reasoning_guard": GUARD,
        "hook": table({"floor_budget_ms": integer(10, 60000)}),
        "daemon": table({"idle_seconds": integer(5, 7 * 86400)}),
        "runaway": RUNAWAY,
        "budgets": BUDGETS,
        "judge2": JUDGE2,
        **{s: table({}, free=True) for s in ("gate", "guard", "context", "laya", "router")},
    },
    size=6,
)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[tuple[Path, Path, dict[str, str]]]:
    """A project (no config of its own) and a user config file, in a fresh home."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        (project / ".git").mkdir(parents=True)
        user = root / "config" / "agentreflex" / "config.toml"
        user.parent.mkdir(parents=True)
        env = {
            "HOME": str(root),
            "XDG_CONFIG_HOME": str(root / "config"),
            "XDG_CACHE_HOME": str(root / "cache"),
            "AGENTREFLEX_DAEMON": "off",
            "PATH": os.environ.get("PATH", ""),
        }
        yield project, user, env


class HotPath:
    """What a hook meets reading the file: each message names the file, as the check's do."""

    def __init__(self, project: Path, user: Path, env: dict[str, str]) -> None:
        self.core: str | None = None  # load_config's error (it stops at the first)
        self.judge2: str | None = None  # judge2's error (it stops at the first)
        self.runaway: list[str] = []  # runaway's problems (all of them)
        try:
            cfg = load_config(str(project), env)
        except ConfigError as exc:
            self.core = str(exc)
            return
        try:
            judge2_settings(cfg)
        except ConfigError as exc:
            self.judge2 = f"{user}: {exc}"
        for problem in runaway_settings(cfg).problems:
            inner = problem.removeprefix("runaway config: ").rsplit("; using the default ", 1)[0]
            self.runaway.append(f"{user}: {inner}")


def compare(project: Path, user: Path, env: dict[str, str], data: dict[str, Any]) -> None:
    user.write_text(tomli_w.dumps(data), encoding="utf-8")
    hot = HotPath(project, user, env)
    checked = [p.message for p in check_file(str(user))]
    if hot.core is not None:  # core rejects the file: the check does, with that message
        assert hot.core in checked, (hot.core, checked)
        return
    by_section: dict[str, list[str]] = {}
    for message in checked:
        by_section.setdefault(message.removeprefix(f"{user}: ").split(".", 1)[0], []).append(
            message
        )
    assert set(by_section) <= {"runaway", "budgets", "judge2"}, checked  # core accepts
    runaway = by_section.get("runaway", []) + by_section.get("budgets", [])
    assert sorted(runaway) == sorted(hot.runaway), (runaway, hot.runaway)
    judge2 = by_section.get("judge2", [])
    if hot.judge2 is None:
        assert judge2 == [], judge2
    else:
        assert hot.judge2 in judge2, (hot.judge2, judge2)


@settings(
    max_examples=400,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=CONFIG)
@example(data={"loop": {"hard_repeat_count": " 7 "}, "mode": "ENFORCED", "runaway": {}})
@example(data={"profile": "fast", "mode": "loud"})
@example(data={"judge": {"api_key": "sk-nope"}})
@example(data={"judge": {"base_url": ""}})
@example(data={"budgets": {"warn_fraction": 0.0, "typo": 1}, "judge2": {"cache": "maybe"}})
@example(data={"thresholds": {"destructive_block": math.nan}})
@example(data={"gate": 3})
def test_both_loaders_accept_and_reject_the_same_files(
    sandbox: tuple[Path, Path, dict[str, str]], data: dict[str, Any]
) -> None:
    compare(*sandbox, data)


@pytest.mark.parametrize(
    "text", ["[loop\n", "mode = \n", 'a = "unterminated\n', "x = 1\nx = 2\n", "\xff = 1"]
)
def test_invalid_toml_gives_the_same_message(
    sandbox: tuple[Path, Path, dict[str, str]], text: str
) -> None:
    project, user, env = sandbox
    user.write_bytes(text.encode("utf-8", "surrogateescape") if "\xff" not in text else b"\xff=1")
    with pytest.raises(ConfigError) as err:
        load_config(str(project), env)
    (problem,) = check_file(str(user))
    assert problem.message == str(err.value)
