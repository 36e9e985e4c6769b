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
from agentreflex.core.hosts import UNCHECKED_STDIN, host_traits
from agentreflex.core.util.deadline import check as check_time
from agentreflex.gate.plugin import PLUGIN
from agentreflex.gate.shell.paths import Where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from agentreflex.core.events import ToolCall
    from agentreflex.core.reflex import ReflexContext
    from agentreflex.gate import policy
    from agentreflex.gate.analyze import Analysis
    from agentreflex.gate.model import Cmd, Hit

# Every hook call is a new process, so the gate imports only what the event at
# hand can use: the shell analyser for shell commands, ``files`` for file tools,
# ``constraints`` once the user has stated one, ``allow`` when the project has
# an allow-list or rules of its own, and ``policy`` when there is something to
# decide (tests/test_reflex_imports.py holds each path to its modules).

# The files ``allow`` reads: without the allow-list, ``allow_entries`` finds no
# entry; without the rules files, ``user_rules`` finds no rule.
_ALLOW_LIST = ((".agentreflex", "allow.toml"),)
_USER_RULES = ((".agentreflex", "gate-rules.toml"), ("policies", "gate", "rules.toml"))
# The thresholds a hit-free, judge-free call is compared with (``policy.decide``).
_FLOOR_THRESHOLDS = (
    "constraint_violation_block",
    "secret_exposure_block",
    "destructive_block",
    "destructive_warn",
)

_PROJECTS: dict[str, str] = {}


def _project(cwd: str) -> str:
    """The project holding ``cwd`` (nearest ``.git``/``.agentreflex``), cached per cwd."""
    if cwd not in _PROJECTS:
        from agentreflex.core.config.settings import project_root

        _PROJECTS[cwd] = project_root(cwd)
    return _PROJECTS[cwd]


def _env(cwd: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in ("HOME", "USER", "LOGNAME", "TMPDIR") if k in os.environ}
    env["PWD"] = cwd
    return env


def where_for(cwd: str, project: str = "", since_ns: int | None = None) -> Where:
    """Where a command runs, as the gate judges it (project, home, temp folder).

    ``project`` is the session's (``Event.project``); without one it is found
    from ``cwd`` (``agentreflex check``, the instructions' own commands).
    """
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return Where(
        cwd=cwd,
        project=project or _project(cwd),
        home=home,
        tmpdir=os.environ.get("TMPDIR", "").rstrip("/"),
        since_ns=since_ns,
    )


_SHARED: list[tuple[tuple[object, ...], Analysis]] = []


def shell_analysis(command: str, where: Where, deadline: float) -> Analysis:
    """The gate's analysis of a shell command, made once per event for every reflex.

    The gate and the instructions reflex both need the commands a shell line
    runs and what they change; parsing it twice was most of the second one's
    cost.  The key holds the event's deadline, so an analysis never outlives
    its event: the files it read (scripts, the work tree) may change.
    """
    from agentreflex.gate.analyze import analyse

    env = _env(where.cwd)
    key = (command, where, tuple(sorted(env.items())), deadline)
    if _SHARED and _SHARED[0][0] == key:
        return _SHARED[0][1]
    analysis = analyse(command, where, env, deadline)
    _SHARED[:] = [(key, analysis)]
    return analysis


class GateReflex:
    """Deterministic pre-tool floor: destructive commands, secret exposure, constraints."""

    name = "gate"
    events = PLUGIN.reflex("gate").event_kinds()  # declared once, in plugin.py
    floor = True

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        try:
            if ctx.event.kind is EventKind.USER_PROMPT:
                self._note_constraints(ctx)
                return []
            if ctx.event.kind is EventKind.PRE_TOOL and ctx.event.tool is not None:
                return self._pre_tool(ctx)
        except Exception as exc:  # a floor fails closed, with an explanation
            from agentreflex.gate.policy import TITLES

            return [
                Finding(
                    reflex=self.name,
                    code="GATE-INTERNAL-ERROR",
                    verdict=Verdict.BLOCK,
                    title=TITLES["destructive"],
                    message=f"The safety check failed ({type(exc).__name__}); blocked to "
                    "be safe. Retry with a simpler command.",
                    detail={"rule": "GATE-INTERNAL-ERROR", "segment": ""},
                )
            ]
        return []

    def _note_constraints(self, ctx: ReflexContext) -> None:
        from agentreflex.gate.rules import constraints

        for c in constraints.extract(ctx.event.prompt or ""):
            ctx.note(self.name, "constraints", c)

    def where(self, ctx: ReflexContext) -> Where:
        # the session's project: a .git the agent made below it and moved into is not one
        return where_for(
            ctx.event.cwd or ctx.state.cwd or os.getcwd(),
            ctx.event.project,
            ctx.event.session_started,
        )

    def _pre_tool(self, ctx: ReflexContext) -> list[Finding]:
        where = self.where(ctx)
        hits = collect_hits(ctx, where)
        allowed: list[Hit] = []
        withheld: list[Hit] = []
        if _any_file(where.project, _ALLOW_LIST):
            from agentreflex.gate import allow

            hits, allowed = allow.apply_allow(hits, allow.allow_entries(where.project))
            if hits:  # what an allow-list the user has not approved would have let through
                entries = allow.allow_entries(where.project, require_approval=False)
                withheld = allow.apply_allow(hits, entries)[1]
        judge = None
        if hits or ctx.config.judge.mode != "off":
            judge = _judge(ctx)
        may_block = ctx.judge_may_block("pre_tool") if judge else frozenset()
        findings = [
            _finding(self.name, p)
            for p in _decide(hits, judge, ctx.config.thresholds, ctx.config.profile, may_block)
        ]
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
        if withheld:
            findings.append(_unapproved_allow_list(self.name, withheld))
        return findings


