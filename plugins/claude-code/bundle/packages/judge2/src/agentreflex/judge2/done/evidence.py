"""Deterministic completion evidence: what the record shows before any model is asked.

Which commands failed and were never shown fixed, whether files changed after
the last test run, whether that run failed, and which claims in the final
message have nothing behind them.  These are facts from the session state, so
they act as floors for the completion signals: a judge can raise a signal,
never talk one of these down.

Stdlib only (the done reflex runs on the hook path).
"""

from __future__ import annotations

from agentreflex.core.systemone import signals as s
from agentreflex.core.util.record import field, record
from agentreflex.judge2.done.claims import (
    CONTRADICTED,
    FABRICATED,
    INSUFFICIENT,
    SUPPORTED,
    ClaimCheck,
    check_claim,
    extract_claims,
)
from agentreflex.judge2.plugin import DOC_PATTERNS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.state.model import ActionRecord, SessionState
    from agentreflex.judge2.done.claims import Claim

# The value a signal takes when the record itself proves it.
FACT = 0.95

# Commands whose non-zero exit is an answer, not a failure (grep found nothing).
_PROBES = frozenset(
    [
        "grep",
        "rg",
        "ag",
        "ack",
        "ls",
        "cat",
        "head",
        "tail",
        "find",
        "fd",
        "which",
        "whereis",
        "type",
        "test",
        "[",
        "stat",
        "file",
        "diff",
        "wc",
        "echo",
        "pwd",
        "tree",
        "less",
        "more",
        "command",
    ]
)
_GIT_PROBES = frozenset(
    ["status", "diff", "log", "show", "grep", "ls-files", "rev-parse", "branch", "blame"]
)
_SHELL_KINDS = frozenset({"shell"})


@record
class CompletionEvidence:
    """What the record shows at a stop.  ``missing`` says it in words."""

    mutated: bool = False
    untested_change: bool = False
    changed_paths: list[str] = field(default_factory=list)
    last_test: ActionRecord | None = None
    last_test_failed: bool = False
    unresolved: list[ActionRecord] = field(default_factory=list)
    not_tests: list[ActionRecord] = field(default_factory=list)  # test-like, refused, and why
    claims: list[Claim] = field(default_factory=list)
    claim_checks: list[ClaimCheck] = field(default_factory=list)

    @property
    def holds_failed_test(self) -> bool:
        """A failing last run is the agent's unfinished work only if it changed something."""
        return self.last_test_failed and self.mutated

    def floors(self) -> dict[str, float]:
        """Completion signals the record proves (0.0 where it proves nothing)."""
        bad_claims = any(
            c.status in (FABRICATED, CONTRADICTED, INSUFFICIENT) for c in self.claim_checks
        )
        return {
            s.UNRESOLVED_FAILURE: FACT if (self.unresolved or self.holds_failed_test) else 0.0,
            s.VERIFICATION_INSUFFICIENT: FACT if self.untested_change else 0.0,
            s.MORE_VERIFICATION_HELPFUL: 0.0,
            s.CLAIMS_UNSUPPORTED: FACT if bad_claims else 0.0,
            s.GOAL_COMPLETED: 0.0,
        }

    def missing(self) -> list[str]:
        """One sentence per missing piece of evidence, most serious first."""
        out: list[str] = []
        for check in self.claim_checks:
            if check.status == FABRICATED:
                out.append(f"the final message {check.reason}")
        if self.holds_failed_test and self.last_test is not None:
            out.append(f"the last test run failed: {_describe(self.last_test)}")
        for action in self.unresolved[:3]:
            out.append(f"a failure was never shown fixed: {_describe(action)}")
        if self.untested_change:
            files = ", ".join(self.changed_paths[:5]) or "files"
            when = "since the last test run" if self.last_test else "and no test run is recorded"
            refused = "".join(
                f"; `{_short(a.summary, 80)}` is no test run: {_short(a.not_a_test, 120)}"
                for a in self.not_tests[-2:]
            )
            out.append(
                f"files changed {when} ({files}){refused}; evidence that counts: {EVIDENCE_KINDS}"
            )
        for check in self.claim_checks:
            if check.status in (CONTRADICTED, INSUFFICIENT):
                out.append(
                    f'the claim "{_short(check.claim.text)}" has no evidence: {check.reason}'
                )
        return out


def _describe(action: ActionRecord) -> str:
    text = f"`{_short(action.summary, 120)}`"
    if action.exit_code is not None:
        text += f" (exit {action.exit_code})"
    if action.error_signature:
        text += f": {_short(action.error_signature, 120)}"
    return text


