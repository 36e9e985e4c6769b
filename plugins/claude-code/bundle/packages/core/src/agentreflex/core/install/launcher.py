"""The command a host runs to start agentreflex: its script, through its own Python, isolated.

Why: a host runs our hook with the environment the user started it from, and
a ``PYTHONPATH`` there that reaches into the project would let code a
contained command wrote run in the hook (:mod:`agentreflex.core.util.ownpython`).
A console script's ``#!`` line can't carry the flags that stop that, so the
command names the script's interpreter with them: ``PYTHON -E -P SCRIPT hook
HOST EVENT``.  A script that is not a Python console script (a wrapper of the
user's) is run as it is.  :func:`script_words` reads either form back, so an
entry written by an older installation is still recognised as ours.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from typing import Any

from agentreflex.core.install.base import default_binary
from agentreflex.core.util.ownpython import ISOLATED

__all__ = [
    "blocking_on_failure",
    "command_words",
    "interpreter_of",
    "launch",
    "launch_argv",
    "programs",
    "script_words",
    "unisolated",
    "writable_by_commands",
]

_SHEBANG = re.compile(r"#!\s*(/\S+)\s*$")


def command_words(command: Any) -> list[str]:
    """The shell words of a hook command (``[]`` when it is not a parseable string)."""
    if not isinstance(command, str):
        return []
    try:
        return shlex.split(command)
    except ValueError:
        return []


def interpreter_of(binary: str) -> str | None:
    """The Python that runs ``binary``: this one for our own script, else its ``#!`` line."""
    if binary == default_binary():
        return sys.executable
    try:
        with open(binary, "rb") as fh:
            first = fh.readline(512).decode("utf-8", "replace")
    except OSError:
        return None
    match = _SHEBANG.match(first)
    if not match or not os.path.basename(match.group(1)).startswith("python"):
        return None  # not a Python console script: it is run as it is
    return match.group(1) if os.path.isfile(match.group(1)) else None


def launch_argv(binary: str) -> list[str]:
    """The argv that starts ``binary``: through its Python with the isolating flags when it has one."""
    python = interpreter_of(binary)
    return [binary] if python is None else [python, *ISOLATED, binary]


def launch(binary: str) -> str:
    """:func:`launch_argv` as shell words."""
    return " ".join(shlex.quote(word) for word in launch_argv(binary))


def blocking_on_failure(command: str, binary: str) -> str:
    """``command``, made to exit 2 with a reason whenever agentreflex did not answer.

    Why: Claude Code and Gemini CLI block a tool call on exit 2 and let it run
    on any other failure.  Our hook exits 0 or 2 itself, so another status
    means it did not run; a missing script makes its Python exit 2 as well,
    so that case is told apart by the script being gone.
    """
    message = (
        f"agentreflex: {binary} failed or is missing; blocking this tool call "
        "(run: agentreflex doctor)"
    )
    script = shlex.quote(binary)
    return (
        f"{command} || {{ rc=$?; [ $rc -eq 2 ] && [ -f {script} ] "
        f"|| echo {shlex.quote(message)} >&2; exit 2; }}"
    )


def _prefix(words: list[str]) -> int:
    """How many words come before the script: the interpreter and its flags, or none."""
    if (
        len(words) > len(ISOLATED) + 1
        and os.path.basename(words[0]).startswith("python")
        and tuple(words[1 : 1 + len(ISOLATED)]) == ISOLATED
    ):
        return 1 + len(ISOLATED)
    return 0


def script_words(command: Any) -> list[str]:
    """The words of ``command`` from the script on (the interpreter and its flags left out)."""
    words = command_words(command)
    return words[_prefix(words) :]


def unisolated(command: Any) -> bool:
    """``command`` starts a Python console script bare: its interpreter would honour ``PYTHONPATH``.

    (An entry an older agentreflex wrote; ``doctor`` asks for a new install.)
    """
    words = command_words(command)
    return bool(words) and _prefix(words) == 0 and interpreter_of(words[0]) is not None


def programs(command: Any) -> list[str]:
    """The files ``command`` starts: the interpreter (when named) and the script."""
    words = command_words(command)
    start = _prefix(words)
    return ([words[0]] if start else []) + words[start : start + 1]


def writable_by_commands(paths: list[str], project: str) -> list[str]:
    """Those of ``paths`` (a hook's programs) that a contained command could rewrite.

    Why: a hook runs outside any boundary, so a ``--bin`` script (or its interpreter)
    in the project, a temp folder or a tool cache the boundary leaves writable would
    run, at the next hook, whatever a command of the agent's wrote there.  This
    installation's own code is not among them: the boundary keeps it read-only.
    """
    from agentreflex.core.contain import boundary as contain
    from agentreflex.core.state import userdirs

    try:
        policy = contain.load_policy()  # a shadowed cache is writable in a host's own sandbox
        roots = contain.expand([*policy.writable, *policy.shadowed], project)
    except Exception:  # a broken policy: the boundary itself says so elsewhere
        return []
    kept = [*userdirs.installed_paths(), *userdirs.interpreter_paths()]
    protected = {os.path.realpath(p) for p in kept}
    found = []
    for path in paths:
        real = os.path.realpath(path)
        if real in protected or any(real.startswith(p.rstrip("/") + "/") for p in protected):
            continue
        for root in (os.path.realpath(r) for r in roots):
            if real == root or real.startswith(root.rstrip("/") + "/"):
                found.append(path)
                break
    return found
