"""Codex: an interactive session whose later input no hook will see.

Codex 0.169 runs no hook for ``write_stdin`` (checked in the real host:
``integration-tests/test_codex_host.py``): once ``exec_command`` has opened
an interactive shell or interpreter, whatever the model types into it runs
unchecked.  The PreToolUse payload for ``exec_command`` carries only the
command (``tty`` is dropped), so the gate refuses to open a bare interactive
shell or REPL under Codex and says to run each command through
``exec_command`` instead.  A command given with ``-c``, a script, a here-doc or
a pipe is not interactive and is analysed like any other.
"""

from __future__ import annotations

from agentreflex.gate.model import DESTRUCTIVE, P_BLOCK, Cmd, Hit

INTERPRETERS = frozenset(
    [
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "mksh",
        "fish",
        "tcsh",
        "csh",
        "busybox",
        "ash",
        "python",
        "python2",
        "python3",
        "ipython",
        "node",
        "deno",
        "bun",
        "irb",
        "ruby",
        "perl",
        "php",
        "lua",
        "R",
        "psql",
        "mysql",
        "sqlite3",
        "redis-cli",
        "mongosh",
        "gdb",
    ]
)
SCRIPT_FLAGS = frozenset(("-c", "-e", "-m", "-f", "-x", "--command", "--eval", "--file"))
RULE = "GATE-CODEX-STDIN"
MESSAGE = (
    "This opens an interactive {name} session; Codex runs no hook for write_stdin, so what "
    "is typed into it later would not be checked. Run each command with exec_command instead."
)


def _name(cmd: Cmd) -> str:
    name = cmd.name.rsplit("/", 1)[-1]
    return name[: -len(".exe")] if name.endswith(".exe") else name


def interactive(cmd: Cmd) -> bool:
    """A shell or REPL reading its commands from the terminal (no script, no -c, no stdin)."""
    if _name(cmd) not in INTERPRETERS or cmd.stdin_text is not None or cmd.stdin_from:
        return False
    if any(op.startswith("<") or op == "0<" for op, _ in cmd.redirects):
        return False
    args = cmd.args
    if _name(cmd) == "busybox":
        args = args[1:] if args[:1] and args[0] in ("sh", "ash") else ["not-a-shell"]
    return all(a.startswith("-") and a not in SCRIPT_FLAGS for a in args)


def hits(cmds: list[Cmd]) -> list[Hit]:
    return [
        Hit(RULE, DESTRUCTIVE, P_BLOCK, c.text, MESSAGE.format(name=_name(c)))
        for c in cmds
        if interactive(c)
    ]
