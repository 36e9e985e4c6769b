"""The ``[runaway]`` and ``[budgets]`` config sections, read and validated.

Core keeps package sections as plain dicts; the keys, defaults and bounds are
declared once, in :mod:`agentreflex.runaway.plugin` (the JSON Schema and
``config check`` are built from the same records), and read here into typed
settings.  A bad value is not
silently defaulted: it is reported through ``problems`` (the reflex puts it in
the decision's ``degraded`` list) and only that key falls back to its default,
so one typo neither disarms the exact-repeat floor nor wedges every tool call.
"""

from __future__ import annotations

from agentreflex.core.config.settings import ConfigError
from agentreflex.core.util.record import field, record
from agentreflex.runaway.plugin import BUDGETS, LOOPS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.config.settings import Config
    from agentreflex.core.plugin import Section


_LOOP = LOOPS.defaults()
_BUDGET = BUDGETS.defaults()


@record(frozen=True)
class LoopSettings:
    """Fuzzy loop detectors (all WARN).  0 switches a detector off."""

    fuzzy: bool = _LOOP["fuzzy"]
    same_error_commands: int = _LOOP["same_error_commands"]
    alternation_cycles: int = _LOOP["alternation_cycles"]
    near_repeat_count: int = _LOOP["near_repeat_count"]
    exploration_limit: int = _LOOP["exploration_limit"]
    verification_repeat_count: int = _LOOP["verification_repeat_count"]
    echo_count: int = _LOOP["echo_count"]
    warn_every: int = _LOOP["warn_every"]


@record(frozen=True)
class BudgetSettings:
    """Per-session and per-project limits.  0 switches a limit off."""

    session_tool_calls: int = _BUDGET["session_tool_calls"]
    session_wall_minutes: float = _BUDGET["session_wall_minutes"]
    session_tokens: int = _BUDGET["session_tokens"]
    session_cost_usd: float = _BUDGET["session_cost_usd"]
    consecutive_failures: int = _BUDGET["consecutive_failures"]
    project_tool_calls: int = _BUDGET["project_tool_calls"]
    project_tokens: int = _BUDGET["project_tokens"]
    project_cost_usd: float = _BUDGET["project_cost_usd"]
    project_wall_minutes: float = _BUDGET["project_wall_minutes"]
    project_window_hours: float = _BUDGET["project_window_hours"]
    warn_fraction: float = _BUDGET["warn_fraction"]
    cooldown_seconds: float = _BUDGET["cooldown_seconds"]
    grace_fraction: float = _BUDGET["grace_fraction"]

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


def _read(cfg: Config, section: Section, problems: list[str]) -> dict[str, Any]:
    """Every declared key of ``section``; a bad one is reported and keeps its default."""
    values: dict[str, Any] = {}
    for item in section.settings:
        try:
            values[item.key] = item.read(cfg, section.key)
        except ConfigError as exc:
            problems.append(f"runaway config: {exc}; using the default {item.default!r}")
            values[item.key] = item.default
    return values


def _unknown_keys(cfg: Config, section: str, known: tuple[str, ...], problems: list[str]) -> None:
    for key in cfg.section(section):
        if key not in known:
            problems.append(
                f"runaway config: {section}.{key}: unknown key; known: {', '.join(known)}"
            )


def load_settings(cfg: Config) -> Settings:
    """Both sections of ``cfg``, with any invalid key reported in ``problems``."""
    problems: list[str] = []
    _unknown_keys(cfg, LOOPS.key, tuple(s.key for s in LOOPS.settings), problems)
    loops = LoopSettings(**_read(cfg, LOOPS, problems))
    _unknown_keys(cfg, BUDGETS.key, tuple(s.key for s in BUDGETS.settings), problems)
    budgets = BudgetSettings(**_read(cfg, BUDGETS, problems))
    return Settings(loops=loops, budgets=budgets, problems=tuple(problems))
