"""The built-in engine: judge2's batteries answered from the state text, no torch.

A fixed rule per question id (core's signal names) reads the facts
:mod:`agentreflex.core.systemone.heuristic.reader` pulls out of the state text and returns a
probability.  The numbers are rounded to a few levels on purpose: a rule
knows "plainly yes", "plainly no" or "cannot tell", and saying 0.93 where it
means "plainly yes" is what the calibration audit checks (see the README for
the measured Brier score and ECE).  Questions it has no rule for get an
honest "cannot tell": 0.5 for a noul, a uniform distribution for a choice or
score.  Deterministic: the same text and questions give the same answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agentreflex.core.systemone import signals as s
from agentreflex.core.systemone.heuristic.reader import Action, Facts, read
from agentreflex.core.util.lazyre import LazyPattern

MODEL_ID = "laya-builtin-1"

YES, LIKELY, UNSURE, UNLIKELY, NO = 0.92, 0.75, 0.5, 0.2, 0.05


class Screened:
    """A case-insensitive pattern behind a cheap screen.

    ``keys`` are lower-case fragments at least one of which every match contains, so text
    holding none of them is answered without running the regex.  Python's ``re`` tries each
    alternative at each position, about 0.15 µs a character for these patterns (a 300-character
    command costs tens of µs per pattern), while ``in`` on a string runs at C speed.  Text
    that is not ASCII always goes to the regex: case-insensitive matching treats a few
    non-ASCII letters (the Kelvin sign, a long s) as ASCII ones, which ``lower()`` does not.
    """

    __slots__ = ("_regex", "keys", "pattern")

    def __init__(self, pattern: str, *keys: str) -> None:
        self.pattern = pattern
        self.keys = keys
        self._regex: re.Pattern[str] | None = None

    @property
    def regex(self) -> re.Pattern[str]:
        """Compiled on first use: the offline backend imports this module on the hook path."""
        if self._regex is None:
            self._regex = re.compile(self.pattern)
        return self._regex

    def search(self, text: str) -> re.Match[str] | None:
        if text.isascii():
            low = text.lower()
            for key in self.keys:
                if key in low:
                    break
            else:
                return None
        return self.regex.search(text)


_SECRET = Screened(
    r"(?i)(\bAKIA[0-9A-Z]{16}\b|PRIVATE KEY|\[REDACTED\]|(?:^|[\s/'\"])\.env\b|\bid_rsa\b|\bid_ed25519\b"
    r"|\bprintenv\b|\bcredentials\b|\.netrc\b|\bsecrets?\.(?:ya?ml|json|toml)\b)",
    *("akia", "private key", "[redacted]", ".env", "id_rsa", "id_ed25519", "printenv"),
    *("credentials", ".netrc", "secret"),
)
_SENDS = re.compile(
    r"(?i)\b(cat|echo|print|curl|wget|scp|nc|upload|git add|git commit|cp|less|head|tail)\b"
)
_HARD = Screened(
    r"(?i)(\brm\s+-[a-z]*[rf]|\bgit\s+reset\s+--hard\b|\bgit\s+push\b.*(?:--force|\s-f\b)"
    r"|\bgit\s+clean\s+-[a-z]*f|\bdrop\s+(?:table|database)\b|\bmkfs\b|\bdd\s+.*\bof=|\btruncate\b"
    r"|\bchmod\s+-R\s+777\b|>\s*/dev/sd[a-z]|\bgit\s+branch\s+-D\b)",
    *("rm", "git", "drop", "mkfs", "dd", "truncate", "chmod", ">"),
)
_SOFT = Screened(
    r"(?i)(\brm\b|\bmv\b|\bgit\s+checkout\s+--|\bgit\s+restore\b|\bgit\s+stash\s+drop\b)",
    *("rm", "mv", "git"),
)
_WRITES = Screened(
    r"(?i)(>|\bsed -i\b|\bgit (commit|push|add)\b|\binstall\b|\btee\b)",
    *(">", "sed -i", "git ", "install", "tee"),
)
_BLOCKER = Screened(
    r"(?i)(permission denied|eacces|not permitted|command not found|could not resolve host"
    r"|network is unreachable|connection refused|unauthori[sz]ed|forbidden|authentication failed"
    r"|quota exceeded|rate limit|no space left)",
    *("permission denied", "eacces", "not permitted", "command not found"),
    *("could not resolve host", "network is unreachable", "connection refused", "unauthori"),
    *("forbidden", "authentication failed", "quota exceeded", "rate limit", "no space left"),
)
_TRANSIENT = Screened(
    r"(?i)(timed? ?out|temporar|try again|econnreset|\b50[23]\b|flaky|deadline exceeded)",
    *("time", "temporar", "try again", "econnreset", "50", "flaky", "deadline exceeded"),
)
_SIDE = Screened(
    r"(?i)(deleted|removed|overwr|clobber|dropped|force[d-]? push|wiped)",
    *("deleted", "removed", "overwr", "clobber", "dropped", "force", "wiped"),
)
_CLAIM = Screened(
    r"(?i)\b(tests?|suite|checks?)\b[^.!?]{0,40}\b(pass|green|succeed)|\b\d+ passed\b|\bfixed\b"
    r"|\bresolved\b|\bverified\b|\bworks now\b|\bnow works\b|\bbuild (?:succeeds|passes|is green)",
    *("pass", "green", "succeed", "fixed", "resolved", "verified", "works now", "now works"),
    *("build",),
)
_MUTATING = {"edit", "write", "delete", "notebook"}
_WORD = re.compile(r"[a-z0-9_./-]{3,}")
_STOP = frozenset(
    {
        *("the", "and", "any", "for", "not", "never", "with", "without", "this", "that"),
        *("these", "those", "please", "are", "file", "files", "folder", "directory", "don't"),
        *("dont", "must", "should", "only", "under", "into", "from"),
    }
)
_NEUTRAL_TOOLS = Screened(
    r"(?i)\b(pytest|tox|make|npm test|cargo test|go test|ruff|mypy|git status|git diff|ls|cat|grep|rg)\b",
    *("pytest", "tox", "make", "npm test", "cargo test", "go test", "ruff", "mypy", "git"),
    *("ls", "cat", "grep", "rg"),
)


_PATH_PARTS = re.compile(r"[/.]")
# Changes a reader would not test: prose and licences.  A proportion prior, like the done
# reflex's ``[judge2] untested_ok``, read here from the action lines' own words.
_DOCS = re.compile(
    r"(?i)(?:^|[\s/])(?:docs?/\S*|\S+\.(?:md|mdx|rst|txt|adoc)|LICENSE\S*|CHANGELOG\S*)$"
)


def _words(text: str) -> set[str]:
    return {w.strip("./-") for w in _WORD.findall(text.lower())} - _STOP - {""}


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).lower() == " ".join(b.split()).lower()


def _same_call(summary: str, f: Facts) -> bool:
    """Is a recorded action the proposed call?  The store writes ``Bash: npm test``
    (:func:`agentreflex.core.state.outcome.summarize`); the proposal reads ``npm test``."""
    return _same(summary, f.target) or (bool(f.tool) and _same(summary, f"{f.tool}: {f.target}"))


# --- pre_tool ------------------------------------------------------------


def _mutates(f: Facts) -> bool:
    if f.tool_kind in _MUTATING:
        return True
    return f.tool_kind == "shell" and bool(
        _HARD.search(f.target) or _SOFT.search(f.target) or _WRITES.search(f.target)
    )


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
    (``edit``: :func:`_mutates`; ``change``: that or any git operation).  ``wider``: an
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
        if _mutates(f):
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
    words = _words(_target_text(f))
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
        return _words(subject.group(1)) - _MODE_WORDS - _OP_STOP
    if op.name == "change":
        return set()
    words = _words(text) - _OP_WORDS - _OP_STOP
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
    if (_words(_CONDITION.sub("", text)) - _OP_STOP) & _target_words(f):
        return YES if _mutates(f) else UNLIKELY
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
    if not places or not _ONLY_PLACE.search(clause) or not _mutates(f):
        return False
    paths = _escapes(f) if f.tool_kind == "shell" else [_target_text(f).strip()]
    return any(not any(p.startswith(place) for place in places) for p in paths if p)


def _bounds(clause: str) -> bool:
    """ "Only edit files under src/": a clause that allows one place (judged by
    :func:`_outside_only`) rather than forbids what it names."""
    return bool(_ONLY.search(clause)) and any("/" in w for w in clause.split())


def _grants(clause: str, f: Facts) -> bool:
    """ "The only file you may edit is plan.md": the rule itself allows this file."""
    if f.tool_kind not in _MUTATING or "only" not in clause.lower():
        return False
    path = _target_text(f).strip().lower()
    return bool(path) and any(
        w.strip("`'\".,") in (path, path.rsplit("/", 1)[-1]) for w in clause.lower().split()
    )


def _constraint(constraint: str, f: Facts) -> float:
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
    if not f.constraints:
        return NO
    return max(_constraint(c, f) for c in f.constraints)


def secret_exposure(f: Facts) -> float:
    if not _SECRET.search(f.target):
        return NO
    return YES if f.tool_kind != "shell" or _SENDS.search(f.target) else LIKELY


def destructive(f: Facts) -> float:
    if f.tool_kind == "shell" and _HARD.search(f.target):
        return YES
    if f.tool_kind == "delete" or (f.tool_kind == "shell" and _SOFT.search(f.target)):
        return LIKELY
    if f.tool_kind in _MUTATING:
        return UNLIKELY
    return NO


def _earlier_failure(f: Facts) -> Action | None:
    found = [a for a in f.failures + f.actions if a.ok is False and _same_call(a.summary, f)]
    return max(found, key=lambda a: a.seq) if found else None


def _changed_since(f: Facts, seq: int) -> bool:
    return f.last_change > seq or any(a.seq > seq and (a.changed or a.ok) for a in f.actions)


def repeats_failed(f: Facts) -> float:
    failed = _earlier_failure(f)
    if failed is None:
        return NO
    return UNLIKELY if _changed_since(f, failed.seq) else YES


def redundant(f: Facts) -> float:
    done = [a for a in f.actions if a.ok and _same_call(a.summary, f)]
    if not done:
        return NO
    last = max(a.seq for a in done)
    changed = f.last_change > last
    return UNLIKELY if changed or f.tool_kind in _MUTATING else LIKELY


def evidence_insufficient(f: Facts) -> float:
    if f.tool_kind not in _MUTATING:
        return UNLIKELY if _HARD.search(f.target) else NO
    path = f.target.split(" | ", 1)[0].strip()
    seen = any(path and path in a.summary for a in f.actions)
    return UNLIKELY if seen else LIKELY


def expected_progress(f: Facts) -> float:
    if repeats_failed(f) >= YES or redundant(f) >= LIKELY:
        return UNLIKELY
    return LIKELY if f.target else UNSURE


def goal_alignment(f: Facts) -> float:
    if not f.goal:
        return UNSURE
    if _words(f.goal) & _words(f.target) or _NEUTRAL_TOOLS.search(f.target):
        return LIKELY
    return UNSURE


# --- post_tool -----------------------------------------------------------


def _failed(f: Facts) -> bool | None:
    if f.result_ok is not None:
        return not f.result_ok
    if f.result_exit is not None:
        return f.result_exit != 0
    return None


def outcome_failed(f: Facts) -> float:
    failed = _failed(f)
    if failed is None:
        return UNSURE
    return YES if failed else NO


def hit_blocker(f: Facts) -> float:
    failed = _failed(f)
    if failed is False:
        return NO
    if _BLOCKER.search(f.output):
        return LIKELY
    return UNLIKELY if failed is None else 0.1


def retry_unlikely(f: Facts) -> float:
    if _failed(f) is not True:
        return NO
    return UNLIKELY if _TRANSIENT.search(f.output) else LIKELY


def new_evidence(f: Facts) -> float:
    if not f.output:
        return UNLIKELY
    known = any(_same(f.output[:200], e[:200]) for e in f.evidence)
    return UNLIKELY if known else LIKELY


def progress_made(f: Facts) -> float:
    failed = _failed(f)
    if failed is True:
        return UNLIKELY
    if failed is None:
        return UNSURE
    return LIKELY if f.tool_kind in _MUTATING or f.output else UNSURE


def side_effect(f: Facts) -> float:
    return UNSURE if _SIDE.search(f.output) else NO


# --- completion ----------------------------------------------------------

# A run whose words say it checks something: tests, a build, a linter, a type checker.
_CHECK = Screened(
    r"(?i)(?:^|[^a-z])(?:tests?|specs?|check|lint|typecheck|tsc|build|verify|compile|mypy|ruff"
    r"|flake8|clippy|pytest|jest|vitest|tox|make|ci)(?![a-z])",
    *("test", "spec", "check", "lint", "tsc", "build", "verify", "compile", "mypy", "ruff"),
    *("flake8", "clippy", "jest", "tox", "make", "ci"),
)
# A command that shows a file rather than runs a check: ``cat build.log`` builds nothing.
_VIEWER = Screened(
    r"(?i)^(?:[\w.-]+:\s+)?(?:cat|less|more|head|tail|grep|egrep|rg|ag|sed|awk|jq|find|ls|echo"
    r"|printf|wc|diff)\b",
    *("cat", "less", "more", "head", "tail", "grep", "rg", "ag", "sed", "awk", "jq", "find"),
    *("ls", "echo", "printf", "wc", "diff"),
)
# A command the shell could not run at all (exit 126/127 say the same).
_NOT_RUN = Screened(
    r"(?i)command not found|: not found\b|no such file or directory|is not recognized as"
    r"|permission denied|not executable",
    *("not found", "no such file", "not recognized", "permission denied", "not executable"),
)
# Output of a run that exited 0 but shows it failed (the store counts it a success).
_FAILED_OUTPUT = Screened(
    r"(?i)\berror(?: [a-z]+\d+)?:|\bfound [1-9]\d* errors?\b|(?<![\d,.])[1-9]\d* (?:failed|errors?)\b"
    r"|\bfailed: [1-9]|no module named|command not found|traceback \(most recent"
    r"|\bbuild failed\b|\btests? failed\b|exit(?:ed with)? code [1-9]",
    *("error", "failed", "no module named", "command not found", "traceback", "exit"),
)
# The final message says a failure is still there, or was left on purpose.
_ADMITS = Screened(
    r"(?i)\bpre-?existing\b|\bunrelated to (?:this|my|the|our) change|\bstill (?:fail|red|broken)"
    r"|\bremains? (?:red|failing|broken)|\bleft (?:failing|red|broken)|\bknown (?:failure|debt)"
    r"|\bfailures? (?:remain|persist)|\bremaining failures\b|\bcould(?: not|n't)\b|\bcannot\b"
    r"|\bcan't\b|\bunable to\b|\bnot (?:yet )?(?:fixed|passing)\b",
    *("existing", "unrelated", "still ", "remain", "left ", "known ", "failure", "could"),
    *("cannot", "can't", "unable", "not "),
)
# A change that touches the tests themselves: a test file's path, or removing one.
_TEST_PATH = Screened(
    r"(?i)(?:^|[\s/])(?:tests?|specs?|__tests__|e2e)/|(?:^|[\s/])test_[^\s/]*$|[._-](?:test|spec)s?\.(?!sh$|bash$)\w+$",
    *("test", "spec", "e2e"),
)
_OBSERVING = frozenset({"read", "search", "web"})
_REDIRECT = LazyPattern(r"\s*(?:\d*>>?|&>)\s*\S+|\s*\|\s*(?:tail|head|tee)\b.*$|\s+2>&1")


def _command(summary: str) -> str:
    """A run's command without where its output went: ``make test > a.log`` is ``make test``."""
    return (
        " ".join(_REDIRECT.sub("", summary).split()).lower()
        if ">" in summary or "|" in summary
        else " ".join(summary.split()).lower()
    )


