"""Creating, advancing and closing obligations from visible text and tool events.

Explicit directives enter at ``PLANNED`` with high confidence; heuristic
candidates enter at ``IDENTIFIED`` (alternatives) or ``PLANNED``
(commitments, active checks) with low confidence and never block.  A tool
call that matches a requirement moves the obligation to ``EXECUTED``; a
result that satisfies every acceptance predicate of every requirement moves
it to ``EVIDENCED``.  ``Resolved:``/``Deferred:`` forms close it.

The engine imports this module only when an event brings a directive, a
closing form or a candidate, or finds an open obligation; the directive
parser, the predicates, the classifier and the shell parsing are imported
by the functions that use them.
"""

from __future__ import annotations

import json
import re

from agentreflex.core import testrun
from agentreflex.core.events import ToolKind
from agentreflex.guard import bounds as B
from agentreflex.guard import description_texts
from agentreflex.guard.report import (
    DEFERRED,
    EVIDENCED,
    EXECUTED,
    IDENTIFIED,
    PLANNED,
    RANK,
    RESOLVED,
    add_obligation,
    advance,
    deactivate_findings,
    diagnose,
    find_obligation,
    is_open,
    open_obligations,
)
from agentreflex.guard.sanitize import digest, excerpt, redact, secret_shaped_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.events import ToolCall
    from agentreflex.guard.classifier import Classification
    from agentreflex.guard.closing import Closing
    from agentreflex.guard.directive import Directive, DirectiveError
    from agentreflex.guard.report import Report

_PROGRAM_ACTIONS = {
    "diff": "compare",
    "cmp": "compare",
    "grep": "trace",
    "rg": "trace",
    "journalctl": "trace",
    "strace": "trace",
    "cat": "inspect",
    "less": "inspect",
    "head": "inspect",
    "tail": "inspect",
    "ls": "inspect",
    "stat": "inspect",
    "jq": "inspect",
    "curl": "inspect",
    "time": "measure",
    "hyperfine": "measure",
}
_GIT_ACTIONS = {
    "diff": "compare",
    "log": "trace",
    "blame": "trace",
    "bisect": "bisect",
    "show": "inspect",
    "status": "inspect",
}
_KIND_ACTIONS = {ToolKind.READ: "inspect", ToolKind.SEARCH: "trace", ToolKind.WEB: "inspect"}


def _requirement(tool: str) -> dict[str, Any]:
    return {
        "tool": tool,
        "executed": False,
        "evidenced": False,
        "tool_use_ids": [],
        "outcomes": [],
        "evidence_digest": "",
    }


def _base(ob_id: str, name: str, now: float, state: str, origin: str) -> dict[str, Any]:
    return {
        "id": ob_id,
        "name": name,
        "state": state,
        "origin": origin,
        "created_at": now,
        "updated_at": now,
        "history": [{"state": state, "at": now, "source": origin}],
        "resolution": None,
        "deferral": None,
        "mitigations": 0,
        "last_outcome": "",
    }


def add_directive(report: Report, d: Directive, origin: str, now: float) -> bool:
    """Record an explicit obligation at PLANNED; False when it is already known."""
    if find_obligation(report, d.obligation_id) is not None:
        return False
    ob = _base(d.obligation_id, excerpt(d.claim, 120), now, PLANNED, origin)
    ob.update(
        source="directive",
        confidence="high",
        blocking=d.blocking,
        directive=json.loads(d.canonical),
        requirements=[_requirement(r.tool) for r in d.requirements],
    )
    add_obligation(report, ob)
    counters = report["classification"]
    counters["high_confidence_candidates"] += 1
    counters["obligations_created"] += 1
    return True


def add_directive_value(report: Report, value: Any, origin: str, now: float) -> None:
    """A directive as a payload object/JSON string: record it or diagnose why not."""
    from agentreflex.guard.directive import DirectiveError, parse

    try:
        add_directive(report, parse(value), origin, now)
    except DirectiveError as err:
        diagnose(report, f"invalid Evidence-Check directive ({origin}): {err}", now)


def add_marker_results(
    report: Report, results: list[Directive | DirectiveError], origin: str, now: float
) -> None:
    from agentreflex.guard.directive import Directive

    for item in results:
        if isinstance(item, Directive):
            add_directive(report, item, origin, now)
        else:
            diagnose(report, f"invalid Evidence-Check directive ({origin}): {item}", now)


