"""Checking a proposed action against the project's written rules.

A file write, edit or patch is checked against every rule that governs the
file's folder; a shell command against the rules that govern its working
directory, and every path it would change (found by the gate's own change
finder) against the rules of that path.  Matching reuses the gate's
constraint checks, so "never edit generated/" in AGENTS.md means exactly what
"never edit generated/" typed in a prompt means.

Each violation becomes a :class:`Violation` that quotes the rule and cites
``file:line``; the reflex turns it into a decision.  Editing the rule files
themselves, or ``policies/``, is for the user to approve.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath

from agentreflex.core import testrun
from agentreflex.core.util.record import field, record
from agentreflex.gate import api as gate
from agentreflex.gate.api import DESCENDANT, REMOTE, UNKNOWN, Where
from agentreflex.instructions import parse, ruleset, sources, sticky
from agentreflex.instructions.parse import Rule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.events import ToolCall
    from agentreflex.core.state.model import SessionState
    from agentreflex.gate.api import Cmd
    from agentreflex.instructions.sources import Diagnostic

_GATE_ACTIONS = frozenset({"add_dependency", "push", "commit", "merge", "run"})


@record
class Violation:
    """One broken rule (``rule`` is None for an edit of the rules themselves)."""

    what: str
    rule: Rule | None = None
    conflicts: list[str] = field(default_factory=list)
    ask_user: bool = False
    file: str = ""  # the rule file an ask is about (project-relative)
    removed: bool = False  # the rule was taken out of its file this session, unapproved


def check_tool(
    tool: ToolCall, cwd: str, project: str, deadline: float, since_ns: int | None = None
) -> list[Violation]:
    """Every rule the proposed ``tool`` call would break (``since_ns``: see :func:`_commands`)."""
    if tool.mutates_files:
        content = gate.added_lines(tool.patch) if tool.patch else tool.content
        deleting = "*** Delete File:" in tool.patch
        out: list[Violation] = []
        for path in [p for p in (tool.paths or [tool.path]) if p]:
            out.extend(check_write(path, cwd, project, content, tool.old_content, deleting))
        return out
    if tool.command:
        return check_command(tool.command, cwd, project, deadline, since_ns)
    return []


def diagnostics_for(tool: ToolCall, cwd: str, project: str) -> list[Diagnostic]:
    """What could not be read of the rule files governing ``tool``'s paths (memoised)."""
    paths = [p for p in (tool.paths or [tool.path]) if p] if tool.mutates_files else [cwd]
    out: list[Diagnostic] = []
    for path in paths[:16]:
        full = posixpath.normpath(path if path.startswith("/") else posixpath.join(cwd, path))
        if _inside(full, project):
            out.extend(
                d for d in ruleset.for_path(project, full, False).diagnostics if d not in out
            )
    return out


def check_write(
    path: str, cwd: str, project: str, content: str = "", old: str = "", deleting: bool = False
) -> list[Violation]:
    """Rules broken by writing (or deleting) ``path``; nothing outside the project.

    A path through a symlink is checked where it lands too: ``link/x`` with
    ``link -> generated`` writes under generated/.
    """
    full = posixpath.normpath(path if path.startswith("/") else posixpath.join(cwd, path))
    try:
        real = os.path.realpath(full)
        real_project = os.path.realpath(project)
    except (OSError, ValueError):  # a NUL byte, a loop: judge the path as written
        return _check_one(path, full, cwd, project, content, old, deleting)
    if real != full and _inside(real, real_project):
        landed = project.rstrip("/") + real[len(real_project.rstrip("/")) :]
        if landed != full:
            # where it lands first: the gate's path check follows the links on the way
            # too, and the rule is about the folder the user named
            return _check_one(path, landed, cwd, project, content, old, deleting) or _check_one(
                path, full, cwd, project, content, old, deleting
            )
    return _check_one(path, full, cwd, project, content, old, deleting)


