"""agentreflex-routing's declaration: ``agentreflex routing`` and ``[routing]``."""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, Section

PLUGIN = Plugin(
    name="routing",
    commands=(Command("routing", "agentreflex.routing.cli:main"),),
    sections=(Section("routing"),),
)
