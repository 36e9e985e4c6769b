"""Commands that run a template once per item: ``xargs``, ``parallel``, ``find``.

What they run is a command line plus the items fed to it (stdin, ``:::``
lists, the files ``find`` visits).  The items are worked out statically and
bounded, so ``find / -delete`` or ``ls | xargs rm -rf`` is judged as the
``rm`` it really is.
"""

from __future__ import annotations

from agentreflex.gate.model import CACHE_ENTRY, DATA, DESCENDANT, UNKNOWN, Cmd, has_marker
from agentreflex.gate.shell import pipes
from agentreflex.gate.shell.paths import Where, resolve
from agentreflex.gate.shell.walkstate import WalkerBase
from agentreflex.gate.shell.words import quote

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
# find primaries whose next word is a value (a test's operand, an output file).
FIND_VALUED = frozenset(
    {
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-lname",
        "-ilname",
        "-newer",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-perm",
        "-size",
        "-type",
        "-xtype",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-inum",
        "-samefile",
        "-links",
        "-maxdepth",
        "-mindepth",
        "-fprint",
        "-fprint0",
        "-fls",
        "-printf",
        "-fstype",
        "-used",
        "-newermt",
        "-context",
    }
)
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


_XARGS_VALUED = frozenset(
    {
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
        "-R",
        "-S",
        "--process-slot-var",
    }
)
# GNU parallel's options that take the next word as their value.
_PARALLEL_VALUED = frozenset(
    {
        "-j",
        "--jobs",
        "-N",
        "-n",
        "--max-args",
        "-L",
        "--max-lines",
        "-l",
        "-S",
        "--sshlogin",
        "--sshloginfile",
        "--slf",
        "-a",
        "--arg-file",
        "-d",
        "--delimiter",
        "-E",
        "--eof",
        "-s",
        "--max-chars",
        "--results",
        "--res",
        "--workdir",
        "--wd",
        "--nice",
        "--header",
        "--env",
        "--rpl",
        "--joblog",
        "--tmpdir",
        "--timeout",
        "--retries",
        "--memfree",
        "--load",
        "--delay",
        "-C",
        "--colsep",
        "--tagstring",
        "--tag-string",
        "--basefile",
        "--bf",
        "--transferfile",
        "--tf",
        "--return",
        "--halt",
        "--termseq",
        "--limit",
        "--resume-failed-from",
        "--sqlmaster",
        "--sqlworker",
        "--sqlandworker",
        "--shebang-wrap",
        "--ssh",
        "--plus-replace",
        "-X",
        "--xapply",
        "--results-dir",
        "--block",
        "--blocksize",
        "--recend",
        "--recstart",
        "--seqreplace",
        "--tee-filter",
        "--cat-filter",
    }
)
_PARALLEL_NOOP = frozenset({"--dry-run", "--dryrun", "--version", "--help", "-h", "--citation"})


def split_xargs(args: list[str]) -> tuple[str, list[str]]:
    """xargs' own options read: (the replace string, "" if none; the command it runs)."""
    replace = ""
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-I", "-J") and i + 1 < len(args):
            replace = args[i + 1]
            i += 2
            continue
        if a.startswith("-I") and len(a) > 2:
            replace = a[2:]
        elif a.startswith("--replace"):
            replace = a.partition("=")[2] or "{}"
        elif a == "-i" or (a.startswith("-i") and len(a) > 2):
            replace = a[2:] or "{}"
        elif a in _XARGS_VALUED:
            i += 2
            continue
        elif a == "--" or not a.startswith("-"):
            break
        i += 1
    rest = args[i + 1 :] if i < len(args) and args[i] == "--" else args[i:]
    return replace, rest


