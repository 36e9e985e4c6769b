"""The rules: one module per family, each reading the shell model's commands.

A rule returns hits (:class:`agentreflex.gate.model.Hit`); the policy engine
turns hits into a decision.
"""
