"""agentreflex-instructions' declaration: the instructions reflex, ``agentreflex instructions``, ``[instructions]``.

Core reads this one declaration (entry point ``agentreflex.plugins``) to learn
what the package adds; nothing else registers it.  Plain data, stdlib only.
"""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, ReflexEntry, Section

PLUGIN = Plugin(
    name="instructions",
    reflexes=(
        ReflexEntry(
            "instructions",
            "agentreflex.instructions.reflex:InstructionsReflex",
            events=("pre_tool", "stop", "subagent_stop"),
        ),
    ),
    commands=(Command("instructions", "agentreflex.instructions.cli:main"),),
    sections=(Section("instructions"),),
)