class FanOutMixin(WalkerBase):
    """Runs each per-item command a fan-out tool would run."""

    def xargs(self, cmd: Cmd, depth: int) -> None:
        replace, rest = split_xargs(cmd.args)
        if not rest:
            rest = ["echo"]
        from_file = any(a in ("-a", "--arg-file") or a.startswith("--arg-file=") for a in cmd.args)
        if from_file:
            items = [DATA]  # read from a file, not from stdin
        else:
            items = self._items(cmd.stdin_from, cmd.stdin_text, lines=bool(replace))
        self._input_as_code(rest, replace, cmd)
        self._run_per_item(rest, items, replace, cmd, depth, "xargs")

    def _input_as_code(self, template: list[str], replace: str, cmd: Cmd) -> None:
        """Ask when input items become the command, its code or its options."""
        from agentreflex.gate.shell import itemcode  # only for xargs and parallel

        if itemcode.reads_as_code(template, replace):
            self._ask(
                "GATE-STDIN-COMMAND",
                cmd.text,
                f"{cmd.name} builds the command it runs from its input (the items become "
                "the command, its code or its options), so what it does cannot be known. "
                "Write the commands out, or pass the items after --.",
            )

    def _items(
        self, producer: Cmd | None, stdin_text: str | None, lines: bool = False
    ) -> list[str]:
        """What a producer feeds to xargs/parallel, item by item (bounded).

        ``lines``: one item per line (``xargs -I``, ``parallel``), else per word.
        """
        if stdin_text is not None:
            return _split_items(stdin_text, lines) or [""]
        text = pipes.output_text(producer, self.state.written)
        if pipes.static(text):
            return _split_items(text or "", lines)
        if producer is not None and producer.name == "find":
            return _find_items(producer)[0]
        if producer is not None and producer.name == "ls":
            dirs = [a for a in producer.args if not a.startswith("-")] or ["."]
            return [d.rstrip("/") + "/*" for d in dirs[:8]]
        # ``(make; echo .agentreflex) | xargs rm -rf``: the readable parts' items are
        # handed on whatever the rest adds (red-team rt81)
        known = pipes.known_parts(producer, self.state.written)
        return [*_split_items("\n".join(known), lines), DATA] if known else [DATA]

    def _run_per_item(
        self, template: list[str], items: list[str], replace: str, cmd: Cmd, depth: int, via: str
    ) -> None:
        if replace:
            for item in items[:8] or [DATA]:
                argv = [w.replace(replace, item) for w in template]
                self.execute(argv, cmd.text, depth + 1, stdin_from=None, via=via)
        else:
            self.execute([*template, *items], cmd.text, depth + 1, via=via)

    def parallel(self, cmd: Cmd, depth: int) -> None:
        args = cmd.args
        if any("{=" in a or a.startswith("--rpl") for a in args):
            self._ask(
                "GATE-DYNAMIC-SCRIPT",
                cmd.text,
                "parallel runs the Perl code of {= ... =} and --rpl replacement strings "
                "itself, even with --dry-run, and that code is not checked. Use plain {} "
                "replacement strings.",
            )
        items: list[str] = []
        if ":::" in args:
            k = args.index(":::")
            items = [a for a in args[k + 1 :] if a not in (":::", "::::", ":::+")][:8]
            args = args[:k]
            if not items:
                return  # an empty input list: nothing runs
        i = 0
        workdir = ""
        while i < len(args) and args[i].startswith("-") and args[i] != "--":
            a = args[i]
            if a in _PARALLEL_NOOP:
                return  # prints what it would run, or help: nothing runs
            if a in ("--workdir", "--wd") and i + 1 < len(args):
                workdir = args[i + 1]
            elif a.startswith(("--workdir=", "--wd=")):
                workdir = a.partition("=")[2]
            i += 2 if a in _PARALLEL_VALUED else 1
        if i < len(args) and args[i] == "--":
            i += 1
        template = args[i:]
        if not items:
            items = self._items(cmd.stdin_from, cmd.stdin_text, lines=True)
            self._input_as_code(template, "{}" if any("{}" in w for w in template) else "", cmd)
        saved = self.state.cwd
        if workdir and workdir not in (".", "..."):
            self.state.cwd = (
                UNKNOWN if has_marker(workdir) else resolve(workdir, self.where, cmd.cwd)
            )
        try:
            self._parallel_run(template, items, cmd, depth)
        finally:
            self.state.cwd = saved

    def _parallel_run(self, template: list[str], items: list[str], cmd: Cmd, depth: int) -> None:
        if not template:  # no command: each item is a command line
            for item in items:
                if has_marker(item):
                    self.execute([item], cmd.text, depth + 1, via="parallel")
                else:
                    self.run(item, depth + 1, via="parallel")
            return
        if len(template) == 1 and " " in template[0]:
            for item in items:
                body = (
                    template[0].replace("{}", quote(item))
                    if "{}" in template[0]
                    else template[0] + " " + quote(item)
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
            if a in FIND_VALUED:
                j += 2  # "-gid -delete": -delete is the value, not the action
                continue
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


def _split_items(text: str, lines: bool) -> list[str]:
    if lines:
        return [ln for ln in text.splitlines() if ln.strip()][:8]
    return text.split()[:8]


# Names a ``find`` may select for deletion anywhere: caches and editor litter that
# the tools rebuild (``find . -name __pycache__ | xargs rm -rf`` in Makefiles'
# ``clean`` targets, ``find /usr/local -name '*.pyc' -delete`` in Dockerfiles).
_CACHE_NAMES = frozenset(
    {
        "__pycache__",
        "*.pyc",
        "*.pyo",
        "*.py[co]",
        "*.py[cod]",
        "*.pyd",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",
        ".DS_Store",
        "._*",
        "Thumbs.db",
        ".cache",
        ".eslintcache",
        ".parcel-cache",
        ".turbo",
    }
)
_NAME_TESTS = frozenset({"-name", "-iname"})
# expression words that neither select by name nor widen the selection
_NEUTRAL = frozenset(
    {"-a", "-and", "-prune", "-print", "-print0", "-depth", "-xdev", "-mount", "-delete"}
)


def only_caches(exprs: list[str]) -> bool:
    """Whether a find expression selects nothing but ``_CACHE_NAMES`` by name, so deleting
    what it yields loses no data.

    Every alternative (``-o``, at any nesting) must hold a cache name test: in
    ``-name __pycache__ -o -delete`` the second alternative deletes everything
    else.  Negation, ``,`` and any test the table does not know make it false.
    """
    words: list[str] = []
    k = 0
    while k < len(exprs):  # each -exec ... ; block is one action, like -delete
        a = exprs[k]
        if a in ("-exec", "-execdir", "-ok", "-okdir"):
            while k < len(exprs) and exprs[k] not in (";", "+", "\\;"):
                k += 1
            words.append("-delete")
        else:
            words.append(_PAREN.get(a, a))
        k += 1
    ok, _ = _alternatives(words, 0)
    return ok


_PAREN = {"\\(": "(", "\\)": ")"}


def _alternatives(words: list[str], k: int) -> tuple[bool, int]:
    """Parse ``words[k:]`` up to a closing paren: True when every ``-o`` alternative
    holds a cache name test; returns the index after the group."""
    named = False
    all_named = True
    while k < len(words):
        a = words[k]
        if a == ")":
            return all_named and named, k + 1
        if a in ("-o", "-or"):
            all_named = all_named and named
            named = False
            k += 1
            continue
        if a == "(":
            inner, k = _alternatives(words, k + 1)
            named = named or inner
            continue
        if a in _NAME_TESTS and k + 1 < len(words):
            if words[k + 1] not in _CACHE_NAMES:
                return False, len(words)
            named = True
            k += 2
            continue
        if a in ("-maxdepth", "-mindepth", "-type") and k + 1 < len(words):
            k += 2
            continue
        if a not in _NEUTRAL:
            return False, len(words)
        k += 1
    return all_named and named, k


def _find_items(cmd: Cmd) -> tuple[list[str], list[str]]:
    """``find`` roots as the items it yields, and its expression words.

    A walk that selects only caches by name yields ``root/<descendant><cache>``
    items, which :func:`paths.classify` counts as a cache.
    """
    roots: list[str] = []
    k = 0
    args = cmd.args
    while k < len(args) and args[k] in ("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3"):
        k += 1
    while k < len(args) and not (args[k].startswith("-") or args[k] in ("(", "!", "\\(")):
        roots.append(args[k])
        k += 1
    exprs = args[k:]
    cached = only_caches(exprs)
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
        elif cached:
            items.append(r.rstrip("/") + "/" + CACHE_ENTRY)
        elif filtered:
            items.append(r.rstrip("/") + "/" + DESCENDANT)
        else:
            items.extend([r, r.rstrip("/") + "/*"])
    return items, exprs
