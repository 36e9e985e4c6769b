"""agentreflex-router's declaration: ``agentreflex router`` and ``[router]``."""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, Section

PLUGIN = Plugin(
    name="router",
    commands=(Command("router", "agentreflex.router.cli:main"),),
    sections=(Section("router"),),
)
