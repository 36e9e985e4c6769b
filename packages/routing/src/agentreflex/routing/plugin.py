"""agentreflex-routing's declaration: ``agentreflex routing`` and ``[routing]``.

Core reads this one declaration (entry point ``agentreflex.plugins``) to learn
what the package adds; nothing else registers it.  Plain data, stdlib only.
"""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, Section

PLUGIN = Plugin(
    name="routing",
    commands=(Command("routing", "agentreflex.routing.cli:main"),),
    sections=(Section("routing"),),
)
