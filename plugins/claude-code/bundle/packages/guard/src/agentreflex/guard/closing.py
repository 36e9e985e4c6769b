"""The visible forms that close an obligation, and the mitigation rule.

``Resolved: <check>; evidence: <...>; conclusion: <...>.`` binds evidence to
a conclusion.  ``Deferred: <check>; reason: <...>; decision impact: <...>;
reopen when: <...>.`` records a complete, bounded deferral.  A form with an
empty or missing field is incomplete and closes nothing.  A statement that
is labelled temporary or a mitigation and says the root cause is still
unresolved is recorded as a mitigation: it allows a fail-closed change but
never resolves the obligation.
"""

from __future__ import annotations

import re

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import record
from agentreflex.guard import DEFERRED_WORD, RESOLVED_WORD, ROOT_WORD

_RESOLVED = LazyPattern(
    r"(?im)^[\s>*_`-]*Resolved:\s*(?P<ref>[^;\n]*);\s*evidence:\s*(?P<evidence>[^;\n]*);"
    r"\s*conclusion:\s*(?P<conclusion>[^\n]*)$",
    hints=RESOLVED_WORD,
)
_DEFERRED = LazyPattern(
    r"(?im)^[\s>*_`-]*Deferred:\s*(?P<ref>[^;\n]*);\s*reason:\s*(?P<reason>[^;\n]*);"
    r"\s*decision impact:\s*(?P<impact>[^;\n]*);\s*reopen when:\s*(?P<reopen>[^\n]*)$",
    hints=DEFERRED_WORD,
)
_MITIGATION_LABEL = LazyPattern(
    r"\b(temporary|temporarily|mitigation|stop-?gap|workaround)\b",
    re.I,
    hints="temporar mitigation stop workaround",
)
_ROOT_OPEN = LazyPattern(
    r"\broot[- ]cause\b[^.;\n]{0,60}\b(remains?|is|stays?|still)\b[^.;\n]{0,20}"
    r"\b(unresolved|unknown|open|unconfirmed|not (yet )?(known|resolved|fixed|identified))\b"
    r"|\b(unresolved|unknown) root[- ]cause\b",
    re.I,
    hints=ROOT_WORD,
)


@record(frozen=True)
class Closing:
    """One parsed ``Resolved:`` or ``Deferred:`` form."""

    kind: str  # "resolved" | "deferred"
    ref: str
    fields: dict[str, str]


def _clean(value: str) -> str:
    return value.strip().strip("`*_").strip().rstrip(".").strip()


def find_closings(text: str) -> list[Closing]:
    """Every complete closing form in ``text``; incomplete ones are skipped."""
    out: list[Closing] = []
    for m in _RESOLVED.finditer(text):
        fields = {k: _clean(m[k]) for k in ("evidence", "conclusion")}
        if _clean(m["ref"]) and all(fields.values()) and not is_mitigation(m[0]):
            out.append(Closing("resolved", _clean(m["ref"]), fields))
    for m in _DEFERRED.finditer(text):
        fields = {k: _clean(m[k]) for k in ("reason", "impact", "reopen")}
        if _clean(m["ref"]) and all(fields.values()):
            out.append(Closing("deferred", _clean(m["ref"]), fields))
    return out


def has_incomplete_closing(text: str) -> bool:
    """True when a ``Resolved:``/``Deferred:`` line exists but did not parse completely."""
    starts = len(re.findall(r"(?im)^[\s>*_`-]*(Resolved|Deferred):", text))
    return starts > len(find_closings(text))


def is_mitigation(text: str) -> bool:
    """Labelled temporary/mitigation AND says the root cause remains unresolved."""
    return bool(_MITIGATION_LABEL.search(text)) and bool(_ROOT_OPEN.search(text))
