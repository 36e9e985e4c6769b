"""Which commands bubblewrap can start by itself, with no shell of their own inside the boundary.

Why: the host already runs the contained line with its shell, and a second
shell inside bubblewrap only to start one program costs a bash start-up
(about 1.1 ms here) on every command.  ``pytest -q``, ``git status`` or
``npm test`` mean the same to bash and to ``execvp``, so bubblewrap runs them
itself.  Everything else keeps the shell: any character bash would read
(operators, quotes, ``$``, globs, ``~``, ``#``, redirections, newlines), an
assignment or a builtin first (``echo`` is bash's own, not ``/bin/echo``), a
program that is not an executable found the way bash would find it, or an
environment that gives the shell definitions (``BASH_ENV``, exported functions).

What the command then sees is what it sees without containment: bash would
have replaced itself with the program too (a lone command is ``exec``'d), so
exit status, signals and output are the program's.

Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

__all__ = ["direct_argv"]

# words bash leaves as they are (no expansion, quoting, operator or comment), one space apart
_PLAIN = re.compile(r"[\w@%+=:,./-]+(?: [\w@%+=:,./-]+)*", re.ASCII)

# bash's reserved words and builtins (``compgen -k -b``, bash 5.2): bash runs these itself
# fmt: off
_SHELL_OWN = frozenset((
    "!", "[[", "]]", "{", "}", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for",
    "function", "if", "in", "select", "then", "time", "until", "while", ".", ":", "[", "alias",
    "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete", "compopt",
    "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit", "export",
    "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local",
    "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray", "readonly",
    "return", "set", "shift", "shopt", "source", "suspend", "test", "times", "trap", "true",
    "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
))
# fmt: on

# a file execvp and bash both run as a program (bash would run a file with neither as a script
# of its own, execvp with /bin/sh)
_PROGRAM_HEADS = (b"#!", b"\x7fELF")


def direct_argv(command: str, cwd: str, env: Mapping[str, str] | None = None) -> list[str] | None:
    """``command``'s words when bubblewrap can ``execvp`` them as bash would run them; else None.

    ``cwd`` is the folder the host runs the command in (a ``./script`` is
    found there); ``env`` the environment it runs with (``os.environ`` when
    None: the hook's, which the host gave it).
    """
    if not _PLAIN.fullmatch(command):
        return None  # one space between words: read back (:func:`.boundary.inner_command`), the same text
    words = command.split(" ")
    if "=" in words[0] or words[0] in _SHELL_OWN:
        return None
    if len(words) == 3 and words[1] == "-c":
        return None  # the shape of a shell line: :func:`.boundary.inner_command` reads it so
    environ = os.environ if env is None else env
    if (
        "BASH_ENV" in environ
        or "ENV" in environ
        or any(k.startswith("BASH_FUNC_") for k in environ)
    ):
        return None
    program = _found(words[0], cwd, environ.get("PATH"))
    return words if program is not None and _is_program(program) else None


def _found(name: str, cwd: str, path: str | None) -> str | None:
    """Where bash finds ``name``: itself if it has a slash, else the first executable on PATH."""
    if "/" in name:
        candidate = os.path.join(cwd, name)
        return candidate if _executable(candidate) else None
    if not path:
        return None  # bash and execvp each have their own default PATH
    for folder in path.split(":"):
        if not folder.startswith("/"):
            return None  # "" and relative folders mean the command's folder, not the hook's
        candidate = os.path.join(folder, name)
        if _executable(candidate):
            return candidate
    return None


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _is_program(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(4).startswith(_PROGRAM_HEADS)
    except OSError:
        return False
