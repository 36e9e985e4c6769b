"""A program the gate does not know, handed a destructive command line.

``tool git reset --hard``, ``tool sh -c 'rm -rf /'``, ``op run -- git push
-f``: if ``tool`` is a wrapper
of its own (a task runner, a container or environment launcher, a remote
executor), it runs that command.  The gate cannot know, so when the
arguments would be blocked or asked about as a command of their own, the
user is asked, with that reason.  Programs the gate knows (its rules, its
data commands) and arguments that do not start with a command it guards are
left alone, so ``man git reset --hard`` or ``brew rm node`` do not ask.  Text
on an unknown program's stdin is not judged: heredocs fed to tools are
mostly data (``md5sum <<EOF``).

Only imported when an unknown program's first argument is a protected command
name.
"""

from __future__ import annotations

from agentreflex.gate.model import ASK, P_BLOCK, Cmd, Hit
from agentreflex.gate.rules.programs import DERIVED_HEADS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from agentreflex.gate.shell.paths import Where
    from agentreflex.gate.shell.walkstate import WalkerBase

    Rules = Callable[[list[Cmd], Where, dict[str, str]], list[Hit]]

# Known programs whose arguments are data: documentation, search, text output.
_DATA = frozenset(
    {
        "echo",
        "printf",
        "man",
        "info",
        "help",
        "tldr",
        "cheat",
        "whatis",
        "whereis",
        "apropos",
        "which",
        "type",
        "command",
        "hash",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ack",
        "cat",
        "tee",
        "less",
        "more",
        "head",
        "tail",
        "wc",
        "sort",
        "uniq",
        "tr",
        "cut",
        "sed",
        "jq",
        "yq",
        "base64",
        "xxd",
        "od",
        "hexdump",
        "read",
        "mapfile",
        "readarray",
        "export",
        "local",
        "declare",
        "typeset",
        "readonly",
        "unset",
        "alias",
        "unalias",
        "complete",
        "compgen",
        "history",
        "fc",
        "test",
        "[",
        "[[",
        "true",
        "false",
        ":",
        "ls",
        "stat",
        "file",
        "touch",
        "mkdir",
        "cd",
        "pushd",
        "popd",
        "wait",
        "kill",
        "exit",
        "return",
        "shift",
        "set",
        "shopt",
        "ulimit",
        "umask",
    }
)


def command_line(args: list[str]) -> list[str]:
    """The words that would be a command: the arguments themselves, or what follows
    the first ``--`` (``op run -- git push -f``, ``dotenv -- rm -rf dist``)."""
    if "--" in args:
        rest = args[args.index("--") + 1 :]
        if rest and rest[0] in DERIVED_HEADS:
            return rest
    return args if args and args[0] in DERIVED_HEADS else []


def wanted(cmd: Cmd, known: bool) -> bool:
    """Whether ``cmd`` is an unknown program handed a protected command line.

    A name with ``=`` (``A-B=2 git ...``: not a valid assignment) is looked up
    as a command of that name, which does not exist.
    """
    if known or cmd.name in _DATA or cmd.name in DERIVED_HEADS or "=" in cmd.name:
        return False
    return bool(command_line(cmd.args))


def check(walker: WalkerBase, cmd: Cmd, depth: int, rules: Rules) -> None:
    """Judge ``cmd``'s arguments as the command they spell; ask if serious.

    ``rules``: the analyser's rule runner, ``(cmds, where, written) -> hits``.
    """
    state = walker.state
    saved = (state.cwd, dict(state.vars), dict(state.written))
    n_cmds, n_hits = len(walker.cmds), len(walker.hits)
    try:
        words = command_line(cmd.args)
        walker.execute(words, cmd.text, depth + 1, via=f"arguments of {cmd.name}")
        shown = " ".join(words)
        cmds = walker.cmds[n_cmds:]
        hits = walker.hits[n_hits:] + rules(cmds, walker.where, state.written)
    finally:
        del walker.cmds[n_cmds:]
        del walker.hits[n_hits:]
        state.cwd, state.vars, state.written = saved
    serious = [h for h in hits if h.category == ASK or h.probability >= P_BLOCK]
    if serious:
        walker.hits.append(
            Hit(
                "GATE-DERIVED-COMMAND",
                ASK,
                1.0,
                cmd.text,
                f"{cmd.name} is not a program the gate knows. If it runs its arguments as a "
                f"command (as wrappers and task runners do), it runs {shown}, which "
                f"{serious[0].rule} stops. Run that command directly, or check {cmd.name}.",
            )
        )
