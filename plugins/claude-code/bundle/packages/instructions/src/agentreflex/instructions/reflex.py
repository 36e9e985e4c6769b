"""InstructionsReflex: the project's written rules, enforced before each action.

Entry point ``agentreflex.reflexes: instructions``, beside the gate.  Before
a tool call it blocks what a rule file forbids (quoting the rule, citing
``file:line``), asks the user before the rule files or ``policies/`` are
changed, and blocks a ``git commit``/``git push`` whose required command
("run make lint before committing") has not run since the last change.  At a
stop it holds the agent until the commands required for finishing ran, with
the done reflex's one-shot valve so a disagreement cannot loop.

It is a floor: deterministic, and a failure on a pre-tool call blocks (fail
closed).  Rule files only ever add blocks: nothing in them can lower another
reflex's decision, and text that tries to switch agentreflex off is reported,
never obeyed.
"""

from __future__ import annotations

import os

from agentreflex.core.decision import Finding, Verdict
from agentreflex.core.events import EventKind, ToolKind
from agentreflex.instructions.plugin import PLUGIN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.events import ToolCall
    from agentreflex.core.reflex import ReflexContext
    from agentreflex.instructions.comply import Violation
    from agentreflex.instructions.parse import Rule
    from agentreflex.instructions.sources import Diagnostic

NAME = "instructions"
TITLE = "PROJECT RULE"
_PROJECTS: dict[str, str] = {}
_CHECKED = frozenset({ToolKind.SHELL, ToolKind.WRITE, ToolKind.EDIT, ToolKind.PATCH})
_AFTER = frozenset({EventKind.POST_TOOL, EventKind.POST_TOOL_FAILURE})


def project_of(cwd: str) -> str:
    """The project holding ``cwd`` (nearest ``.git``/``.agentreflex``), cached per cwd."""
    if cwd not in _PROJECTS:
        from agentreflex.core.config.settings import project_root

        _PROJECTS[cwd] = project_root(cwd)
    return _PROJECTS[cwd]


