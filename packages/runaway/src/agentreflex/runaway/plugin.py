"""agentreflex-runaway's declaration: the runaway reflex, ``[runaway]`` and ``[budgets]``.

The two sections' keys, defaults and bounds are declared here once:
:mod:`agentreflex.runaway.settings` reads them from these records, and the
JSON Schema and ``config check`` are built from them.
"""

from __future__ import annotations

from agentreflex.core.plugin import Plugin, ReflexEntry, Section, Setting


def _count(key: str, default: int, description: str = "") -> Setting:
    """A whole-number limit; 0 switches it off."""
    return Setting(key, "int", default, description, low=0, high=10**12, stricter="lower")


def _amount(key: str, default: float) -> Setting:
    """A time or money limit; 0 switches it off."""
    return Setting(key, "float", default, low=0.0, high=1e12, stricter="lower")


def _fraction(key: str, default: float) -> Setting:
    """A share of a limit."""
    return Setting(key, "float", default, low=0.01, high=1.0, stricter="lower")


LOOPS = Section(
    "runaway",
    "agentreflex-runaway's fuzzy loop detectors (all WARN); 0 switches a detector off.",
    (
        Setting("fuzzy", "bool", True, "All WARN-only loop detectors on/off."),
        _count("same_error_commands", 3, "Distinct commands failing with one error signature."),
        _count("alternation_cycles", 3, "A-B rounds before a warning."),
        _count("near_repeat_count", 3, "Variants of a failing command."),
        _count("exploration_limit", 15, "Reads/searches in a row without a write."),
        _count("verification_repeat_count", 3, "Runs of one test command with nothing changed."),
        _count("echo_count", 3, "Identical assistant messages in a row."),
        _count("warn_every", 10, "Tool calls before the same warning may repeat."),
    ),
    title="Runaway",
)

BUDGETS = Section(
    "budgets",
    "agentreflex-runaway's per-session and per-project limits; 0 switches a limit off.",
    (
        _count("session_tool_calls", 0),
        _amount("session_wall_minutes", 0.0),
        _count("session_tokens", 0),
        _amount("session_cost_usd", 0.0),
        _count("consecutive_failures", 20),
        _count("project_tool_calls", 0),
        _count("project_tokens", 0),
        _amount("project_cost_usd", 0.0),
        _amount("project_wall_minutes", 0.0),
        _amount("project_window_hours", 24.0),
        _fraction("warn_fraction", 0.8),
        _amount("cooldown_seconds", 600.0),
        _fraction("grace_fraction", 0.25),
    ),
    title="Budgets",
)

PLUGIN = Plugin(
    name="runaway",
    reflexes=(
        ReflexEntry(
            "runaway",
            "agentreflex.runaway.reflex:RunawayReflex",
            order=20,
            events=("pre_tool", "post_tool", "post_tool_failure"),
        ),
    ),
    sections=(LOOPS, BUDGETS),
)
