"""agentreflex.instructions — the project's rules for agents, read and enforced.

Reads AGENTS.md, CLAUDE.md, GEMINI.md, Copilot and Cursor rule files (nested
ones govern their subtree), turns the checkable sentences into rules with
``file:line``, blocks proposed edits and commands that break them, holds a
stop until required commands ran, and renders one managed section into every
host's instruction file from ``policies/instructions.md``.  See README.md.
"""
