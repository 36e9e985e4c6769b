"""The offline heuristic backend: deterministic probabilities with no key and no network.

Seed 001's mock client.  It reads the session state and the event directly
(not the state text) and answers every question with a fixed rule, so the
whole layer works, and can be tested and demonstrated, offline.  The numbers
are honest guesses, not calibrated: they sit clearly above a threshold only
when the record makes the answer plain.

Stdlib only, and fast: it is what runs on every hook when no key is set.
"""

from __future__ import annotations

from agentreflex.core import signals as s
from agentreflex.core.events import ToolKind
from agentreflex.core.lazyre import LazyPattern
from agentreflex.core.state.outcome import is_mutation
from agentreflex.core.wire import (
    ChoiceAnswer,
    NoulAnswer,
    ScoreAnswer,
    SystemOneResponse,
    Usage,
)
from agentreflex.judge2 import claims as cl
from agentreflex.judge2.evidence import assess, unresolved_failures
from agentreflex.judge2.statetext import constraint_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from agentreflex.core.events import Event, ToolCall
    from agentreflex.core.state.model import SessionState
    from agentreflex.core.wire import Answer, Question, SystemOneRequest
    from agentreflex.judge2.backend import Subject

_SECRET = LazyPattern(
    r"(?i)(\bAKIA[0-9A-Z]{16}\b|-----BEGIN [A-Z ]*PRIVATE KEY|\bsk-[A-Za-z0-9_\-]{16,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}|(?:^|[\s/])\.env\b|\bid_rsa\b|\bprintenv\b|\bcredentials\b"
    r"|(?:password|secret|token|api[_-]?key)\s*[:=]\s*\S{6,})"
)
_DESTRUCTIVE_HARD = LazyPattern(
    r"(?i)(\brm\s+-[a-z]*[rf][a-z]*\b|\bgit\s+reset\s+--hard\b|\bgit\s+push\b.*(?:--force|\s-f\b)"
    r"|\bgit\s+clean\s+-[a-z]*f|\bdrop\s+(?:table|database)\b|\bmkfs\b|\bdd\s+.*\bof=|\btruncate\b"
    r"|\bchmod\s+-R\s+777\b|>\s*/dev/sd[a-z])"
)
_DESTRUCTIVE_SOFT = LazyPattern(
    r"(?i)(\brm\b|\bmv\b|\bgit\s+checkout\s+--|\bgit\s+restore\b|\bdel\b)"
)
_BLOCKER = LazyPattern(
    r"(?i)(permission denied|eacces|not permitted|command not found|no such file or directory"
    r"|could not resolve host|network is unreachable|connection refused|unauthori[sz]ed|forbidden"
    r"|authentication failed|quota exceeded|rate limit)"
)
_TRANSIENT = LazyPattern(r"(?i)(timed? ?out|temporar|try again|econnreset|503|502|flaky)")
_SIDE_EFFECT = LazyPattern(r"(?i)(deleted|removed|overwr|clobber|dropped|force[d-]? push)")
_MUTATING_WORDS = frozenset(
    [
        "modify",
        "modifies",
        "edit",
        "edits",
        "change",
        "changes",
        "touch",
        "delete",
        "remove",
        "write",
        "rewrite",
        "alter",
        "rename",
        "commit",
        "push",
        "run",
        "install",
    ]
)
_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "any",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "do",
        "not",
        "don't",
        "never",
        "no",
        "with",
        "without",
        "this",
        "that",
        "these",
        "those",
        "please",
        "it",
        "is",
        "are",
        "be",
        "file",
        "files",
        "folder",
        "directory",
    ]
)
_WORD = LazyPattern(r"[a-z0-9_]{3,}")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _target(tool: ToolCall | None) -> str:
    if tool is None:
        return ""
    return " ".join([tool.name, tool.command, tool.path, *tool.paths])


class OfflineBackend:
    """Heuristic answers.  ``model`` is reported as ``offline-heuristic``."""

    name = "offline"
    model = "offline-heuristic"
    cacheable = False
    calibrated = False

    def answer(self, request: SystemOneRequest, subject: Subject) -> SystemOneResponse:
        answers: dict[str, Answer] = {}
        for qid, question in request["questions"].items():
            answers[qid] = self._one(qid, question, subject)
        return SystemOneResponse(model=self.model, answers=answers, usage=Usage())

    def _one(self, qid: str, question: Question, subject: Subject) -> Answer:
        if question["type"] == "choice":
            return _claim_choice(qid, list(question["criteria"]), subject)
        if question["type"] == "score":
            n = len(question["criteria"])
            return ScoreAnswer(score=(n - 1) / 2, probabilities={str(i): 1 / n for i in range(n)})
        rule = _RULES.get(qid)
        p = rule(subject.state, subject.event) if rule else 0.5
        return NoulAnswer(noul=round(min(1.0, max(0.0, p)), 4))


