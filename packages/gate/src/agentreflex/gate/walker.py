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
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from agentreflex.gate import braces, interp, pipes, remote, rules_git
from agentreflex.gate._tree import parse
from agentreflex.gate.model import (
    ASK,
    DESCENDANT,
    DESTRUCTIVE,
    P_BLOCK,
    P_WARN,
    REMOTE,
    SECRET,
    UNKNOWN,
    Cmd,
    Hit,
    has_marker,
)
from agentreflex.gate.paths import Where, resolve
from agentreflex.gate.wrappers import peel

MAX_DEPTH = 12
MAX_NODES = 20_000
MAX_CMDS = 2_000
# A command substitution whose output is a shell set-up snippet (eval/source of it is normal).
SETUP = UNKNOWN + "setup"

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox", "fish", "rbash"})
_SETUP_TOOLS = frozenset(
    {
        "ssh-agent",
        "direnv",
        "pyenv",
        "rbenv",
        "nodenv",
        "goenv",
        "jenv",
        "plenv",
        "brew",
        "starship",
        "zoxide",
        "conda",
        "mamba",
        "micromamba",
        "fnm",
        "mise",
        "rtx",
        "asdf",
        "opam",
        "thefuck",
        "dircolors",
        "keychain",
        "gpg-agent",
        "luarocks",
        "atuin",
        "mcfly",
        "oh-my-posh",
        "register-python-argcomplete",
        "pipx",
        "uv",
        "rustup",
        "kubectl",
        "helm",
        "gh",
        "npm",
        "docker",
        "terraform",
        "poetry",
        "pip",
        "cargo",
        "deno",
        "bun",
        "aws",
        "gcloud",
        "az",
        "minikube",
        "kind",
        "just",
        "task",
        "golangci-lint",
        "glab",
        "vault",
    }
)
_SETUP_WORDS = frozenset(
    {
        "completion",
        "completions",
        "init",
        "shellenv",
        "hook",
        "env",
        "activate",
        "shell",
        "-s",
        "--sh",
        "print-env",
        "export",
    }
)
_FIND_FILTERS = frozenset(
    {
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-newer",
        "-size",
        "-empty",
        "-user",
        "-group",
        "-perm",
        "-links",
        "-inum",
        "-samefile",
        "-lname",
        "-ilname",
        "-used",
        "-newermt",
        "-nouser",
        "-nogroup",
    }
)
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_STATEMENTS = frozenset(
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
_BACKTICKS = re.compile(r"`([^`]*)`")
_CONTAINER_TOOLS = frozenset(
    {"docker", "podman", "nerdctl", "docker-compose", "kubectl", "oc", "k"}
)
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
# awk's own ways to run shell: `"cmd" | getline` and `print "cmd" | "sh"`
_AWK_PIPES = re.compile(
    r'"((?:[^"\\]|\\.)*)"\s*\|\s*getline|print\s+"((?:[^"\\]|\\.)*)"\s*\|\s*"(?:ba|da|z)?sh"'
)
_SIMPLE_VAR = re.compile(r"(?<![\\$])\$([A-Za-z_][A-Za-z0-9_]*)")
_QUOTED_OR_VAR = re.compile(
    r"""'[^']*'|"(?:[^"\\]|\\.)*"|\\.|(?<![\\$])\$([A-Za-z_][A-Za-z0-9_]*)""", re.DOTALL
)

# A brace word in command position ("{rm,-rf,/boot}"): bash brace-expands it
# into the command, but tree-sitter-bash takes the "{" for a group.  An empty
# "" in front means the same to bash and parses as a word.
_BRACE_COMMAND = re.compile(
    r"""'[^']*'|"(?:[^"\\]|\\.)*"|\\.|"""
    r"""((?:^|[;&|(`\n]|\b(?:then|do|else|elif|if|while|until|time)[ \t]|!)[ \t]*)"""
    r"""\{(?=[^\s{}();&|<>])""",
    re.MULTILINE,
)


def _brace_command(m: re.Match[str]) -> str:
    return m.group(0) if m.group(1) is None else m.group(1) + '""{'


def _brace_word(name: str) -> bool:
    """A command name that is still brace syntax bash would have expanded."""
    return ("{" in name or "}" in name) and ("," in name or ".." in name)


def _brace_var(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        return "${" + m.group(1) + "}"
    text = m.group(0)
    return _SIMPLE_VAR.sub(r"${\1}", text) if text.startswith('"') else text


class ParseBudgetExceeded(Exception):
    """The walk ran out of time or size budget; the caller fails closed."""


@dataclass(slots=True)
class ShellState:
    """What the shell knows as it runs: variables, cwd, aliases, functions, files."""

    vars: dict[str, str]
    cwd: str
    aliases: dict[str, str] = field(default_factory=dict)
    functions: set[str] = field(default_factory=set)
    written: dict[str, str] = field(default_factory=dict)


class Walker:
    """Walks one command string (and everything it runs) into :class:`Cmd` objects."""

    def __init__(self, where: Where, env: dict[str, str], deadline: float) -> None:
        self.where = where
        self.state = ShellState(vars=dict(env), cwd=where.cwd)
        self.state.vars.setdefault("HOME", where.home)
        self.state.vars.setdefault("IFS", " \t\n")
        self.deadline = deadline
        self.cmds: list[Cmd] = []
        self.hits: list[Hit] = []
        self.parse_errors: list[str] = []
        self._steps = 0
        self._vars_used: list[str] = []
        self._function: list[str] = []

    # --- entry -----------------------------------------------------------

    def run(self, source: str, depth: int = 0, via: str = "") -> None:
        """Parse ``source`` and walk every statement in it."""
        if depth > MAX_DEPTH:
            self._ask("GATE-PARSE-TOO-DEEP", source, "Nesting is too deep to analyse.")
            return
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
        self.stmt(root, depth, via=via)

    def _tick(self) -> None:
        self._steps += 1
        if self._steps > MAX_NODES or len(self.cmds) > MAX_CMDS:
            raise ParseBudgetExceeded("command too large to analyse")
        if self._steps % 64 == 0 and time.monotonic() > self.deadline:
            raise ParseBudgetExceeded("analysis deadline reached")

    def _ask(self, rule: str, segment: str, why: str) -> None:
        self.hits.append(Hit(rule, ASK, 1.0, segment, why))

    def _hit(self, rule: str, category: str, p: float, segment: str, message: str) -> None:
        self.hits.append(Hit(rule, category, p, segment, message))

    # --- statements ------------------------------------------------------

    def stmt(
        self, node: Any, depth: int, stdin_from: Cmd | None = None, via: str = ""
    ) -> Cmd | None:
        """Walk one statement node; return the command it ran (for pipes)."""
        self._tick()
        t = node.type
        if t == "command":
            return self.command(node, depth, [], None, stdin_from, via)
        if t == "redirected_statement":
            return self.redirected(node, depth, stdin_from, via)
        if t == "pipeline":
            return self.pipeline(node.named_children, depth, stdin_from, via)
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
            return None
        if t == "unset_command":
            names = [_text(c) for c in node.named_children]
            for name in names:
                self.state.vars.pop(name, None)
            cmd = Cmd(["unset", *names], _text(node), self.state.cwd, via=via)
            self.cmds.append(cmd)
            return cmd
        if t == "for_statement":
            self.for_loop(node, depth)
            return None
        if t == "subshell":
            saved = self.state.cwd
            self.children(node, depth, via)
            self.state.cwd = saved
            return None
        if t == "comment":
            return None
        self.children(node, depth, via)
        return None

    def children(self, node: Any, depth: int, via: str = "") -> None:
        for child in node.named_children:
            if child.type in _STATEMENTS:
                self.stmt(child, depth, via=via)
            elif child.type not in ("comment", "heredoc_body"):
                self.side_effects(child, depth)

    def side_effects(self, node: Any, depth: int) -> None:
        """Walk the substitutions inside a non-statement node (they execute)."""
        stack = [node]
        while stack:
            n = stack.pop()
            self._tick()
            if n.type in ("command_substitution", "process_substitution"):
                self.substitution(n, depth)
            elif n.type in _STATEMENTS:
                self.stmt(n, depth)
            else:
                stack.extend(n.named_children)

    def pipeline(
        self, parts: list[Any], depth: int, stdin_from: Cmd | None, via: str
    ) -> Cmd | None:
        prev = stdin_from
        for part in parts:
            if part.type not in _STATEMENTS:
                continue
            if prev is not None:
                prev.pipes_out = True
            prev = self.stmt(part, depth, stdin_from=prev, via=via)
        return prev

    def redirected(self, node: Any, depth: int, stdin_from: Cmd | None, via: str) -> Cmd | None:
        body = None
        redirects: list[tuple[str, str]] = []
        stdin_text: str | None = None
        after: list[Any] = []
        for child in node.named_children:
            if child.type == "heredoc_redirect":
                stdin_text = self.heredoc(child, depth)
                after.extend(c for c in child.named_children if c.type in _STATEMENTS)
            elif child.type == "herestring_redirect":
                stdin_text = " ".join(self.words(child.named_children, depth)) + "\n"
            elif child.type == "file_redirect":
                redirects.append(self.redirect(child, depth))
            elif body is None and child.type in _STATEMENTS:
                body = child
        cmd: Cmd | None = None
        if body is not None and body.type == "command":
            cmd = self.command(body, depth, redirects, stdin_text, stdin_from, via)
        elif body is not None and body.type == "pipeline":
            kids = [k for k in body.named_children if k.type in _STATEMENTS]
            cmd = self.pipeline(kids, depth, stdin_from, via)
            if cmd is not None:
                cmd.redirects.extend(redirects)
        else:
            if body is not None:
                self.stmt(body, depth, stdin_from, via)
            cmd = Cmd([":"], _text(node), self.state.cwd, redirects=redirects, via=via)
            self.cmds.append(cmd)
        for extra in after:
            if extra.type == "pipeline":
                kids = [k for k in extra.named_children if k.type in _STATEMENTS]
                if cmd is not None:
                    cmd.pipes_out = True
                cmd = self.pipeline(kids, depth, cmd, via)
            else:
                self.stmt(extra, depth, via=via)
        return cmd

    def heredoc(self, node: Any, depth: int) -> str:
        """The body fed to stdin; substitutions in an unquoted body execute."""
        start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
        quoted = start is not None and any(q in _text(start) for q in "'\"\\")
        body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
        if body is None:
            return ""
        text = _text(body)
        if not quoted:
            for sub in body.named_children:
                if sub.type == "command_substitution":
                    self.substitution(sub, depth)
            for m in _BACKTICKS.finditer(text):
                self.run(m.group(1), depth + 1, via="heredoc `...`")
        return text

    def redirect(self, node: Any, depth: int) -> tuple[str, str]:
        op = ""
        target = ""
        for child in node.children:
            if not child.is_named:
                op += _text(child)
            elif child.type != "file_descriptor":
                target = "".join(self.expand(child, depth, split=False))
        return op, target

    def function(self, node: Any, depth: int) -> None:
        name_node = node.child_by_field_name("name") or node.named_children[0]
        name = "".join(self.expand(name_node, depth, split=True)).strip()
        self.state.functions.add(name)
        body = node.child_by_field_name("body") or node.named_children[-1]
        self._function.append(name)
        try:
            self.stmt(body, depth)
        finally:
            self._function.pop()

    def declaration(self, node: Any, depth: int) -> None:
        for child in node.named_children:
            if child.type == "variable_assignment":
                key, value = self.assignment(child, depth)
                self.state.vars[key] = value
            else:
                self.side_effects(child, depth)

    def for_loop(self, node: Any, depth: int) -> None:
        var = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        values: list[str] = []
        for child in node.children_by_field_name("value"):
            values.extend(self.expand(child, depth, split=True))
        name = _text(var) if var is not None else ""
        choices = values[:3] if values and len(values) <= 3 else [UNKNOWN]
        for value in choices:
            if name:
                self.state.vars[name] = value
            if body is not None:
                self.stmt(body, depth)

    def assignment(self, node: Any, depth: int) -> tuple[str, str]:
        name_node = node.child_by_field_name("name") or node.named_children[0]
        value_node = node.child_by_field_name("value")
        value = "".join(self.expand(value_node, depth, split=False)) if value_node else ""
        return _text(name_node).split("[", 1)[0], value

    # --- simple commands -------------------------------------------------

    def command(
        self,
        node: Any,
        depth: int,
        redirects: list[tuple[str, str]],
        stdin_text: str | None,
        stdin_from: Cmd | None,
        via: str,
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
            elif t == "herestring_redirect":
                stdin_text = " ".join(self.words(child.named_children, depth)) + "\n"
            elif t == "heredoc_redirect":
                stdin_text = self.heredoc(child, depth)
            elif t != "comment":
                word_nodes.append(child)
        argv = self.words(word_nodes, depth)
        used = list(self._vars_used)
        if not argv:
            self.state.vars.update(assigns)
            if redirects:
                cmd = Cmd([":"], _text(node), self.state.cwd, assigns, redirects, via=via)
                self.cmds.append(cmd)
                return cmd
            return None
        return self.execute(
            argv,
            _text(node),
            depth,
            assigns=assigns,
            redirects=redirects,
            stdin_text=stdin_text,
            stdin_from=stdin_from,
            via=via,
            used=used,
        )

    def words(self, nodes: list[Any], depth: int) -> list[str]:
        out: list[str] = []
        for n in nodes:
            out.extend(self.expand(n, depth, split=True))
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
        if depth > MAX_DEPTH:
            self._ask("GATE-PARSE-TOO-DEEP", text, "Nesting is too deep to analyse.")
            return None
        if argv and argv[0] in self.state.aliases:
            expanded = self.state.aliases.pop(argv[0])  # bash does not re-expand an alias
            try:
                rest = argv[1:]
                if all(not has_marker(a) for a in rest):
                    self.run(
                        expanded + " " + " ".join(_quote(a) for a in rest), depth + 1, via="alias"
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
            cwd = resolve(peeled.chdir, self.where, cwd)
        name = peeled.argv[0]
        all_assigns = {**(assigns or {}), **peeled.assigns}
        cmd = Cmd(
            [_basename(name), *peeled.argv[1:]],
            text,
            cwd,
            all_assigns,
            list(redirects or []),
            stdin_text,
            stdin_from,
            list(used or []),
            via,
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
        self.dispatch(cmd, name, depth)
        self._record_writes(cmd)
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

    def dispatch(self, cmd: Cmd, original: str, depth: int) -> None:
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
        elif name == "ssh":
            self.ssh(cmd, depth)
        elif name in _CONTAINER_TOOLS:
            self.container(cmd, depth)
        elif name in _AWKS:
            self.awk(cmd, depth)
        elif name == "git":
            self.git_alias(cmd, depth)
        elif interp.interpreter_name(name):
            self.interpreter(cmd, interp.interpreter_name(name), depth)
        elif "/" in original:
            self._script(resolve(original, self.where, cmd.cwd), cmd, depth)
        elif name in ("rimraf", "del-cli", "trash-empty"):
            self.execute(["rm", "-rf", *cmd.args], cmd.text, depth + 1, via=name)

    # --- what runs other code --------------------------------------------

    def shell(self, cmd: Cmd, depth: int) -> None:
        args = cmd.args
        if cmd.name == "busybox":
            if not args or args[0] not in ("sh", "ash", "bash"):
                if args:
                    self.execute(args, cmd.text, depth + 1, via="busybox")
                return
            args = args[1:]
        i = 0
        script_flag = stdin_flag = False
        while i < len(args):
            a = args[i]
            if a in ("-o", "-O", "+o", "+O", "--rcfile", "--init-file"):
                i += 2
                continue
            if a.startswith("-") and not a.startswith("--") and "c" in a[1:]:
                script_flag = True
                i += 1
                break
            if a == "--":
                i += 1
                break
            if not (a.startswith("-") or a.startswith("+")):
                break
            # -s: commands come from stdin, the remaining words are "$@"
            stdin_flag = stdin_flag or (not a.startswith("--") and "s" in a[1:])
            i += 1
        rest = args[i:]
        if script_flag:
            self._shell_string(rest[0] if rest else "", rest[1:], cmd, depth, f"{cmd.name} -c")
            return
        if rest and rest[0] != "-" and not stdin_flag:
            self._script(resolve(rest[0], self.where, cmd.cwd), cmd, depth, rest[0])
            return
        self._stdin_code(cmd, depth, shell=True)

    def ssh(self, cmd: Cmd, depth: int) -> None:
        """``ssh host CMD``: the remote shell parses CMD in the remote home directory."""
        script = remote.ssh_command(cmd.args)
        if script is None:
            return
        saved = self.state.cwd
        self.state.cwd = self.where.home
        try:
            self._shell_string(script, [], cmd, depth, "ssh")
        finally:
            self.state.cwd = saved

    def container(self, cmd: Cmd, depth: int) -> None:
        """``docker run/exec``, ``compose run/exec``, ``kubectl exec/run``: the command inside."""
        found = remote.container_command(cmd.name, cmd.args, self.where, cmd.cwd)
        if found is None:
            return
        saved = self.state.cwd
        self.state.cwd = found.cwd
        try:
            self.execute(
                found.argv,
                cmd.text,
                depth + 1,
                redirects=[r for r in cmd.redirects if r[0] == "<"],
                stdin_text=cmd.stdin_text,
                stdin_from=cmd.stdin_from,
                via=found.how,
            )
        finally:
            self.state.cwd = saved

    def awk(self, cmd: Cmd, depth: int) -> None:
        """An awk program is code: ``system("...")`` and ``"cmd" | getline`` run shell."""
        args = cmd.args
        program: str | None = None
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--":
                i += 1
                break
            if a in ("-f", "--file"):
                path = args[i + 1] if i + 1 < len(args) else ""
                program = self.state.written.get(resolve(path, self.where, cmd.cwd), "")
                break
            if a in ("-F", "-v", "--assign", "--field-separator", "-i", "--include"):
                i += 2
                continue
            if not a.startswith("-") or a == "-":
                break
            i += 1
        if program is None:
            program = args[i] if i < len(args) else ""
        if program and not has_marker(program):
            self._code(program, cmd, depth, "awk")
            for m in _AWK_PIPES.finditer(program):
                body = m.group(1) if m.group(1) is not None else m.group(2)
                if body:
                    self.run(body.replace('\\"', '"'), depth + 1, via="awk pipe")

    def git_alias(self, cmd: Cmd, depth: int) -> None:
        """``git -c alias.x='!cmd' x``: a shell alias runs ``cmd "$@"``."""
        sub, rest, aliases = rules_git.split(cmd.args)
        expansion = aliases.get(sub, "")
        if expansion.startswith("!"):
            script = " ".join([expansion[1:], *(_quote(a) for a in rest)])
            self._shell_string(script, [], cmd, depth, "git alias")

    def _shell_string(self, script: str, params: list[str], cmd: Cmd, depth: int, via: str) -> None:
        if REMOTE in script:
            self._rce(cmd)
        elif script == SETUP:
            return
        elif has_marker(script):
            self._ask(
                "GATE-DYNAMIC-SCRIPT",
                cmd.text,
                "The script to run is computed at run time and cannot be checked. "
                "Write it out literally.",
            )
        else:
            saved = {k: self.state.vars.get(k) for k in ("0", "1", "2", "3", "@")}
            for k, v in zip(("0", "1", "2", "3"), params, strict=False):
                self.state.vars[k] = v
            if len(params) > 1:
                self.state.vars["@"] = " ".join(params[1:])
            try:
                self.run(script, depth + 1, via=via)
            finally:
                for k, old in saved.items():
                    if old is None:
                        self.state.vars.pop(k, None)
                    else:
                        self.state.vars[k] = old

    def _stdin_code(self, cmd: Cmd, depth: int, shell: bool, lang: str = "") -> None:
        text = cmd.stdin_text
        if text is None:
            text = pipes.output_text(cmd.stdin_from, self.state.written)
            if cmd.stdin_from is None and not any(op == "<" for op, _ in cmd.redirects):
                return  # interactive shell / REPL: nothing to check
            for op, target in cmd.redirects:
                if op == "<":
                    text = self.state.written.get(resolve(target, self.where, cmd.cwd))
        if text is not None and REMOTE in text:
            self._rce(cmd)
        elif text is None or has_marker(text):
            self._ask(
                "GATE-PIPE-TO-SHELL",
                cmd.text,
                "Code of unknown content is piped into an interpreter. "
                "Write it to a file and show it first.",
            )
        elif shell:
            if _decoded(cmd.stdin_from):
                self._hit(
                    "GATE-OBFUSCATED-EXEC",
                    DESTRUCTIVE,
                    0.8,
                    cmd.text,
                    "This decodes a hidden payload and runs it. Run the plain command "
                    "instead so it can be checked.",
                )
            self.run(text, depth + 1, via=f"stdin of {cmd.name}")
        else:
            self._code(text, cmd, depth, lang)

    def _rce(self, cmd: Cmd) -> None:
        self._hit(
            "GATE-RCE-DOWNLOAD",
            DESTRUCTIVE,
            P_BLOCK,
            cmd.text,
            "This runs code downloaded from the network without review. Download it to "
            "a file, read it, then run it if it is safe.",
        )

    def _script(self, path: str, cmd: Cmd, depth: int, shown: str = "") -> None:
        content = self.state.written.get(path)
        if content is None:
            if REMOTE in (shown or path):
                self._rce(cmd)
            return
        if REMOTE in content:
            self._rce(cmd)
        elif not has_marker(content):
            if interp.interpreter_name(cmd.name):
                self._code(content, cmd, depth, interp.interpreter_name(cmd.name))
            else:
                self.run(content, depth + 1, via="script written in the same command")

    def eval(self, cmd: Cmd, depth: int) -> None:
        self._shell_string(" ".join(cmd.args), [], cmd, depth, "eval")

    def source(self, cmd: Cmd, depth: int) -> None:
        if not cmd.args:
            return
        target = cmd.args[0]
        if REMOTE in target:
            self._rce(cmd)
        elif target.endswith(SETUP) or SETUP in target:
            return
        elif not has_marker(target):
            self._script(resolve(target, self.where, cmd.cwd), cmd, depth)

    def interpreter(self, cmd: Cmd, lang: str, depth: int) -> None:
        code, rest = interp.code_argument(lang, cmd.args)
        if code is not None:
            if REMOTE in code:
                self._rce(cmd)
            elif not has_marker(code):
                self._code(code, cmd, depth, lang)
            return
        if rest and rest[0] == "-m":
            return
        if rest and rest[0] != "-":
            self._script(resolve(rest[0], self.where, cmd.cwd), cmd, depth, rest[0])
            return
        self._stdin_code(cmd, depth, shell=False, lang=lang)

    def _code(self, code: str, cmd: Cmd, depth: int, lang: str) -> None:
        via = f"{lang} code"
        for effect in interp.scan(code):
            if effect.kind == "shell":
                self.run(effect.value, depth + 1, via=via)
            elif effect.kind == "delete-recursive":
                self.execute(["rm", "-r", effect.value], cmd.text, depth + 1, via=via)
            elif effect.kind == "delete":
                self.execute(["rm", effect.value], cmd.text, depth + 1, via=via)
            elif effect.kind == "read":
                self.execute(["cat", effect.value], cmd.text, depth + 1, via=via)
            elif effect.kind == "fork-bomb":
                self._hit(
                    "GATE-FORK-BOMB",
                    DESTRUCTIVE,
                    P_BLOCK,
                    cmd.text,
                    "This code forks without end and exhausts the machine.",
                )
            elif effect.kind == "exfil":
                self._hit(
                    "GATE-EXFIL-SECRET",
                    SECRET,
                    0.9,
                    cmd.text,
                    f"This code sends {effect.value} (which holds credentials) to the "
                    "network. Never send secrets off the machine; send only the fields "
                    "the service needs.",
                )
            elif effect.kind == "dynamic-delete":
                self._hit(
                    "GATE-INTERP-DYNAMIC-DELETE",
                    DESTRUCTIVE,
                    P_WARN,
                    cmd.text,
                    "This code deletes a directory tree whose path is computed at run "
                    "time. Check the path points inside the project.",
                )

    def xargs(self, cmd: Cmd, depth: int) -> None:
        args = cmd.args
        replace = ""
        i = 0
        valued = {
            "-n",
            "-L",
            "-l",
            "-P",
            "-s",
            "-d",
            "-E",
            "-e",
            "-a",
            "--max-args",
            "--max-procs",
            "--delimiter",
            "--arg-file",
            "--max-lines",
            "--max-chars",
        }
        while i < len(args):
            a = args[i]
            if a == "-I" and i + 1 < len(args):
                replace = args[i + 1]
                i += 2
                continue
            if a.startswith("-I") and len(a) > 2:
                replace = a[2:]
            elif a.startswith("--replace"):
                replace = a.partition("=")[2] or "{}"
            elif a == "-i" or (a.startswith("-i") and len(a) > 2):
                replace = a[2:] or "{}"
            elif a in valued:
                i += 2
                continue
            elif a == "--" or not a.startswith("-"):
                break
            i += 1
        rest = args[i + 1 :] if i < len(args) and args[i] == "--" else args[i:]
        if not rest:
            rest = ["echo"]
        items = self._items(cmd.stdin_from, cmd.stdin_text)
        self._run_per_item(rest, items, replace, cmd, depth, "xargs")

    def _items(self, producer: Cmd | None, stdin_text: str | None) -> list[str]:
        """What a producer feeds to xargs/parallel, item by item (bounded)."""
        if stdin_text is not None:
            return stdin_text.split()[:8] or [""]
        text = pipes.output_text(producer, self.state.written)
        if pipes.static(text):
            return (text or "").split()[:8]
        if producer is not None and producer.name == "find":
            return _find_items(producer)[0]
        if producer is not None and producer.name == "ls":
            dirs = [a for a in producer.args if not a.startswith("-")] or ["."]
            return [d.rstrip("/") + "/*" for d in dirs[:8]]
        return [UNKNOWN]

    def _run_per_item(
        self, template: list[str], items: list[str], replace: str, cmd: Cmd, depth: int, via: str
    ) -> None:
        if replace:
            for item in items[:8] or [UNKNOWN]:
                argv = [w.replace(replace, item) for w in template]
                self.execute(argv, cmd.text, depth + 1, stdin_from=None, via=via)
        else:
            self.execute([*template, *items], cmd.text, depth + 1, via=via)

    def parallel(self, cmd: Cmd, depth: int) -> None:
        args = cmd.args
        items: list[str] = []
        if ":::" in args:
            k = args.index(":::")
            items = [a for a in args[k + 1 :] if a not in (":::", "::::")][:8]
            args = args[:k]
        i = 0
        while i < len(args) and args[i].startswith("-"):
            i += 2 if args[i] in ("-j", "--jobs", "-N", "-n", "-S", "--sshlogin", "-a") else 1
        template = args[i:]
        if not items:
            items = self._items(cmd.stdin_from, cmd.stdin_text)
        if len(template) == 1 and " " in template[0]:
            for item in items:
                body = (
                    template[0].replace("{}", _quote(item))
                    if "{}" in template[0]
                    else template[0] + " " + _quote(item)
                )
                if has_marker(body) or DESCENDANT in body:
                    self.execute(body.split(), cmd.text, depth + 1, via="parallel")
                else:
                    self.run(body, depth + 1, via="parallel")
            return
        self._run_per_item(
            template,
            items,
            "{}" if any("{}" in w for w in template) else "",
            cmd,
            depth,
            "parallel",
        )

    def find(self, cmd: Cmd, depth: int) -> None:
        items, exprs = _find_items(cmd)
        item = items[0] if len(items) == 1 else None
        args = exprs
        j = 0
        while j < len(args):
            a = args[j]
            if a == "-delete":
                for it in items:
                    self.execute(["rm", "-r", "-f", it], cmd.text, depth + 1, via="find -delete")
            elif a in _FIND_EXEC:
                end = j + 1
                while end < len(args) and args[end] not in (";", "+", "\\;"):
                    end += 1
                template = args[j + 1 : end]
                for it in items if item is None else [item]:
                    argv = [w.replace("{}", it) for w in template]
                    if argv:
                        self.execute(argv, cmd.text, depth + 1, via=f"find {a}")
                j = end
            j += 1

    def _cd(self, cmd: Cmd) -> None:
        target = next((a for a in cmd.args if not a.startswith("-") or a == "-"), "")
        if not target:
            self.state.cwd = self.where.home
        elif target == "-" or target[:1] in (UNKNOWN, REMOTE):
            self.state.cwd = UNKNOWN
        else:
            self.state.cwd = resolve(target, self.where, self.state.cwd)

    def _record_writes(self, cmd: Cmd) -> None:
        """Remember files written in this command, so running them later is checked."""
        content: str | None = None
        if cmd.name in ("echo", "printf", "cat", "tee"):
            content = pipes.output_text(cmd, self.state.written)
        targets = [t for op, t in cmd.redirects if op in (">", ">>", ">|", "&>", "&>>")]
        if cmd.name == "tee":
            targets += [a for a in cmd.args if not a.startswith("-")]
        if cmd.name in ("curl", "wget"):
            for k, a in enumerate(cmd.args[:-1]):
                if a in ("-o", "--output", "-O", "--output-document"):
                    targets.append(cmd.args[k + 1])
                    content = REMOTE
        for t in targets:
            if not has_marker(t):
                self.state.written[resolve(t, self.where, cmd.cwd)] = (
                    content if content is not None else UNKNOWN
                )

    # --- words -----------------------------------------------------------

    def substitution(self, node: Any, depth: int) -> str:
        """Run a ``$(...)``/backtick/``<(...)`` body; return what it prints if knowable."""
        before = len(self.cmds)
        last: Cmd | None = None
        saved_cwd = self.state.cwd
        if depth + 1 > MAX_DEPTH:
            self._ask("GATE-PARSE-TOO-DEEP", _text(node)[:200], "Nesting is too deep to analyse.")
            return UNKNOWN
        for child in node.named_children:
            if child.type in _STATEMENTS:
                got = self.stmt(child, depth + 1, via="substitution")
                last = got if got is not None else last
        self.state.cwd = saved_cwd
        ran = self.cmds[before:]
        if last is None or not ran:
            return UNKNOWN
        if any(pipes.is_download(c) for c in ran) and not any(
            c.name in ("jq", "grep", "sed", "awk", "head", "tail", "wc", "cut", "tr") for c in ran
        ):
            return REMOTE
        text = pipes.output_text(last, self.state.written)
        if text is not None:
            return text.rstrip("\n")
        if last.name == "pwd":
            return last.cwd
        if last.name == "git" and "--show-toplevel" in last.args:
            return self.where.project
        if last.name == "mktemp":
            return "/tmp/" + UNKNOWN
        if last.name in _SETUP_TOOLS and (
            any(a in _SETUP_WORDS for a in last.args) or last.name in ("ssh-agent", "dircolors")
        ):
            return SETUP
        return UNKNOWN

    def expand(self, node: Any, depth: int, split: bool) -> list[str]:
        """Expand one word node into the fields bash would pass."""
        parts: list[braces.Part] = []
        self._parts(node, depth, parts, quoted=False, first=True)
        if not split:
            return ["".join(p for p, _, _ in parts)]
        ifs = self.state.vars.get("IFS", " \t\n")
        if not braces.has_braces(parts):
            return _fields(parts, ifs)
        fields: list[str] = []
        for word in braces.expand(parts):
            text, literal, active = word[0] if word else ("", True, False)
            if active and (text == "~" or text.startswith("~/")):
                word[0] = (self.where.home + text[1:], literal, active)
            fields.extend(_fields(word, ifs))
        return fields

    def _parts(
        self, node: Any, depth: int, out: list[braces.Part], quoted: bool, first: bool
    ) -> None:
        """Collect (text, literal, active) parts: non-literal parts are subject to
        splitting; active parts are unquoted source text, where braces expand."""
        self._tick()
        t = node.type
        if t == "word":
            text = _text(node)
            if first and (text == "~" or text.startswith("~/")):
                text = self.where.home + text[1:]
            out.extend(_word_parts(text, active=not quoted))
        elif t == "brace_expression":
            out.append((_text(node), True, not quoted))
        elif t == "raw_string":
            out.append((_text(node)[1:-1], True, False))
        elif t == "ansi_c_string":
            out.append((_ansi_c(_text(node)[2:-1]), True, False))
        elif t in ("string", "translated_string"):
            out.append(("", True, False))
            for child in node.named_children:
                if child.type == "string_content":
                    out.append((_unquote_dq(_text(child)), True, False))
                else:
                    sub: list[braces.Part] = []
                    self._parts(child, depth, sub, quoted=True, first=False)
                    out.append(("".join(p for p, _, _ in sub), True, False))
        elif t == "simple_expansion":
            out.append((self._lookup(_text(node)[1:]), quoted, False))
        elif t == "expansion":
            out.append((self._expansion(node, depth), quoted, False))
        elif t in ("command_substitution", "process_substitution"):
            value = self.substitution(node, depth)
            if t == "process_substitution":
                value = "/dev/fd/63" + (
                    REMOTE if value == REMOTE else SETUP if value == SETUP else ""
                )
            out.append((value, quoted, False))
        elif t == "arithmetic_expansion":
            self.side_effects(node, depth)
            out.append((UNKNOWN, quoted, False))
        elif t == "concatenation":
            for k, child in enumerate(node.named_children):
                self._parts(child, depth, out, quoted, first and k == 0)
            if not node.named_children:
                out.append((_text(node), True, False))
        else:
            text = _text(node)
            out.append(
                (
                    text
                    if t in ("number", "variable_name") or not node.named_children
                    else UNKNOWN,
                    True,
                    t == "number" and not quoted,
                )
            )
            if node.named_children:
                self.side_effects(node, depth)

    def _lookup(self, name: str) -> str:
        self._vars_used.append(name)
        if name == "PWD":
            return self.state.cwd
        value = self.state.vars.get(name)
        return value if value is not None else UNKNOWN

    def _expansion(self, node: Any, depth: int) -> str:
        kids = node.children
        names = [c for c in kids if c.type == "variable_name" or c.type == "special_variable_name"]
        ops = [_text(c) for c in kids if not c.is_named and _text(c) not in ("${", "}")]
        if not names:
            return UNKNOWN
        name = _text(names[0])
        if "#" in ops[:1] or "!" in ops[:1]:
            self._vars_used.append(name)
            return UNKNOWN
        value = self.state.vars.get(name) if name != "PWD" else self.state.cwd
        self._vars_used.append(name)
        op = ops[0] if ops else ""
        alt_nodes = [c for c in node.named_children if c is not names[0]]
        alt = "".join("".join(self.expand(c, depth, split=False)) for c in alt_nodes)
        if op == "":
            return value if value is not None else UNKNOWN
        if op in (":-", ":="):
            return value if value else alt
        if op in ("-", "="):
            return value if value is not None else alt
        if op == ":+":
            return alt if value else ("" if value is not None else UNKNOWN + alt)
        if op == "+":
            return alt if value is not None else UNKNOWN + alt
        return UNKNOWN


# --- helpers -------------------------------------------------------------


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def _basename(name: str) -> str:
    return name.rsplit("/", 1)[-1] if "/" in name else name


def _fields(parts: list[braces.Part], ifs: str) -> list[str]:
    """Split one (brace-expanded) word's parts on ``$IFS`` into fields."""
    fields: list[str] = []
    current = ""
    have = False
    for text, literal, _ in parts:
        if literal:
            current += text
            have = True
            continue
        for k, piece in enumerate(_split_ifs(text, ifs)):
            if k > 0:
                if have or current:
                    fields.append(current)
                current, have = "", False
            current += piece
            have = have or bool(piece)
    if have or current:
        fields.append(current)
    return fields


def _word_parts(text: str, active: bool) -> list[braces.Part]:
    """An unquoted word's text with backslashes removed; escaped characters are inactive."""
    if not active or "\\" not in text:
        return [(_unbackslash(text), True, active)]
    out: list[braces.Part] = []
    run = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            if run:
                out.append((run, True, True))
                run = ""
            if text[i + 1] != "\n":
                out.append((text[i + 1], True, False))
            i += 2
            continue
        run += ch
        i += 1
    if run:
        out.append((run, True, True))
    return out


def _split_ifs(text: str, ifs: str) -> list[str]:
    if not ifs:
        return [text]
    out = [""]
    for ch in text:
        if ch in ifs:
            out.append("")
        else:
            out[-1] += ch
    return out


def _unbackslash(text: str) -> str:
    if "\\" not in text:
        return text
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _unquote_dq(text: str) -> str:
    if "\\" not in text:
        return text
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _ansi_c(text: str) -> str:
    simple = {
        "n": "\n",
        "t": "\t",
        "r": "\r",
        "\\": "\\",
        "'": "'",
        '"': '"',
        "a": "\a",
        "b": "\b",
        "e": "\x1b",
        "E": "\x1b",
        "v": "\v",
        "f": "\f",
    }

    def sub(m: re.Match[str]) -> str:
        body = m.group(1)
        if body[0] in simple and len(body) == 1:
            return simple[body[0]]
        if body[0] == "x":
            return chr(int(body[1:], 16)) if len(body) > 1 else "x"
        if body[0] in "uU":
            return chr(int(body[1:], 16)) if len(body) > 1 else body
        if body.isdigit():
            return chr(int(body, 8) & 0xFF)
        return body

    return re.sub(
        r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)", sub, text
    )


def _quote(word: str) -> str:
    if word and all(c.isalnum() or c in "-_./=:@%+,~*" for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def _decoded(cmd: Cmd | None) -> bool:
    """Whether a pipe passes through a decoder (base64 -d, rev, xxd -r) on its way."""
    for _ in range(16):
        if cmd is None:
            return False
        if cmd.name in ("base64", "rev", "xxd", "openssl", "gunzip", "zcat", "tr", "uudecode"):
            return True
        cmd = cmd.stdin_from
    return False


def _find_items(cmd: Cmd) -> tuple[list[str], list[str]]:
    """``find`` roots as the items it yields, and its expression words."""
    roots: list[str] = []
    k = 0
    args = cmd.args
    while k < len(args) and args[k] in ("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3"):
        k += 1
    while k < len(args) and not (args[k].startswith("-") or args[k] in ("(", "!", "\\(")):
        roots.append(args[k])
        k += 1
    exprs = args[k:]
    filtered = any(e in _FIND_FILTERS for e in exprs)
    shallow = "-maxdepth" in exprs and exprs[exprs.index("-maxdepth") + 1 :][:1] == ["0"]
    roots = [
        resolve(r, Where(cmd.cwd, "", ""), cmd.cwd) if not has_marker(r) else r
        for r in (roots or ["."])
    ]
    items: list[str] = []
    for r in roots[:4]:
        if shallow:
            items.append(r)
        elif filtered:
            items.append(r.rstrip("/") + "/" + DESCENDANT)
        else:
            items.extend([r, r.rstrip("/") + "/*"])
    return items, exprs
