"""SessionState: the small, bounded summary every hook call folds the log into.

The state is never the host's transcript.  It holds what reflexes need to
decide quickly: the goal, the constraints, a window of recent actions with
their outcomes, failures, evidence, verifications (test runs) and the
interventions we made.  Every list is bounded so the snapshot, and therefore
the cost of a hook call, does not grow with the session.
"""

from __future__ import annotations

from agentreflex.core.state.usage import TokenUsage
from agentreflex.core.util.record import field, fields, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Outcomes of an action.  "pending" until its post-tool event arrives;
# "blocked" when we denied it; "unknown" when the host's result shape was odd.
OUTCOMES = ("pending", "success", "failure", "blocked", "unknown")


@record
class ActionRecord:
    """One tool call, as remembered (already redacted and bounded)."""

    seq: int
    ts: float
    tool: str
    kind: str
    summary: str
    fingerprint: str
    tool_use_id: str = ""
    outcome: str = "pending"
    error_signature: str = ""
    exit_code: int | None = None
    paths: list[str] = field(default_factory=list)
    verification: bool = False
    mutation: bool = False
    output_digest: str = ""
    changed: int = 0  # files the work tree shows this call created, modified or deleted
    not_a_test: str = ""  # why a test-like command is no test run (core.testrun), said to the user

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ActionRecord:
        known = {k: data[k] for k in fields(cls) if k in data}
        return cls(**known)


@record
class Intervention:
    seq: int
    ts: float
    event: str
    reflex: str
    code: str
    verdict: str
    label: str
    message: str


@record
class Counters(TokenUsage):
    """Monotonic counts and markers over the whole session (not windowed).

    Its :class:`TokenUsage` fields are the session's tokens and cost, read
    from the host's transcript up to ``transcript_cursor``.
    """

    events: int = 0
    prompts: int = 0
    tool_calls: int = 0
    failures: int = 0
    consecutive_failures: int = 0
    blocked: int = 0
    stops: int = 0
    stop_blocks_in_row: int = 0
    last_mutation_seq: int = 0
    last_verification_seq: int = 0
    last_verification_ok: bool | None = None
    last_failure_seq: int = 0
    last_evidence_seq: int = 0
    started_at: float = 0.0
    last_event_at: float = 0.0
    transcript_cursor: int = 0


@record
class SessionState:
    """What the reflexes see of a session.  Built by folding the JSONL log."""

    session_id: str = ""
    host: str = ""
    cwd: str = ""
    goal: str = ""
    prompts: list[str] = field(default_factory=list)
    actions: list[ActionRecord] = field(default_factory=list)
    failures: list[ActionRecord] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    verifications: list[ActionRecord] = field(default_factory=list)
    interventions: list[Intervention] = field(default_factory=list)
    last_message: str = ""
    messages: list[str] = field(default_factory=list)
    notes: dict[str, list[Any]] = field(default_factory=dict)
    counters: Counters = field(default_factory=Counters)
    seq: int = 0

    # --- conveniences for reflexes -------------------------------------

    @property
    def constraints(self) -> list[Any]:
        """Constraints noted by the gate from the user's prompts."""
        return self.notes.get("constraints", [])

    def last_action(self) -> ActionRecord | None:
        return self.actions[-1] if self.actions else None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (like ``record.asdict``, without copying tuples)."""
        return _plain(self)  # type: ignore[no-any-return]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionState:
        """Rebuild from a snapshot; unknown keys are ignored, bad shapes raise."""
        st = cls()
        for key in ("session_id", "host", "cwd", "goal", "last_message"):
            setattr(st, key, str(data.get(key, "")))
        st.seq = int(data.get("seq", 0))
        st.prompts = [str(p) for p in data.get("prompts", [])]
        st.evidence = [str(p) for p in data.get("evidence", [])]
        st.messages = [str(p) for p in data.get("messages", [])]
        st.actions = [ActionRecord.from_json(a) for a in data.get("actions", [])]
        st.failures = [ActionRecord.from_json(a) for a in data.get("failures", [])]
        st.verifications = [ActionRecord.from_json(a) for a in data.get("verifications", [])]
        st.interventions = [Intervention(**i) for i in data.get("interventions", [])]
        notes = data.get("notes", {})
        st.notes = {str(k): list(v) for k, v in notes.items()} if isinstance(notes, dict) else {}
        counters = data.get("counters", {})
        st.counters = Counters(**{k: v for k, v in counters.items() if k in fields(Counters)})
        return st


def _plain(value: Any) -> Any:
    if hasattr(type(value), "__record__"):
        return {name: _plain(getattr(value, name)) for name in fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
