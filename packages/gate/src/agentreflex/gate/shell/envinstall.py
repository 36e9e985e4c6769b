"""Package installers pointed at the hook's own Python environment.

``pip install`` run by that environment's ``pip`` or ``python -m pip``, ``uv
pip install --python ENV``, ``pip install --target SITE`` and ``python -m venv
--clear ENV`` all write where the hook's interpreter takes code from at start-up
(:func:`agentreflex.core.state.userdirs.interpreter_paths`): a package that
ships a ``.pth`` file then runs in every hook.  An installer is judged only by
where it installs, never by what: an install into any other environment (the
project's own ``.venv``, a bare ``pip`` on the PATH) changes nothing here.
"""

from __future__ import annotations

import posixpath
import re

from agentreflex.core.state import userdirs
from agentreflex.gate.model import Cmd
from agentreflex.gate.rules.protected import WRITE, full_path, real_path, under
from agentreflex.gate.shell.argv import option_values
from agentreflex.gate.shell.paths import Where

__all__ = ["environment_writes"]

_PIP = re.compile(r"pip(?:\d+(?:\.\d+)?)?")
_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)?)?")
# pip and uv pip subcommands that change what an environment holds
_CHANGES = frozenset({"install", "uninstall", "sync"})
# options naming the environment (or folder) the installer writes into
_PIP_PLACES = ("--target", "-t", "--prefix", "--root")
_UV_PLACES = ("--python", "-p", "--prefix", "--target")


def _environment_of(program: str) -> str:
    """``ENV`` for ``ENV/bin/pip`` or ``ENV/bin/python3`` as written; ``""`` for a bare name."""
    if "/" not in program:
        return ""
    folder = posixpath.dirname(program)
    return posixpath.dirname(folder) if posixpath.basename(folder) in ("bin", "Scripts") else ""


def _places(cmd: Cmd) -> list[str]:
    """The environments or folders ``cmd`` installs into, as written."""
    program, args, written = cmd.name, cmd.args, cmd.program
    if _PIP.fullmatch(program) and _CHANGES & set(args):
        return option_values(args, _PIP_PLACES) or [_environment_of(written)]
    if _PYTHON.fullmatch(program) and len(args) >= 2 and args[0] == "-m":
        if args[1] == "pip" and _CHANGES & set(args[2:]):
            return option_values(args[2:], _PIP_PLACES) or [_environment_of(written)]
        if args[1] == "venv":
            return [a for a in args[2:] if not a.startswith("-")][-1:]
    if program == "uv" and args[:1] == ["pip"] and _CHANGES & set(args[1:3]):
        return option_values(args, _UV_PLACES) or [cmd.assigns.get("VIRTUAL_ENV", "")]
    return []


def environment_writes(cmd: Cmd, where: Where) -> list[tuple[str, str]]:
    """``(path, WRITE)`` for each of the hook interpreter's start-up paths ``cmd`` installs into."""
    places = [p for p in _places(cmd) if p]
    if not places:
        return []
    own = userdirs.interpreter_paths()
    out: list[tuple[str, str]] = []
    for place in places:
        full = full_path(place, where, cmd.cwd)
        if not full:
            continue
        if posixpath.basename(posixpath.dirname(full)) == "bin":  # ``--python ENV/bin/python``
            full = posixpath.dirname(posixpath.dirname(full))
        for entry in own:
            if any(under(entry, p) or under(p, entry) for p in {full, real_path(full)}):
                out.append((entry, WRITE))
                break
    return out
