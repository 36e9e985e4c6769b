"""Completion and causal claims in visible assistant text.

A claim only matters while an obligation is open; these detectors just say
whether a clause claims completion ("done", "fixed", "resolved") or a root
cause ("the root cause is ...", "caused by ...", "rules out ..."), ignoring
negated and hedged forms ("not fixed yet", "might be caused by") and the
``Resolved:`` closing form itself.
"""

from __future__ import annotations

import re

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.guard.classifier import clauses

_COMPLETION = LazyPattern(
    r"\b(done|fixed|resolved|completed?|finished|all (?:tests |checks )?(?:pass|passing|green)|"
    r"works now|is working now|now works|good to go|ready to merge|ship it)\b",
    re.I,
    hints="done fixed resolved complete finished pass green works working good ready ship",
)
_CAUSAL = LazyPattern(
    r"\b(root[- ]cause (?:is|was|has been)|(?:is|was|were) caused by|the cause (?:is|was)|"
    r"(?:this|that|it) (?:is|was) (?:due to|because of)|rules? out|ruled out|"
    r"(?:is|was) not the cause|can(?:not|'t) be the cause|culprit (?:is|was))\b",
    re.I,
    hints="cause rule culprit due because",
)
_NEGATED = LazyPattern(
    r"\b(not|n't|never|no longer|yet to|until|once|when|if|before|after|whether|might|may|"
    r"could|possibly|perhaps|likely|suspect|hypothes\w*|probably|unclear|unknown|remains?)\b",
    re.I,
)
_CLOSING_FORM = LazyPattern(r"^[\s>*_`-]*(Resolved|Deferred):", re.I, hints="resolved deferred")


def claims_completion(text: str) -> bool:
    """True when some clause asserts the work is done, fixed or resolved."""
    return _claims(text, _COMPLETION)


def claims_cause(text: str) -> bool:
    """True when some clause attributes a root cause or prunes a branch."""
    return _claims(text, _CAUSAL)


def _claims(text: str, pattern: LazyPattern) -> bool:
    for line in text[:20000].splitlines():
        if _CLOSING_FORM.match(line):
            continue
        for clause in clauses(line):
            m = pattern.search(clause)
            if m and not _NEGATED.search(
                clause[: m.start()] + " " + clause[m.end() : m.end() + 24]
            ):
                return True
    return False
