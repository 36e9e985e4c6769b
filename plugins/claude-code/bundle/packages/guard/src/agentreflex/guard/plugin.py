"""agentreflex-guard's declaration: the Reasoning Guard reflex (after the floors and the done check), its command and status, ``[reasoning_guard]`` and ``[guard]``.

``[reasoning_guard]`` is a checked section: core validates it when it loads a
config (a bad value names the file), applies ``AGENTREFLEX_REASONING_GUARD``
and compares it setting by setting against the approved baseline when a
project config is not approved.  The guard reads it with :func:`settings`.
"""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, ReflexEntry, Section, Setting

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.config.settings import Config

MODES = ("off", "report", "on")  # weakest first: the order a project may not lower
CATEGORIES = (
    "evidence_follow_through",
    "causal_claims",
    "permanent_mutations",
    "completion_claims",
)
# What a category may say (in the JSON Schema's order), and its strictness order
# once ``inherit`` is resolved against ``mode``.
CATEGORY_MODES = ("inherit", "on", "report", "off")
BACKFILL_MODES = ("recent", "live", "full")

REASONING_GUARD = Section(
    "reasoning_guard",
    "The reasoning guard (environment: AGENTREFLEX_REASONING_GUARD).",
    settings=(
        Setting(
            "mode",
            "choice",
            "report",
            "off, report or on. The default comes from the profile: "
            "off for off and lean, on for thorough.",
            allowed=MODES,
            stricter="order",
            order=MODES,
            env="AGENTREFLEX_REASONING_GUARD",
            profiles=(("off", "off"), ("lean", "off"), ("thorough", "on")),
        ),
    ),
    tables=(
        Section(
            "backfill",
            "How far back the reasoning guard reads a transcript it joins late.",
            settings=(
                Setting("mode", "choice", "recent", allowed=BACKFILL_MODES, stricter="same"),
                Setting("limit", "int", 20, low=1, high=100_000, stricter="higher"),
            ),
        ),
        Section(
            "categories",
            "Per-category mode of the reasoning guard; ``inherit`` follows ``reasoning_guard.mode``.",
            settings=tuple(
                Setting(
                    name,
                    "choice",
                    "inherit",
                    allowed=CATEGORY_MODES,
                    stricter="order",
                    order=MODES,
                    follows="mode",
                )
                for name in CATEGORIES
            ),
        ),
    ),
    title="ReasoningGuard",
    checked=True,
    after="judge",
)

PLUGIN = Plugin(
    name="guard",
    reflexes=(
        ReflexEntry(
            "guard",
            "agentreflex.guard.reflex:GuardReflex",
            order=40,
            events=(
                "user_prompt",
                "pre_tool",
                "post_tool",
                "post_tool_failure",
                "stop",
                "subagent_stop",
            ),
        ),
    ),
    commands=(Command("guard", "agentreflex.guard.cli:main"),),
    status="agentreflex.guard.status:status",
    statusline="agentreflex.guard.status:statusline",
    report="agentreflex.guard.status:report_section",
    recap="agentreflex.guard.recap_parts:recap_parts",
    sections=(REASONING_GUARD, Section("guard")),
)


def mode(config: Config) -> str:
    """``[reasoning_guard] mode`` in effect (profile default, file, environment)."""
    return str(REASONING_GUARD.value(config, "mode"))


def backfill(config: Config) -> tuple[str, int]:
    """``[reasoning_guard.backfill]``: how the first read of a session reaches back."""
    return (
        str(REASONING_GUARD.value(config, "backfill.mode")),
        int(REASONING_GUARD.value(config, "backfill.limit")),
    )


def category_modes(config: Config) -> dict[str, str]:
    """Each category's effective mode: ``inherit`` resolved, global ``off`` a master switch."""
    return {c: str(REASONING_GUARD.value(config, f"categories.{c}")) for c in CATEGORIES}
