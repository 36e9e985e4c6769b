"""The state builder: SessionState + event -> the short text a judge reads.

A System One model answers from one state string, so that string must hold
what the questions need and nothing else: goal, constraints, a window of
recent actions with outcomes, failures, evidence, test runs and the thing
being judged (the proposed action, the last result, or the final message).
Never the transcript.  Every piece is redacted and clipped, and the whole is
capped, so the cost of a judge call does not grow with the session.
"""

from __future__ import annotations

from agentreflex.core.systemone import signals as s
from agentreflex.judge2.redaction import redact, redact_shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from agentreflex.core.events import Event, ToolCall
    from agentreflex.core.state.model import ActionRecord, SessionState

ITEM_CHARS = 240
OUTPUT_CHARS = 600
MESSAGE_CHARS = 900
MAX_CHARS = 6000
ACTION_WINDOW = 12
LIST_WINDOW = 6


def clip(text: str, limit: int) -> str:
    """One line, redacted, at most ``limit`` characters."""
    flat = " ".join(redact(str(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def clip_ends(text: str, limit: int) -> str:
    """Like :func:`clip`, but keeps the end too: tool output says what happened last."""
    flat = " ".join(redact(str(text)).split())
    if len(flat) <= limit:
        return flat
    head = limit // 4
    return flat[:head] + " … " + flat[-(limit - head - 3) :]


def build_state(
    state: SessionState, event: Event, battery: str, window: int = ACTION_WINDOW
) -> str:
    """The judge's view of the session for ``battery``."""
    parts: list[str] = []
    parts.append("GOAL: " + (clip(state.goal, ITEM_CHARS * 2) or "(not stated)"))
    parts.append(_section("CONSTRAINTS", (constraint_text(c) for c in state.constraints)))
    parts.append(_section("RECENT ACTIONS", (action_line(a) for a in state.actions[-window:])))
    parts.append(_section("FAILURES", (action_line(a) for a in state.failures[-LIST_WINDOW:])))
    parts.append(_section("EVIDENCE", state.evidence[-LIST_WINDOW:]))
    parts.append(
        _section("TEST RUNS", (action_line(a) for a in state.verifications[-LIST_WINDOW:]))
    )
    parts.append(progress_line(state))
    parts.append(_subject(state, event, battery))
    text = "\n".join(p for p in parts if p)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def _section(title: str, lines: Iterable[str]) -> str:
    items = [clip(line, ITEM_CHARS) for line in lines if str(line).strip()]
    if not items:
        return f"{title}: none"
    return title + ":\n" + "\n".join("- " + item for item in items)


def constraint_text(constraint: Any) -> str:
    """A constraint note as text, whatever shape the gate stored it in."""
    if isinstance(constraint, dict):
        for key in ("text", "rule", "constraint", "description"):
            if isinstance(constraint.get(key), str):
                return str(constraint[key])
    return str(constraint)


def action_line(action: ActionRecord) -> str:
    """``#7 shell: pytest -q -> failure (exit 1) [test run] AssertionError``."""
    line = f"#{action.seq} {action.kind}: {action.summary} -> {action.outcome}"
    if action.exit_code is not None:
        line += f" (exit {action.exit_code})"
    if action.verification:
        line += " [test run]"
    if action.mutation:
        line += " [changed files]"
    if action.error_signature:
        line += f" {action.error_signature}"
    return line


def progress_line(state: SessionState) -> str:
    """When files last changed and when tests last ran, as sequence numbers."""
    c = state.counters
    change = f"#{c.last_mutation_seq}" if c.last_mutation_seq else "never"
    if not c.last_verification_seq:
        test = "never"
    else:
        verdict = {True: "passed", False: "failed", None: "unknown"}[c.last_verification_ok]
        test = f"#{c.last_verification_seq} {verdict}"
    return f"LAST FILE CHANGE: {change}; LAST TEST RUN: {test}"


def tool_text(tool: ToolCall) -> str:
    """A one-line description of a tool call (the full target, clipped)."""
    target = tool.command or ", ".join(tool.paths) or tool.path
    if not target and tool.input:
        target = " ".join(f"{k}={redact_shown(v)}" for k, v in list(tool.input.items())[:4])
    text = f"{tool.name} ({tool.kind.value}): {target}"
    if tool.mutates_files and tool.content:
        text += f" | new text: {tool.content}"
    return text


def _subject(state: SessionState, event: Event, battery: str) -> str:
    if battery == s.PRE_TOOL and event.tool is not None:
        return "PROPOSED ACTION: " + clip(tool_text(event.tool), OUTPUT_CHARS)
    if battery == s.POST_TOOL and event.tool is not None:
        return "LAST ACTION: " + clip(tool_text(event.tool), ITEM_CHARS) + "\n" + _result(event)
    if battery == s.COMPLETION:
        message = event.last_message or state.last_message
        return "FINAL MESSAGE: " + (clip(message, MESSAGE_CHARS) or "(none)")
    return ""


def _result(event: Event) -> str:
    result = event.result
    if result is None:
        return "LAST RESULT: unknown"
    status = {True: "ok", False: "failed", None: "unknown"}[result.ok]
    if result.exit_code is not None:
        status += f", exit {result.exit_code}"
    if result.interrupted:
        status += ", interrupted"
    body = result.error or result.output
    return f"LAST RESULT: {status}" + (f"\nOUTPUT: {clip_ends(body, OUTPUT_CHARS)}" if body else "")
