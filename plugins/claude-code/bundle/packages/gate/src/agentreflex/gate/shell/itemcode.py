"""Where ``xargs``/``parallel`` put their input items: as data, or as code and options.

``ls | xargs wc -l`` hands each item to ``wc`` as a file name: data.  But in
``xargs bash -c``, ``xargs -I{} sh -c 'echo {}'``, ``xargs sudo --``,
``xargs find . -name x`` or ``xargs -I{} git reset {}`` an item becomes the
script, the command itself, or an option (``-delete``, ``--hard``) of a
program whose options run code or discard work.  What such a command does
depends on input the gate does not see as xargs will split it (quotes,
``-0``, ``-d``), so it is asked about, with that reason (issue 22: a command
whose arguments come from stdin and whose effect therefore cannot be known).

Only imported when a command runs ``xargs`` or ``parallel``.
"""

from __future__ import annotations

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.code import interp
from agentreflex.gate.shell.fanout import FIND_VALUED
from agentreflex.gate.shell.wrappers import peel

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash"})
# Options whose value is code or loads code; and the shells' valued options.
_CODE_OPTIONS = frozenset(
    {
        "-c",
        "-e",
        "-E",
        "--eval",
        "-r",
        "--require",
        "--import",
        "--loader",
        "-M",
        "-m",
        "-f",
        "--file",
    }
)
# After these, python and the shells stop reading options (the rest is argv).
_STOPS = frozenset({"-c", "-m"})
# A shell script that runs its parameters: eval "$1", sh -c "$*", "$1" as the command.
_RUNS_PARAMS = LazyPattern(
    r"""(?:^|[;&|(`]\s*|\b(?:eval|exec|command|env|source|\.|sudo|(?:ba)?sh\s+-c)\s+)"""
    r"""["']?\$\{?[0-9@*!]"""
)
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# git subcommands whose options only read (an item there is harmless).
_GIT_READS = frozenset(
    {
        "status",
        "log",
        "show",
        "diff",
        "blame",
        "ls-files",
        "ls-tree",
        "grep",
        "rev-parse",
        "cat-file",
        "check-ignore",
        "add",
        "describe",
        "shortlog",
        "name-rev",
    }
)


def reads_as_code(template: list[str], replace: str) -> bool:
    """Whether an input item lands where it is code, the command or an option.

    ``replace``: the replace string (``-I{}``); "" when items are appended.
    """
    argv = peel(template).argv
    if not argv:
        return True  # xargs sudo --, xargs env --: each item is the command
    name = argv[0].rsplit("/", 1)[-1]
    if replace and replace in argv[0]:
        return True
    args = argv[1:]
    if name == "eval":
        return not replace or any(replace in a for a in args)
    if name == "find":
        return _find(args, replace)
    if name == "git":
        return _git(args, replace)
    if name in _SHELLS or name in interp.AWKS or interp.interpreter_name(name):
        return _options(args, replace, shell=name in _SHELLS, awk=name in interp.AWKS)
    return False


def _options(args: list[str], replace: str, shell: bool, awk: bool) -> bool:
    """A code runner: does an item reach its options, its code or its script name?"""
    i = 0
    while i < len(args):
        a = args[i]
        if replace and replace in a:
            return True
        if a == "--":
            return False
        if not a.startswith(("-", "+")) or a == "-":
            return False  # the script, or awk's program: options end here
        if shell and a[:2] in ("-o", "-O", "+o", "+O"):
            i += 2 if len(a) == 2 else 1  # a shell option's name, not flags
            continue
        cluster = shell and a[:1] == "-" and a[1:2] != "-"
        if cluster and "n" in a[1:]:
            return False  # -n: the shell reads its commands and runs none
        code = "c" in a[1:] if cluster else (not shell and a in _CODE_OPTIONS)
        if code or (shell and a in ("--rcfile", "--init-file")):
            if i + 1 >= len(args):
                return True  # the code itself comes from the input
            if replace and replace in args[i + 1] and code:
                return True
            if code and shell:
                # sh -c SCRIPT _ ITEMS: the items are "$1"...; code only if the script runs them
                return bool(_RUNS_PARAMS.search(args[i + 1]))
            if a in _STOPS and not awk:
                return False  # python -c CODE / -m MOD: the rest is sys.argv
            i += 2
            continue
        i += 1
    return not replace or not args  # appended items land among the options


def _find(args: list[str], replace: str) -> bool:
    """``xargs find ...``: an item as a bare word of the expression can be ``-delete``."""
    if not replace:
        return True  # appended to the expression
    i = 0
    while i < len(args):
        a = args[i]
        if a in _FIND_EXEC:
            end = i + 1
            while end < len(args) and args[end] not in (";", "+", "\\;"):
                end += 1
            if any(replace in w for w in args[i + 1 : end]) and reads_as_code(
                args[i + 1 : end], replace
            ):
                return True
            i = end + 1
            continue
        if a in FIND_VALUED or a.startswith("-fprintf"):
            i += 3 if a == "-fprintf" else 2
            continue
        if a.startswith(replace):
            return True  # the item starts the word: it may be an action
        i += 1
    return False


def _git(args: list[str], replace: str) -> bool:
    """``xargs git ...``: an item as the subcommand, or put among a writing subcommand's
    options by a replace string (``-I{} git reset {}``)."""
    from agentreflex.gate.rules import git as rules_git  # imported with the git rules

    sub, rest, _ = rules_git.split(args)
    if not sub or (replace and replace in sub):
        return True
    if sub in _GIT_READS:
        return False
    if not replace:
        # appended items (``git branch --merged | xargs git branch -d``) are mostly
        # the names the subcommand expects: only a subcommand from the input asks
        return False
    options = rest[: rest.index("--")] if "--" in rest else rest
    return any(replace in a for a in options)
