"""What every part of the walk shares: the shell's state, the budget, the findings.

The walker is split by concept (tree traversal in :mod:`walker`, word
expansion in :mod:`words`, code-running commands in :mod:`runners`,
per-item fan-out in :mod:`fanout`), but all of them read and update one
:class:`ShellState` and report into one list of hits under one time and size
budget.  That shared core lives here so each part can be read on its own.
"""

from __future__ import annotations

import time

from agentreflex.core.util.deadline import check as check_time
from agentreflex.core.util.record import field, record
from agentreflex.gate.model import ASK, Cmd, Hit
from agentreflex.gate.shell import downloads
from agentreflex.gate.shell.paths import Where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 12
MAX_NODES = 20_000
MAX_CMDS = 2_000
# Node types that are statements (walked as code), as opposed to words.
STATEMENTS = frozenset(
    {
        "command",
        "redirected_statement",
        "pipeline",
        "list",
        "subshell",
        "compound_statement",
        "if_statement",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "function_definition",
        "variable_assignment",
        "variable_assignments",
        "declaration_command",
        "unset_command",
        "negated_command",
        "test_command",
        "program",
        "do_group",
        "else_clause",
        "elif_clause",
        "case_item",
        "ERROR",
    }
)


# Files a check vouches for: (path, the write it was checked after; -1 for none).
Checks = frozenset[tuple[str, int]]


class ParseBudgetExceeded(Exception):
    """The walk ran out of time or size budget; the caller fails closed."""


# What a ``${{ expr }}`` template (GitHub Actions, Jinja) becomes before the walk: bash
# answers "bad substitution" when it expands one, and a non-interactive shell stops
# there, running neither that command nor anything after it.
BAD_SUBSTITUTION = "__agentreflex_bad_substitution__"


class BadSubstitution(Exception):
    """A word bash cannot expand (``${{ secrets.X }}``): the script stops here."""


@record
class ShellState:
    """What the shell knows as it runs: variables, cwd, aliases, functions, files."""

    vars: dict[str, str]
    cwd: str
    aliases: dict[str, str] = field(default_factory=dict)
    functions: set[str] = field(default_factory=set)
    written: dict[str, str] = field(default_factory=dict)
    # symlinks made earlier in this command (``ln -s ~ x``): where each leads
    links: dict[str, str] = field(default_factory=dict)
    # descriptors opened on a socket (``exec 3<>/dev/tcp/host/6379``): what ``>&3`` reaches
    sockets: dict[str, str] = field(default_factory=dict)
    # ``set -e`` in force: a failing command stops the script
    errexit: bool = False
    # names whose values the walk doesn't follow (``declare -A``, ``-l``, ``-n``...):
    # each statement starts with them unknown, however they were set since (rt103)
    unfollowed: set[str] = field(default_factory=set)
    # ``declare -n ref=x``: ref -> (x, the elements both held when last made alike)
    refs: dict[str, tuple[str, dict[int, str] | None]] = field(default_factory=dict)


