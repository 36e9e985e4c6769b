"""agentreflex-guard's declaration: the Reasoning Guard reflex (after the floors and the done check), its command and status, ``[guard]``.

Core reads this one declaration (entry point ``agentreflex.plugins``) to learn
what the package adds; nothing else registers it.  Plain data, stdlib only.
"""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, ReflexEntry, Section

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
    sections=(Section("guard"),),
)
