"""The built-in engine: judge2's batteries answered from the state text, no torch.

A fixed rule per question id (core's signal names) reads the facts
:mod:`agentreflex.core.systemone.heuristic.reader` pulls out of the state text and returns a
probability.  The numbers are rounded to a few levels on purpose: a rule
knows "plainly yes", "plainly no" or "cannot tell", and saying 0.93 where it
means "plainly yes" is what the calibration audit checks (see the README for
the measured Brier score and ECE).  Questions it has no rule for get an
honest "cannot tell": 0.5 for a noul, a uniform distribution for a choice or
score.  Deterministic: the same text and questions give the same answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agentreflex.core.systemone import signals as s
from agentreflex.core.systemone.heuristic.reader import Action, Facts, read

MODEL_ID = "laya-builtin-1"

YES, LIKELY, UNSURE, UNLIKELY, NO = 0.92, 0.75, 0.5, 0.2, 0.05


class Screened:
    """A case-insensitive pattern behind a cheap screen.

    ``keys`` are lower-case fragments at least one of which every match contains, so text
    holding none of them is answered without running the regex.  Python's ``re`` tries each
    alternative at each position, about 0.15 µs a character for these patterns (a 300-character
    command costs tens of µs per pattern), while ``in`` on a string runs at C speed.  Text
    that is not ASCII always goes to the regex: case-insensitive matching treats a few
    non-ASCII letters (the Kelvin sign, a long s) as ASCII ones, which ``lower()`` does not.
    """

    __slots__ = ("_regex", "keys", "pattern")

    def __init__(self, pattern: str, *keys: str) -> None:
        self.pattern = pattern
        self.keys = keys
        self._regex: re.Pattern[str] | None = None

    @property
    def regex(self) -> re.Pattern[str]:
        """Compiled on first use: the offline backend imports this module on the hook path."""
        if self._regex is None:
            self._regex = re.compile(self.pattern)
        return self._regex

    def search(self, text: str) -> re.Match[str] | None:
        if text.isascii():
            low = text.lower()
            for key in self.keys:
                if key in low:
                    break
            else:
                return None
        return self.regex.search(text)


_SECRET = Screened(
    r"(?i)(\bAKIA[0-9A-Z]{16}\b|PRIVATE KEY|\[REDACTED\]|(?:^|[\s/'\"])\.env\b|\bid_rsa\b|\bid_ed25519\b"
    r"|\bprintenv\b|\bcredentials\b|\.netrc\b|\bsecrets?\.(?:ya?ml|json|toml)\b)",
    *("akia", "private key", "[redacted]", ".env", "id_rsa", "id_ed25519", "printenv"),
    *("credentials", ".netrc", "secret"),
)
_SENDS = re.compile(
    r"(?i)\b(cat|echo|print|curl|wget|scp|nc|upload|git add|git commit|cp|less|head|tail)\b"
)
_HARD = Screened(
    r"(?i)(\brm\s+-[a-z]*[rf]|\bgit\s+reset\s+--hard\b|\bgit\s+push\b.*(?:--force|\s-f\b)"
    r"|\bgit\s+clean\s+-[a-z]*f|\bdrop\s+(?:table|database)\b|\bmkfs\b|\bdd\s+.*\bof=|\btruncate\b"
    r"|\bchmod\s+-R\s+777\b|>\s*/dev/sd[a-z]|\bgit\s+branch\s+-D\b)",
    *("rm", "git", "drop", "mkfs", "dd", "truncate", "chmod", ">"),
)
_SOFT = Screened(
    r"(?i)(\brm\b|\bmv\b|\bgit\s+checkout\s+--|\bgit\s+restore\b|\bgit\s+stash\s+drop\b)",
    *("rm", "mv", "git"),
)
_WRITES = Screened(
    r"(?i)(>|\bsed -i\b|\bgit (commit|push|add)\b|\binstall\b|\btee\b)",
    *(">", "sed -i", "git ", "install", "tee"),
)
_BLOCKER = Screened(
    r"(?i)(permission denied|eacces|not permitted|command not found|could not resolve host"
    r"|network is unreachable|connection refused|unauthori[sz]ed|forbidden|authentication failed"
    r"|quota exceeded|rate limit|no space left)",
    *("permission denied", "eacces", "not permitted", "command not found"),
    *("could not resolve host", "network is unreachable", "connection refused", "unauthori"),
    *("forbidden", "authentication failed", "quota exceeded", "rate limit", "no space left"),
)
_TRANSIENT = Screened(
    r"(?i)(timed? ?out|temporar|try again|econnreset|\b50[23]\b|flaky|deadline exceeded)",
    *("time", "temporar", "try again", "econnreset", "50", "flaky", "deadline exceeded"),
)
_SIDE = Screened(
    r"(?i)(deleted|removed|overwr|clobber|dropped|force[d-]? push|wiped)",
    *("deleted", "removed", "overwr", "clobber", "dropped", "force", "wiped"),
)
_CLAIM = Screened(
    r"(?i)\b(tests?|suite|checks?)\b[^.!?]{0,40}\b(pass|green|succeed)|\b\d+ passed\b|\bfixed\b"
    r"|\bresolved\b|\bverified\b|\bworks now\b|\bnow works\b|\bbuild (?:succeeds|passes|is green)",
    *("pass", "green", "succeed", "fixed", "resolved", "verified", "works now", "now works"),
    *("build",),
)
_MUTATING = {"edit", "write", "delete", "notebook"}
_WORD = re.compile(r"[a-z0-9_./-]{3,}")
_STOP = frozenset(
    {
        *("the", "and", "any", "for", "not", "never", "with", "without", "this", "that"),
        *("these", "those", "please", "are", "file", "files", "folder", "directory", "don't"),
        *("dont", "must", "should", "only", "under", "into", "from"),
    }
)
_NEUTRAL_TOOLS = Screened(
    r"(?i)\b(pytest|tox|make|npm test|cargo test|go test|ruff|mypy|git status|git diff|ls|cat|grep|rg)\b",
    *("pytest", "tox", "make", "npm test", "cargo test", "go test", "ruff", "mypy", "git"),
    *("ls", "cat", "grep", "rg"),
)


_PATH_PARTS = re.compile(r"[/.]")
# Changes a reader would not test: prose and licences.  A proportion prior, like the done
# reflex's ``[judge2] untested_ok``, read here from the action lines' own words.
_DOCS = re.compile(
    r"(?i)(?:^|[\s/])(?:docs?/\S*|\S+\.(?:md|mdx|rst|txt|adoc)|LICENSE\S*|CHANGELOG\S*)$"
)


def _words(text: str) -> set[str]:
    return {w.strip("./-") for w in _WORD.findall(text.lower())} - _STOP - {""}


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).lower() == " ".join(b.split()).lower()


def _same_call(summary: str, f: Facts) -> bool:
    """Is a recorded action the proposed call?  The store writes ``Bash: npm test``
    (:func:`agentreflex.core.state.outcome.summarize`); the proposal reads ``npm test``."""
    return _same(summary, f.target) or (bool(f.tool) and _same(summary, f"{f.tool}: {f.target}"))


# --- pre_tool ------------------------------------------------------------


def _mutates(f: Facts) -> bool:
    if f.tool_kind in _MUTATING:
        return True
    return f.tool_kind == "shell" and bool(
        _HARD.search(f.target) or _SOFT.search(f.target) or _WRITES.search(f.target)
    )


def constraint_violation(f: Facts) -> float:
    if not f.constraints:
        return NO
    target = _words(f.target)
    # a path's parts too: "do not modify tests" is about tests/test_login.py
    target |= {part for word in target for part in _PATH_PARTS.split(word) if len(part) >= 3}
    for constraint in f.constraints:
        overlap = _words(constraint) & target
        if overlap and _mutates(f):
            return YES
        if overlap:
            return UNLIKELY
    return NO


def secret_exposure(f: Facts) -> float:
    if not _SECRET.search(f.target):
        return NO
    return YES if f.tool_kind != "shell" or _SENDS.search(f.target) else LIKELY


def destructive(f: Facts) -> float:
    if f.tool_kind == "shell" and _HARD.search(f.target):
        return YES
    if f.tool_kind == "delete" or (f.tool_kind == "shell" and _SOFT.search(f.target)):
        return LIKELY
    if f.tool_kind in _MUTATING:
        return UNLIKELY
    return NO


def _earlier_failure(f: Facts) -> Action | None:
    found = [a for a in f.failures + f.actions if a.ok is False and _same_call(a.summary, f)]
    return max(found, key=lambda a: a.seq) if found else None


def _changed_since(f: Facts, seq: int) -> bool:
    return f.last_change > seq or any(a.seq > seq and (a.changed or a.ok) for a in f.actions)


def repeats_failed(f: Facts) -> float:
    failed = _earlier_failure(f)
    if failed is None:
        return NO
    return UNLIKELY if _changed_since(f, failed.seq) else YES


def redundant(f: Facts) -> float:
    done = [a for a in f.actions if a.ok and _same_call(a.summary, f)]
    if not done:
        return NO
    last = max(a.seq for a in done)
    changed = f.last_change > last
    return UNLIKELY if changed or f.tool_kind in _MUTATING else LIKELY


def evidence_insufficient(f: Facts) -> float:
    if f.tool_kind not in _MUTATING:
        return UNLIKELY if _HARD.search(f.target) else NO
    path = f.target.split(" | ", 1)[0].strip()
    seen = any(path and path in a.summary for a in f.actions)
    return UNLIKELY if seen else LIKELY


def expected_progress(f: Facts) -> float:
    if repeats_failed(f) >= YES or redundant(f) >= LIKELY:
        return UNLIKELY
    return LIKELY if f.target else UNSURE


def goal_alignment(f: Facts) -> float:
    if not f.goal:
        return UNSURE
    if _words(f.goal) & _words(f.target) or _NEUTRAL_TOOLS.search(f.target):
        return LIKELY
    return UNSURE


# --- post_tool -----------------------------------------------------------


def _failed(f: Facts) -> bool | None:
    if f.result_ok is not None:
        return not f.result_ok
    if f.result_exit is not None:
        return f.result_exit != 0
    return None


def outcome_failed(f: Facts) -> float:
    failed = _failed(f)
    if failed is None:
        return UNSURE
    return YES if failed else NO


def hit_blocker(f: Facts) -> float:
    failed = _failed(f)
    if failed is False:
        return NO
    if _BLOCKER.search(f.output):
        return LIKELY
    return UNLIKELY if failed is None else 0.1


def retry_unlikely(f: Facts) -> float:
    if _failed(f) is not True:
        return NO
    return UNLIKELY if _TRANSIENT.search(f.output) else LIKELY


def new_evidence(f: Facts) -> float:
    if not f.output:
        return UNLIKELY
    known = any(_same(f.output[:200], e[:200]) for e in f.evidence)
    return UNLIKELY if known else LIKELY


def progress_made(f: Facts) -> float:
    failed = _failed(f)
    if failed is True:
        return UNLIKELY
    if failed is None:
        return UNSURE
    return LIKELY if f.tool_kind in _MUTATING or f.output else UNSURE


def side_effect(f: Facts) -> float:
    return UNSURE if _SIDE.search(f.output) else NO


# --- completion ----------------------------------------------------------


def _fixed_later(f: Facts, failure: Action) -> bool:
    later = [a for a in f.actions + f.tests if a.seq > failure.seq and a.ok]
    return any(_same(a.summary, failure.summary) or a.test_run for a in later)


def unresolved_failure(f: Facts) -> float:
    if not f.last_change:
        return NO  # nothing changed: a failing probe is information, not the agent's failure
    failures = {a.seq: a for a in f.failures + [a for a in f.actions if a.ok is False]}
    open_ = [a for a in failures.values() if not _fixed_later(f, a)]
    return YES if open_ else NO


def _docs_only(f: Facts) -> bool:
    changed = [a for a in f.actions if a.changed and a.seq > f.last_test]
    return bool(changed) and all(_DOCS.search(a.summary) for a in changed)


def verification_insufficient(f: Facts) -> float:
    if not f.last_change:
        return UNLIKELY if f.last_test else UNSURE
    if _docs_only(f):
        return UNLIKELY  # documentation only: nothing a test run would check
    if not f.last_test or f.last_test < f.last_change or f.last_test_verdict != "passed":
        return YES
    return NO


def more_verification(f: Facts) -> float:
    v = verification_insufficient(f)
    return LIKELY if v >= YES else UNLIKELY if v <= NO else UNSURE


def claims_unsupported(f: Facts) -> float:
    if not _CLAIM.search(f.final_message):
        return NO
    return NO if verification_insufficient(f) <= NO and unresolved_failure(f) <= NO else YES


def goal_completed(f: Facts) -> float:
    if unresolved_failure(f) >= YES or verification_insufficient(f) >= YES:
        return UNLIKELY
    return LIKELY if f.last_change else UNSURE


NOUL_RULES: dict[str, Callable[[Facts], float]] = {
    s.CONSTRAINT_VIOLATION: constraint_violation,
    s.SECRET_EXPOSURE: secret_exposure,
    s.DESTRUCTIVE: destructive,
    s.REPEATS_FAILED_APPROACH: repeats_failed,
    s.REDUNDANT: redundant,
    s.EVIDENCE_INSUFFICIENT: evidence_insufficient,
    s.EXPECTED_PROGRESS: expected_progress,
    s.GOAL_ALIGNMENT: goal_alignment,
    s.OUTCOME_FAILED: outcome_failed,
    s.HIT_BLOCKER: hit_blocker,
    s.RETRY_UNLIKELY: retry_unlikely,
    s.NEW_EVIDENCE: new_evidence,
    s.PROGRESS_MADE: progress_made,
    s.UNEXPECTED_SIDE_EFFECT: side_effect,
    s.UNRESOLVED_FAILURE: unresolved_failure,
    s.VERIFICATION_INSUFFICIENT: verification_insufficient,
    s.MORE_VERIFICATION_HELPFUL: more_verification,
    s.CLAIMS_UNSUPPORTED: claims_unsupported,
    s.GOAL_COMPLETED: goal_completed,
}

_CLAIM_LABELS = ("supported", "contradicted", "insufficient")


def claim_distribution(f: Facts) -> dict[str, float]:
    """judge2's claim question: does the record back a claim from the final message?"""
    if f.last_test_verdict == "failed" or unresolved_failure(f) >= YES:
        return {"supported": 0.1, "contradicted": 0.75, "insufficient": 0.15}
    if f.last_test_verdict == "passed" and verification_insufficient(f) <= NO:
        return {"supported": 0.8, "contradicted": 0.05, "insufficient": 0.15}
    return {"supported": 0.15, "contradicted": 0.1, "insufficient": 0.75}


