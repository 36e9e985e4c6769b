"""Claims against evidence.

An agent's final message says things like "all tests pass" or "fixed the
race".  A claim that cites output in quotes ("12 passed") can be checked
without any model: if that text appears in no recorded output, the quote was
made up.  Any other claim becomes a ``choice`` question for the judge:
supported, contradicted or insufficient.

Stdlib only (the done reflex imports this on the hook path).
"""

from __future__ import annotations

import re

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import record
from agentreflex.judge2.redaction import redact_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from agentreflex.core.systemone.wire import ChoiceQuestion

SUPPORTED = "supported"
CONTRADICTED = "contradicted"
INSUFFICIENT = "insufficient"
FABRICATED = "fabricated"
UNDECIDED = "undecided"
CHOICE_LABELS = (SUPPORTED, CONTRADICTED, INSUFFICIENT)

MAX_CLAIMS = 3
CLAIM_ID_PREFIX = "claim_"

_KINDS: tuple[tuple[str, LazyPattern], ...] = (
    (
        "tests_pass",
        LazyPattern(
            r"\b(?:tests?|specs?|suite|checks?)\b[^.!?\n]{0,40}?"
            r"\b(?:pass(?:es|ed|ing)?|green|succeed(?:s|ed)?)\b"
            r"|\b\d+\s+(?:tests?\s+)?passed\b",
            re.IGNORECASE,
        ),
    ),
    ("fixed", LazyPattern(r"\b(?:fixed|resolved|solved|repaired)\b", re.IGNORECASE)),
    ("verified", LazyPattern(r"\b(?:verified|confirmed|validated)\b", re.IGNORECASE)),
    (
        "builds",
        LazyPattern(
            r"\b(?:build|compil(?:e|es|ation))\b[^.!?\n]{0,30}?"
            r"\b(?:succeed(?:s|ed)?|pass(?:es|ed)?|works|clean(?:ly)?|green)\b",
            re.IGNORECASE,
        ),
    ),
    ("works", LazyPattern(r"\b(?:now\s+works|works\s+now|is\s+working)\b", re.IGNORECASE)),
)
_NEGATION = LazyPattern(
    r"\b(?:not|never|no longer|unable|cannot|yet to)\b|n't\b|\bstill\s+fail", re.IGNORECASE
)
_CLAUSE_BREAK = LazyPattern(
    r"\s*[,;:\u2014]\s*|\s+-\s+|\s+(?:but|and|while|whereas|although|though|however)\s+",
    re.IGNORECASE,
)
_SENTENCE_BREAK = LazyPattern(r"(?<=[.!?])\s+|\n+")
_QUOTE = LazyPattern(r"\"([^\"\n]{4,200})\"|“([^”\n]{4,200})”")
_PUNCTUATION = LazyPattern(r"[^\w%./:-]+")  # what normalise() turns into spaces


@record(frozen=True)
class Claim:
    """One success claim from a message: its kind, sentence and any quoted output."""

    kind: str
    text: str
    quote: str = ""


@record(frozen=True)
class ClaimCheck:
    """The outcome of checking one claim.  ``status`` is one of the labels above."""

    claim: Claim
    status: str
    reason: str
    probabilities: Mapping[str, float] | None = None


def extract_claims(message: str, limit: int = MAX_CLAIMS) -> list[Claim]:
    """Success claims in ``message``, in order, one per sentence, at most ``limit``.

    Negated sentences ("tests do not pass yet") are not success claims.
    """
    if not message:
        return []  # nothing to read, and no pattern compiled for it
    claims: list[Claim] = []
    for raw in _SENTENCE_BREAK.split(message):
        sentence = " ".join(raw.split())
        kind = _claim_kind(sentence)
        if kind is None:
            continue
        quote = next((q for q in _quotes(sentence)), "")
        # redacted before it is cut (core's redact_line): the judge's question and the
        # stop's reason carry it, and a cut first keeps the head of a secret no rule knows
        claims.append(Claim(kind=kind, text=redact_line(raw, 300), quote=quote))
        if len(claims) >= limit:
            break
    return claims


def _claim_kind(sentence: str) -> str | None:
    """The first claim in a clause that is not negated: negation is per clause.

    "All tests pass, and nothing isn't working" still claims the tests pass;
    "the tests don't pass yet, but the build succeeds" claims the build.
    """
    for clause in _CLAUSE_BREAK.split(sentence):
        if not clause or _NEGATION.search(clause):
            continue
        for kind, pattern in _KINDS:
            if pattern.search(clause):
                return kind
    return None


def _quotes(sentence: str) -> Iterable[str]:
    for m in _QUOTE.finditer(sentence):
        yield (m.group(1) or m.group(2)).strip()


def normalise(text: str) -> str:
    """Lower case, punctuation-light, single-spaced: how quotes are compared."""
    return " ".join(_PUNCTUATION.sub(" ", text.lower()).split())


def quote_in_evidence(quote: str, evidence: Sequence[str]) -> bool:
    """Whether ``quote`` appears (normalised) in any piece of evidence."""
    needle = normalise(quote)
    return bool(needle) and any(needle in normalise(piece) for piece in evidence)


def check_claim(claim: Claim, evidence: Sequence[str]) -> ClaimCheck:
    """The deterministic part: a quote absent from the evidence is fabricated."""
    if claim.quote and not quote_in_evidence(claim.quote, evidence):
        reason = f'the quoted output "{claim.quote}" appears in no recorded output'
        return ClaimCheck(claim, FABRICATED, reason)
    return ClaimCheck(claim, UNDECIDED, "needs the judge")


def claim_question(claim: Claim) -> ChoiceQuestion:
    """The choice question asking whether the session's evidence backs ``claim``."""
    # Only the judge asks claim questions: the done reflex alone never loads the wire module.
    from agentreflex.core.systemone.wire import choice

    text = f'Does the recorded evidence back this claim from the final message: "{claim.text}"?'
    return choice(
        text,
        {
            SUPPORTED: "a recorded output or test run after the last change shows it true",
            CONTRADICTED: "a recorded output shows it false (a failure, an error, a failing test)",
            INSUFFICIENT: "nothing recorded shows it either way",
        },
    )


def claim_id(index: int) -> str:
    return f"{CLAIM_ID_PREFIX}{index + 1}"


def resolve(claim: Claim, probabilities: Mapping[str, float]) -> ClaimCheck:
    """The judge's most probable label for ``claim`` (ties go to insufficient)."""
    order = (INSUFFICIENT, CONTRADICTED, SUPPORTED)
    label = max(order, key=lambda lab: probabilities.get(lab, 0.0))
    p = probabilities.get(label, 0.0)
    return ClaimCheck(claim, label, f"judge: {label} ({p:.2f})", dict(probabilities))
