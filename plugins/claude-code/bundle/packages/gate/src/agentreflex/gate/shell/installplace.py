"""Where a Python package installer installs, as its command line says.

Read apart from :mod:`envinstall`, which judges the place, so the pre-filter
(:func:`agentreflex.gate.analyze.prefilter`) can send every install that names
a place to that judgment without importing it: both read one list of options
the same way, so no spelling the installer reads (``--prefix=ENV``, ``-tSITE``,
``-Ut SITE``, ``--targ SITE``, uv's ``-p=ENV``) is decided by the pre-filter alone.
"""

from __future__ import annotations

import posixpath
import re

from agentreflex.gate.shell.argv import operands, option_values

__all__ = ["places"]

_PIP = re.compile(r"pip(?:\d+(?:\.\d+)?)?")
_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)?)?")
# pip and uv pip subcommands that change what an environment holds
_CHANGES = frozenset({"install", "uninstall", "sync"})
# Options naming the environment (or folder) the installer writes into.  pip's
# ``--python`` (pip >= 22.3) runs pip for that interpreter's environment.  pip
# (optparse) reads an abbreviated long option and clusters its flags
# (``-Ut SITE``); uv (clap) reads ``-p=ENV`` as ``ENV``.
_PIP_PLACES = ("--target", "-t", "--prefix", "--root", "--python")
_PIP_FLAGS = "hIqUvV"
_UV_PLACES = ("--python", "-p", "--prefix", "--target")
_UV_FLAGS = "hnqUvV"
# uv's options before its command that take a value (``uv --directory D pip ...``)
_UV_GLOBALS = frozenset(
    {"--cache-dir", "--color", "--config-file", "--directory", "--project", "--python-preference"}
)


def _pip(args: list[str]) -> list[str]:
    # ``--pre`` is an option of its own, not ``--prefix`` abbreviated
    return option_values(
        [a for a in args if a != "--pre"], _PIP_PLACES, flags=_PIP_FLAGS, prefixes=True
    )


def _environment_of(program: str) -> str:
    """``ENV`` for ``ENV/bin/pip`` or ``ENV/bin/python3`` as written; ``""`` for a bare name."""
    if "/" not in program:
        return ""
    folder = posixpath.dirname(program)
    return posixpath.dirname(folder) if posixpath.basename(folder) in ("bin", "Scripts") else ""


def places(name: str, args: list[str], written: str, assigns: dict[str, str]) -> list[str]:
    """The environments or folders ``name args`` installs into, as written (``""``:
    none named); ``written`` is the program as typed, ``assigns`` its ``VAR=value``s."""
    if _PIP.fullmatch(name) and _CHANGES & set(args):
        return _pip(args) or [_environment_of(written)]
    if _PYTHON.fullmatch(name) and len(args) >= 2 and args[0] == "-m":
        if args[1] == "pip" and _CHANGES & set(args[2:]):
            return _pip(args[2:]) or [_environment_of(written)]
        if args[1] == "venv":
            return [a for a in args[2:] if not a.startswith("-")][-1:]
    words = operands(args, _UV_GLOBALS) if name == "uv" else []
    if words[:1] == ["pip"] and _CHANGES & set(words[1:3]):
        found = option_values(args, _UV_PLACES, flags=_UV_FLAGS, short_equals=True)
        return found or [assigns.get("VIRTUAL_ENV", "")]
    return []
