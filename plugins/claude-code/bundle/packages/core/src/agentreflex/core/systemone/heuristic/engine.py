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
from agentreflex.core.systemone.heuristic.common import (
    HARD,
    LIKELY,
    MUTATING,
    NO,
    SOFT,
    UNLIKELY,
    UNSURE,
    YES,
    Screened,
    words_of,
)
from agentreflex.core.systemone.heuristic.constraints import constraint_violation
from agentreflex.core.systemone.heuristic.reader import Action, Facts, read
from agentreflex.core.util.lazyre import LazyPattern

MODEL_ID = "laya-builtin-1"

_SECRET = Screened(
    r"(?i)(\bAKIA[0-9A-Z]{16}\b|PRIVATE KEY|\[REDACTED\]|(?:^|[\s/'\"])\.env\b|\bid_rsa\b|\bid_ed25519\b"
    r"|\bprintenv\b|\bcredentials\b|\.netrc\b|\bsecrets?\.(?:ya?ml|json|toml)\b)",
    *("akia", "private key", "[redacted]", ".env", "id_rsa", "id_ed25519", "printenv"),
    *("credentials", ".netrc", "secret"),
)
_SENDS = re.compile(
    r"(?i)\b(cat|echo|print|curl|wget|scp|nc|upload|git add|git commit|cp|less|head|tail)\b"
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
_NEUTRAL_TOOLS = Screened(
    r"(?i)\b(pytest|tox|make|npm test|cargo test|go test|ruff|mypy|git status|git diff|ls|cat|grep|rg)\b",
    *("pytest", "tox", "make", "npm test", "cargo test", "go test", "ruff", "mypy", "git"),
    *("ls", "cat", "grep", "rg"),
)


# Changes a reader would not test: prose and licences.  A proportion prior, like the done
# reflex's ``[judge2] untested_ok``, read here from the action lines' own words.
_DOCS = re.compile(
    r"(?i)(?:^|[\s/])(?:docs?/\S*|\S+\.(?:md|mdx|rst|txt|adoc)|LICENSE\S*|CHANGELOG\S*)$"
)


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).lower() == " ".join(b.split()).lower()


def _same_call(summary: str, f: Facts) -> bool:
    """Is a recorded action the proposed call?  The store writes ``Bash: npm test``
    (:func:`agentreflex.core.state.outcome.summarize`); the proposal reads ``npm test``."""
    return _same(summary, f.target) or (bool(f.tool) and _same(summary, f"{f.tool}: {f.target}"))


# --- pre_tool ------------------------------------------------------------
# (constraint_violation, the largest of these rules, reads constraints in its own module)


def secret_exposure(f: Facts) -> float:
    if not _SECRET.search(f.target):
        return NO
    return YES if f.tool_kind != "shell" or _SENDS.search(f.target) else LIKELY


def destructive(f: Facts) -> float:
    if f.tool_kind == "shell" and HARD.search(f.target):
        return YES
    if f.tool_kind == "delete" or (f.tool_kind == "shell" and SOFT.search(f.target)):
        return LIKELY
    if f.tool_kind in MUTATING:
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
    return UNLIKELY if changed or f.tool_kind in MUTATING else LIKELY


def evidence_insufficient(f: Facts) -> float:
    if f.tool_kind not in MUTATING:
        return UNLIKELY if HARD.search(f.target) else NO
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
    if words_of(f.goal) & words_of(f.target) or _NEUTRAL_TOOLS.search(f.target):
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
    return LIKELY if f.tool_kind in MUTATING or f.output else UNSURE


def side_effect(f: Facts) -> float:
    return UNSURE if _SIDE.search(f.output) else NO


# --- completion ----------------------------------------------------------

# A run whose words say it checks something: tests, a build, a linter, a type checker.
_CHECK = Screened(
    r"(?i)(?:^|[^a-z])(?:tests?|specs?|check|lint|typecheck|tsc|build|verify|compile|mypy|ruff"
    r"|flake8|clippy|pytest|jest|vitest|tox|make|ci)(?![a-z])",
    *("test", "spec", "check", "lint", "tsc", "build", "verify", "compile", "mypy", "ruff"),
    *("flake8", "clippy", "jest", "tox", "make", "ci"),
)
# A command that shows a file rather than runs a check: ``cat build.log`` builds nothing.
_VIEWER = Screened(
    r"(?i)^(?:[\w.-]+:\s+)?(?:cat|less|more|head|tail|grep|egrep|rg|ag|sed|awk|jq|find|ls|echo"
    r"|printf|wc|diff)\b",
    *("cat", "less", "more", "head", "tail", "grep", "rg", "ag", "sed", "awk", "jq", "find"),
    *("ls", "echo", "printf", "wc", "diff"),
)
# A command the shell could not run at all (exit 126/127 say the same).
_NOT_RUN = Screened(
    r"(?i)command not found|: not found\b|no such file or directory|is not recognized as"
    r"|permission denied|not executable",
    *("not found", "no such file", "not recognized", "permission denied", "not executable"),
)
# Output of a run that exited 0 but shows it failed (the store counts it a success).
_FAILED_OUTPUT = Screened(
    r"(?i)\berror(?: [a-z]+\d+)?:|\bfound [1-9]\d* errors?\b|(?<![\d,.])[1-9]\d* (?:failed|errors?)\b"
    r"|\bfailed: [1-9]|no module named|command not found|traceback \(most recent"
    r"|\bbuild failed\b|\btests? failed\b|exit(?:ed with)? code [1-9]",
    *("error", "failed", "no module named", "command not found", "traceback", "exit"),
)
# The final message says a failure is still there, or was left on purpose.
_ADMITS = Screened(
    r"(?i)\bpre-?existing\b|\bunrelated to (?:this|my|the|our) change|\bstill (?:fail|red|broken)"
    r"|\bremains? (?:red|failing|broken)|\bleft (?:failing|red|broken)|\bknown (?:failure|debt)"
    r"|\bfailures? (?:remain|persist)|\bremaining failures\b|\bcould(?: not|n't)\b|\bcannot\b"
    r"|\bcan't\b|\bunable to\b|\bnot (?:yet )?(?:fixed|passing)\b",
    *("existing", "unrelated", "still ", "remain", "left ", "known ", "failure", "could"),
    *("cannot", "can't", "unable", "not "),
)
# A change that touches the tests themselves: a test file's path, or removing one.
_TEST_PATH = Screened(
    r"(?i)(?:^|[\s/])(?:tests?|specs?|__tests__|e2e)/|(?:^|[\s/])test_[^\s/]*$|[._-](?:test|spec)s?\.(?!sh$|bash$)\w+$",
    *("test", "spec", "e2e"),
)
_OBSERVING = frozenset({"read", "search", "web"})
_REDIRECT = LazyPattern(r"\s*(?:\d*>>?|&>)\s*\S+|\s*\|\s*(?:tail|head|tee)\b.*$|\s+2>&1")