def add_heuristic(report: Report, c: Classification, origin: str, now: float) -> None:
    """A low-confidence, non-blocking obligation from a classified clause."""
    from agentreflex.guard import classifier

    subjects = [
        s
        for s in classifier.subject_tokens(redact(c.clause))
        if s != "redacted" and not secret_shaped_key(s)
    ]
    ob_id = "oh-" + digest(c.action + "|" + " ".join(sorted(subjects)))[7:19]
    if find_obligation(report, ob_id) is not None:
        return
    state = IDENTIFIED if c.form == "alternatives" else PLANNED
    ob = _base(ob_id, excerpt(c.clause, 120), now, state, origin)
    ob.update(
        source="heuristic",
        confidence="low",
        blocking=False,
        action=c.action,
        subjects=subjects,
        requirements=[_requirement(c.action)],
    )
    add_obligation(report, ob)
    report["classification"]["obligations_created"] += 1


def call_actions(call: ToolCall, cwd: str = "") -> set[str]:
    """The check actions a tool call performs (for heuristic matching), run in ``cwd``."""
    from agentreflex.guard import classifier
    from agentreflex.guard.tools import first_word

    actions = set()
    if call.kind in _KIND_ACTIONS:
        actions.add(_KIND_ACTIONS[call.kind])
    if call.command:
        prog = first_word(call.command)
        if prog in _PROGRAM_ACTIONS:
            actions.add(_PROGRAM_ACTIONS[prog])
        if prog == "git":
            sub = call.command.split("git", 1)[1].split()
            if sub and sub[0] in _GIT_ACTIONS:
                actions.add(_GIT_ACTIONS[sub[0]])
        if testrun.assess(call.command, cwd).counts:
            actions.add("test")  # a real test framework ran in this project (core.testrun)
    for text in description_texts(call):
        action = classifier.action_of(text)
        if action:
            actions.add(action)
    return actions


def _heuristic_match(ob: dict[str, Any], call: ToolCall, cwd: str = "") -> bool:
    """Same check action and at least one shared subject token."""
    if ob["action"] not in call_actions(call, cwd):
        return False
    text = " ".join([call.command, *call.paths, call.path, *description_texts(call)])
    text = re.sub(r"[_/.]+", " ", text)
    from agentreflex.guard import classifier  # loaded by call_actions above

    return bool(set(classifier.subject_tokens(text, limit=64)) & set(ob["subjects"]))


def _requirement_matches(
    ob: dict[str, Any], req: dict[str, Any], call: ToolCall, cwd: str = ""
) -> bool:
    if call.tool_use_id and call.tool_use_id in req["tool_use_ids"]:
        return True
    if ob["source"] == "directive":
        from agentreflex.guard.tools import matches

        return matches(req["tool"], call)
    if ob["source"] == "heuristic":
        return _heuristic_match(ob, call, cwd)
    return False


def on_tool_start(report: Report, call: ToolCall, now: float, source: str, cwd: str = "") -> None:
    """A matching tool call starts: EXECUTED (a call alone is never evidence)."""
    for ob in open_obligations(report):
        if RANK[ob["state"]] >= RANK[EVIDENCED]:
            continue
        for req in ob["requirements"]:
            if not req["evidenced"] and _requirement_matches(ob, req, call, cwd):
                _bind(req, call)
                if RANK[ob["state"]] < RANK[EXECUTED]:
                    advance(ob, EXECUTED, now, source)


def _bind(req: dict[str, Any], call: ToolCall) -> None:
    req["executed"] = True
    if call.tool_use_id and call.tool_use_id not in req["tool_use_ids"]:
        req["tool_use_ids"].append(call.tool_use_id[:64])
        del req["tool_use_ids"][:-4]