def _unapproved_allow_list(reflex: str, withheld: list[Hit]) -> Finding:
    rules = sorted({h.rule for h in withheld})
    return Finding(
        reflex=reflex,
        code="GATE-ALLOW-LIST-UNAPPROVED",
        verdict=Verdict.WARN,
        title="ALLOW-LIST NOT APPROVED",
        message="The project's allow-list (.agentreflex/allow.toml) would allow "
        + ", ".join(rules)
        + ", but the user has not approved its current content, so it does not apply. "
        "The user approves it with `agentreflex trust .agentreflex/allow.toml`.",
        detail={"rule": "GATE-ALLOW-LIST-UNAPPROVED", "rules": rules},
    )


def collect_hits(ctx: ReflexContext, where: Where) -> list[Hit]:
    """Every rule hit for the proposed tool call in ``ctx``."""
    tool = ctx.event.tool
    assert tool is not None
    stated = ctx.state.notes.get("constraints", [])
    noted: list[dict[str, str]] = []
    if not (isinstance(stated, list) and not stated):  # from_state([]) is []
        from agentreflex.gate.rules import constraints

        noted = constraints.from_state(stated)
    windows = _windows_shell(tool)
    if windows:  # PowerShell or cmd.exe: their own syntax (rules/windows.py, issue 30)
        from agentreflex.gate.rules import windows as windows_rules

        text = tool.command or str(tool.input.get("command") or "")
        return windows_rules.analyse(text, windows, where)
    hits, cmds = _call_hits(ctx, tool, where, noted)
    if noted and ctx.state.actions and ctx.state.notes.get("worktree_changes"):
        from agentreflex.gate.rules import constraints

        previous = ctx.state.actions[-1].tool_use_id
        hits.extend(constraints.check_observed(noted, ctx.state.notes, previous))
    paths = [p for p in (tool.paths or ([tool.path] if tool.path else [])) if p]
    if tool.kind in (ToolKind.MCP, ToolKind.OTHER):
        # Judged by what its input does, whatever the tool is called
        from agentreflex.gate.tool_input import implied_calls

        for implied in implied_calls(tool.name, tool.input):
            check_time()  # an MCP call may imply any number of calls
            more, more_cmds = _call_hits(ctx, implied, where, noted)
            hits.extend(more)
            cmds.extend(more_cmds)
            paths.extend(p for p in implied.paths if p)
    if _any_file(where.project, _USER_RULES):
        from agentreflex.gate import allow

        rules = allow.user_rules(where.project)
        if rules:
            hits.extend(allow.user_hits(rules, cmds, paths))
    return hits


_WINDOWS_NAMES = ("powershell", "pwsh", "cmd")


def _windows_shell(tool: ToolCall) -> str:
    """``powershell`` or ``cmd`` when the host runs this shell call in a Windows shell:
    its tool is named so, or its input's ``shell`` field names one."""
    shell = tool.input.get("shell") if isinstance(tool.input, dict) else None
    name = tool.name.lower()
    if not (name.removeprefix("write_").startswith(_WINDOWS_NAMES) or isinstance(shell, str)):
        return ""
    from agentreflex.gate.rules.windows import dialect_of

    return dialect_of(tool.name, shell if isinstance(shell, str) else "")


