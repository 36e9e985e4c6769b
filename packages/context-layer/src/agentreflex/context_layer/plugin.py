"""agentreflex-context-layer's declaration: the context reflex, ``agentreflex context``, ``[context]``."""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, ReflexEntry, Section

PLUGIN = Plugin(
    name="context",
    reflexes=(
        ReflexEntry(
            "context",
            "agentreflex.context_layer.reflex:ContextReflex",
            events=("session_start", "user_prompt", "pre_compact", "post_tool"),
        ),
    ),
    commands=(Command("context", "agentreflex.context_layer.cli:main"),),
    sections=(Section("context"),),
)