def on_tool_result(
    report: Report,
    call: ToolCall,
    ok: bool | None,
    output: str,
    now: float,
    source: str,
    cwd: str = "",
) -> None:
    """Reconcile a result: keep predicate outcomes and a digest, never the output."""
    for ob in open_obligations(report):
        if RANK[ob["state"]] >= RANK[EVIDENCED]:
            continue
        directive = _directive_of(report, ob, now)
        touched = False
        ran_nothing = False
        for i, req in enumerate(ob["requirements"]):
            if req["evidenced"] or not _requirement_matches(ob, req, call, cwd):
                continue
            _bind(req, call)
            touched = True
            if directive is not None:
                from agentreflex.guard.predicates import evaluate

                outcome = evaluate(directive.requirements[i], ok, output)
                req["outcomes"] = list(outcome.results)
                req["evidenced"] = outcome.satisfied
                req["evidence_digest"] = outcome.evidence_digest
            else:
                # a test run that ran no test (pytest -k nomatch, go test -run XXX,
                # --passWithNoTests) executed the check but shows nothing (core.testrun)
                ran_nothing = ob["action"] == "test" and testrun.summary(output) == "none"
                req["evidenced"] = ok is not None and not ran_nothing
                req["evidence_digest"] = digest(output[: B.MAX_OUTPUT_CHARS])
            held = sum(req["outcomes"]) if req["outcomes"] else int(req["evidenced"])
            total = len(req["outcomes"]) or 1
            ob["last_outcome"] = f"{req['tool']}: {held} of {total} acceptance predicates held"
            if directive is None and ran_nothing:
                ob["last_outcome"] = (
                    f"{req['tool']}: the run executed no test (none selected or found); "
                    "a run that executes the tests it names counts"
                )
        if touched:
            target = EVIDENCED if all(r["evidenced"] for r in ob["requirements"]) else EXECUTED
            if RANK[ob["state"]] < RANK[target]:
                advance(ob, target, now, source)


def _directive_of(report: Report, ob: dict[str, Any], now: float) -> Directive | None:
    if ob["source"] != "directive":
        return None
    from agentreflex.guard.directive import DirectiveError, parse

    try:
        return parse(ob["directive"])
    except DirectiveError as err:
        diagnose(report, f"stored directive of {ob['id']} no longer validates: {err}", now)
        return None


UNEVIDENCED = "resolution without evidence"


def apply_closing(report: Report, closing: Closing, now: float, source: str) -> None:
    """Bind a ``Resolved:``/``Deferred:`` form to one open obligation and close it."""
    ob = _match_ref(report, closing.ref)
    if ob is None:
        diagnose(report, f"{closing.kind} form matched no open obligation", now)
        return
    if closing.kind == "resolved" and ob["state"] != EVIDENCED:
        # Seed 003: RESOLVED binds evidence that exists to a conclusion; it is
        # not a way around EVIDENCED.  The text is recorded, the check stays open.
        diagnose(report, f"{UNEVIDENCED} for {ob['id']} ({ob['state']}): {ob['name']}", now)
        return
    if closing.kind == "resolved":
        ob["resolution"] = {
            "evidence": excerpt(closing.fields["evidence"], 120),
            "conclusion": excerpt(closing.fields["conclusion"], 120),
            "at": now,
            "evidence_recorded": True,
        }
        advance(ob, RESOLVED, now, source)
    else:
        ob["deferral"] = {
            "reason": excerpt(closing.fields["reason"], 120),
            "impact": excerpt(closing.fields["impact"], 120),
            "reopen_when": excerpt(closing.fields["reopen"], 120),
            "at": now,
        }
        advance(ob, DEFERRED, now, source)
    deactivate_findings(report, ob["id"], now)
    report["classification"]["obligations_reconciled"] += 1


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _match_ref(report: Report, ref: str) -> dict[str, Any] | None:
    candidates = open_obligations(report)
    key = _norm(ref)
    for ob in candidates:
        if ref.strip().lower() == ob["id"]:
            return ob
    for ob in candidates:
        name = _norm(ob["name"].rstrip("…"))
        if key and (
            key == name or (len(key) >= 8 and (name.startswith(key) or key.startswith(name)))
        ):
            return ob
    explicit = [ob for ob in candidates if ob["source"] == "directive"]
    if len(explicit) == 1:
        return explicit[0]
    return candidates[0] if len(candidates) == 1 else None


def note_mitigation(report: Report) -> None:
    for ob in report["obligations"]:
        if is_open(ob):
            ob["mitigations"] = ob.get("mitigations", 0) + 1