class InstructionsReflex:
    """The rules in AGENTS.md, CLAUDE.md and friends, as a pre-tool floor and a stop check."""

    name = NAME
    events = PLUGIN.reflex("instructions").event_kinds()  # declared once, in plugin.py
    floor = True

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        event = ctx.event
        cwd = event.cwd or ctx.state.cwd or os.getcwd()
        from agentreflex.instructions import sources

        sources.forget()  # each event looks at the rule files as they are now
        try:
            if event.kind is EventKind.PRE_TOOL and event.tool is not None:
                if event.tool.kind not in _CHECKED:
                    return []
                return self._pre_tool(ctx, cwd)
            if event.is_stop:
                return self._stop(ctx, cwd)
            if event.kind in _AFTER and event.tool is not None:
                self._after_tool(ctx, cwd)
        except Exception as exc:  # a floor fails closed, and says why
            if event.kind is not EventKind.PRE_TOOL:
                return []
            return [
                Finding(
                    reflex=NAME,
                    code="INSTR-INTERNAL-ERROR",
                    verdict=Verdict.BLOCK,
                    title=TITLE,
                    message=f"Checking the project's rule files failed ({type(exc).__name__}); "
                    "blocked to be safe. Run `agentreflex instructions list` to see the problem.",
                    detail={"rule": "INSTR-INTERNAL-ERROR"},
                )
            ]
        return []

    def _pre_tool(self, ctx: ReflexContext, cwd: str) -> list[Finding]:
        tool = ctx.event.tool
        assert tool is not None
        project = ctx.event.project or project_of(cwd)  # the session's, if the hook found it
        remembers = RULES_NOTE in ctx.state.notes  # a rule file may since have gone
        if (
            tool.kind is not ToolKind.SHELL
            and not remembers
            and not _governed(tool.paths or [tool.path], cwd, project)
        ):
            return []  # no rule file on the way and none being written: nothing to import
        from agentreflex.instructions import comply, ruleset, sticky

        comply.new_call(sticky.in_force(ctx.state) if remembers else [])
        since = ctx.event.session_started  # with the project: the gate's Where, its analysis
        violations = comply.check_tool(tool, cwd, project, ctx.deadline, since)
        found = [violation_finding(v) for v in violations]
        sticky.record(ctx, ruleset.read_this_call())
        sticky.asked(ctx, tool, [v.file for v in violations if v.ask_user and v.file])
        if tool.kind is ToolKind.SHELL:
            for rule in comply.pending_for_command(
                tool.command, cwd, project, ctx.state, ctx.deadline, since
            ):
                found.append(requirement_finding(rule))
        notice = _file_notice(ctx, comply.diagnostics_for(tool, cwd, project))
        told = None if found or tool.kind is ToolKind.SHELL else _rules_told(ctx, tool, cwd)
        return found + ([notice] if notice else []) + ([told] if told else [])

    def _after_tool(self, ctx: ReflexContext, cwd: str) -> None:
        """An asked change of the rule files ran (the user approved it): its files'
        rules are remembered as they are now, the ones it took out forgotten."""
        from agentreflex.instructions import sticky

        tool = ctx.event.tool
        if tool is None or sticky.ASKED_NOTE not in ctx.state.notes:
            return  # nothing was asked this session: nothing to do after a tool call
        files = sticky.approved_files(ctx.state, tool)
        if not files:
            return
        from agentreflex.instructions import comply, ruleset

        project = ctx.event.project or project_of(cwd)
        comply.new_call()
        for rel in files:
            ruleset.for_path(project, os.path.join(project, rel), advice=False)
            sticky.replace(ctx, rel, ruleset.read_this_call().get(rel, []))

    def _stop(self, ctx: ReflexContext, cwd: str) -> list[Finding]:
        from agentreflex.instructions import comply

        pending = comply.pending_at_stop(cwd, ctx.event.project or project_of(cwd), ctx.state)
        if not pending:
            return []
        listed = "; ".join(f'{r.cite()} says "{r.text}"' for r in pending)
        valve = ctx.event.stop_hook_active or ctx.state.counters.stop_blocks_in_row >= 1
        detail = {
            "rule": "INSTR-REQUIREMENT-PENDING",
            "missing": [f"{r.cite()}: run {r.command}" for r in pending],
        }
        if valve:
            return [
                Finding(
                    reflex=NAME,
                    code="INSTR-REQUIREMENT-VALVE",
                    verdict=Verdict.WARN,
                    title=TITLE,
                    message=f"Stopping without what the project's rules require: {listed}. "
                    "(Not blocking twice in a row.)",
                    detail=detail,
                    enforce=False,
                )
            ]
        return [
            Finding(
                reflex=NAME,
                code="INSTR-REQUIREMENT-PENDING",
                verdict=Verdict.BLOCK,
                title=TITLE,
                message=f"Not done yet: {listed}, and that has not run since your last change. "
                "Run it and fix what it reports, or say plainly why you cannot.",
                detail=detail,
            )
        ]


RULES_NOTE = "instructions_rules"  # state.notes key: the prohibitions remembered (sticky.py)
NOTICE_NOTE = "instructions_notice"  # state.notes key: file problems already announced
TOLD_NOTE = "instructions_told"  # state.notes key: path-specific rules already shown


def _rules_told(ctx: ReflexContext, tool: ToolCall, cwd: str) -> Finding | None:
    """The rules of a nested file or a glob-scoped rule that govern the file being
    edited, shown to the agent once per session beside the edit.

    The root's rule files are already in the host's own instructions; a nested
    ``AGENTS.md`` or a Cursor rule for ``src/api/**`` usually is not.
    """
    from agentreflex.instructions.context import rules_for_path

    told = ctx.state.notes.get(TOLD_NOTE, [])
    lines: list[str] = []
    for path in (tool.paths or [tool.path])[:4]:
        for line in rules_for_path(path, cwd, specific=True):
            if line not in told and line not in lines:
                lines.append(line)
    if not lines:
        return None
    for line in lines:
        ctx.note(NAME, TOLD_NOTE, line)
    text = "Project rules for the file being changed:\n" + "\n".join(f"- {x}" for x in lines)
    return Finding(
        reflex=NAME,
        code="INSTR-RULES-SHOWN",
        verdict=Verdict.ALLOW,
        title=TITLE,
        message=text,
        context=text,
        detail={"rule": "INSTR-RULES-SHOWN", "rules": [x.split(": ", 1)[0] for x in lines]},
    )


