"""One entry point for redaction, whatever version of core is installed.

Core owns redaction (``agentreflex.core.redact``).  It is looked up at call
time so this package keeps working against a core that predates it; in that
case a small built-in pass masks the most common secret shapes.  Either way
every string the judge sends or stores goes through :func:`redact` first.
"""

from __future__ import annotations

from agentreflex.core.lazyre import LazyPattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_FALLBACK_PATTERNS = (
    LazyPattern(
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
    ),
    LazyPattern(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    LazyPattern(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}"),
    LazyPattern(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    LazyPattern(r"\bxox[baprs]-[A-Za-z0-9\-]{10,}"),
    LazyPattern(r"\bAIza[0-9A-Za-z_\-]{30,}"),
    LazyPattern(r"(?i)\bbearer\s+[A-Za-z0-9._\-]{12,}"),
    LazyPattern(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
)
_ASSIGNMENT = LazyPattern(
    r"(?i)\b([A-Z0-9_]*(?:secret|passwd|password|token|api[_-]?key|private[_-]?key)[A-Z0-9_]*)"
    r"(\s*[:=]\s*)([\"']?)([^\s\"']{4,})"
)

_impl: Callable[[str], str] | None = None


def _fallback(text: str) -> str:
    for pattern in _FALLBACK_PATTERNS:
        text = pattern.sub("[REDACTED]", text)
    return _ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}[REDACTED]", text)


def _load() -> Callable[[str], str]:
    import importlib

    try:
        module = importlib.import_module("agentreflex.core.redact")
    except ImportError:
        return _fallback
    fn = getattr(module, "redact", None)
    if not callable(fn):
        return _fallback

    def core_then_fallback(text: str) -> str:
        # Core's pass is authoritative; the local one is a cheap second net.
        return _fallback(str(fn(text)))

    return core_then_fallback


def redact(text: str) -> str:
    """``text`` with secrets masked.  Never raises."""
    global _impl
    if _impl is None:
        _impl = _load()
    try:
        return _impl(text)
    except Exception:  # a broken redactor must not leak: mask everything
        return "[REDACTED]"
