"""The ``[runaway]`` and ``[budgets]`` config sections, read and validated.

Core keeps package sections as plain dicts; this module owns their keys,
defaults and bounds (documented in the package README).  A bad value is not
silently defaulted: it is reported through ``problems`` (the reflex puts it in
the decision's ``degraded`` list) and only that key falls back to its default,
so one typo neither disarms the exact-repeat floor nor wedges every tool call.
"""

from __future__ import annotations

from agentreflex.core.config import ConfigError, section_value
from agentreflex.core.record import field, fields, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.config import Config


@record(frozen=True)
class LoopSettings:
    """Fuzzy loop detectors (all WARN).  0 switches a detector off."""

    fuzzy: bool = True
    same_error_commands: int = 3
    alternation_cycles: int = 3
    near_repeat_count: int = 3
    exploration_limit: int = 15
    verification_repeat_count: int = 3
    echo_count: int = 3
    warn_every: int = 10


@record(frozen=True)
class BudgetSettings:
    """Per-session and per-project limits.  0 switches a limit off."""

    session_tool_calls: int = 0
    session_wall_minutes: float = 0.0
    session_tokens: int = 0
    session_cost_usd: float = 0.0
    consecutive_failures: int = 20
    project_tool_calls: int = 0
    project_tokens: int = 0
    project_cost_usd: float = 0.0
    project_wall_minutes: float = 0.0
    project_window_hours: float = 24.0
    warn_fraction: float = 0.8
    cooldown_seconds: float = 600.0
    grace_fraction: float = 0.25

    @property
    def project_enabled(self) -> bool:
        return bool(
            self.project_tool_calls
            or self.project_tokens
            or self.project_cost_usd
            or self.project_wall_minutes
        )


@record(frozen=True)
class Settings:
    loops: LoopSettings = field(default_factory=LoopSettings)
    budgets: BudgetSettings = field(default_factory=BudgetSettings)
    problems: tuple[str, ...] = ()


_INT_BOUNDS = {"low": 0, "high": 10**12}
_FLOAT_BOUNDS = {"low": 0.0, "high": 1e12}


def _read(cfg: Config, section: str, key: str, default: Any, problems: list[str], **kw: Any) -> Any:
    kind = "bool" if isinstance(default, bool) else "int" if isinstance(default, int) else "float"
    bounds = kw or (_INT_BOUNDS if kind == "int" else _FLOAT_BOUNDS if kind == "float" else {})
    try:
        return section_value(cfg, section, key, default, kind, **bounds)
    except ConfigError as exc:
        problems.append(f"runaway config: {exc}; using the default {default!r}")
        return default


def _unknown_keys(cfg: Config, section: str, known: tuple[str, ...], problems: list[str]) -> None:
    for key in cfg.section(section):
        if key not in known:
            problems.append(
                f"runaway config: {section}.{key}: unknown key; known: {', '.join(known)}"
            )


def load_settings(cfg: Config) -> Settings:
    """Both sections of ``cfg``, with any invalid key reported in ``problems``."""
    problems: list[str] = []
    loop_defaults = LoopSettings()
    loop_keys = fields(LoopSettings)
    _unknown_keys(cfg, "runaway", loop_keys, problems)
    loops = LoopSettings(
        **{k: _read(cfg, "runaway", k, getattr(loop_defaults, k), problems) for k in loop_keys}
    )
    budget_defaults = BudgetSettings()
    budget_keys = fields(BudgetSettings)
    _unknown_keys(cfg, "budgets", budget_keys, problems)
    values: dict[str, Any] = {}
    for key in budget_keys:
        default = getattr(budget_defaults, key)
        if key in ("warn_fraction", "grace_fraction"):
            values[key] = _read(cfg, "budgets", key, default, problems, low=0.01, high=1.0)
        else:
            values[key] = _read(cfg, "budgets", key, default, problems)
    return Settings(loops=loops, budgets=BudgetSettings(**values), problems=tuple(problems))
