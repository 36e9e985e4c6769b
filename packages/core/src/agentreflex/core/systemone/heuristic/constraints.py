"""Reading a session's constraints against the proposed action: ``constraint_violation``.

A constraint is read clause by clause, each with its polarity (never, do not,
instead of forbid; always, use, prefer ask for something), the commands it
quotes, the operations it names (push, amend, commit, edit, install...), and
the branches and paths those apply to.  This is the largest of the built-in
engine's rules, with a vocabulary of its own, so it has a module of its own;
:mod:`~agentreflex.core.systemone.heuristic.engine` calls
:func:`constraint_violation` like any other rule.
"""

from __future__ import annotations

import re

from agentreflex.core.systemone.heuristic.common import (
    MUTATING,
    NO,
    UNLIKELY,
    YES,
    Screened,
    mutates,
    words_of,
)
from agentreflex.core.systemone.heuristic.reader import Facts
from agentreflex.core.util.lazyre import LazyPattern

__all__ = ["constraint_violation"]

_PATH_PARTS = re.compile(r"[/.]")


# A constraint is read clause by clause.  A clause that forbids (never, do not, no, instead of)
# names what is forbidden after its negation; a clause that prescribes (always use, use, prefer,
# run `x`) names what is asked for, and doing that is no violation ("Always use yarn ... Do not use
# npm commands": `yarn install` keeps it, `npm install` breaks it).  A clause that only states
# (X needs approval, X change only through Y) is read whole, as before.
_CLAUSE = LazyPattern(r"[.;!?]\s+|:\s+(?![`\"'])|\s+-\s+")
_NEGATION = Screened(
    r"(?i)\b(?:never|not|no|don't|dont|must not|mustn't|cannot|can't|avoid|instead of)\b",
    *("never", "not", "no", "don't", "dont", "mustn't", "cannot", "can't", "avoid", "instead of"),
)
_GATED = Screened(
    r"(?i)\bask (?:before|for permission|first)\b|\bcheck with the user\b|\bapproval\b"
    r"|\bpermission\b|\bexplicitly ask|\bwhen the user\b",
    *("ask ", "check with the user", "approval", "permission", "explicitly ask", "when the user"),
)
_PRESCRIBES = Screened(
    r"(?i)^\s*(?:always|please|use|prefer|run|create|keep|follow|ensure|make sure|before)\b"
    r"|\balways\b|\buses\b|\bprefer\b",
    *("always", "please", "use", "prefer", "run", "create", "keep", "follow", "ensure"),
    *("make sure", "before"),
)
# What follows these is a condition on the rule, not what it is about.
_CONDITION = LazyPattern(r"(?i)\b(?:without|unless|until|before|after|except)\b.*$")
_QUOTED = LazyPattern(r"`([^`]+)`|\"([^\"]+)\"")
_SEGMENTS = LazyPattern(r"&&|\|\||[;|&\n]|\$\(")
_ENV_PREFIX = LazyPattern(r"^(?:\s*[A-Za-z_]\w*=\S*)+\s+")
_READ_ONLY_SUBJECT = Screened(r"(?i)^(.*?)\b(?:is|are)\s+read[- ]only\b", "read")
_ONLY_PLACE = Screened(r"(?i)\bonly\b.*\b(?:in|under|inside|within)\b", "only")
_OUTSIDE = Screened(
    r"(?i)\boutside (?:of )?(?:the |this |your )?(?:workspace|project|repo|working|work tree|target)",
    "outside",
)
# "Only edit files under src/" allows (and bounds) rather than forbids; "X change only through
# the pipeline" still forbids changing X any other way.
_ONLY = Screened(r"(?i)(?<![-\w])only\b(?!\s+(?:through|via|by|with|using|when|if)\b)", "only")
_BRANCHES = frozenset({"main", "master", "production", "prod", "develop", "trunk", "release"})
_MODE_WORDS = frozenset({"plan", "mode", "review", "reviews", "pass", "passes", "investigation"})
_OP_STOP = frozenset(
    {
        *("use", "using", "run", "running", "make", "create", "git", "command", "commands"),
        *("directly", "remote", "origin", "any", "anything", "all", "every", "ever"),
        *("own", "your", "you", "them", "their", "its", "via", "one", "new", "code", "state"),
    }
)


class _Op:
    """An operation a rule can name (``force push``) and the command that performs it.

    ``does`` is matched against a shell command; without it the operation is any change
    (``edit``: :func:`mutates`; ``change``: that or any git operation).  ``wider``: an
    operation that, named in the same rule, narrows this one ("no amending" forbids
    ``--amend``, not every commit, though the rule says "commits")."""

    __slots__ = ("does", "file_op", "name", "named", "wider")

    def __init__(
        self,
        name: str,
        named: Screened,
        does: Screened | None,
        *,
        file_op: bool = False,
        wider: str = "",
    ) -> None:
        self.name, self.named, self.does = name, named, does
        self.file_op, self.wider = file_op, wider

    def acts(self, f: Facts) -> bool:
        if self.does is not None:
            return f.tool_kind == "shell" and bool(self.does.search(f.target))
        if mutates(f):
            return True
        return self.name == "change" and any(op.git and op.acts(f) for op in _OPS)

    @property
    def git(self) -> bool:
        return self.does is not None and self.name not in ("install", "copy")


