"""Shared data shapes of the gate: an executed command and a rule hit.

A :class:`Cmd` is one simple command *as bash would run it*: words already
expanded (quotes and backslashes removed, known variables substituted, split
on ``$IFS``), wrappers peeled off, the effective working directory known.
Rules only ever look at these, never at the raw text, which is what keeps
commit messages and ``echo`` strings from tripping them.

Parts of a word whose value cannot be known statically are replaced by
marker characters, so a rule can tell "unknown" from "empty".
"""

from __future__ import annotations

from agentreflex.core.redaction.redact import redact_head
from agentreflex.core.util.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

# A part of a word whose value is unknown (unset variable, command output).
UNKNOWN = "\x00"
# A part of a word that is the output of a download (curl/wget to stdout).
REMOTE = "\x01"
# "Some entry below this directory" (what find/xargs feed to a command).
DESCENDANT = "\x02"

# "Some cache entry below this directory": what a find walk that selects only
# caches by name yields (``find / -name __pycache__``; ``fanout.only_caches``).
CACHE_ENTRY = DESCENDANT + "\x03cache"

# An unknown value that is *data* fed in at run time (xargs/parallel items from
# a pipe or a file), as opposed to a variable of the user's environment.
DATA = UNKNOWN + "data"

MARKERS = (UNKNOWN, REMOTE, DESCENDANT)

# Hit categories; each maps to one of the seed's pre-tool signals.
DESTRUCTIVE = "destructive"
SECRET = "secret"
CONSTRAINT = "constraint"
ASK = "ask"

# Floor probabilities used by rules: a block-grade and a warn-grade match.
P_BLOCK = 0.9
P_WARN = 0.6


def has_marker(text: str) -> bool:
    """True when any part of ``text`` is not statically known."""
    return UNKNOWN in text or REMOTE in text


class OtherFd(tuple[str, str]):
    """An output redirect of a descriptor other than stdout (``2> err.log``): the same
    ``(op, target)`` pair every rule reads, marked so that what the command prints is
    not taken for that file's content (``curl URL 2> log`` saves no download in log)."""

    __slots__ = ()


@record
class Cmd:
    """One simple command that would really execute."""

    argv: list[str]
    text: str
    cwd: str
    assigns: dict[str, str] = field(default_factory=dict)
    redirects: list[tuple[str, str]] = field(default_factory=list)
    stdin_text: str | None = None
    stdin_from: Cmd | None = None
    vars_used: list[str] = field(default_factory=list)
    via: str = ""
    pipes_out: bool = False
    # the command word as written, when it is a path (``.venv/bin/pip``); ``argv[0]`` is its name
    program: str = ""
    # the shell's variables when it runs (``export X=1;`` earlier in the line): its
    # environment beside ``assigns``, as far as the command line sets it
    shell_vars: dict[str, str] = field(default_factory=dict)
    # the functions the line defined before the command runs (``whoami() { ...; }``):
    # a $(whoami) in its words runs one of them, not the program
    shell_functions: frozenset[str] = frozenset()
    # a group's output where some of its parts can't be read (``(crontab -l; echo E)``):
    # the readable parts' text, each unreadable part one UNKNOWN; ``stdin_from`` is then
    # one of the unreadable parts, for the rules that judge what it is
    partial: str = ""

    @property
    def name(self) -> str:
        return self.argv[0] if self.argv else ""

    @property
    def args(self) -> list[str]:
        return self.argv[1:]


@record
class Hit:
    """A rule that matched: what, where, how sure, and what to do instead."""

    rule: str
    category: str
    probability: float
    segment: str
    message: str
    # high / medium / low when the rule grades its hit and the profile decides
    # (agentreflex.gate.severity); "" for rules that decide themselves
    severity: str = ""

    @classmethod
    def destructive(cls, rule: str, p: float, cmd: Cmd, message: str) -> Hit:
        """The hit of a destructive-command rule on ``cmd``: the one constructor the rule families share."""
        return cls(rule, DESTRUCTIVE, p, cmd.text, message)

    def shown_segment(self) -> str:
        """The segment text without marker characters, for messages and logs: redacted
        before it is cut (a cut first keeps the head of a secret no rule knows)."""
        return redact_head(unmarked(self.segment), 300)

    def shown_message(self) -> str:
        """The message without marker characters: a rule that names what it found
        (``git push URL``) may carry a value known only at run time in it."""
        return unmarked(self.message)


def unmarked(text: str) -> str:
    """``text`` as a person reads it: each marker of an unknown value written out
    (``<?>``, ``<download>``, ``*``), never a control character on a host's screen."""
    for mark, shown in (
        (CACHE_ENTRY, "*"),
        (UNKNOWN, "<?>"),
        (REMOTE, "<download>"),
        (DESCENDANT, "*"),
    ):
        text = text.replace(mark, shown)
    return text


def positional(args: list[str], valued: Collection[str]) -> list[str]:
    """The non-option words of ``args``, skipping the value after each ``valued`` option."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in valued:
            skip = True
        elif not a.startswith("-"):
            out.append(a)
    return out
