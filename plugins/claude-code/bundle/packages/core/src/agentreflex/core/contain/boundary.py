"""Containment: the OS decides what an agent's shell command can reach (issue #28).

Why: the gate judges a command by how it is spelled, and a list of spellings
is never finished (``.pth`` files in the hook's interpreter, batch editors,
``ln -s ~ x && rm -rf x/``...).  A filesystem boundary holds whatever the
spelling.  This module is the front door: a command line in, the same line
run inside the boundary out (:func:`rewrite`, :func:`shell_rewrite`), and
whether this machine can contain at all (:func:`status`).

Behind it, one concept per module:

* :mod:`.policy`: the lists (``contain.toml``, extended only by the user's own
  file) and what their placeholders stand for;
* :mod:`.mounts`: the mounts that make those paths a boundary for one project;
* :mod:`.engine`: bubblewrap's arguments for them, and whether it can start.

Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence

from agentreflex.core.contain.direct import direct_argv
from agentreflex.core.contain.engine import (
    ENGINE,
    NO_NAMESPACES,
    args_file,
    bwrap_args,
    engine_path,
    engine_refused,
    filter_file,
    holder_view,
    needed,
)
from agentreflex.core.contain.mounts import Mount, Plan, describe, plan
from agentreflex.core.contain.policy import (
    Policy,
    PolicyError,
    expand,
    load_policy,
    shadow_source,
    socket_paths,
    user_disabled,
    user_policy_path,
)

__all__ = [
    "ENGINE",
    "UNCONTAINED_RISKS",
    "Mount",
    "Plan",
    "Policy",
    "PolicyError",
    "bwrap_args",
    "describe",
    "engine_path",
    "expand",
    "inner_command",
    "load_policy",
    "needed",
    "plan",
    "rewrite",
    "run_argv",
    "shadow_source",
    "shell_rewrite",
    "socket_paths",
    "status",
    "user_disabled",
    "user_policy_path",
]


def rewrite(
    command: str,
    project: str,
    shell: str = "bash",
    env: Mapping[str, str] | None = None,
    folders: Sequence[str] = (),
    direct: bool = True,
    cwd: str = "",
    terminal: bool = True,
    joined: bool = True,
) -> str:
    """``command`` as a shell line that runs it inside the boundary.

    The host runs the result with its own shell in the same working
    directory; bwrap keeps that directory, the environment, stdin, stdout,
    stderr and the exit status of the inner shell.  A lone plain command
    has no inner shell: bwrap starts it itself (:mod:`.direct`), unless
    ``direct`` is False (a host whose rules match the shell form); ``cwd``
    is where it runs (the project when not given).  With ``terminal`` the
    command can't type into the host's terminal (:mod:`.terminal`: a seccomp
    filter bwrap reads from fd 8), where a filter ships for this machine.
    With ``joined`` the command joins the project's pid namespace
    (:mod:`.pidns`: it can signal no process outside), where one can be had.
    Raises :class:`PolicyError` for a broken policy and ``FileNotFoundError``
    when bwrap is missing: the caller then falls back to the parse-based gate.
    """
    engine = engine_path()
    if engine is None:
        raise FileNotFoundError("bwrap (bubblewrap) is not installed: not contained")
    result = plan(project, load_policy(env), env, folders)
    from agentreflex.core.contain.pidns import holder, redirections

    # the project's pid namespace, joined (None: the user's, where none can be had)
    held = holder(engine, lambda: holder_view(result), project, env) if joined else None
    mounts = bwrap_args(result, engine, joined=held is not None)[1:]
    from agentreflex.core.util.sysprog import system_program

    inner = [system_program(shell) or "/bin/sh", "-c", command]
    seccomp = filter_file(env) if terminal else None
    if seccomp is not None:
        mounts += ["--seccomp", FILTER_FD]
    tail = redirections(held) if held is not None else ""
    tail += f" {FILTER_FD}< {shlex.quote(seccomp)}" if seccomp else ""
    stored = args_file(mounts, env)
    if stored is None:
        return shlex.join([engine, *mounts, "--", *inner]) + tail
    words = direct_argv(command, cwd or project, env) if direct else None
    if words is not None:
        inner = words
    # the model sees the host's record of the command: keep it short (bwrap reads
    # the mounts from a file only the guard writes, read-only inside the boundary)
    head = f"{shlex.quote(engine)} --args 9 -- {shlex.join(inner)}"
    return f"{head} 9< {shlex.quote(stored)}{tail}"


FILTER_FD = "8"  # the descriptor bwrap reads the terminal filter from: a redirection at the end


def inner_command(line: str) -> str | None:
    """The command a line :func:`rewrite` made runs, or None for any other line.

    Why: Gemini CLI and Copilot CLI hand the hook after a tool the arguments
    the tool ran with, which are the rewritten ones; the reflexes after the
    tool (the evidence of a test run above all) must read the agent's own
    command.  Only the shapes ``rewrite`` writes are recognised: a shell's
    ``-c`` line, or (with the mounts file) the plain words bwrap runs itself.
    A look-alike the agent typed runs the same inner command, so reading it
    so says nothing false.
    """
    if ENGINE not in line:
        return None
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    if not words or os.path.basename(words[0]) != ENGINE:
        return None
    if len(words) >= 3 and words[-2] == f"{FILTER_FD}<":
        words = words[:-2]  # the terminal filter's redirection
    from agentreflex.core.contain.pidns import PIDNS_FD, USERNS_FD

    if len(words) >= 5 and [words[-4], words[-2]] == [f"{USERNS_FD}<", f"{PIDNS_FD}<"]:
        words = words[:-4]  # the project's namespaces (:mod:`.pidns`)
    if len(words) >= 7 and words[1:4] == ["--args", "9", "--"] and words[-2] == "9<":
        tail = words[4:-2]
        if len(tail) != 3 or tail[1] != "-c":
            return " ".join(tail)  # a plain command bwrap ran itself (:mod:`.direct`)
    elif len(words) >= 5 and words[-4] == "--":
        tail = words[-3:]
    else:
        return None
    return tail[2] if tail[1] == "-c" else None


def run_argv(
    command: Sequence[str], project: str, env: Mapping[str, str] | None = None
) -> list[str]:
    """An argument vector (not a shell line) run inside the boundary."""
    engine = engine_path()
    if engine is None:
        raise FileNotFoundError("bwrap (bubblewrap) is not installed: not contained")
    return [*bwrap_args(plan(project, load_policy(env), env), engine), "--", *command]


def status(env: Mapping[str, str] | None = None) -> tuple[bool, str]:
    """(contained, why) for agentreflex's own engine, for ``doctor`` and ``status``."""
    if user_disabled(env):
        return False, f"not contained: contain = false in {user_policy_path(env)}"
    engine = engine_path()
    if engine is None:
        return (
            False,
            "not contained: bubblewrap (bwrap) is not installed (Linux: apt-get install bubblewrap)",
        )
    try:
        load_policy(env)
    except PolicyError as exc:
        return False, f"not contained: {exc}"
    refused = engine_refused(engine, env)
    if refused:
        return False, f"not contained: bubblewrap cannot start here ({refused}); {NO_NAMESPACES}"
    return True, "contained: shell commands run in bubblewrap (policies/contain.toml)"