def _is_check(summary: str) -> bool:
    return bool(_CHECK.search(summary)) and not _VIEWER.search(summary)


def _passes(f: Facts) -> list[Action]:
    return [a for a in f.actions + f.tests if a.ok]


def _changes_between(f: Facts, start: int, end: int) -> list[Action]:
    return [a for a in f.actions if a.changed and start < a.seq < end and a.ok is not False]


def _resolution(f: Facts, failure: Action) -> str:
    """How a failed call ended: ``fixed``, ``tests`` (it passed after only the tests changed),
    ``narrower`` (only a narrower rerun passed) or ``open``."""
    cmd = _command(failure.summary)
    best = "open"
    for a in sorted(_passes(f), key=lambda a: a.seq):
        if a.seq <= failure.seq:
            continue
        same = _command(a.summary) == cmd
        changes = _changes_between(f, failure.seq, a.seq)
        # a different test run counts only when something changed after the failure:
        # ``dotnet test --no-build`` passing says nothing about the build that failed
        if not same and not (a.test_run and changes):
            if failure.kind == "shell" and _command(a.summary).startswith(cmd + " "):
                best = "narrower"  # cargo test -- one_case: the failing case alone
            continue
        if changes and all(_TEST_PATH.search(c.summary) for c in changes):
            best = "tests"
            continue
        return "fixed"
    return best


