"""Where the guard keeps its files under ``<state_dir>/local/``.

In a module of its own so the check made before the engine (:mod:`quiet`)
can find them without importing the ledger code.
"""

from __future__ import annotations

import os
import re

SNAPSHOT = "reason_guard.json"
IGNORE = ".gitignore"
_HOSTS = {"claude-code": "claude", "claude": "claude", "codex": "codex", "opencode": "opencode"}
# The providers whose host writes a transcript a hook may read, and the module
# that knows its format and where it may be trusted (its ``ADAPTER``).  A host
# not listed here has none: the guard reads what the hook payload carries.
TRANSCRIPTS = {
    "claude": "agentreflex.guard.claude_transcript",
    "codex": "agentreflex.guard.codex_rollout",
    "gemini": "agentreflex.guard.gemini_chats",
    "copilot": "agentreflex.guard.copilot_events",
}


def provider_of(host: str) -> str:
    """Ledger name for a host (``claude-code`` -> ``claude``; others sanitised)."""
    low = host.strip().lower()
    return _HOSTS.get(low) or re.sub(r"[^a-z0-9]+", "_", low).strip("_")[:32] or "unknown"


def local_dir(state_dir: str) -> str:
    return os.path.join(state_dir, "local")


def ledger_path(state_dir: str, provider: str) -> str:
    return os.path.join(local_dir(state_dir), f"{provider}_reasoning_guard.json")


def hint_path(state_dir: str, provider: str) -> str:
    """The quiet-session hint (named so status never mistakes it for a ledger)."""
    return os.path.join(local_dir(state_dir), f"{provider}_guard_quiet.json")
