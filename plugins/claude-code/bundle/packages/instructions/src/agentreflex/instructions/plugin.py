"""agentreflex-instructions' declaration: the instructions reflex, ``agentreflex instructions``, ``[instructions]``."""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, ReflexEntry, Section

PLUGIN = Plugin(
    name="instructions",
    reflexes=(
        ReflexEntry(
            "instructions",
            "agentreflex.instructions.reflex:InstructionsReflex",
            events=("pre_tool", "post_tool", "post_tool_failure", "stop", "subagent_stop"),
        ),
    ),
    commands=(Command("instructions", "agentreflex.instructions.cli:main"),),
    sections=(Section("instructions"),),
)