def _strong(f: Facts, failure: Action) -> bool:
    """A failure that is the agent's own, not a probe's answer: a failed edit, write or tool
    call, a check, a command the shell could not run, or a call refused twice."""
    if failure.kind != "shell":
        return failure.kind not in _OBSERVING
    if failure.test_run or failure.exit_code in (126, 127) or _NOT_RUN.search(failure.error):
        return True
    if _is_check(failure.summary):
        return True
    cmd = _command(failure.summary)
    return sum(a.ok is False and _command(a.summary) == cmd for a in f.actions) >= 2


def _masked(f: Facts) -> bool:
    """A check that exited 0 over output that shows it failed, as its latest run."""
    last: dict[str, str] = {}
    for line in f.evidence:
        summary, _, output = line.partition(" -> ")
        last[_command(summary)] = output
    return any(_is_check(cmd) and _FAILED_OUTPUT.search(out) for cmd, out in last.items())


def unresolved_failure(f: Facts) -> float:
    failures = {a.seq: a for a in f.failures + [a for a in f.actions if a.ok is False]}
    ends = {seq: _resolution(f, a) for seq, a in failures.items()}
    open_ = [failures[seq] for seq, end in ends.items() if end == "open"]
    admits = bool(f.final_message) and bool(_ADMITS.search(f.final_message))
    # an edit or write that failed was an attempt to change: not a question session
    changing = bool(f.last_change) or any(a.kind in _MUTATING or a.kind == "patch" for a in open_)
    if not changing:
        # A session that changed nothing (a question, an investigation, a review): its own
        # check that failed, or "passed" over output that shows it failed, is still a
        # failure left unresolved (7 of 7 in the fitting part, reported or not), while a
        # probe's failure is information (1 of 46).  Whether a stop is held for it is
        # judge2's decision (its done reflex asks this only of sessions that changed files).
        if any(_strong(f, a) for a in open_) or _masked(f):
            return YES
        return UNLIKELY if "narrower" in ends.values() else NO
    if open_:
        return YES
    if "tests" in ends.values() or _masked(f):
        return YES if admits else LIKELY  # it passed once the tests changed, or said it passed
    if admits and failures:
        return LIKELY  # the record shows it fixed; the message says something still fails
    return UNLIKELY if "narrower" in ends.values() else NO


