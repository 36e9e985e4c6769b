"""Word expansion: what one word of source becomes in the argv bash would pass.

Quote and backslash removal, ``$'...'`` decoding, ``~``, parameter expansion
from the known environment (``${VAR:-x}``, ``${VAR:+x}``), command and process
substitution, brace expansion (via :mod:`braces`) and splitting on ``$IFS``,
so ``rm${IFS}-rf${IFS}/`` is ``rm -rf /``.  It is separate from the tree walk
because it is the part that turns *text* into *fields*; the walk decides what
those fields mean.
"""

from __future__ import annotations

import re

from agentreflex.core.redaction.redact import redact_head
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import MARKERS, REMOTE, UNKNOWN, Cmd, has_marker
from agentreflex.gate.shell import arith, arrays, braces, pipes
from agentreflex.gate.shell.arrays import FIELD_BREAK
from agentreflex.gate.shell.parser import node_text
from agentreflex.gate.shell.walkstate import (
    BAD_SUBSTITUTION,
    MAX_DEPTH,
    STATEMENTS,
    BadSubstitution,
    WalkerBase,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A command substitution whose output is a shell set-up snippet (eval/source of it is normal).
SETUP = UNKNOWN + "setup"
# The file a process substitution ``<(...)`` is, as bash names it: the first of a
# command is /dev/fd/63, the next /dev/fd/62 and so on down (``echo <(true) <(true)``
# prints ``/dev/fd/63 /dev/fd/62``); each part of a pipeline and each nested
# substitution is its own process and starts again at 63.
PROC_SUB = "/dev/fd/63"
_PROC_FD_FIRST = 63
_FD_DIR = "/dev/fd/"
# The nodes that are one process's command line: its <(...) are numbered together.
_COMMAND_NODES = frozenset({"command", "redirected_statement", "declaration_command"})
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
# $TMPDIR when the agent's value is not known: "some temp folder".  A field
# that goes on into a named entry below it ("$TMPDIR/build") is temporary;
# the folder itself, a glob right below it or a ".." stays unknown, because an
# unset TMPDIR makes "$TMPDIR/*" mean "/*".
TEMP_ROOT = "/tmp/" + UNKNOWN + "tmpdir"
_TEMP_ROOT_UNSAFE = LazyPattern(r"^/*$|^/+[*?\[]|(^|/)\.\.(/|$)")
# `$(tool WORD ...)` with one of these tools and words prints such a snippet.
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


def setup_snippet(last: Cmd, ran: list[Cmd], piped: bool = False) -> bool:
    """``$(ssh-agent -s)``, ``<(kubectl completion bash)``, ``kubectl completion bash |
    source /dev/stdin`` (``piped``): a set-up tool's snippet.

    Only the plain form is vouched for: the tool alone, called by its name, with
    literal arguments, no prefix assignment and no redirect.  Anything else
    (``command ssh-agent``, ``| cat``, ``$MODE``) is code generated at run time.
    """
    if len(ran) != 1 or last.redirects or (last.assigns and not _click_completion(last)):
        return False
    if last.via != "substitution" and not (piped and last.stdin_from is None):
        return False
    first = last.text.split()[len(last.assigns) :][:1]
    if not first or first[0].rsplit("/", 1)[-1] != last.name:
        return False  # called through a wrapper (command, env) or by a computed name
    if any(has_marker(a) for a in last.args):
        return False
    if last.assigns:
        return not last.args  # _PIP_COMPILE_COMPLETE=bash_source pip-compile
    return last.name in _SETUP_TOOLS and (
        any(a in _SETUP_WORDS for a in last.args) or last.name in ("ssh-agent", "dircolors")
    )


# Click's completion protocol: ``_<PROG>_COMPLETE=<shell>_source <prog>`` (click 8) or
# ``source_<shell>`` (click 7) makes the program print its own completion script.
_CLICK_SHELLS = LazyPattern(r"(?:bash|zsh|fish|powershell)_source|source(?:_bash|_zsh|_fish)?")


# Programs whose output, with no arguments, is some file's or stream's content (or a
# script's): no completion protocol makes that output theirs.
_PRINTS_DATA = frozenset(
    {
        *("cat", "tac", "head", "tail", "more", "less", "strings", "base64", "xxd", "od"),
        *("make", "gmake", "curl", "wget", "nc", "env", "printenv", "sh", "bash", "zsh"),
        *("dash", "fish", "python", "python3", "node", "deno", "bun", "ruby", "perl", "php"),
        *("jq", "yq", "tee", "xargs", "dd", "openssl", "gpg", "ssh"),
    }
)


def _click_completion(last: Cmd) -> bool:
    """``_PIP_SYNC_COMPLETE=bash_source pip-sync``: the one assignment names the program
    itself and asks for its completion script, which it writes as it would any
    set-up tool's ``completion bash``; running the program is judged as ever."""
    if len(last.assigns) != 1 or last.name in _PRINTS_DATA:
        return False
    ((name, value),) = last.assigns.items()
    own = "_" + last.name.upper().replace("-", "_").replace(".", "_") + "_COMPLETE"
    return name == own and bool(_CLICK_SHELLS.fullmatch(value))


# A make-style variable name: capitals, digits and underscores (BUILD_DIR, MAKE, CC).
_MAKE_VARIABLE = LazyPattern(r"[A-Z][A-Z0-9_]*")


class WordsMixin(WalkerBase):
    """Expands word nodes; runs the substitutions inside them."""

    def substitution(self, node: Any, depth: int) -> str:
        """Run a ``$(...)``/backtick/``<(...)`` body; return what it prints if knowable."""
        return self._substituted(node, depth)[0]

    def _substituted(self, node: Any, depth: int) -> tuple[str, str | None]:
        """What a substitution prints, its trailing line ends taken off as ``$(...)`` does,
        and those line ends when its text is known (``None`` otherwise): ``<(printf X)``
        is a file whose last line has no end, ``<(echo X)`` one whose line ends."""
        before = len(self.cmds)
        last: Cmd | None = None
        saved_cwd, saved_vars = self.state.cwd, dict(self.state.vars)
        if depth + 1 > MAX_DEPTH:
            self._ask(
                "GATE-PARSE-TOO-DEEP",
                redact_head(node_text(node), 200),
                "Nesting is too deep to analyse.",
            )
            return UNKNOWN, None
        kids = node.named_children
        if len(kids) == 1 and kids[0].type == "file_redirect":
            op, target = self.redirect(kids[0], depth)
            if op == "<":  # $(<FILE): bash prints the file, as $(cat FILE) does
                last = self.execute(["cat", target], node_text(node), depth + 1, via="substitution")
        for child in kids:
            if child.type in STATEMENTS:
                got = self.stmt(child, depth + 1, via="substitution")
                last = got if got is not None else last
        self.state.cwd = saved_cwd
        self.restore_vars(saved_vars)  # x=$(d=build): d is as it was
        ran = self.cmds[before:]
        if last is None or not ran:
            return UNKNOWN, None
        if any(pipes.is_download(c) for c in ran) and not any(
            c.name in ("jq", "grep", "sed", "awk", "head", "tail", "wc", "cut", "tr") for c in ran
        ):
            if len(ran) == 1:
                # <(curl URL): the file's content is the download and where from, as a
                # file curl -o wrote; "$(curl URL)": the text is (a vendor's installer
                # run from either, bash <(curl URL) or bash -c "$(curl URL)", only
                # warns, as curl URL | sh does). Still the download marker first, so
                # every other use of the text reads it as a download, as before.
                urls = [a for a in last.args if a.startswith(("https://", "http://"))]
                return REMOTE + (urls[0] if len(urls) == 1 else ""), None
            return REMOTE, None
        text = pipes.output_text(last, self.state.written)
        if text is None and len(ran) == 1:
            text = self._project_file(last)
        if text is not None:
            kept = text.rstrip("\n")
            return kept, text[len(kept) :] + pipes.line_end(last)
        if last.name == "pwd":
            return last.cwd, None
        if last.name == "git" and "--show-toplevel" in last.args:
            return self.where.project, None
        asked = _packages_folder(last)
        if asked:
            return asked, None
        if last.name == "mktemp":
            return "/tmp/" + UNKNOWN, None
        if setup_snippet(last, ran):
            return SETUP, None
        if len(ran) == 1 and not last.args:
            kind = self._make_variable(node, last.name)
            if kind == "empty":
                # $(BUILD_DIR): a make variable pasted into a shell runs a program called
                # BUILD_DIR, which no system has; bash substitutes the empty string (so
                # `rm -rf $(BUILD_DIR)` deletes nothing, and `rm -rf $(BUILD_DIR)/*` is /*)
                return "", None
            if kind == "program":
                # $(MAKE), $(PYTHON): a Makefile recipe's tool variable, read as the tool
                # it names (the recipe's meaning; judged as that program runs)
                return last.name, None
        return UNKNOWN, None

    def _project_file(self, last: Cmd) -> str | None:
        """``$(cat FILE)`` (and ``$(<FILE)``): the text of a file of the project, written
        earlier in this command or read from disk as a script is (bounded); a file
        outside the project, a credential file or one that cannot be read is unknown."""
        if last.name != "cat" or len(last.args) != 1 or last.redirects:
            return None
        path = last.args[0]
        if not path or path.startswith("-") or has_marker(path) or last.cwd == UNKNOWN:
            return None
        from agentreflex.gate.shell.paths import Place, classify, is_secret_file

        place, full = classify(path, self.where, last.cwd, follow=True)
        if full in self.state.written:
            return self.state.written[full]
        if place is not Place.INSIDE or is_secret_file(full):
            return None
        from agentreflex.gate.code import scripts

        text = scripts.read(full)
        return None if text is None or text == scripts.UNREADABLE else text

    def _make_variable(self, node: Any, name: str) -> str:
        """What ``$(NAME)`` in capitals is: ``empty`` when it names no program the gate
        knows (no system has a BUILD_DIR program), ``program`` when it names one
        (``$(MAKE)``: make, as the recipe means), ``""`` otherwise (too short, or an alias
        or function of this command)."""
        text = node_text(node)
        raw = text[2:-1] if text.startswith("$(") and text.endswith(")") else ""
        if not _MAKE_VARIABLE.fullmatch(raw) or len(raw) < 2:
            return ""
        if name in self.state.aliases or name in self._bodies or raw in self._bodies:
            return ""
        from agentreflex.gate.analyze import known_program

        if known_program(name):
            return "program"
        return "empty" if "_" in raw or len(raw) >= 3 else ""

    def expand(self, node: Any, depth: int, split: bool) -> list[str]:
        """Expand one word node into the fields bash would pass."""
        parts: list[braces.Part] = []
        self._parts(node, depth, parts, quoted=False, first=True)
        if not split:  # b="${a[@]}": the elements joined by spaces
            return _temp_roots(["".join(p for p, _, _ in parts).replace(FIELD_BREAK, " ")])
        ifs = self.state.vars.get("IFS", " \t\n")
        if not braces.has_braces(parts):
            return _temp_roots(_fields(parts, ifs))
        fields: list[str] = []
        for word in braces.expand(parts):
            text, literal, active = word[0] if word else ("", True, False)
            if active and (text == "~" or text.startswith("~/")):
                word[0] = (self.where.home + text[1:], literal, active)
            fields.extend(_fields(word, ifs))
        return _temp_roots(fields)

    def _parts(
        self, node: Any, depth: int, out: list[braces.Part], quoted: bool, first: bool
    ) -> None:
        """Collect (text, literal, active) parts: non-literal parts are subject to
        splitting; active parts are unquoted source text, where braces expand."""
        self._tick()
        t = node.type
        if t == "word":
            text = node_text(node)
            if first and (text == "~" or text.startswith("~/")):
                text = self.where.home + text[1:]
            elif first and text[:1] == "~" and not quoted:
                text = _tilde_user(text, self.where.home)
            out.extend(_word_parts(text, active=not quoted))
        elif t == "brace_expression":
            out.append((node_text(node), True, not quoted))
        elif t == "raw_string":
            out.append((node_text(node)[1:-1], True, False))
        elif t == "ansi_c_string":
            out.append((ansi_c(node_text(node)[2:-1]), True, False))
        elif t in ("string", "translated_string") and self._quoted_params(node):
            out.append((self._lookup("@"), False, False))  # "$@": each parameter a word
        elif t in ("string", "translated_string"):
            out.append(("", True, False))
            # the text between the parts too: tree-sitter leaves a newline inside the quotes
            # out of every part, and ``bash -c "echo hi<newline>rm -rf ~/x"`` read as
            # ``echo hirm -rf ~/x`` (red-team rt35)
            raw, base = node.text, node.start_byte
            pos = 1 if t == "string" else 0
            for child in node.named_children:
                gap = raw[pos : child.start_byte - base]
                if gap:
                    out.append((_unquote_dq(gap.decode("utf-8", "replace")), True, False))
                pos = child.end_byte - base
                if child.type == "string_content":
                    out.append((_unquote_dq(node_text(child)), True, False))
                else:
                    sub: list[braces.Part] = []
                    self._parts(child, depth, sub, quoted=True, first=False)
                    out.append(("".join(p for p, _, _ in sub), True, False))
            gap = raw[pos : len(raw) - 1] if t == "string" else b""
            if gap:
                out.append((_unquote_dq(gap.decode("utf-8", "replace")), True, False))
        elif t == "simple_expansion":
            out.append((self._lookup(node_text(node)[1:]), quoted, False))
        elif t == "expansion":
            out.append((self._expansion(node, depth, quoted), quoted, False))
        elif t in ("command_substitution", "process_substitution"):
            # a substitution is a process of its own: its <(...) are its /dev/fd/63, ...,
            # gone when it ends, and never this command's (bash <(echo A) <(cat <(echo B))
            # runs A although the inner one is also /dev/fd/63)
            written = self.state.written
            fds = {fd: v for fd, v in written.items() if fd.startswith(_FD_DIR)}
            value, ends = self._substituted(node, depth)
            for fd in [fd for fd in written if fd.startswith(_FD_DIR) and fd not in fds]:
                del written[fd]
            written.update(fds)
            if t == "process_substitution":
                # what it prints is the content of the file it names, so a shell that
                # reads it (sh < <(...), bash <(...)) runs it as it would a pipe's
                # it ends with the line end the output had, which $(...) strips: cat
                # <(echo '#') <(echo CMD) prints two lines, not the comment '#CMD' (rt86)
                name = proc_sub_name(node)
                if ends is None and _ends_a_line(value):
                    ends = "\n"  # an unknown output is taken to end its last line
                self.state.written[name] = value + (ends or "")
                value = name + (REMOTE if value[:1] == REMOTE else SETUP if value == SETUP else "")
            out.append((value, quoted, False))
        elif t == "arithmetic_expansion":
            self.side_effects(node, depth)
            text = node_text(node)
            expression = text.lstrip()
            if expression != text:  # tree-sitter puts the blank before a second $((...)) of
                out.append((text[: len(text) - len(expression)], True, False))  # "a b" in it
            number = arith.run(expression, self.state.vars)  # $((n+1)) (red-team rt94)
            out.append((UNKNOWN if number is None else str(number), quoted, False))
        elif t == "concatenation":
            for k, child in enumerate(node.named_children):
                self._parts(child, depth, out, quoted, first and k == 0)
            if not node.named_children:
                out.append((node_text(node), True, False))
        else:
            text = node_text(node)
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

    def _quoted_params(self, node: Any) -> bool:
        """``"$@"`` / ``"${@}"`` alone in quotes, with the parameters known (``set --``)."""
        kids = node.named_children
        return (
            len(kids) == 1
            and kids[0].type in ("simple_expansion", "expansion")
            and node_text(kids[0]) in ("$@", "${@}")
            and "@" in self.state.vars
        )

    def _lookup(self, name: str) -> str:
        if name == BAD_SUBSTITUTION:
            raise BadSubstitution(name)
        self._use(name)
        if name == "PWD":
            return self.state.cwd
        value = self.state.vars.get(name)
        if value is None and name == "TMPDIR":
            return self.where.tmpdir or TEMP_ROOT
        if value is None and name == "*":
            return self._all_params()
        return value if value is not None else UNKNOWN

    def _all_params(self) -> str:
        """``$*``: the parameters joined by the first character of ``$IFS``.

        Unquoted, the joined text is split on ``$IFS`` again, which gives the
        parameters back as fields (``IFS=,; $*``); quoted, it is one word.  With an
        empty ``IFS`` the parameters stay separate fields, which a joined string
        cannot say: unknown.
        """
        count = self.state.vars.get("#", "")
        ifs = self.state.vars.get("IFS", " \t\n")
        if not count.isdigit() or int(count) > 9 or not ifs:
            return UNKNOWN
        return ifs[0].join(self.state.vars.get(str(k), "") for k in range(1, int(count) + 1))

    def _expansion(self, node: Any, depth: int, quoted: bool = False) -> str:
        kids = node.children
        names = [c for c in kids if c.type == "variable_name" or c.type == "special_variable_name"]
        ops = [node_text(c) for c in kids if not c.is_named and node_text(c) not in ("${", "}")]
        if not names and ops in (["#"], ["!"]) and len(kids) > 1 and kids[1].type == ops[0]:
            # ${#a[@]}, ${!a[@]}: the operator first; ${a[@]#x} is a trim (rt103), not a count
            return self._about_array(kids, ops[0], quoted, depth)
        if not names:
            return self._element(kids, quoted, depth) if not ops else UNKNOWN
        name = node_text(names[0])
        if name == BAD_SUBSTITUTION:
            raise BadSubstitution(name)
        first = next((c for c in kids if node_text(c) != "${"), None)
        if ops == ["!"] and first is not names[0]:
            return self._indirect(name)
        if ("#" in ops[:1] or "!" in ops[:1]) and first is not names[0]:
            if not (first is not None and node_text(first) == "#" and len(ops) == 1):
                self._vars_used.append(name)  # ${#NAME} is its length: no value is used
            return UNKNOWN
        value = self.state.vars.get(name) if name != "PWD" else self.state.cwd
        op = ops[0] if ops else ""
        if op not in (":+", "+"):  # ${KEY:+set} is "set" or nothing: KEY's value is not used
            self._use(name)
        alt_nodes = [c for c in node.named_children if c is not names[0]]
        alt = "".join("".join(self.expand(c, depth, split=False)) for c in alt_nodes)
        if op == "":
            if value is None and name == "TMPDIR":
                return self.where.tmpdir or TEMP_ROOT
            return value if value is not None else UNKNOWN
        if op in (":-", ":="):
            return value if value else alt
        if op in ("-", "="):
            return value if value is not None else alt
        if op == ":+":
            return alt if value else ("" if value is not None else UNKNOWN + alt)
        if op == "+":
            return alt if value is not None else UNKNOWN + alt
        if value is None or has_marker(value) or op not in _MODIFIERS:
            return UNKNOWN
        if op == ":":  # ${d:OFFSET:LENGTH} as written: parts drop an empty offset
            spec = node_text(node)[len(name) + 3 : -1]
            return sliced(value, [self._arith_word(f) for f in spec.split(":")])
        parts = [node_text(c) for c in alt_nodes if c.type in ("regex", "number")]
        reps = [c for c in alt_nodes if c.type not in ("regex", "number")]
        rep = "".join("".join(self.expand(c, depth, split=False)) for c in reps)
        return modified(value, op, parts, rep)

    def _use(self, name: str) -> None:
        """``name``'s value is used, and so are the variables it was made from."""
        self._vars_used.append(name)
        self._vars_used.extend(sorted(self.origins.get(name, ())))

    def _indirect(self, name: str) -> str:
        """``${!n}``: the value of the variable n names (bash's indirect expansion), so
        ``n=TOKEN; echo ${!n}`` uses TOKEN; ``UNKNOWN`` when n's value is no name."""
        self._use(name)
        target = self.state.vars.get(name, UNKNOWN)
        if not target.isidentifier():
            return UNKNOWN
        self._use(target)
        return self.state.vars.get(target, UNKNOWN)

    def _arith_word(self, word: str) -> str:
        """An offset or length as bash's arithmetic reads it (``${d:0:n}``: n's value,
        ``${d:0:$((6*2))}``: 12); an empty one stays empty (0), one not known ``UNKNOWN``."""
        name = word.strip()
        if not name:
            return word
        if name.isidentifier():
            self._use(name)
        value = arith.run(word, self.state.vars)
        return UNKNOWN if value is None else str(value)

    def _element(self, kids: list[Any], quoted: bool, depth: int) -> str:
        """``${a[1]}``, ``${a[i+1]}``, ``${a[@]}``: an element of an array the command set,
        as :mod:`arrays` keeps it (the index read as bash's arithmetic); the whole array
        is its elements between field breaks, ``"${a[*]}"`` them joined by IFS's first
        character (red-team rt94); ``UNKNOWN`` for any other subscript."""
        found = _subscript(kids)
        if found is None:
            return UNKNOWN
        name, index, index_node = found
        self._use(name)
        self.side_effects(index_node, depth)  # ${a[$(cmd)]} runs cmd
        if index not in ("@", "*"):
            return arrays.element(self.state.vars, name, arith.run(index, self.state.vars))
        items = arrays.elements(self.state.vars, name)
        if not items:
            return UNKNOWN  # none is no field at all, which a word's text can't say
        if index == "*" and quoted:
            return self.state.vars.get("IFS", " \t\n")[:1].join(items)
        return FIELD_BREAK.join(items)

    def _about_array(self, kids: list[Any], op: str, quoted: bool, depth: int) -> str:
        """``${#a[@]}`` (the count of set elements), ``${!a[@]}`` (the set indices, each a
        field as ``${a[@]}``'s elements are) and ``${#a[N]}`` (element N's length), as
        bash gives them for an array with gaps too (rt102); ``UNKNOWN`` otherwise."""
        found = _subscript(kids)
        if found is None:
            return UNKNOWN
        name, index, index_node = found
        if op == "#" and index not in ("@", "*"):
            value = self._element(kids, quoted, depth)  # walks the index's substitutions
            return UNKNOWN if has_marker(value) else str(len(value))
        self._vars_used.append(name)  # a count or the indices: no element's value is used
        self.side_effects(index_node, depth)
        if index not in ("@", "*") or name not in self.state.vars:
            return UNKNOWN  # ${!a[N]} is not followed; the agent's shell may hold a name
        indices = arrays.indices(self.state.vars, name)
        if indices is None:
            return UNKNOWN
        if op == "#":
            return str(len(indices))
        if not indices:
            return UNKNOWN  # none is no field at all, which a word's text can't say
        if index == "*" and quoted:
            return self.state.vars.get("IFS", " \t\n")[:1].join(indices)
        return FIELD_BREAK.join(indices)


def _subscript(kids: list[Any]) -> tuple[str, str, Any] | None:
    """``a[i]`` of ``${a[i]}``, ``${#a[@]}``...: the name, the index as written and its node."""
    subscript = next((c for c in kids if c.type == "subscript"), None)
    if subscript is None:
        return None
    name_node = subscript.child_by_field_name("name")
    index_node = subscript.child_by_field_name("index")
    if name_node is None or index_node is None:
        return None
    return node_text(name_node), node_text(index_node), index_node


# ``${NAME/pat/rep}``, ``${NAME#pat}``, ``${NAME,,}``, ``${NAME:1:3}``...: what bash makes
# of a known value (https://www.gnu.org/software/bash/manual/bash.html#Shell-Parameter-Expansion),
# so ``d=.agentXreflex; rm -rf ${d/X/}`` names the folder it removes (red-team rt89)
_MODIFIERS = frozenset({"/", "//", "/#", "/%", "#", "##", "%", "%%", ",,", "^^", ",", "^", ":"})
_MAX_MODIFIED = 4096  # longer values are not followed: each match tries every cut


def modified(value: str, op: str, parts: list[str], rep: str) -> str:
    """``value`` after the modifier ``op``: ``parts`` are its pattern or numbers as
    written, ``rep`` the expanded replacement (``UNKNOWN`` where bash's answer is not
    followed: a pattern with quotes or expansions, a computed offset, a long value)."""
    if len(value) > _MAX_MODIFIED:
        return UNKNOWN
    if op in (",,", "^^", ",", "^"):
        if parts:
            return UNKNOWN  # only the characters a pattern matches change: not followed
        if op in (",", "^"):
            return (value[:1].lower() if op == "," else value[:1].upper()) + value[1:]
        return value.lower() if op == ",," else value.upper()
    pattern = parts[0] if parts else ""
    if not pattern or has_marker(rep) or any(ch in pattern for ch in "$`\\'\""):
        return UNKNOWN
    try:
        return _matched(value, op, re.compile(_glob_regex(pattern)), rep)
    except re.error:
        return UNKNOWN  # a set bash reads and Python does not: not followed


_INTEGER = LazyPattern(r"\s*-?\s*(?:0|[1-9][0-9]*)\s*")


def sliced(value: str, fields: list[str]) -> str:
    """``${d:OFFSET}``, ``${d:OFFSET:LENGTH}``: an empty field is 0, a negative offset
    counts from the end (past the start: nothing), a negative length stops that far
    before the end (bash's manual); ``UNKNOWN`` for more fields, a field that is no
    plain decimal (``_arith_word`` computes each first; one not followed is unknown),
    or a length bash refuses."""
    if len(fields) > 2 or len(value) > _MAX_MODIFIED:
        return UNKNOWN
    if not all(not f.strip() or _INTEGER.fullmatch(f) for f in fields):
        return UNKNOWN
    offset, *length = [int(f.replace(" ", "")) if f.strip() else 0 for f in fields]
    if offset < 0:
        offset = len(value) + offset
        if offset < 0:
            return ""
    start = value[offset:]
    if not length:
        return start
    if length[0] < 0 and len(start) + length[0] < 0:
        return UNKNOWN  # bash: "substring expression < 0"
    return start[: length[0]]


def _matched(value: str, op: str, glob: re.Pattern[str], rep: str) -> str:
    """``value`` after a pattern's modifier: trimmed (``#``, ``%``) or replaced (``/``)."""
    if op in ("#", "##", "%", "%%"):
        return _trimmed(value, op, glob)
    if op == "/#":
        m = glob.match(value)
        return rep + value[m.end() :] if m else value
    if op == "/%":
        cuts = [k for k in range(len(value) + 1) if glob.fullmatch(value[k:])]
        return value[: min(cuts)] + rep if cuts else value
    return glob.sub(lambda _: rep, value, count=0 if op == "//" else 1)


def _trimmed(value: str, op: str, glob: re.Pattern[str]) -> str:
    """``${v#pat}`` and ``${v%pat}``: the shortest (``##``/``%%``: longest) match
    taken off the front (``#``) or the back (``%``)."""
    ends = range(len(value) + 1)
    if op.startswith("#"):
        cuts = [k for k in ends if glob.fullmatch(value[:k])]
        return value[(max(cuts) if op == "##" else min(cuts)) :] if cuts else value
    cuts = [k for k in ends if glob.fullmatch(value[k:])]
    return value[: (min(cuts) if op == "%%" else max(cuts))] if cuts else value


def _glob_regex(pattern: str) -> str:
    """A bash pattern as a regex: ``*`` any text, ``?`` one character, ``[...]`` a set."""
    out = []
    for piece in re.split(r"(\*|\?|\[[^]]*\])", pattern):
        if piece == "*":
            out.append("(?s:.*)")
        elif piece == "?":
            out.append(".")
        elif piece.startswith("[") and piece.endswith("]") and len(piece) > 2:
            out.append("[" + ("^" + piece[2:-1] if piece[1] in "!^" else piece[1:-1]) + "]")
        else:
            out.append(re.escape(piece))
    return "".join(out)


def proc_sub_name(node: Any) -> str:
    """``/dev/fd/N`` for the ``<(...)`` ``node``, numbered as bash opens them."""
    top, up = node, node.parent
    while up is not None and up.type not in _SUBSTITUTIONS:
        top = up
        if up.type in _COMMAND_NODES:
            while top.parent is not None and top.parent.type == "redirected_statement":
                top = top.parent
            break
        up = up.parent
    before = 0
    stack = list(reversed(top.named_children)) if top is not node else []
    while stack:
        n = stack.pop()
        if n.start_byte >= node.start_byte:
            continue
        if n.type == "process_substitution":
            before += 1
        elif n.type not in _SUBSTITUTIONS:
            stack.extend(reversed(n.named_children))
    return f"{_FD_DIR}{max(_PROC_FD_FIRST - before, 3)}"


def _ends_a_line(value: str) -> bool:
    """Whether a process substitution's output not read as text (unknown, a folder a
    program names) is taken to end its line; a download's marker and a set-up's stay
    as they are."""
    return bool(value) and value[:1] != REMOTE and value != SETUP


def _tilde_user(text: str, home: str) -> str:
    """``~name[/rest]``: that user's home (bash leaves an unknown name as it is; an
    unknown one is taken as a home beside ours, so a delete of it is never ordinary)."""
    name, sep, rest = text[1:].partition("/")
    if not name or not all(c.isalnum() or c in "._-" for c in name) or name[0] in ".-":
        return text
    import pwd  # only for a ~user word

    try:
        target = pwd.getpwnam(name).pw_dir
    except (KeyError, OSError):
        parent = home.rstrip("/").rpartition("/")[0] or "/home"
        target = f"{parent}/{name}"
    return target + sep + rest


def _temp_roots(fields: list[str]) -> list[str]:
    """Fields from an unknown ``$TMPDIR``: temporary below it, unknown otherwise."""
    out = []
    for f in fields:
        if TEMP_ROOT in f:
            head, _, tail = f.partition(TEMP_ROOT)
            if head or _TEMP_ROOT_UNSAFE.search(tail):
                f = f.replace(TEMP_ROOT, UNKNOWN)
            else:
                f = "/tmp/" + UNKNOWN + tail
        out.append(f)
    return out


def _fields(parts: list[braces.Part], ifs: str) -> list[str]:
    """Split one (brace-expanded) word's parts on ``$IFS`` into fields."""
    fields: list[str] = []
    current = ""
    have = False
    for text, literal, _ in parts:
        if literal:
            # "${a[@]}": each element a field, an empty one too
            for k, piece in enumerate(text.split(FIELD_BREAK)):
                if k > 0:
                    fields.append(current)
                    current = ""
                current += piece
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
    """``text`` split on ``$IFS``; an unquoted ``${a[@]}``'s elements are apart whatever
    IFS is.  An IFS not known (``IFS=$(cat f)``, every name forgotten) splits on none of
    its markers: an unknown value split on them was no field at all, so ``rm -rf $d``
    removed nothing the gate could see (rt103)."""
    if UNKNOWN in ifs or REMOTE in ifs:
        ifs = "".join(c for c in ifs if c not in MARKERS)
    if not ifs and FIELD_BREAK not in text:
        return [text]
    out = [""]
    for ch in text:
        if ch in ifs or ch == FIELD_BREAK:
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


def ansi_c(text: str) -> str:
    """Backslash escapes decoded as bash does in ``$'...'`` (and ``echo -e``/``printf``)."""
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


def quote(word: str) -> str:
    if word and all(c.isalnum() or c in "-_./=:@%+,~*" for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


_PYTHON_NAME = LazyPattern(r"python(?:\d+(?:\.\d+)?)?", hints="python")
_SITE_QUERY = LazyPattern(
    r"getsitepackages|getusersitepackages|get_python_lib|purelib|platlib",
    hints="sitepackages get_python_lib purelib platlib",
)


def _packages_folder(last: Cmd) -> str:
    """Where Python was asked its packages live (``python -c 'import site;
    print(site.getsitepackages()[0])'``, ``sysconfig.get_paths()["purelib"]``,
    ``python -m site --user-site``): taken as the hook's own interpreter's answer,
    the folder where a ``.pth`` runs in every hook.  Failing closed: another
    Python's folder asked this way is judged as the hook's.  ``""``: not asked."""
    if not _PYTHON_NAME.fullmatch(last.name):
        return ""
    from agentreflex.core.state import userdirs

    if last.args[:2] == ["-m", "site"] and "--user-site" in last.args:
        return userdirs.loaded_user_site()
    code = last.args[last.args.index("-c") + 1] if "-c" in last.args[:-1] else ""
    if not _SITE_QUERY.search(code):
        return ""
    return next((p for p in userdirs.interpreter_paths() if p.endswith("-packages")), "")
