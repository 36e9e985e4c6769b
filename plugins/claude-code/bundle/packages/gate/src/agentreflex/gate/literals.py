"""Secret literals in text: typed on a command line, or about to be written to a file.

Found with core's redaction rules (``agentreflex.core.redact.find_secrets``) so
the gate and the log redactor agree on what a secret is.  If that module is
missing (an older core), a small built-in set of unambiguous formats is used
instead.

A module of its own because every shell command is scanned (``analyze``) while
the rest of :mod:`secrets` is only needed once a command is parsed.
"""

from __future__ import annotations

from agentreflex.core.lazyre import LazyPattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_FALLBACK = LazyPattern(
    r"(AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{60,}|"
    r"xox[baprs]-[A-Za-z0-9-]{10,}|sk-(?:proj-|ant-)?[A-Za-z0-9_-]{32,}|"
    r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,}|"
    r"sk_live_[0-9a-zA-Z]{24,}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z]{34})"
)

_finder: Callable[[str], list[Any]] | None = None


def _load_finder() -> Callable[[str], list[Any]] | None:
    global _finder
    if _finder is None:
        try:
            from agentreflex.core.redact import find_secrets

            _finder = find_secrets
        except Exception:  # an older core: use the built-in formats
            _finder = _fallback_find
    return _finder


class _Match:
    __slots__ = ("end", "rule", "start")

    def __init__(self, rule: str, start: int, end: int) -> None:
        self.rule, self.start, self.end = rule, start, end


def _fallback_find(text: str) -> list[Any]:
    return [_Match("builtin", m.start(), m.end()) for m in _FALLBACK.finditer(text)]


def find_secrets(text: str) -> list[str]:
    """Names of the secret formats found in ``text`` (empty when none)."""
    if not text:
        return []
    finder = _load_finder()
    try:
        found = finder(text[:200_000]) if finder else []
    except Exception:
        found = _fallback_find(text[:200_000])
    return [str(getattr(m, "rule", "secret")) for m in found]