# --- pre-tool --------------------------------------------------------------


def constraint_violation(state: SessionState, event: Event) -> float:
    tool = event.tool
    target = _words(_target(tool))
    # running or reading is not modifying: only calls that can change files violate
    acts = tool is not None and is_mutation(tool)
    best = 0.03
    for constraint in state.constraints:
        words = _words(constraint_text(constraint))
        subject_words = words - _MUTATING_WORDS
        overlap = subject_words & target or {
            w for w in subject_words if any(w in t for t in target)
        }
        if overlap and acts and words & _MUTATING_WORDS:
            best = max(best, 0.8)
        elif overlap:
            best = max(best, 0.35)
    return best


def secret_exposure(state: SessionState, event: Event) -> float:
    tool = event.tool
    if tool is None:
        return 0.02
    text = " ".join([tool.command, tool.path, tool.content[:4000]])
    return 0.8 if _SECRET.search(text) else 0.03


def destructive(state: SessionState, event: Event) -> float:
    tool = event.tool
    if tool is None:
        return 0.02
    if tool.kind is ToolKind.SHELL:
        if _DESTRUCTIVE_HARD.search(tool.command):
            return 0.85
        if _DESTRUCTIVE_SOFT.search(tool.command):
            return 0.4
        return 0.04
    if tool.kind is ToolKind.WRITE and tool.path and not tool.content:
        return 0.35  # emptying a file
    return 0.05


def _same_as(summary: str, tool: ToolCall | None) -> bool:
    if tool is None:
        return False
    key = tool.command or tool.path
    return bool(key) and " ".join(key.split()) in " ".join(summary.split())


def repeats_failed(state: SessionState, event: Event) -> float:
    failed = [
        f for f in state.failures if f.outcome == "failure" and _same_as(f.summary, event.tool)
    ]
    if not failed:
        return 0.05
    new_evidence = state.counters.last_evidence_seq > failed[-1].seq
    changed = state.counters.last_mutation_seq > failed[-1].seq
    if new_evidence or changed:
        return 0.3
    return 0.9 if len(failed) >= 2 else 0.6


def expected_progress(state: SessionState, event: Event) -> float:
    p = (
        0.75
        - 0.6 * repeats_failed(state, event)
        - 0.05 * min(state.counters.consecutive_failures, 5)
    )
    return max(0.05, p)


def redundant(state: SessionState, event: Event) -> float:
    tool = event.tool
    if tool is None or tool.mutates_files:
        return 0.05
    for action in reversed(state.actions[-10:]):
        if action.outcome == "success" and _same_as(action.summary, tool):
            changed = state.counters.last_mutation_seq > action.seq
            return 0.3 if changed else 0.7
    return 0.08


def evidence_insufficient(state: SessionState, event: Event) -> float:
    tool = event.tool
    if tool is None or not tool.mutates_files:
        return 0.1
    seen = " ".join(a.summary for a in state.actions) + " ".join(state.evidence)
    unseen = [p for p in tool.paths if p and p not in seen]
    if tool.kind is ToolKind.WRITE:
        return 0.2
    return 0.6 if unseen else 0.15


def goal_alignment(state: SessionState, event: Event) -> float:
    goal = _words(state.goal)
    if not goal:
        return 0.6
    target = _words(_target(event.tool) + " " + (event.tool.content[:500] if event.tool else ""))
    if goal & target:
        return 0.85
    return 0.55  # most steps (reads, test runs) do not name the goal's words


# --- post-tool -------------------------------------------------------------


def _failed(event: Event) -> bool | None:
    r = event.result
    if r is None:
        return None
    if r.ok is False or (r.exit_code not in (None, 0)) or r.interrupted:
        return True
    return False if r.ok else None


def _text(event: Event) -> str:
    r = event.result
    return "" if r is None else f"{r.error}\n{r.output[-4000:]}"


def outcome_failed(state: SessionState, event: Event) -> float:
    failed = _failed(event)
    return {True: 0.95, False: 0.05, None: 0.5}[failed]


def hit_blocker(state: SessionState, event: Event) -> float:
    if not _failed(event):
        return 0.03
    return 0.8 if _BLOCKER.search(_text(event)) else 0.15


def retry_unlikely(state: SessionState, event: Event) -> float:
    if not _failed(event):
        return 0.1
    if _TRANSIENT.search(_text(event)):
        return 0.25
    if any(_same_as(f.summary, event.tool) for f in state.failures):
        return 0.85
    return 0.6