# what an agent can still do where no boundary holds: said by doctor and SECURITY.md
UNCONTAINED_RISKS = (
    "only the parse-based check of each command stands between a shell command and agentreflex's own files: "
    "a spelling it does not parse (an interpreter, a batch editor, a symlink made in the same "
    "command) can change .agentreflex/, the hosts' hook settings or the hook's interpreter, "
    "delete home, or read the per-user key"
)


def shell_rewrite(
    command: str,
    project: str,
    env: Mapping[str, str] | None = None,
    folders: Sequence[str] = (),
    direct: bool = True,
    cwd: str = "",
    terminal: bool = True,
    joined: bool = True,
) -> tuple[str, str]:
    """(the command to run, a note): the contained line, or the command itself and why not.

    Never raises: a missing engine, a broken policy or an empty project
    leaves the command as it is (the parse-based gate has already answered
    for it, and fails closed for agentreflex's own files) and says so.
    """
    # bash's blanks only: Python's strip() also takes \x1c-\x1f, \x85 and Unicode spaces
    # for whitespace, where bash reads a word, the name of a program it runs (red-team rt30)
    if not command.strip(" \t\n") or not project or not os.path.isabs(project):
        return command, "not contained: no project folder from the host"
    contained, why = status(env)
    if not contained:
        return command, why
    try:
        return rewrite(
            command,
            project,
            env=env,
            folders=folders,
            direct=direct,
            cwd=cwd,
            terminal=terminal,
            joined=joined,
        ), ""
    except (OSError, PolicyError) as exc:
        return command, f"not contained: {exc}"
