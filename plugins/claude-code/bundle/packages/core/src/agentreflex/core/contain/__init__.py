"""Containment: the OS boundary around the agent's shell commands, and the per-host check."""
