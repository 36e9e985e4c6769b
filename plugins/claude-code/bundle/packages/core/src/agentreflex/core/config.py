"""Configuration: defaults, profiles, TOML files and environment, validated.

Precedence (later wins): built-in defaults -> profile -> user config
(``$XDG_CONFIG_HOME/agentreflex/config.toml``) -> project config
(``<project>/.agentreflex/config.toml``) -> environment.  The seed's
environment names keep working (``REFLEX_MODE``, ``REFLEX_THRESH_*``,
``REFLEX_HARD_LOOP_REPEAT_COUNT``, ``REFLEX_RECENT_ACTION_WINDOW``,
``JEV_API_KEY``, ``JEV_MODE``).

A bad value is a :class:`ConfigError` naming the key and what is allowed;
nothing is silently defaulted.  Sections owned by reflex packages
(``[gate]``, ``[runaway]``, ``[budgets]``...) are kept as plain dicts in
:attr:`Config.sections` and validated by the package that reads them, with
:func:`section_value`.

Stdlib only; ``tomllib`` is imported only when a config file is new or changed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from agentreflex.core.decision import Mode
from agentreflex.core.record import field, record, replace
from agentreflex.core.userdirs import user_config_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ConfigError(ValueError):
    """A configuration value is invalid.  The message names key and allowed values."""


# Seed 001's thresholds.  The documented copy is policies/thresholds.toml; a
# test keeps the two identical.
DEFAULT_THRESHOLDS: dict[str, float] = {
    "constraint_violation_block": 0.70,
    "secret_exposure_block": 0.70,
    "destructive_block": 0.75,
    "destructive_warn": 0.50,
    "loop_probability_block": 0.80,
    "loop_expected_progress_ceiling": 0.30,
    "redundant_warn": 0.85,
    "evidence_insufficient_warn": 0.85,
    "goal_alignment_warn": 0.20,
    "post_tool_blocker_warn": 0.75,
    "post_tool_retry_unlikely_warn": 0.75,
    "unresolved_failure_block": 0.70,
    "verification_insufficient_block": 0.70,
    "more_verification_helpful_block": 0.90,
}

PROFILES = ("off", "lean", "balanced", "thorough")
GUARD_MODES = ("off", "report", "on")
GUARD_CATEGORY_MODES = ("inherit", "on", "report", "off")
GUARD_CATEGORIES = (
    "evidence_follow_through",
    "causal_claims",
    "permanent_mutations",
    "completion_claims",
)
BACKFILL_MODES = ("recent", "live", "full")
JUDGE_MODES = ("auto", "mock", "jev", "off")

# Sections a reflex package may own.  Unknown top-level keys are an error.
PACKAGE_SECTIONS = (
    "gate",
    "runaway",
    "budgets",
    "judge2",
    "guard",
    "context",
    "instructions",
    "routing",
    "router",
    "laya",
)

# What each profile sets before files and environment are applied.
_PROFILE_SETTINGS: dict[str, dict[str, Any]] = {
    "off": {"reflexes_enabled": False, "judge_mode": "off", "guard_mode": "off"},
    "lean": {"reflexes_enabled": True, "judge_mode": "off", "guard_mode": "off"},
    "balanced": {"reflexes_enabled": True, "judge_mode": "auto", "guard_mode": "report"},
    "thorough": {"reflexes_enabled": True, "judge_mode": "auto", "guard_mode": "on"},
}


@record
class JudgeSettings:
    mode: str = "auto"
    base_url: str = "https://api.typesafe.ai"
    model: str = "jev-latest"
    api_key: str = field(default="", repr=False)
    timeout_ms: int = 1500
    retries: int = 2

    @property
    def has_key(self) -> bool:
        return bool(self.api_key)

    @property
    def offline(self) -> bool:
        """Seed 001: no key (or ``JEV_MODE=mock``) means the offline heuristic stand-in.

        Its numbers are shown but never acted on, so the hot path need not ask it.
        """
        return self.mode == "mock" or (self.mode == "auto" and not self.has_key)


@record
class GuardSettings:
    mode: str = "report"
    backfill_mode: str = "recent"
    backfill_limit: int = 20
    categories: dict[str, str] = field(
        default_factory=lambda: {c: "inherit" for c in GUARD_CATEGORIES}
    )

    def category_mode(self, category: str) -> str:
        """Effective mode of one category: global off is a master switch."""
        if self.mode == "off":
            return "off"
        value = self.categories.get(category, "inherit")
        return self.mode if value == "inherit" else value


@record
class Config:
    mode: Mode = Mode.SHADOW
    profile: str = "balanced"
    reflexes_enabled: bool = True
    disabled_reflexes: tuple[str, ...] = ()
    state_dir: str = ""
    project_dir: str = ""
    thresholds: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_THRESHOLDS))
    hard_loop_repeat_count: int = 3
    recent_action_window: int = 20
    floor_budget_ms: int = 200
    daemon_idle_seconds: int = 1800
    judge: JudgeSettings = field(default_factory=JudgeSettings)
    reasoning_guard: GuardSettings = field(default_factory=GuardSettings)
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    @property
    def enforced(self) -> bool:
        return self.mode is Mode.ENFORCED

    def threshold(self, name: str) -> float:
        return self.thresholds[name]

    def section(self, name: str) -> dict[str, Any]:
        return self.sections.get(name, {})

    def reflex_enabled(self, name: str) -> bool:
        return self.reflexes_enabled and name not in self.disabled_reflexes


def _choice(key: str, value: Any, allowed: tuple[str, ...]) -> str:
    text = str(value).strip().lower() if isinstance(value, str) else value
    if text not in allowed:
        raise ConfigError(f"{key}: {value!r} is not one of {', '.join(allowed)}")
    return str(text)


def _probability(key: str, value: Any) -> float:
    if isinstance(value, bool):  # float(True) would pass as 1.0
        raise ConfigError(f"{key}: {value!r} is not a number between 0 and 1")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{key}: {value!r} is not a number between 0 and 1") from None
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ConfigError(f"{key}: {value!r} is not a number between 0 and 1")
    return number


def _int(key: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool):
        raise ConfigError(f"{key}: {value!r} is not an integer from {low} to {high}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ConfigError(f"{key}: {value!r} is not an integer from {low} to {high}") from None
    if not low <= number <= high:
        raise ConfigError(f"{key}: {value!r} is not an integer from {low} to {high}")
    return number


def _bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{key}: {value!r} is not a boolean (true/false)")


def section_value(
    config: Config, section: str, key: str, default: Any, kind: str = "str", **bounds: Any
) -> Any:
    """Read and validate one key of a package-owned section.

    ``kind`` is ``str``, ``int`` (``low``/``high``), ``float`` (``low``/``high``),
    ``prob``, ``bool``, ``choice`` (``allowed``) or ``list``.
    """
    data = config.section(section)
    if key not in data:
        return default
    value = data[key]
    name = f"{section}.{key}"
    if kind == "int":
        return _int(name, value, bounds.get("low", 0), bounds.get("high", 2**62))
    if kind == "float":
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{name}: {value!r} is not a number") from None
        low, high = bounds.get("low", 0.0), bounds.get("high", math.inf)
        if not math.isfinite(number) or not low <= number <= high:
            raise ConfigError(f"{name}: {value!r} is not a number from {low} to {high}")
        return number
    if kind == "prob":
        return _probability(name, value)
    if kind == "bool":
        return _bool(name, value)
    if kind == "choice":
        return _choice(name, value, tuple(bounds["allowed"]))
    if kind == "list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{name}: {value!r} is not a list of strings")
        return list(value)
    if not isinstance(value, str):
        raise ConfigError(f"{name}: {value!r} is not a string")
    return value


def project_root(cwd: str) -> str:
    """The nearest ancestor that is a git work tree or has ``.agentreflex/config.toml``.

    A bare ``.agentreflex`` state dir is not a marker: one left behind in
    ``/tmp`` by an earlier run must not make every directory below it "the
    project" (and so make a home directory under it look like project files).
    Without a marker the project is ``cwd`` itself.
    """
    path = os.path.abspath(cwd or ".")
    probe = path
    while True:
        if os.path.exists(os.path.join(probe, ".git")) or os.path.isfile(
            os.path.join(probe, ".agentreflex", "config.toml")
        ):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return path
        probe = parent


def load_config(cwd: str = "", env: Mapping[str, str] | None = None) -> Config:
    """Build the effective configuration for a project directory."""
    env = os.environ if env is None else env
    project = project_root(cwd or env.get("PWD", "") or os.getcwd())
    cfg = Config(project_dir=project)
    files: list[tuple[str, dict[str, Any]]] = []
    for path in (user_config_path(env), os.path.join(project, ".agentreflex", "config.toml")):
        data = _read_toml(path, env)
        if data is not None:
            files.append((path, data))
    # The profile is chosen first (env beats files) because it sets defaults.
    profile = "balanced"
    for path, data in files:
        if "profile" in data:
            profile = _choice(f"{path}: profile", data["profile"], PROFILES)
    if env.get("AGENTREFLEX_PROFILE"):
        profile = _choice("AGENTREFLEX_PROFILE", env["AGENTREFLEX_PROFILE"], PROFILES)
    _apply_profile(cfg, profile)
    for path, data in files:
        _apply_file(cfg, data, path)
        cfg.sources.append(path)
    _apply_env(cfg, env)
    if not cfg.state_dir:
        cfg.state_dir = os.path.join(project, ".agentreflex")
    elif not os.path.isabs(cfg.state_dir):
        cfg.state_dir = os.path.join(project, cfg.state_dir)
    return cfg


def _read_toml(path: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    return _parse_toml(path, raw, env)


def _parse_toml(path: str, raw: bytes, env: Mapping[str, str]) -> dict[str, Any]:
    """Parsed TOML, from a JSON copy cached for this file when its content is unchanged.

    Why: importing ``tomllib`` (it pulls in ``typing``, ``datetime`` and
    ``string``) costs a hook process about 10 ms on this project's machines,
    on every tool call of a user who has a config file. One copy is kept per
    config file, stamped with the SHA-256 of the content it was parsed from,
    so an edit is never missed and old copies do not pile up; an unreadable
    or corrupt copy is parsed again; TOML that JSON cannot hold (dates) is not
    cached. The gate treats the cache directory as policy: an agent cannot
    forge a copy.
    """
    from agentreflex.core import fastjson
    from agentreflex.core.digest import sha256_hex
    from agentreflex.core.fsutil import atomic_write_json
    from agentreflex.core.userdirs import user_cache_dir

    cached = os.path.join(user_cache_dir(env), f"toml-{sha256_hex(os.path.abspath(path), 24)}.json")
    stamp = sha256_hex(raw)
    try:
        with open(cached, encoding="utf-8") as fh:
            copy = fastjson.loads(fh.read())
        if (
            isinstance(copy, dict)
            and copy.get("sha256") == stamp
            and isinstance(copy.get("data"), dict)
        ):
            return copy["data"]  # type: ignore[no-any-return]
    except (OSError, ValueError):
        pass
    import tomllib

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    try:
        os.makedirs(os.path.dirname(cached), mode=0o700, exist_ok=True)
        atomic_write_json(cached, {"sha256": stamp, "data": data}, durable=False)
    except (OSError, TypeError, ValueError):
        pass  # a read-only cache dir or a TOML date: parse again next time
    return data


def _apply_profile(cfg: Config, profile: str) -> None:
    settings = _PROFILE_SETTINGS[profile]
    cfg.profile = profile
    cfg.reflexes_enabled = settings["reflexes_enabled"]
    cfg.judge.mode = settings["judge_mode"]
    cfg.reasoning_guard.mode = settings["guard_mode"]


_TOP_KEYS = (
    "mode",
    "profile",
    "state_dir",
    "disabled_reflexes",
    "thresholds",
    "loop",
    "judge",
    "reasoning_guard",
    "hook",
    "daemon",
)


def _apply_file(cfg: Config, data: dict[str, Any], path: str) -> None:
    for key, value in data.items():
        where = f"{path}: {key}"
        if key == "mode":
            cfg.mode = Mode(_choice(where, value, ("shadow", "enforced")))
        elif key == "profile":
            continue
        elif key == "state_dir":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{where}: {value!r} is not a directory path (a string)")
            cfg.state_dir = value
        elif key == "disabled_reflexes":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: must be a list of reflex names (strings)")
            cfg.disabled_reflexes = tuple(value)
        elif key == "thresholds":
            _table(where, value)
            for name, number in value.items():
                if name not in DEFAULT_THRESHOLDS:
                    raise ConfigError(
                        f"{where}.{name}: unknown threshold; known: {', '.join(DEFAULT_THRESHOLDS)}"
                    )
                cfg.thresholds[name] = _probability(f"{where}.{name}", number)
        elif key == "loop":
            _table(where, value)
            for name, number in value.items():
                if name == "hard_repeat_count":
                    cfg.hard_loop_repeat_count = _int(f"{where}.{name}", number, 2, 1000)
                elif name == "recent_action_window":
                    cfg.recent_action_window = _int(f"{where}.{name}", number, 5, 500)
                else:
                    raise ConfigError(
                        f"{where}.{name}: unknown key; known: hard_repeat_count, recent_action_window"
                    )
        elif key == "judge":
            _apply_judge(cfg, value, where)
        elif key == "reasoning_guard":
            _apply_guard(cfg, value, where)
        elif key == "hook":
            _table(where, value)
            for name, number in value.items():
                if name == "floor_budget_ms":
                    cfg.floor_budget_ms = _int(f"{where}.{name}", number, 10, 60000)
                else:
                    raise ConfigError(f"{where}.{name}: unknown key; known: floor_budget_ms")
        elif key == "daemon":
            _table(where, value)
            for name, number in value.items():
                if name == "idle_seconds":
                    cfg.daemon_idle_seconds = _int(f"{where}.{name}", number, 5, 7 * 86400)
                else:
                    raise ConfigError(f"{where}.{name}: unknown key; known: idle_seconds")
        elif key in PACKAGE_SECTIONS:
            _table(where, value)
            cfg.sections[key] = dict(value)
        else:
            known = ", ".join(_TOP_KEYS + PACKAGE_SECTIONS)
            raise ConfigError(f"{where}: unknown key; known: {known}")


def _table(where: str, value: Any) -> None:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be a table")


def _apply_judge(cfg: Config, value: Any, where: str) -> None:
    _table(where, value)
    for name, item in value.items():
        key = f"{where}.{name}"
        if name == "mode":
            cfg.judge.mode = _choice(key, item, JUDGE_MODES)
        elif name == "base_url":
            cfg.judge.base_url = str(item)
        elif name == "model":
            cfg.judge.model = str(item)
        elif name == "timeout_ms":
            cfg.judge.timeout_ms = _int(key, item, 50, 60000)
        elif name == "retries":
            cfg.judge.retries = _int(key, item, 0, 10)
        elif name == "api_key":
            raise ConfigError(f"{key}: keys are never read from files; set JEV_API_KEY")
        else:
            raise ConfigError(
                f"{key}: unknown key; known: mode, base_url, model, timeout_ms, retries"
            )


def _apply_guard(cfg: Config, value: Any, where: str) -> None:
    _table(where, value)
    guard = cfg.reasoning_guard
    for name, item in value.items():
        key = f"{where}.{name}"
        if name == "mode":
            guard.mode = _choice(key, item, GUARD_MODES)
        elif name == "backfill":
            _table(key, item)
            for bname, bval in item.items():
                if bname == "mode":
                    guard.backfill_mode = _choice(f"{key}.mode", bval, BACKFILL_MODES)
                elif bname == "limit":
                    guard.backfill_limit = _int(f"{key}.limit", bval, 1, 100_000)
                else:
                    raise ConfigError(f"{key}.{bname}: unknown key; known: mode, limit")
        elif name == "categories":
            _table(key, item)
            for cname, cval in item.items():
                if cname not in GUARD_CATEGORIES:
                    raise ConfigError(
                        f"{key}.{cname}: unknown category; known: {', '.join(GUARD_CATEGORIES)}"
                    )
                guard.categories[cname] = _choice(f"{key}.{cname}", cval, GUARD_CATEGORY_MODES)
        else:
            raise ConfigError(f"{key}: unknown key; known: mode, backfill, categories")


_THRESH_PREFIX = "REFLEX_THRESH_"


def _apply_env(cfg: Config, env: Mapping[str, str]) -> None:
    if env.get("REFLEX_MODE"):
        cfg.mode = Mode(_choice("REFLEX_MODE", env["REFLEX_MODE"], ("shadow", "enforced")))
    for var in env:
        if var.startswith(_THRESH_PREFIX) and var[len(_THRESH_PREFIX) :].lower() not in (
            DEFAULT_THRESHOLDS
        ):
            known = ", ".join(_THRESH_PREFIX + n.upper() for n in DEFAULT_THRESHOLDS)
            raise ConfigError(f"{var}: unknown threshold; known: {known}")
    for name in DEFAULT_THRESHOLDS:
        var = _THRESH_PREFIX + name.upper()
        if env.get(var):
            cfg.thresholds[name] = _probability(var, env[var])
    if env.get("REFLEX_HARD_LOOP_REPEAT_COUNT"):
        cfg.hard_loop_repeat_count = _int(
            "REFLEX_HARD_LOOP_REPEAT_COUNT", env["REFLEX_HARD_LOOP_REPEAT_COUNT"], 2, 1000
        )
    if env.get("REFLEX_RECENT_ACTION_WINDOW"):
        cfg.recent_action_window = _int(
            "REFLEX_RECENT_ACTION_WINDOW", env["REFLEX_RECENT_ACTION_WINDOW"], 5, 500
        )
    if env.get("AGENTREFLEX_STATE_DIR"):
        cfg.state_dir = env["AGENTREFLEX_STATE_DIR"]
    if env.get("AGENTREFLEX_REASONING_GUARD"):
        cfg.reasoning_guard.mode = _choice(
            "AGENTREFLEX_REASONING_GUARD", env["AGENTREFLEX_REASONING_GUARD"], GUARD_MODES
        )
    judge = cfg.judge
    judge.api_key = env.get("JEV_API_KEY", "").strip()
    if env.get("JEV_BASE_URL"):
        judge.base_url = env["JEV_BASE_URL"]
    if env.get("JEV_MODEL"):
        judge.model = env["JEV_MODEL"]
    if env.get("JEV_MODE"):
        judge.mode = _choice("JEV_MODE", env["JEV_MODE"], JUDGE_MODES)


def with_mode(cfg: Config, mode: Mode) -> Config:
    """A copy of ``cfg`` with another enforcement mode (used by ``replay --mode``)."""
    return replace(cfg, mode=mode)