def _check_one(
    path: str, full: str, cwd: str, project: str, content: str, old: str, deleting: bool
) -> list[Violation]:
    if not _inside(full, project):
        return []
    if sources.is_instruction_file(full, project) or _inside(
        full, os.path.join(project, "policies")
    ):
        rel = full[len(project.rstrip("/")) + 1 :]
        mine = sources.is_instruction_file(full, project)
        return [
            Violation(
                f"It would change {rel}, which holds the rules agents follow.",
                ask_user=True,
                file=rel if mine else "",
            )
        ]
    rs = ruleset.for_path(project, full, advice=False)
    out: list[Violation] = []
    for rule, removed in _prohibitions(rs, full, project):
        what = _path_breaks(rule, full, cwd, deleting)
        if what is None and rule.action == "add_dependency" and content:
            what = _manifest_breaks(rule, full, content, old)
        if what is not None:
            conflicts = [c for c in rs.conflicts if rule.cite() in c]
            out.append(Violation(what, rule, conflicts, removed=removed))
    return out


_REMOVED: list[Rule] = []  # this call's remembered prohibitions (see :mod:`sticky`)


def _prohibitions(rs: ruleset.RuleSet, path: str, project: str) -> list[tuple[Rule, bool]]:
    """The prohibitions governing ``path``: the files' own, then each remembered one
    that governs it and that no rule of the files holds any more (True)."""
    out = [(r, False) for r in rs.of_kind(parse.PROHIBIT)]
    if not _REMOVED:
        return out
    held = {sticky.meaning(r) for r, _ in out}
    rel = posixpath.relpath(path, project)
    for rule in _REMOVED:
        if sticky.meaning(rule) in held or not _inside(path, rule.scope):
            continue
        if ruleset.applies(rule, rel):
            held.add(sticky.meaning(rule))
            out.append((rule, True))
    return out


def _path_breaks(rule: Rule, full: str, cwd: str, deleting: bool) -> str | None:
    if rule.action not in ("modify", "delete") or (rule.action == "delete" and not deleting):
        return None
    rel = posixpath.relpath(full, rule.scope)
    verb = "delete" if deleting else "change"
    if any(ch in rule.target for ch in "*?["):
        pattern = rule.target.lstrip("./")
        hit = (
            fnmatch.fnmatchcase(rel, pattern)
            or fnmatch.fnmatchcase(posixpath.basename(rel), pattern)
            or ruleset.glob_match(pattern, rel)
        )
        return f"It would {verb} {rel}." if hit else None
    where = Where(cwd=cwd, project=rule.scope, home=os.path.expanduser("~"))
    c = {"action": rule.action, "target": rule.target, "text": rule.text}
    hits = gate.check_paths([c], [full], where, full, deleting)
    return f"It would {verb} {rel}." if hits else None


def _manifest_breaks(rule: Rule, full: str, content: str, old: str) -> str | None:
    c = {"action": "add_dependency", "target": "dependencies", "text": rule.text}
    hits = gate.check_manifest_edit([c], full, content, old, full)
    return f"It adds a dependency to {posixpath.basename(full)}." if hits else None


def check_command(
    command: str, cwd: str, project: str, deadline: float, since_ns: int | None = None
) -> list[Violation]:
    """Rules broken by a shell command: its programs, and every path it changes."""
    where = Where(cwd=cwd, project=project, home=os.path.expanduser("~"))
    cmds = _commands(command, where, deadline, since_ns)
    rs = ruleset.for_path(project, cwd, False) if _inside(cwd, project) else ruleset.RuleSet()
    out: list[Violation] = []
    governed = _prohibitions(rs, cwd, project) if _inside(cwd, project) else []
    for rule, removed in governed:
        what = _command_breaks(rule, cmds, where)
        if what is not None:
            conflicts = [c for c in rs.conflicts if rule.cite() in c]
            out.append(Violation(what, rule, conflicts, removed=removed))
    out.extend(_changed_paths(cmds, where))
    return _unique(out)