class WalkerBase:
    """The walk's shared state and reporting; the parts of :class:`Walker` build on it."""

    def __init__(self, where: Where, env: dict[str, str], deadline: float) -> None:
        self.where = where
        self.state = ShellState(vars=dict(env), cwd=where.cwd)
        self.state.vars.setdefault("HOME", where.home)
        self.state.vars.setdefault("IFS", " \t\n")
        self.deadline = deadline
        self.cmds: list[Cmd] = []
        # ids of the commands whose output a substitution put into a variable (an
        # assignment's value, export's words), not on the screen (rules.secrets)
        self.captured: set[int] = set()
        self.captured_vars: set[str] = set()  # the variables those commands' output went to
        self.hits: list[Hit] = []
        self.parse_errors: list[str] = []
        self._steps = 0
        self._vars_used: list[str] = []
        # the variables a variable's value was made from (x=$TOKEN: x from TOKEN), so a
        # use of x counts as one of TOKEN (rules.secrets reads names; red-team rt93)
        self.origins: dict[str, set[str]] = {}
        # per variable, the ids of the commands whose output its value holds (X=$(op
        # read ...)), copies (Y=$X) included: a secret read into one and echoed after is
        # printed (rules.secrets.captured_secret_shown, red-team rt104)
        self.fed_from: dict[str, set[int]] = {}
        self._function: list[str] = []
        # per function call being walked: the names it made local, with their values before
        self._locals: list[dict[str, dict[str, str]]] = []
        # functions defined so far: name -> (body node, depth); walked when called
        self._bodies: dict[str, tuple[Any, int]] = {}
        self._called: set[str] = set()
        self._reading: set[str] = set()  # local files being judged (no cycles)
        # the assignments of a command whose recipes are walked (DATABASE_URL=... npm run
        # seed): its child processes' environment, so each recipe command sees them
        self.inherited_env: dict[str, str] = {}
        self._functions_exported = False  # export -f: child shells see the functions
        # files a pinned check (shell/verify.py) vouches for if the statement just
        # walked succeeded, and if the script goes on after it under ``set -e``
        self._ok: Checks = frozenset()
        self._survive: Checks = frozenset()
        self._stamps: dict[str, int] = {}  # file -> which write in this command made it
        self._writes = 0
        self._unpinned: dict[str, str] = {}  # file -> why its check is no pin
        self._key_downloaded = False  # gpg --import of a download in this command
        # downloads a pinned check vouches for now, with what was recorded for them (a
        # checksum list whose signature was checked pins what it lists: shell/verify.py)
        self._reviewed: dict[str, str] = {}
        # files a download wrote only through another descriptor (``curl URL 2> log``): they
        # hold a program's own messages, not text it passed on (Runners._script)
        self._messages: set[str] = set()
        # copies made here of a file not written here (``cp a.sh b.sh``): b.sh -> a.sh,
        # whose text on disk running b.sh runs (Runners._script)
        self._copies: dict[str, str] = {}
        # the input a shell string inherits (``ssh host 'bash -s' < f``, ``sh -c 'psql'
        # <<< SQL``): its commands with no input of their own read it (Runners._fed_by)
        self._inherited: Cmd | None = None

    def _tick(self) -> None:
        self._steps += 1
        if self._steps > MAX_NODES or len(self.cmds) > MAX_CMDS:
            raise ParseBudgetExceeded("command too large to analyse")
        if self._steps % 64 == 0:
            check_time()  # the hook's time for every reflex, which the budget may exceed
            if time.monotonic() > self.deadline:
                raise ParseBudgetExceeded("analysis deadline reached")

    def _holder(self, path: str) -> str:
        """Where what ``path`` holds is recorded: itself, or the nameless download
        (``curl -OJ``, ``wget -r``) that may have written it."""
        if path in self.state.written:
            return path
        return downloads.may_have_written(self.state.written, path) or path

    def restore_vars(self, saved: dict[str, str]) -> None:
        """The variables as they were before a subshell or a substitution, whose own end
        with it in bash (``(d=x)``, ``$(d=x)``: rt103); kept in place, as the loop walk
        holds the same dict."""
        self.state.vars.clear()
        self.state.vars.update(saved)

    def _ask(self, rule: str, segment: str, why: str) -> None:
        self.hits.append(Hit(rule, ASK, 1.0, segment, why))

    def _hit(self, rule: str, category: str, p: float, segment: str, message: str) -> None:
        self.hits.append(Hit(rule, category, p, segment, message))

    if TYPE_CHECKING:
        # Provided by :class:`agentreflex.gate.shell.walker.Walker`; declared here so the
        # parts that recurse into the walk type-check on their own.

        def run(self, source: str, depth: int = 0, via: str = "") -> None: ...

        def stmt(
            self, node: Any, depth: int, stdin_from: Cmd | None = None, via: str = ""
        ) -> Cmd | None: ...

        def side_effects(self, node: Any, depth: int) -> None: ...

        def redirect(self, node: Any, depth: int) -> tuple[str, str]: ...

        def execute(
            self,
            argv: list[str],
            text: str,
            depth: int,
            *,
            assigns: dict[str, str] | None = None,
            redirects: list[tuple[str, str]] | None = None,
            stdin_text: str | None = None,
            stdin_from: Cmd | None = None,
            via: str = "",
            used: list[str] | None = None,
        ) -> Cmd | None: ...