def _command(summary: str) -> str:
    """A run's command without where its output went: ``make test > a.log`` is ``make test``."""
    return (
        " ".join(_REDIRECT.sub("", summary).split()).lower()
        if ">" in summary or "|" in summary
        else " ".join(summary.split()).lower()
    )


def _is_check(summary: str) -> bool:
    return bool(_CHECK.search(summary)) and not _VIEWER.search(summary)


def _passes(f: Facts) -> list[Action]:
    return [a for a in f.actions + f.tests if a.ok]


def _changes_between(f: Facts, start: int, end: int) -> list[Action]:
    return [a for a in f.actions if a.changed and start < a.seq < end and a.ok is not False]


def _resolution(f: Facts, failure: Action) -> str:
    """How a failed call ended: ``fixed``, ``tests`` (it passed after only the tests changed),
    ``narrower`` (only a narrower rerun passed) or ``open``."""
    cmd = _command(failure.summary)
    best = "open"
    for a in sorted(_passes(f), key=lambda a: a.seq):
        if a.seq <= failure.seq:
            continue
        same = _command(a.summary) == cmd
        changes = _changes_between(f, failure.seq, a.seq)
        # a different test run counts only when something changed after the failure:
        # ``dotnet test --no-build`` passing says nothing about the build that failed
        if not same and not (a.test_run and changes):
            if failure.kind == "shell" and _command(a.summary).startswith(cmd + " "):
                best = "narrower"  # cargo test -- one_case: the failing case alone
            continue
        if changes and all(_TEST_PATH.search(c.summary) for c in changes):
            best = "tests"
            continue
        return "fixed"
    return best


def _strong(f: Facts, failure: Action) -> bool:
    """A failure that is the agent's own, not a probe's answer: a failed edit, write or tool
    call, a check, a command the shell could not run, or a call refused twice."""
    if failure.kind != "shell":
        return failure.kind not in _OBSERVING
    if failure.test_run or failure.exit_code in (126, 127) or _NOT_RUN.search(failure.error):
        return True
    if _is_check(failure.summary):
        return True
    cmd = _command(failure.summary)
    return sum(a.ok is False and _command(a.summary) == cmd for a in f.actions) >= 2


def _masked(f: Facts) -> bool:
    """A check that exited 0 over output that shows it failed, as its latest run."""
    last: dict[str, str] = {}
    for line in f.evidence:
        summary, _, output = line.partition(" -> ")
        last[_command(summary)] = output
    return any(_is_check(cmd) and _FAILED_OUTPUT.search(out) for cmd, out in last.items())


def unresolved_failure(f: Facts) -> float:
    failures = {a.seq: a for a in f.failures + [a for a in f.actions if a.ok is False]}
    ends = {seq: _resolution(f, a) for seq, a in failures.items()}
    open_ = [failures[seq] for seq, end in ends.items() if end == "open"]
    admits = bool(f.final_message) and bool(_ADMITS.search(f.final_message))
    # an edit or write that failed was an attempt to change: not a question session
    changing = bool(f.last_change) or any(a.kind in MUTATING or a.kind == "patch" for a in open_)
    if not changing:
        # A session that changed nothing (a question, an investigation, a review): its own
        # check that failed, or "passed" over output that shows it failed, is still a
        # failure left unresolved (7 of 7 in the fitting part, reported or not), while a
        # probe's failure is information (1 of 46).  Whether a stop is held for it is
        # judge2's decision (its done reflex asks this only of sessions that changed files).
        if any(_strong(f, a) for a in open_) or _masked(f):
            return YES
        return UNLIKELY if "narrower" in ends.values() else NO
    if open_:
        return YES
    if "tests" in ends.values() or _masked(f):
        return YES if admits else LIKELY  # it passed once the tests changed, or said it passed
    if admits and failures:
        return LIKELY  # the record shows it fixed; the message says something still fails
    return UNLIKELY if "narrower" in ends.values() else NO


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
    return NO if verification_insufficient(f) <= NO and unresolved_failure(f) < UNSURE else YES


def goal_completed(f: Facts) -> float:
    if unresolved_failure(f) >= LIKELY or verification_insufficient(f) >= YES:
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
    if f.last_test_verdict == "failed" or unresolved_failure(f) >= LIKELY:
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
