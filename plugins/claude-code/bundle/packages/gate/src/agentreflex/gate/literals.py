"""Secret literals in text: typed on a command line, or about to be written to a file.

Found with core's one rule set (``agentreflex.core.redact.find_secrets``) so
the gate and every log, state file and judge request agree on what a secret
is.  A module of its own because every shell command is scanned
(``analyze``) while the rest of :mod:`secrets` is only needed once a command
is parsed.
"""

from __future__ import annotations

from agentreflex.core.redact import find_secrets as _core_find
from agentreflex.core.redact import redact

MAX_SCAN = 200_000


def find_secrets(text: str) -> list[str]:
    """Names of the secret formats found in ``text`` (empty when none)."""
    if not text:
        return []
    return [m.rule for m in _core_find(text[:MAX_SCAN])]


def redacted_excerpt(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text`` redacted, redacted before the cut
    (a cut first could leave half a secret that no rule recognises)."""
    return redact(text[: limit + 400])[:limit]