def _short(text: str, limit: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# What counts as evidence that changed code works, said in the reason.
EVIDENCE_KINDS = (
    "a passing run of a real test framework (pytest, unittest, node --test, jest, vitest, "
    "go test, cargo test, ...) in this project after the last change, that runs at least "
    "one test, its exit status its own"
)


def assess(
    state: SessionState, last_message: str = "", untested_ok: tuple[str, ...] = DOC_PATTERNS
) -> CompletionEvidence:
    """Everything deterministic the done reflex needs, from the state alone.

    Proportion: a session that changed nothing (questions, investigation,
    reviews) is not held for tests, and a failing probe in it is information,
    not an unresolved failure of the agent's work.  Changes only to files
    matching ``untested_ok`` (documentation by default) need no test run.
    """
    c = state.counters
    ev = CompletionEvidence()
    ev.mutated = c.last_mutation_seq > 0
    ev.changed_paths = changed_after(
        state, c.last_verification_seq if c.last_verification_ok else 0
    )
    needs_tests = not ev.changed_paths or not all(
        _matches(p, untested_ok) for p in ev.changed_paths
    )
    ev.untested_change = (
        ev.mutated and c.last_mutation_seq > c.last_verification_seq and needs_tests
    )
    ev.last_test = _last_test(state)
    if ev.untested_change:
        ev.not_tests = [
            a for a in state.actions if a.not_a_test and a.seq > c.last_verification_seq
        ]
    ev.last_test_failed = c.last_verification_seq > 0 and c.last_verification_ok is False
    ev.unresolved = unresolved_failures(state) if ev.mutated else []
    ev.claims = extract_claims(last_message or state.last_message)
    ev.claim_checks = [_check(claim, state, ev) for claim in ev.claims]
    return ev


def _matches(path: str, patterns: tuple[str, ...]) -> bool:
    from fnmatch import fnmatch

    name = path.rsplit("/", 1)[-1]
    return any(fnmatch(name, p) or fnmatch(path, p) or fnmatch(path, "*/" + p) for p in patterns)


def changed_after(state: SessionState, seq: int) -> list[str]:
    """Paths of file changes after action ``seq``, in order, without duplicates.

    The one place the done reflex reads which files changed.  Today that is
    the recorded tool calls (edits, writes, patches, shell commands that look
    mutating); the work-tree facts of issue #29 (what really changed on disk,
    e.g. a ``perl -pi`` edit) belong here when they are recorded.
    """
    paths: dict[str, None] = {}
    for action in state.actions:
        if action.mutation and action.seq > seq and action.outcome != "blocked":
            for path in action.paths or [action.summary]:
                paths[path] = None
    return list(paths)


def _last_test(state: SessionState) -> ActionRecord | None:
    seq = state.counters.last_verification_seq
    for action in reversed(state.verifications):
        if action.seq == seq:
            return action
    return state.verifications[-1] if state.verifications else None


def unresolved_failures(state: SessionState) -> list[ActionRecord]:
    """Shell failures with no later success of the same command and no later passing test."""
    c = state.counters
    passed_after = c.last_verification_seq if c.last_verification_ok else 0
    out: list[ActionRecord] = []
    seen: set[str] = set()
    for failure in state.failures:
        if failure.outcome != "failure" or not _counts(failure):
            continue
        if failure.seq < passed_after or _later_success(state.actions, failure):
            continue
        key = failure.fingerprint or failure.summary
        if key not in seen:
            seen.add(key)
            out.append(failure)
    return out


def _counts(failure: ActionRecord) -> bool:
    if failure.verification:
        return True
    return failure.kind in _SHELL_KINDS and not is_probe(failure.summary)


def is_probe(command: str) -> bool:
    """A read-only look whose non-zero exit means "no", not "broken"."""
    words = command.replace("$ ", " ").split()
    if words and words[0].endswith(":"):
        words = words[1:]
    if not words:
        return False
    head = words[0].rsplit("/", 1)[-1]
    if head == "git" and len(words) > 1:
        return words[1] in _GIT_PROBES
    return head in _PROBES


def _later_success(actions: list[ActionRecord], failure: ActionRecord) -> bool:
    for action in actions:
        if action.seq <= failure.seq or action.outcome != "success":
            continue
        if failure.fingerprint and action.fingerprint == failure.fingerprint:
            return True
        if action.summary == failure.summary:
            return True
    return False


def _check(claim: Claim, state: SessionState, ev: CompletionEvidence) -> ClaimCheck:
    """Deterministic verdicts where the record settles it; else left to the judge."""
    checked = check_claim(claim, evidence_texts(state))
    if checked.status == FABRICATED or claim.kind != "tests_pass":
        return checked
    if ev.last_test is None:
        return ClaimCheck(claim, INSUFFICIENT, "no test run is recorded")
    if ev.last_test_failed:
        return ClaimCheck(claim, CONTRADICTED, "the last recorded test run failed")
    if ev.untested_change:
        return ClaimCheck(claim, INSUFFICIENT, "files changed after the last test run")
    return ClaimCheck(claim, SUPPORTED, "a passing test run follows the last change")


def evidence_texts(state: SessionState) -> list[str]:
    """Every recorded text a quote may come from."""
    texts = list(state.evidence)
    for action in (*state.actions, *state.verifications, *state.failures):
        texts.extend(t for t in (action.summary, action.output_digest, action.error_signature) if t)
    return texts