def _call_hits(
    ctx: ReflexContext, tool: ToolCall, where: Where, noted: list[dict[str, str]]
) -> tuple[list[Hit], list[Cmd]]:
    """The hits of one call of a built-in kind, and the shell commands it runs."""
    hits: list[Hit] = []
    cmds: list[Cmd] = []
    paths = [p for p in (tool.paths or ([tool.path] if tool.path else [])) if p]
    if tool.kind is ToolKind.SHELL:
        analysis = shell_analysis(tool.command, where, ctx.deadline)
        hits.extend(analysis.hits)
        cmds = list(analysis.cmds)
        hits.extend(_shell_patch_hits(cmds, where))
        if UNCHECKED_STDIN in host_traits(ctx.event.host):  # Codex's write_stdin: no hook
            from agentreflex.gate.rules import codex_stdin

            hits.extend(codex_stdin.hits(cmds))
        if noted:  # check_command finds nothing without a constraint
            from agentreflex.gate.rules import constraints

            hits.extend(constraints.check_command(noted, cmds, where))
    elif tool.kind in (ToolKind.READ, ToolKind.SEARCH):
        from agentreflex.gate import files

        # and the files its glob picks: a filter that picks ``.env`` reads it (issue #28)
        picked = files.filtered_reads(tool.input, paths)
        if paths or picked:
            hits.extend(files.read_hits([*paths, *picked], where))
    elif tool.kind is ToolKind.MCP:
        from agentreflex.gate.rules import selfguard

        named, reads = selfguard.mcp_paths(tool.name, tool.input)
        if reads:
            hits.extend(selfguard.read_hits(named, where))
        else:
            hits.extend(selfguard.tool_hits(named, where, tool.name))
    elif tool.mutates_files:
        from agentreflex.gate import files

        content = files.added_lines(tool.patch) if tool.kind is ToolKind.PATCH else tool.content
        deleting = "*** Delete File:" in tool.patch
        hits.extend(files.write_hits(paths, content, where, deleting))
        if noted:  # check_paths and check_manifest_edit find nothing without a constraint
            from agentreflex.gate.rules import constraints

            hits.extend(constraints.check_paths(noted, paths, where, ", ".join(paths), deleting))
            for p in paths:
                hits.extend(constraints.check_manifest_edit(noted, p, content, tool.old_content, p))
    return hits, cmds


# Commands a host takes for its own patch tool and applies itself, outside the boundary:
# Codex (``maybe_parse_apply_patch_verified``) and OpenCode (``maybeParseApplyPatch``)
_PATCH_COMMANDS = frozenset({"apply_patch", "applypatch"})


def _shell_patch_hits(cmds: list[Cmd], where: Where) -> list[Hit]:
    """A shell command ``apply_patch <<'EOF' ...`` (or with the patch as its argument),
    judged as the file tool's patch it becomes (red-team rt35)."""
    hits: list[Hit] = []
    for cmd in cmds:
        if cmd.name.rpartition("/")[2] not in _PATCH_COMMANDS:
            continue
        from agentreflex.core.events import build_tool_call
        from agentreflex.gate import files

        for body in (cmd.stdin_text or "", *cmd.args):
            paths = build_tool_call("apply_patch", {"input": body}).paths if body else []
            if paths:
                here = Where(
                    cmd.cwd or where.cwd, where.project, where.home, where.tmpdir, where.since_ns
                )
                deleting = "delete file" in body.lower()
                hits.extend(files.write_hits(paths, files.added_lines(body), here, deleting))
    return hits


def _any_file(project: str, files: tuple[tuple[str, ...], ...]) -> bool:
    """Whether the project has any of ``files`` (the usual answer is no).

    ``os.stat``, as ``allow`` itself tries them: the same errors escape.
    """
    for parts in files:
        try:
            os.stat(os.path.join(project, *parts))
        except OSError:
            continue
        return True
    return False


def _decide(
    hits: list[Hit],
    judge: Mapping[str, float] | None,
    thresholds: Mapping[str, float],
    profile: str = "balanced",
    judge_may_block: frozenset[str] = frozenset(),
) -> list[policy.Proposal]:
    """``policy.decide``, without importing it when there is nothing to decide.

    No hit and no judge leave every signal at 0.0, which crosses no threshold
    above 0 (a threshold of 0 or below, or a missing one, goes to the policy).
    """
    if not hits and judge is None and all(thresholds[k] > 0 for k in _FLOOR_THRESHOLDS):
        return []
    from agentreflex.gate import policy

    return policy.decide(hits, judge, thresholds, profile, judge_may_block)


def _judge(ctx: ReflexContext) -> dict[str, float] | None:
    try:
        probs = ctx.probabilities("pre_tool")
    except Exception:
        return None
    return dict(probs) if probs else None


def _finding(reflex: str, p: policy.Proposal) -> Finding:
    from agentreflex.gate.policy import as_detail

    detail: dict[str, Any] = as_detail(p)
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