def _file_notice(ctx: ReflexContext, diags: list[Diagnostic]) -> Finding | None:
    """A WARN, once per session and problem, about rule files not read in full."""
    told = ctx.state.notes.get(NOTICE_NOTE, [])
    fresh = [d for d in diags if f"{d.cite()} {d.message}" not in told]
    if not fresh:
        return None
    for d in fresh:
        ctx.note(NAME, NOTICE_NOTE, f"{d.cite()} {d.message}")
    listed = "; ".join(f"{d.cite()} {d.message}" for d in fresh[:5])
    return Finding(
        reflex=NAME,
        code="INSTR-FILE-PROBLEM",
        verdict=Verdict.WARN,
        title=TITLE,
        message=f"The project's rule files: {listed}. "
        "`agentreflex instructions list` shows what is enforced.",
        detail={"rule": "INSTR-FILE-PROBLEM", "files": [d.cite() for d in fresh]},
    )


def _governed(paths: list[str], cwd: str, project: str) -> bool:
    """Whether a rule file governs any of ``paths``, or one of them is a rule file.

    Only :mod:`sources` (a few ``stat`` calls): a project without rule files
    pays for nothing else on a file tool.
    """
    from agentreflex.instructions import sources

    for path in paths:
        if not path:
            continue
        full = os.path.normpath(os.path.join(cwd, path))
        for where in {full, os.path.realpath(full)}:
            if sources.is_instruction_file(where, project) or sources.chain(project, where):
                return True
            if (where + "/").startswith(os.path.join(project, "policies") + "/"):
                return True
    return False


def quote(rule: Rule) -> str:
    """``AGENTS.md:3 says "Never edit generated/."`` (one full stop, whatever the rule ends with)."""
    end = "" if rule.text.endswith((".", "!", "?", "…")) else "."
    return f'{rule.cite()} says "{rule.text}{end}"'


def violation_finding(v: Violation) -> Finding:
    """The decision for one broken rule: BLOCK, or ASK_USER for the rules themselves."""
    if v.rule is None:
        return Finding(
            reflex=NAME,
            code="INSTR-RULES-EDIT",
            verdict=Verdict.ASK_USER,
            title=TITLE,
            message=f"{v.what} Changing the project's rules for agents needs the user's approval.",
            detail={"rule": "INSTR-RULES-EDIT"},
        )
    rule = v.rule
    message = f"{quote(rule)} {v.what} Follow the project's rule, or ask the user."
    if v.removed:
        message = (
            f"{quote(rule)} {v.what} That rule was taken out of {rule.file} during this "
            "session by a change the user did not approve, so it stays in force until the "
            f"session ends. To change the project's rules, edit {rule.file} with a file tool "
            "(which asks the user)."
        )
    if v.conflicts:
        message += f" (Conflicting rules: {v.conflicts[0]}.)"
    return Finding(
        reflex=NAME,
        code="INSTR-RULE",
        verdict=Verdict.BLOCK,
        title=TITLE,
        message=message,
        detail={
            "rule": "INSTR-RULE",
            **rule.to_json(),
            "conflicts": v.conflicts,
            **({"removed_unapproved": True} if v.removed else {}),
        },
    )


def requirement_finding(rule: Rule) -> Finding:
    """A commit or push that skips a command the rules require first."""
    run = "the tests" if rule.command == "tests" else f"`{rule.command}`"
    return Finding(
        reflex=NAME,
        code="INSTR-REQUIREMENT",
        verdict=Verdict.BLOCK,
        title=TITLE,
        message=f"{quote(rule)} {run} has not run (successfully) since your last change. "
        f"Run it first, then {rule.when}.",
        detail={"rule": "INSTR-REQUIREMENT", **rule.to_json()},
    )