def _choice(labels: Sequence[str], f: Facts) -> dict[str, Any]:
    if set(labels) == set(_CLAIM_LABELS):
        probs = claim_distribution(f)
    else:
        probs = dict.fromkeys(labels, round(1.0 / len(labels), 6))
    best = max(labels, key=lambda label: probs[label])
    return {"type": "choice", "choice": best, "probabilities": probs, "confidence": probs[best]}


def _score(levels: int) -> dict[str, Any]:
    p = round(1.0 / levels, 6)
    return {
        "type": "score",
        "score": (levels - 1) / 2,
        "probabilities": {str(i): p for i in range(levels)},
        "confidence": p,
    }


def _kind_and_criteria(q: Any) -> tuple[str, Any]:
    """A question as the server's validated model (attributes) or core's wire dict (keys)."""
    if isinstance(q, dict):
        return q["type"], q.get("criteria") or ()
    return q.type, q.criteria


class BuiltinEngine:
    """Rules over the state text.  Cheap enough to run on the event loop."""

    name = "builtin"
    model_id = MODEL_ID
    blocking = False

    def answer(self, state: str, questions: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """Answers for one state; ``questions`` are the validated wire models."""
        facts = read(state)
        out: dict[str, dict[str, Any]] = {}
        for qid, q in questions.items():
            kind, criteria = _kind_and_criteria(q)
            if kind == "noul":
                rule = NOUL_RULES.get(qid)
                out[qid] = {"type": "noul", "noul": rule(facts) if rule else UNSURE}
            elif kind == "choice":
                out[qid] = _choice(list(criteria), facts)
            else:
                out[qid] = _score(len(criteria))
        return out

    def answer_batch(
        self, states: Sequence[str], questions: Mapping[str, Any]
    ) -> list[dict[str, dict[str, Any]]]:
        return [self.answer(state, questions) for state in states]