def _docs_only(f: Facts) -> bool:
    changed = [a for a in f.actions if a.changed and a.seq > f.last_test]
    return bool(changed) and all(_DOCS.search(a.summary) for a in changed)


def verification_insufficient(f: Facts) -> float:
    if not f.last_change:
        return UNLIKELY if f.last_test else UNSURE
    if _docs_only(f):
        return UNLIKELY  # documentation only: nothing a test run would check
    if not f.last_test or f.last_test < f.last_change or f.last_test_verdict != "passed":
        return YES
    return NO


def more_verification(f: Facts) -> float:
    v = verification_insufficient(f)
    return LIKELY if v >= YES else UNLIKELY if v <= NO else UNSURE


def claims_unsupported(f: Facts) -> float:
    if not _CLAIM.search(f.final_message):
        return NO
    return NO if verification_insufficient(f) <= NO and unresolved_failure(f) < UNSURE else YES


def goal_completed(f: Facts) -> float:
    if unresolved_failure(f) >= LIKELY or verification_insufficient(f) >= YES:
        return UNLIKELY
    return LIKELY if f.last_change else UNSURE


NOUL_RULES: dict[str, Callable[[Facts], float]] = {
    s.CONSTRAINT_VIOLATION: constraint_violation,
    s.SECRET_EXPOSURE: secret_exposure,
    s.DESTRUCTIVE: destructive,
    s.REPEATS_FAILED_APPROACH: repeats_failed,
    s.REDUNDANT: redundant,
    s.EVIDENCE_INSUFFICIENT: evidence_insufficient,
    s.EXPECTED_PROGRESS: expected_progress,
    s.GOAL_ALIGNMENT: goal_alignment,
    s.OUTCOME_FAILED: outcome_failed,
    s.HIT_BLOCKER: hit_blocker,
    s.RETRY_UNLIKELY: retry_unlikely,
    s.NEW_EVIDENCE: new_evidence,
    s.PROGRESS_MADE: progress_made,
    s.UNEXPECTED_SIDE_EFFECT: side_effect,
    s.UNRESOLVED_FAILURE: unresolved_failure,
    s.VERIFICATION_INSUFFICIENT: verification_insufficient,
    s.MORE_VERIFICATION_HELPFUL: more_verification,
    s.CLAIMS_UNSUPPORTED: claims_unsupported,
    s.GOAL_COMPLETED: goal_completed,
}

