"""GateReflex: the pre-tool floor for destructive commands, secrets and constraints.

On a user prompt it notes the "do not X" constraints it finds.  On a
proposed tool call it collects rule hits (shell parse, file checks,
constraints, the project's own rules), drops hits the user allowed for this
project, asks the judge for probabilities when one is configured, and runs
the pure policy engine.  It is a floor: it answers within the deadline and,
if it cannot, it blocks.
"""

from __future__ import annotations

import os

from agentreflex.core.decision import Finding, Verdict
from agentreflex.core.events import EventKind, ToolKind
from agentreflex.core.reflex import ReflexContext
from agentreflex.gate import allow, constraints, files, policy
from agentreflex.gate.analyze import analyse
from agentreflex.gate.model import Cmd, Hit
from agentreflex.gate.paths import Where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PROJECTS: dict[str, str] = {}


def _project(cwd: str) -> str:
    """The project holding ``cwd`` (nearest ``.git``/``.agentreflex``), cached per cwd."""
    if cwd not in _PROJECTS:
        from agentreflex.core.config import project_root

        _PROJECTS[cwd] = project_root(cwd)
    return _PROJECTS[cwd]


def _env(cwd: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in ("HOME", "USER", "LOGNAME", "TMPDIR") if k in os.environ}
    env["PWD"] = cwd
    return env


class GateReflex:
    """Deterministic pre-tool floor: destructive commands, secret exposure, constraints."""

    name = "gate"
    events = frozenset({EventKind.USER_PROMPT, EventKind.PRE_TOOL})
    floor = True

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        try:
            if ctx.event.kind is EventKind.USER_PROMPT:
                self._note_constraints(ctx)
                return []
            if ctx.event.kind is EventKind.PRE_TOOL and ctx.event.tool is not None:
                return self._pre_tool(ctx)
        except Exception as exc:  # a floor fails closed, with an explanation
            return [
                Finding(
                    reflex=self.name,
                    code="GATE-INTERNAL-ERROR",
                    verdict=Verdict.BLOCK,
                    title=policy.TITLES["destructive"],
                    message=f"The safety check failed ({type(exc).__name__}); blocked to "
                    "be safe. Retry with a simpler command.",
                    detail={"rule": "GATE-INTERNAL-ERROR", "segment": ""},
                )
            ]
        return []

    def _note_constraints(self, ctx: ReflexContext) -> None:
        for c in constraints.extract(ctx.event.prompt or ""):
            ctx.note(self.name, "constraints", c)

    def where(self, ctx: ReflexContext) -> Where:
        cwd = ctx.event.cwd or ctx.state.cwd or os.getcwd()
        home = os.environ.get("HOME") or os.path.expanduser("~")
        return Where(
            cwd=cwd,
            project=_project(cwd),
            home=home,
            tmpdir=os.environ.get("TMPDIR", "").rstrip("/"),
        )

    def _pre_tool(self, ctx: ReflexContext) -> list[Finding]:
        where = self.where(ctx)
        hits = collect_hits(ctx, where)
        hits, allowed = allow.apply_allow(hits, allow.allow_entries(where.project))
        judge = None
        if hits or ctx.config.judge.mode != "off":
            judge = _judge(ctx)
        proposals = policy.decide(hits, judge, ctx.config.thresholds)
        findings = [_finding(self.name, p) for p in proposals]
        if allowed:
            findings.append(
                Finding(
                    reflex=self.name,
                    code="GATE-ALLOWED",
                    verdict=Verdict.ALLOW,
                    message="Allowed by the project's allow-list: "
                    + ", ".join(sorted({h.rule for h in allowed})),
                    detail={
                        "rule": "GATE-ALLOWED",
                        "segment": allowed[0].shown_segment(),
                        "rules": sorted({h.rule for h in allowed}),
                    },
                )
            )
        return findings


def collect_hits(ctx: ReflexContext, where: Where) -> list[Hit]:
    """Every rule hit for the proposed tool call in ``ctx``."""
    tool = ctx.event.tool
    assert tool is not None
    noted = constraints.from_state(ctx.state.notes.get("constraints", []))
    hits: list[Hit] = []
    cmds: list[Cmd] = []
    paths = [p for p in (tool.paths or ([tool.path] if tool.path else [])) if p]
    if tool.kind is ToolKind.SHELL:
        analysis = analyse(tool.command, where, _env(where.cwd), ctx.deadline)
        hits.extend(analysis.hits)
        cmds = analysis.cmds
        hits.extend(constraints.check_command(noted, cmds, where))
        hits.extend(_policy_writes(cmds, where))
    elif tool.kind is ToolKind.READ or (tool.kind is ToolKind.SEARCH and paths):
        hits.extend(files.read_hits(paths, where))
    elif tool.mutates_files:
        content = files.added_lines(tool.patch) if tool.kind is ToolKind.PATCH else tool.content
        deleting = "*** Delete File:" in tool.patch
        hits.extend(files.write_hits(paths, content, where, deleting))
        hits.extend(constraints.check_paths(noted, paths, where, ", ".join(paths), deleting))
        for p in paths:
            hits.extend(constraints.check_manifest_edit(noted, p, content, tool.old_content, p))
    rules = allow.user_rules(where.project)
    if rules:
        hits.extend(allow.user_hits(rules, cmds, paths))
    return hits


def _policy_writes(cmds: list[Cmd], where: Where) -> list[Hit]:
    """Shell commands that write or delete the guard's own policy files."""
    from agentreflex.gate.constraints import _deleted_paths, _written_paths

    hits: list[Hit] = []
    for cmd in cmds:
        touched = _written_paths(cmd, where) + _deleted_paths(cmd, where)
        hits.extend(h for h in files.write_hits(touched, "", where) if h.rule == "GATE-POLICY-EDIT")
    return hits


def _judge(ctx: ReflexContext) -> dict[str, float] | None:
    try:
        probs = ctx.probabilities("pre_tool")
    except Exception:
        return None
    return dict(probs) if probs else None


def _finding(reflex: str, p: policy.Proposal) -> Finding:
    detail: dict[str, Any] = policy.as_detail(p)
    return Finding(
        reflex=reflex,
        code=p.code,
        verdict=Verdict(p.verdict),
        message=p.message,
        title=p.title,
        signals=p.signals,
        threshold=p.threshold,
        detail=detail,
    )
