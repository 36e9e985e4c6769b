"""One entry point for redaction in the judge: core's rule set, never raising.

Core owns the one definition of a secret (``agentreflex.core.redaction.redact``);
every string the judge sends or stores goes through :func:`redact` first.
A broken redactor must not leak, so an error masks the whole text.
"""

from __future__ import annotations

from agentreflex.core.redaction.redact import redact as _core_redact


def redact(text: str) -> str:
    """``text`` with secrets masked.  Never raises."""
    try:
        return _core_redact(text)
    except Exception:  # a broken redactor must not leak: mask everything
        return "[REDACTED]"


def redact_shown(value: object) -> object:
    """A tool input's value about to be formatted into text, redacted as a value first
    (core's ``redact_shown``).  Never raises."""
    from agentreflex.core.redaction.redact import redact_shown as _core_shown

    try:
        return _core_shown(value)
    except Exception:  # a broken redactor must not leak: mask everything
        return "[REDACTED]"


def redact_line(text: str, limit: int) -> str:
    """``text`` as one line of at most ``limit`` characters, redacted before it is cut
    (core's ``redact_line``).  Never raises."""
    from agentreflex.core.redaction.redact import redact_line as _core_line

    try:
        return _core_line(text, limit)
    except Exception:  # a broken redactor must not leak: mask everything
        return "[REDACTED]"