_CLAIM_LABELS = ("supported", "contradicted", "insufficient")


def claim_distribution(f: Facts) -> dict[str, float]:
    """judge2's claim question: does the record back a claim from the final message?"""
    if f.last_test_verdict == "failed" or unresolved_failure(f) >= LIKELY:
        return {"supported": 0.1, "contradicted": 0.75, "insufficient": 0.15}
    if f.last_test_verdict == "passed" and verification_insufficient(f) <= NO:
        return {"supported": 0.8, "contradicted": 0.05, "insufficient": 0.15}
    return {"supported": 0.15, "contradicted": 0.1, "insufficient": 0.75}


def _choice(labels: Sequence[str], f: Facts) -> dict[str, Any]:
    if set(labels) == set(_CLAIM_LABELS):
        probs = claim_distribution(f)
    else:
        probs = dict.fromkeys(labels, round(1.0 / len(labels), 6))
    best = max(labels, key=lambda label: probs[label])
    return {"type": "choice", "choice": best, "probabilities": probs, "confidence": probs[best]}


def _score(levels: int) -> dict[str, Any]:
    p = round(1.0 / levels, 6)
    return {
        "type": "score",
        "score": (levels - 1) / 2,
        "probabilities": {str(i): p for i in range(levels)},
        "confidence": p,
    }


def _kind_and_criteria(q: Any) -> tuple[str, Any]:
    """A question as the server's validated model (attributes) or core's wire dict (keys)."""
    if isinstance(q, dict):
        return q["type"], q.get("criteria") or ()
    return q.type, q.criteria


class BuiltinEngine:
    """Rules over the state text.  Cheap enough to run on the event loop."""

    name = "builtin"
    model_id = MODEL_ID
    blocking = False

    def answer(self, state: str, questions: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """Answers for one state; ``questions`` are the validated wire models."""
        facts = read(state)
        out: dict[str, dict[str, Any]] = {}
        for qid, q in questions.items():
            kind, criteria = _kind_and_criteria(q)
            if kind == "noul":
                rule = NOUL_RULES.get(qid)
                out[qid] = {"type": "noul", "noul": rule(facts) if rule else UNSURE}
            elif kind == "choice":
                out[qid] = _choice(list(criteria), facts)
            else:
                out[qid] = _score(len(criteria))
        return out

    def answer_batch(
        self, states: Sequence[str], questions: Mapping[str, Any]
    ) -> list[dict[str, dict[str, Any]]]:
        return [self.answer(state, questions) for state in states]
