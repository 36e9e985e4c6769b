"""Reading judge2's state text back into facts the built-in engine can weigh.

judge2's state builder writes a fixed layout (``GOAL:``, ``CONSTRAINTS:``,
``RECENT ACTIONS:`` with ``#7 shell: pytest -q -> failure (exit 1) [test run]``
lines, ``LAST FILE CHANGE: #5; LAST TEST RUN: #7 failed``, then the subject:
``PROPOSED ACTION:``, ``LAST ACTION:``/``LAST RESULT:``/``OUTPUT:`` or
``FINAL MESSAGE:``).  The engine answers from that text alone, like a model
would, so this module is the whole of what it knows.  Text in another layout
still parses: every field simply stays empty and the answers stay near 0.5.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from agentreflex.core.util.record import field, record

_HEADERS = (
    "GOAL",
    "CONSTRAINTS",
    "RECENT ACTIONS",
    "FAILURES",
    "EVIDENCE",
    "TEST RUNS",
    "PROPOSED ACTION",
    "LAST ACTION",
    "LAST RESULT",
    "OUTPUT",
    "FINAL MESSAGE",
)
_HEADER_NAMES = frozenset(_HEADERS)
_PROGRESS = re.compile(
    r"^LAST FILE CHANGE: (?:#(\d+)|never); LAST TEST RUN: (?:#(\d+) (passed|failed|unknown)|never)"
)
_ACTION = re.compile(
    r"^#(\d+) (\w[\w-]*): (.*) -> (success|failure|unknown|\w+)"
    r"(?: \(exit (-?\d+)\))?( \[test run\])?( \[changed files\])?(?: (.*))?$"
)
_TOOL = re.compile(r"^(\S+) \((\w+)\): (.*)$")
_EXIT = re.compile(r"exit (-?\d+)")


class Action(NamedTuple):
    """One action line.  A named tuple, not a frozen dataclass: the reader builds a few of
    these per request, and a frozen dataclass's ``__init__`` costs several times as much."""

    seq: int
    kind: str
    summary: str
    ok: bool | None
    exit_code: int | None
    test_run: bool
    changed: bool
    error: str


@record
class Facts:
    """What the state text says, as plain values."""

    goal: str = ""
    constraints: list[str] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    failures: list[Action] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    tests: list[Action] = field(default_factory=list)
    last_change: int = 0
    last_test: int = 0
    last_test_verdict: str = "never"
    tool: str = ""
    tool_kind: str = ""
    target: str = ""
    result_ok: bool | None = None
    result_exit: int | None = None
    output: str = ""
    final_message: str = ""
    sections: set[str] = field(default_factory=set)


def read(text: str) -> Facts:
    """Parse a state text.  Never raises: unknown lines are ignored."""
    facts = Facts()
    current = ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("- "):  # most lines: a list item under the current header
            if current:
                _item(facts, current, line[2:])
            continue
        head, colon, value = line.partition(":")
        if colon and head in _HEADER_NAMES:
            current = head
            facts.sections.add(head)
            _inline(facts, head, value)
        elif head == "LAST FILE CHANGE" and (progress := _PROGRESS.match(line)):
            _progress(facts, progress)
            current = ""
    return facts


def _progress(facts: Facts, m: re.Match[str]) -> None:
    facts.last_change = int(m.group(1) or 0)
    facts.last_test = int(m.group(2) or 0)
    facts.last_test_verdict = m.group(3) or "never"


def _inline(facts: Facts, header: str, value: str) -> None:
    value = value.strip()
    if header == "GOAL":
        facts.goal = "" if value == "(not stated)" else value
    elif header in ("PROPOSED ACTION", "LAST ACTION"):
        _tool(facts, value)
    elif header == "LAST RESULT":
        _result(facts, value)
    elif header == "OUTPUT":
        facts.output = value
    elif header == "FINAL MESSAGE":
        facts.final_message = "" if value == "(none)" else value


def _tool(facts: Facts, value: str) -> None:
    m = _TOOL.match(value)
    if m:
        facts.tool, facts.tool_kind, facts.target = m.group(1), m.group(2), m.group(3)
    else:
        facts.target = value


def _result(facts: Facts, value: str) -> None:
    head, _, rest = value.partition(",")
    facts.result_ok = {"ok": True, "failed": False}.get(head.strip())
    m = _EXIT.search(rest)
    facts.result_exit = int(m.group(1)) if m else None


def _item(facts: Facts, header: str, text: str) -> None:
    if header == "CONSTRAINTS":
        facts.constraints.append(text)
    elif header == "EVIDENCE":
        facts.evidence.append(text)
    elif header in ("RECENT ACTIONS", "FAILURES", "TEST RUNS"):
        action = _action(text)
        if action is not None:
            target = {"RECENT ACTIONS": facts.actions, "FAILURES": facts.failures}
            target.get(header, facts.tests).append(action)


def _action(text: str) -> Action | None:
    m = _ACTION.match(text)
    if not m:
        return None
    seq, kind, summary, outcome, exit_code, test_run, changed, error = m.groups()
    return Action(
        seq=int(seq),
        kind=kind,
        summary=summary,
        ok=_OUTCOMES.get(outcome),
        exit_code=int(exit_code) if exit_code is not None else None,
        test_run=test_run is not None,
        changed=changed is not None,
        error=error or "",
    )


_OUTCOMES = {"success": True, "failure": False}