def _command_breaks(rule: Rule, cmds: list[Cmd], where: Where) -> str | None:
    if rule.action == "only_use":
        family = next((f for f in parse.PACKAGE_FAMILIES if rule.target in f), frozenset())
        for cmd in cmds:
            if cmd.name in family and cmd.name != rule.target:
                return f"It runs {cmd.name}, not {rule.target}."
        return None
    if rule.action not in _GATE_ACTIONS:
        return None
    if rule.action == "run":  # a program by name (the gate's looser word match is for prompts)
        return f"It runs {rule.target}." if any(_runs(rule.target, c) for c in cmds) else None
    c = {"action": rule.action, "target": rule.target, "text": rule.text}
    if not gate.check_command([c], cmds, where):
        return None
    if rule.action == "add_dependency":
        return "It installs a new package."
    return f"It runs git {rule.action}."


def _runs(target: str, cmd: Cmd) -> bool:
    t = target.lower()
    if t.startswith("migration"):
        return any("migrat" in a.lower() for a in cmd.argv)
    return posixpath.basename(cmd.name).lower() == t or t in _wrappers(cmd)


def _wrappers(cmd: Cmd) -> list[str]:
    """The programs the analysis unwrapped in front of ``cmd`` (``sudo``, ``env``, ``nice``...)."""
    words = cmd.text.split()
    if cmd.name not in words:
        return []
    return [posixpath.basename(w) for w in words[: words.index(cmd.name)] if "=" not in w]


def _changed_paths(cmds: list[Cmd], where: Where) -> list[Violation]:
    out: list[Violation] = []
    for cmd in cmds:
        for path, effect, cwd in gate.command_effects(cmd, where)[:64]:
            known = _known_part(path)
            if not known:
                continue  # nothing of the target is known (the gate asks about those)
            full = posixpath.normpath(
                known if known.startswith("/") else posixpath.join(cwd, known)
            )
            out.extend(
                check_write(full, cwd, where.project, deleting=effect in (gate.DELETE, gate.MOVE))
            )
    return out


_UNKNOWN_NAME = "_"  # stands for a name only known at run time


def _known_part(path: str) -> str:
    """``path`` as far as it is known before the command runs.

    The gate marks what only the run decides (``rm -rf generated/$(ls)``,
    ``find x -delete``'s entries) with control characters; such a path is
    taken as an unknown entry of its last known folder (``generated/_``), so
    a rule on that folder still applies, and ``""`` when no folder is known.
    """
    cut = min(
        (i for i in (path.find(m) for m in (UNKNOWN, REMOTE, DESCENDANT)) if i >= 0), default=-1
    )
    if cut < 0:
        return path
    folder = path[:cut].rpartition("/")[0]
    if not folder and not path.startswith("/"):
        folder = "."
    return f"{folder}/{_UNKNOWN_NAME}" if folder else ""


def _unique(found: list[Violation]) -> list[Violation]:
    seen: set[str] = set()
    out = []
    for v in found:
        key = v.rule.cite() + v.rule.text if v.rule else v.what
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


# --- requirements -----------------------------------------------------------

_GIT_WHEN = {"commit": "commit", "push": "push"}


_ANALYSED: dict[tuple[str, str], list[Cmd]] = {}


def _commands(
    command: str, where: Where, deadline: float, since_ns: int | None = None
) -> list[Cmd]:
    """The gate's analysis of ``command`` (the simple commands it runs), once per call.

    The gate's own, shared within the event: the gate reflex has usually made
    it already (``shell_analysis``), and it is found again only when asked with
    the gate's own ``Where``: the session's project and start (``since_ns``:
    ``Event.session_started``), as the gate judges the call by.  Asked with
    another, a 250 kB command was analysed twice per call, ~0.5 s each (rt74).
    """
    key = (command, where.cwd)
    if key not in _ANALYSED:
        _ANALYSED.clear()
        judged = gate.where_for(where.cwd, where.project, since_ns)
        _ANALYSED[key] = list(gate.shell_analysis(command, judged, deadline).cmds)
    return _ANALYSED[key]


