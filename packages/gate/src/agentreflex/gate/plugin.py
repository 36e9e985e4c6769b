"""agentreflex-gate's declaration: the gate reflex (first: the safety floors), ``agentreflex gate``, ``[gate]``."""

from __future__ import annotations

from agentreflex.core.plugin import Command, Plugin, PolicyFile, ReflexEntry, Section

PLUGIN = Plugin(
    name="gate",
    reflexes=(
        ReflexEntry(
            "gate",
            "agentreflex.gate.reflex:GateReflex",
            order=10,
            events=("user_prompt", "pre_tool"),
        ),
    ),
    commands=(Command("gate", "agentreflex.gate.catalogue:command"),),
    sections=(Section("gate"),),
    self_test="rm -rf ~/",
    # discards inside the project: a snapshot taken before them holds all they destroy
    undoable=(
        "GATE-RM-UNCOMMITTED",
        "GATE-GIT-DISCARD-FILES",
        "GATE-GIT-DISCARD-TREE",
        "GATE-GIT-RESET-HARD",
        "GATE-GIT-CLEAN",
        "GATE-GIT-STASH-DROP",  # relaxed only when the snapshot holds the stash (core/worktree)
        "GATE-GIT-ABORT",  # only `git merge --abort`, its work tree saved
    ),
    files=(
        PolicyFile(
            "gate-allow",
            "agentreflex.gate.policyfiles:AllowFile",
            "gate/allow.schema.json",
            names=("allow.toml", "allow.example.toml"),
            paths=(".agentreflex/allow.toml",),
        ),
        PolicyFile(
            "gate-rules",
            "agentreflex.gate.policyfiles:GateRulesFile",
            "gate/rules.schema.json",
            names=("rules.toml", "gate-rules.toml"),
            paths=(".agentreflex/gate-rules.toml", "policies/gate/rules.toml"),
        ),
    ),
)