def new_evidence(state: SessionState, event: Event) -> float:
    text = _text(event).strip()
    if not text:
        return 0.2
    known = " ".join(state.evidence)
    return 0.3 if text[:200] in known else 0.7


def progress_made(state: SessionState, event: Event) -> float:
    failed = _failed(event)
    if failed:
        return 0.15
    tool = event.tool
    if tool is not None and tool.mutates_files:
        return 0.7
    return 0.5 if failed is None else 0.55


def side_effect(state: SessionState, event: Event) -> float:
    return 0.4 if _SIDE_EFFECT.search(_text(event)) else 0.05


# --- completion ------------------------------------------------------------


def _message(state: SessionState, event: Event) -> str:
    return event.last_message or state.last_message


def unresolved_failure(state: SessionState, event: Event) -> float:
    c = state.counters
    if not c.last_mutation_seq:
        return 0.08  # nothing changed: a failing probe is information (evidence.assess)
    if c.last_verification_seq and c.last_verification_ok is False:
        return 0.9
    return 0.85 if unresolved_failures(state) else 0.08


def verification_insufficient(state: SessionState, event: Event) -> float:
    c = state.counters
    if not c.last_mutation_seq:
        return 0.1
    if c.last_mutation_seq > c.last_verification_seq:
        return 0.88 if assess(state).untested_change else 0.15  # documentation only
    return 0.15 if c.last_verification_ok else 0.6


def more_verification(state: SessionState, event: Event) -> float:
    c = state.counters
    if not c.last_mutation_seq:
        return 0.1
    return 0.8 if c.last_mutation_seq > c.last_verification_seq else 0.2


def claims_unsupported(state: SessionState, event: Event) -> float:
    ev = assess(state, _message(state, event))
    if not ev.claim_checks:
        return 0.05
    bad = [
        c for c in ev.claim_checks if c.status in (cl.FABRICATED, cl.CONTRADICTED, cl.INSUFFICIENT)
    ]
    return 0.9 if bad else 0.15


def goal_completed(state: SessionState, event: Event) -> float:
    c = state.counters
    if unresolved_failure(state, event) > 0.5:
        return 0.15
    if (
        c.last_mutation_seq
        and c.last_verification_ok
        and c.last_verification_seq > c.last_mutation_seq
    ):
        return 0.8
    return 0.45


def _claim_choice(qid: str, labels: list[str], subject: Subject) -> ChoiceAnswer:
    """Offline view of a claim: the record settles test claims; others stay open."""
    index = int(qid[len(cl.CLAIM_ID_PREFIX) :]) - 1 if qid.startswith(cl.CLAIM_ID_PREFIX) else -1
    claims = subject.claims
    probs = {label: 1.0 / len(labels) for label in labels}
    if 0 <= index < len(claims) and set(cl.CHOICE_LABELS) <= set(labels):
        probs = _claim_probs(claims[index], subject.state)
        probs.update({label: 0.0 for label in labels if label not in probs})
    best = max(labels, key=lambda label: probs[label])
    return ChoiceAnswer(choice=best, probabilities=probs, confidence=round(max(probs.values()), 4))


def _claim_probs(claim: cl.Claim, state: SessionState) -> dict[str, float]:
    c = state.counters
    checked = cl.check_claim(claim, [*state.evidence, *(a.summary for a in state.actions)])
    if checked.status == cl.FABRICATED or (
        c.last_verification_seq and c.last_verification_ok is False
    ):
        return {cl.SUPPORTED: 0.05, cl.CONTRADICTED: 0.8, cl.INSUFFICIENT: 0.15}
    if c.last_verification_ok and c.last_verification_seq >= c.last_mutation_seq:
        return {cl.SUPPORTED: 0.8, cl.CONTRADICTED: 0.05, cl.INSUFFICIENT: 0.15}
    if c.last_mutation_seq > c.last_verification_seq:
        return {cl.SUPPORTED: 0.15, cl.CONTRADICTED: 0.1, cl.INSUFFICIENT: 0.75}
    return {cl.SUPPORTED: 0.5, cl.CONTRADICTED: 0.1, cl.INSUFFICIENT: 0.4}


_RULES: dict[str, Callable[[SessionState, Event], float]] = {
    s.CONSTRAINT_VIOLATION: constraint_violation,
    s.SECRET_EXPOSURE: secret_exposure,
    s.DESTRUCTIVE: destructive,
    s.REPEATS_FAILED_APPROACH: repeats_failed,
    s.EXPECTED_PROGRESS: expected_progress,
    s.REDUNDANT: redundant,
    s.EVIDENCE_INSUFFICIENT: evidence_insufficient,
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