def new_call(remembered: list[Rule] | None = None) -> None:
    """Forget the last analysis and the folders seen: shared within one tool call, never
    across calls.  ``remembered``: the session's remembered prohibitions (:mod:`sticky`)."""
    _ANALYSED.clear()
    sources.forget()
    ruleset.new_call()
    _REMOVED[:] = remembered or []


def _git_sub(cmd: Cmd) -> str:
    """``commit`` for ``git -C x -c a=b commit -m y`` (the first operand after git's options)."""
    if posixpath.basename(cmd.name) != "git":
        return ""
    args = cmd.args
    i = 0
    while i < len(args):
        if args[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace"):
            i += 2
        elif args[i].startswith("-"):
            i += 1
        else:
            return args[i]
    return ""


def pending_for_command(
    command: str,
    cwd: str,
    project: str,
    state: SessionState,
    deadline: float,
    since_ns: int | None = None,
) -> list[Rule]:
    """Requirements a ``git commit``/``git push`` in ``command`` would skip."""
    if "commit" not in command and "push" not in command:
        return []
    if not _inside(cwd, project):
        return []
    where = Where(cwd=cwd, project=project, home=os.path.expanduser("~"))
    when = {
        _GIT_WHEN[s]
        for s in map(_git_sub, _commands(command, where, deadline, since_ns))
        if s in _GIT_WHEN
    }
    if not when:
        return []
    rs = ruleset.for_path(project, cwd, advice=False)
    return [
        r
        for r in rs.of_kind(parse.REQUIRE)
        if r.when in when and not satisfied(r, state) and not _runs_first(r, command)
    ]


def pending_at_stop(cwd: str, project: str, state: SessionState) -> list[Rule]:
    """Requirements for finishing ("run X before you finish") not met since the last change."""
    if state.counters.last_mutation_seq <= 0 or not _inside(cwd, project):
        return []
    rs = ruleset.for_path(project, cwd, advice=False)
    return [r for r in rs.of_kind(parse.REQUIRE) if r.when == "done" and not satisfied(r, state)]


def satisfied(rule: Rule, state: SessionState) -> bool:
    """Did the required command run, without failing, since the last change?"""
    c = state.counters
    since = c.last_mutation_seq
    if rule.command == parse.TESTS:
        return c.last_verification_seq > since and c.last_verification_ok is not False
    want = " ".join(rule.command.split())
    # A named test run ("run `pytest -x`") is met only by a real one (core.testrun):
    # a shell function or a ./pytest file with the same words is not.
    needs_run = testrun.RUNNERS.match(testrun.strip_wrappers(want)) is not None
    for action in reversed(state.actions):
        # ``since`` is the seq of the change's result, so the call that made it comes just
        # before.  That call may be the required command itself (``make lint`` writing
        # lint.log, ``ruff --fix``): its own changes do not make it stale, or it could never
        # be met.  Anything older is before the change.
        made_the_change = action.seq < since
        if made_the_change and not action.mutation:
            return False
        ran = action.kind == "shell" and action.outcome != "failure" and want in action.summary
        if ran and (not needs_run or action.verification):
            return True
        if made_the_change:
            return False
    return False


def _runs_first(rule: Rule, command: str) -> bool:
    """``make lint && git commit``: the requirement runs in the same command, first."""
    flat = " ".join(command.split())
    want = " ".join(rule.command.split())
    at = flat.find(want)
    return rule.command != parse.TESTS and at >= 0 and at < flat.find("git ")


def _inside(path: str, parent: str) -> bool:
    parent = parent.rstrip("/")
    return path == parent or path.startswith(parent + "/")
