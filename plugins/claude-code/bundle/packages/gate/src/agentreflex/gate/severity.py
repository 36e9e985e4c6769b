"""A graded finding's decision depends on the profile: severity in, decision out.

Pack entries (and the few rules whose scope narrows them) grade a hit
``high``, ``medium`` or ``low`` instead of deciding it.  ``packs/severity.tsv``
maps each grade to ``block``, ``ask`` or ``warn`` per profile (issue 22
item 6): high blocks everywhere; medium asks the user in ``balanced`` and
``thorough`` and only warns in ``lean``, the profile that trades checks for
flow; low warns.  The table is data, read only when a graded hit exists.
"""

from __future__ import annotations

import os

from agentreflex.gate.model import ASK, DESTRUCTIVE, P_BLOCK, P_WARN, Hit

_PATH = os.path.join(os.path.dirname(__file__), "packs", "severity.tsv")
_PROFILES = ("lean", "balanced", "thorough")
_DECISIONS = ("block", "ask", "warn")
_TABLE: dict[str, dict[str, str]] = {}


def table() -> dict[str, dict[str, str]]:
    """severity -> profile -> decision, from ``packs/severity.tsv`` (read once)."""
    if not _TABLE:
        with open(_PATH, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("#") or not line.strip():
                    continue
                grade, *cells = line.split()
                if len(cells) != len(_PROFILES) or not set(cells) <= set(_DECISIONS):
                    raise ValueError(f"{_PATH}: bad row {line.strip()!r}")
                _TABLE[grade] = dict(zip(_PROFILES, cells, strict=True))
    return _TABLE


def decision(severity: str, profile: str) -> str:
    """``block``, ``ask`` or ``warn`` for ``severity`` in ``profile``.

    An unknown grade blocks (a floor fails closed); an unknown profile (or
    ``off``, which runs no reflex) is judged as ``lean``.
    """
    row = table().get(severity)
    if row is None:
        return "block"
    return row.get(profile, row["lean"])


def resolve(hits: list[Hit], profile: str) -> list[Hit]:
    """``hits`` with each graded one turned into the category and strength its profile says."""
    out: list[Hit] = []
    for h in hits:
        if not h.severity:
            out.append(h)
            continue
        made = decision(h.severity, profile)
        if made == "ask":
            out.append(Hit(h.rule, ASK, h.probability, h.segment, h.message, h.severity))
        else:
            p = P_BLOCK if made == "block" else P_WARN
            kind = DESTRUCTIVE if h.category == ASK else h.category
            out.append(Hit(h.rule, kind, p, h.segment, h.message, h.severity))
    return out
