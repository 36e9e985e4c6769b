"""agentreflex-router's declaration: ``agentreflex router`` and ``[router]``.

Core reads this one declaration (entry point ``agentreflex.plugins``) to learn
what the package adds; nothing else registers it.  Plain data, stdlib only.
"""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, Section

PLUGIN = Plugin(
    name="router",
    commands=(Command("router", "agentreflex.router.cli:main"),),
    sections=(Section("router"),),
)