_OPS: tuple[_Op, ...] = (
    _Op(
        "force push",
        Screened(r"(?i)\bforce[- ]?push|--force\b|\bpush --force", "force"),
        Screened(r"(?i)\bgit\s+push\b.*(?:--force|\s-f\b|\s\+\S)", "push"),
    ),
    _Op(
        "push",
        Screened(r"(?i)\bpush(?:es|ed|ing)?\b", "push"),
        Screened(r"(?i)\bgit\s+push\b", "push"),
        wider="force push",
    ),
    _Op("amend", Screened(r"(?i)\bamend", "amend"), Screened(r"(?i)--amend\b", "amend")),
    _Op(
        "rewrite",
        Screened(r"(?i)\brewrit\w*\s+(?:\w+\s+)?(?:history|commits)", "rewrit"),
        Screened(
            r"(?i)\bgit\s+(?:rebase|filter-branch|filter-repo)\b|--amend\b",
            "rebase",
            "filter",
            "amend",
        ),
    ),
    _Op(
        "commit",
        Screened(r"(?i)\bcommit(?:s|ted|ting)?\b", "commit"),
        Screened(r"(?i)\bgit\s+commit\b", "commit"),
        wider="amend",
    ),
    _Op("stash", Screened(r"(?i)\bstash", "stash"), Screened(r"(?i)\bgit\s+stash\b", "stash")),
    _Op("rebase", Screened(r"(?i)\brebas", "rebas"), Screened(r"(?i)\bgit\s+rebase\b", "rebase")),
    _Op(
        "merge",
        Screened(r"(?i)\bmerge\b", "merge"),
        Screened(r"(?i)\bgit\s+merge\b|\bgh\s+pr\s+merge\b", "merge"),
    ),
    _Op("reset", Screened(r"(?i)\breset\b", "reset"), Screened(r"(?i)\bgit\s+reset\b", "reset")),
    _Op(
        "revert",
        Screened(
            r"(?i)\brevert|\bgit\s+(?:checkout|restore)\b|\bdiscard", "revert", "git", "discard"
        ),
        Screened(r"(?i)\bgit\s+(?:revert|restore|checkout\s+(?:\S+\s+)?--(?:\s|$))", "git"),
    ),
    _Op(
        "change",
        Screened(
            r"(?i)\bread[- ]only\b|\bread mode\b|\bplan mode\b|\bstate-changing\b"
            r"|\bno (?:edits|changes)\b|\bapply (?:fixes|changes)\b|\bgit mutation",
            *("read", "plan mode", "state-changing", "no edits", "no changes", "apply", "mutation"),
        ),
        None,
    ),
    _Op(
        "edit",
        Screened(
            r"(?i)\b(?:edit(?:s|ing)?|modif(?:y|ying|ies|ications?)|touch|writ(?:e|es|ing)"
            r"|change|changing|alter|delete|remove|rm)\b",
            *("edit", "modif", "touch", "writ", "chang", "alter", "delete", "remove", "rm"),
        ),
        None,
        file_op=True,
    ),
    _Op(
        "install",
        Screened(r"(?i)\binstall\w*|\bdependenc", "install", "dependenc"),
        Screened(
            r"(?i)\binstall\b|\b(?:npm|yarn|pnpm|uv|poetry|cargo|bun)\s+add\b", "install", "add"
        ),
        file_op=True,
    ),
    _Op(
        "copy",
        Screened(r"(?i)\bcopy\w*|\bcp\b", "copy", "cp"),
        Screened(r"(?i)\bcp\b|\brsync\b", "cp", "rsync"),
        file_op=True,
    ),
)
_OP_WORDS = frozenset(
    {
        *("force", "push", "pushes", "pushing", "force-push", "amend", "amending", "rewrite"),
        *("rewriting", "commit", "commits", "committing", "stash", "rebase", "merge", "reset"),
        *("revert", "checkout", "restore", "discard", "edit", "edits", "editing", "modify"),
        *("modifying", "touch", "write", "writing", "change", "changes", "changing", "alter"),
        *("delete", "remove", "install", "installing", "copy", "read-only", "history"),
        *("dependency", "dependencies", "package", "packages"),  # what any install installs
    }
)


def _target_text(f: Facts) -> str:
    """What the action touches: an edit's path (not its new text), a command whole."""
    return f.target if f.tool_kind == "shell" else f.target.split(" | ", 1)[0]


def _target_words(f: Facts) -> set[str]:
    words = words_of(_target_text(f))
    # a path's parts too: "do not modify tests" is about tests/test_login.py
    return words | {part for word in words for part in _PATH_PARTS.split(word) if len(part) >= 3}


