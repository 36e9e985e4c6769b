"""agentreflex-laya's declaration: ``agentreflex laya``, ``[laya]`` and the local judge the daemon may start."""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, Section

PLUGIN = Plugin(
    name="laya",
    commands=(Command("laya", "agentreflex.laya.cli:main"),),
    sections=(Section("laya"),),
    local_judge="laya serve",
)
