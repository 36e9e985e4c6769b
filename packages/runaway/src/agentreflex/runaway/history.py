"""The recent actions a loop detector looks at, including the event being judged.

``ctx.state`` is the session *before* the current event.  On a post-tool
event the call it reports is still ``pending`` there, so detectors that want
to speak right after a failure ("that is the second identical failure") see a
copy of the window with this event's outcome folded in.  On a pre-tool event
the proposed call is described by a :class:`Proposal` and kept separate: it
has no outcome yet.
"""

from __future__ import annotations

from agentreflex.core.state import outcome
from agentreflex.core.state.model import ActionRecord
from agentreflex.core.util.record import record, replace
from agentreflex.runaway import calls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from agentreflex.core.events import Event, ToolCall

SUCCESS = "success"
FAILURE = "failure"
BLOCKED = "blocked"
UNKNOWN = "unknown"
PENDING = "pending"

_READ_KINDS = frozenset({"read", "search", "web"})
_MUTATION_KINDS = frozenset({"write", "edit", "patch"})


@record(frozen=True)
class Proposal:
    """The call a pre-tool event asks to run, keyed like the recorded ones."""

    call: ToolCall
    fingerprint: str
    is_read: bool
    is_verification: bool
    mutates: bool


def proposal(event: Event) -> Proposal | None:
    """Describe the event's tool call, or ``None`` when it carries none."""
    call = event.tool
    if call is None:
        return None
    return Proposal(
        call=call,
        fingerprint=calls.call_fingerprint(call),
        is_read=calls.looks_like_read(call),
        is_verification=calls.looks_like_verification(call),
        mutates=outcome.is_mutation(call),
    )


def with_outcome(
    actions: Sequence[ActionRecord], event: Event
) -> tuple[list[ActionRecord], ActionRecord | None]:
    """The window with the post-tool event's outcome applied, and that call's record."""
    window = list(actions)
    call = event.tool
    if call is None:
        return window, None
    result = calls.result_outcome(event.kind, event.result)
    signature = calls.error_signature(event.result) if result != SUCCESS else ""
    exit_code = event.result.exit_code if event.result is not None else None
    fingerprint = calls.call_fingerprint(call)
    index = _pending_index(window, call.tool_use_id, fingerprint)
    if index is None:
        seq = (window[-1].seq + 1) if window else 1
        window.append(
            ActionRecord(
                seq=seq,
                ts=event.timestamp,
                tool=call.name,
                kind=call.kind.value,
                summary=outcome.summarize(call),
                fingerprint=fingerprint,
                tool_use_id=call.tool_use_id,
                mutation=outcome.is_mutation(call),
                verification=calls.looks_like_verification(call),
            )
        )
        index = len(window) - 1
    window[index] = replace(
        window[index],
        outcome=result,
        error_signature=signature,
        exit_code=exit_code,
    )
    return window, window[index]


def _pending_index(window: list[ActionRecord], tool_use_id: str, fingerprint: str) -> int | None:
    """Find the call's record the way the store does: by tool-use id, else pending twin."""
    if tool_use_id:
        for i in range(len(window) - 1, -1, -1):
            if window[i].tool_use_id == tool_use_id:
                return i
    for i in range(len(window) - 1, -1, -1):
        if window[i].outcome == PENDING and window[i].fingerprint == fingerprint:
            return i
    return None


def is_read(record: ActionRecord) -> bool:
    """An action that only gathered information."""
    if record.kind in _READ_KINDS:
        return True
    return record.kind == "shell" and not record.mutation and calls.is_read_command(record.summary)


def is_mutation(record: ActionRecord) -> bool:
    """An action that changed (or tried to change) files."""
    return record.mutation or record.kind in _MUTATION_KINDS


def changed_files(record: ActionRecord) -> bool:
    """A mutation that went through (an unknown outcome is given the benefit of the doubt)."""
    return is_mutation(record) and record.outcome in (SUCCESS, UNKNOWN)


def since_last_change(actions: Sequence[ActionRecord]) -> list[ActionRecord]:
    """The actions after the most recent file change in the window."""
    for i in range(len(actions) - 1, -1, -1):
        if changed_files(actions[i]):
            return list(actions[i + 1 :])
    return list(actions)