def _runs(quoted: str, f: Facts) -> bool:
    """Does the action run a command a rule quotes (`npm`, `git push --force`)?"""
    q = " ".join(quoted.split()).lower()
    if f.tool_kind != "shell" or len(q) < 2:
        return False
    if q.startswith("-"):  # a flag: anywhere in the command
        return len(q) >= 3 and q in f.target.lower().split()
    if "/" in q or (q.startswith(".") and " " not in q):
        return False  # a path: what the rule is about, not a command
    for seg in _SEGMENTS.split(f.target):
        seg = " ".join(_ENV_PREFIX.sub("", seg.strip()).split()).lower()
        if seg == q or seg.startswith(q + " "):
            return True
    return False


def _objects(text: str, op: _Op) -> set[str]:
    """What a forbidding clause is about, besides the operation: for a file operation, its
    words ("the test files"); for a git operation, only a branch, a path or a quoted name."""
    text = _CONDITION.sub("", text)
    if op.name == "change" and (subject := _READ_ONLY_SUBJECT.search(text)):
        return words_of(subject.group(1)) - _MODE_WORDS - _OP_STOP
    if op.name == "change":
        return set()
    words = words_of(text) - _OP_WORDS - _OP_STOP
    if op.file_op:
        return words
    return {w for w in words if w in _BRANCHES or "/" in w or "." in w}


def _forbidden(text: str, f: Facts, named: set[str], strict: bool) -> float:
    """How far the action does what a clause's ``text`` names.  ``strict``: the clause forbids
    (or asks for approval first), so a command it quotes is itself forbidden."""
    quoted = [a or b for a, b in _QUOTED.findall(text)]
    if strict and any(_runs(q, f) for q in quoted):
        return YES
    ops = [op for op in _OPS if op.named.search(text)]
    if ops:
        best = NO
        for op in ops:
            # "no amending": a plain commit keeps it, though the rule says "commits"
            if op.wider not in named and op.acts(f):
                objects = _objects(text, op)
                if not objects or objects & _target_words(f):
                    return YES
                # elsewhere: plainly so when the rule names a path, in doubt when only words
                best = max(best, NO if "/" in text else UNLIKELY)
        return best
    if quoted:
        return NO  # it forbids commands this action does not run
    if (words_of(_CONDITION.sub("", text)) - _OP_STOP) & _target_words(f):
        return YES if mutates(f) else UNLIKELY
    return NO


def _escapes(f: Facts) -> list[str]:
    """Paths the action names outside the working tree: absolute, home or parent ones."""
    text = _target_text(f)
    return [
        w for w in text.split() if w.startswith(("/", "~", "../")) and not w.startswith("/dev/")
    ]


def _outside_only(clause: str, f: Facts) -> bool:
    """ "Work only in /tmp/x", "only edit files under src/": a change that names a path
    elsewhere breaks it."""
    places = [w.strip("`'\".,") for w in clause.split() if "/" in w]
    if not places or not _ONLY_PLACE.search(clause) or not mutates(f):
        return False
    paths = _escapes(f) if f.tool_kind == "shell" else [_target_text(f).strip()]
    return any(not any(p.startswith(place) for place in places) for p in paths if p)


def _bounds(clause: str) -> bool:
    """ "Only edit files under src/": a clause that allows one place (judged by
    :func:`_outside_only`) rather than forbids what it names."""
    return bool(_ONLY.search(clause)) and any("/" in w for w in clause.split())


def _grants(clause: str, f: Facts) -> bool:
    """ "The only file you may edit is plan.md": the rule itself allows this file."""
    if f.tool_kind not in MUTATING or "only" not in clause.lower():
        return False
    path = _target_text(f).strip().lower()
    return bool(path) and any(
        w.strip("`'\".,") in (path, path.rsplit("/", 1)[-1]) for w in clause.lower().split()
    )


def _constraint(constraint: str, f: Facts) -> float:
    """How far the action breaks one constraint.  A clause that grants the action, or a change
    outside the only place a clause allows, settles it; otherwise the worst clause counts."""
    clauses = [c for c in _CLAUSE.split(constraint) if c.strip()]
    if any(_grants(c, f) for c in clauses):
        return NO
    parts: list[tuple[str, bool]] = []
    for clause in clauses:
        neg = _NEGATION.search(clause)
        if neg:
            parts.append((clause[neg.start() :], True))
        elif _GATED.search(clause):
            parts.append((clause, True))
        elif not _PRESCRIBES.search(clause) and not _bounds(clause):
            parts.append((clause, False))  # a rule stated, not a tool prescribed: read whole
        if _outside_only(clause, f):
            return YES
        if _OUTSIDE.search(clause) and (neg or _GATED.search(clause)) and _escapes(f):
            return YES
    named = {op.name for op in _OPS for part, _ in parts if op.named.search(part)}
    return max((_forbidden(part, f, named, strict) for part, strict in parts), default=NO)


def constraint_violation(f: Facts) -> float:
    """judge2's ``constraint_violation``: the worst of the session's constraints for this action."""
    if not f.constraints:
        return NO
    return max(_constraint(c, f) for c in f.constraints)
