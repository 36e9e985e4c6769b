"""Where a Python package installer installs, as its command line and environment say.

Read apart from :mod:`envinstall`, which judges the place, so the pre-filter
(:func:`agentreflex.gate.analyze.prefilter`) can send every install that names
a place to that judgment without importing it: both read one list of options
the same way, so no spelling the installer reads (``--prefix=ENV``, ``-tSITE``,
``-Ut SITE``, ``--targ SITE``, uv's ``-p=ENV``) is decided by the pre-filter alone.

The installers read their options from the environment too, and so does this:
pip every long option as ``PIP_<NAME>`` (``PIP_TARGET``, ``PIP_PREFIX``,
``PIP_ROOT``, ``PIP_PYTHON``, ``PIP_USER``, unless ``--isolated``), uv
``UV_PYTHON`` and ``UV_SYSTEM_PYTHON``, the active ``VIRTUAL_ENV`` or
``CONDA_PREFIX`` for ``uv pip``, and ``UV_PROJECT_ENVIRONMENT`` for the
project commands that sync one (``uv sync``, ``add``, ``remove``; ``uv run
CMD`` reaches the walker as CMD, so its sync is not read).
pip's configuration files are not read.  uv runs in ``--directory D``:
relative places are read from there.  Two places are no path: :data:`USER`,
the user site (``pip install --user``), and :data:`SYSTEM`, the interpreter
that is no virtual environment (``uv pip install --system``, a bare ``pip
install --break-system-packages``); envinstall knows whether the hook's
interpreter loads them.  Environment creators write where they make one:
``python -m venv ENV``, ``virtualenv ENV`` and ``uv venv [ENV]`` over the
hook's own environment rewrite its ``python`` links and ``pyvenv.cfg``.
"""

from __future__ import annotations

import posixpath
import re

from agentreflex.gate.shell.argv import operands, option_values

__all__ = ["SYSTEM", "USER", "places"]

USER = "\0user"  # the user site: ~/.local/lib/pythonX.Y/site-packages
SYSTEM = "\0system"  # the environment of the interpreter that is no virtual environment

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
# pip reads each long option from ``PIP_<NAME>`` too (an empty value is ignored);
# ``--python`` and ``--break-system-packages`` are uninstall's as well.
_PIP_INSTALL_ENV = ("PIP_TARGET", "PIP_PREFIX", "PIP_ROOT")
_UV_PLACES = ("--python", "-p", "--prefix", "--target")
_UV_FLAGS = "hnqUvV"
# uv's options before its command that take a value (``uv --directory D pip ...``)
_UV_GLOBALS = frozenset(
    {"--cache-dir", "--color", "--config-file", "--directory", "--project", "--python-preference"}
)
# uv's project commands that sync the project's environment first
_UV_SYNCS = frozenset({"sync", "add", "remove", "run"})
# what pip's strtobool and uv read as "off" (anything else they read as on, or refuse)
_OFF = frozenset({"", "0", "false", "no", "off", "n", "f"})


def _on(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in _OFF


def _flag(args: list[str], name: str, *, prefixes: bool = False) -> bool:
    """Whether the option ``name`` (which takes no value) is given, before ``--``;
    ``prefixes``: abbreviated too, as optparse reads it (``--break-sys``)."""
    for a in args:
        if a == "--":
            return False
        if a == name or (prefixes and len(a) > 3 and a.startswith("--") and name.startswith(a)):
            return True
    return False


def _pip(args: list[str], written: str, env: dict[str, str]) -> list[str]:
    # ``--pre`` is an option of its own, not ``--prefix`` abbreviated
    args = [a for a in args if a != "--pre"]
    found = option_values(args, _PIP_PLACES, flags=_PIP_FLAGS, prefixes=True)
    user = _flag(args, "--user", prefixes=True)
    system = _flag(args, "--break-system-packages", prefixes=True)
    if env and not _flag(args, "--isolated"):  # --isolated: no PIP_ variable is read
        install = "install" in args
        names = (*_PIP_INSTALL_ENV, "PIP_PYTHON") if install else ("PIP_PYTHON",)
        found += [env[k] for k in names if env.get(k)]
        user = user or (install and _on(env.get("PIP_USER")))
        system = system or _on(env.get("PIP_BREAK_SYSTEM_PACKAGES"))
    if user:
        found.append(USER)
    if found:
        return found
    own = _environment_of(written)
    return [own or (SYSTEM if system else "")]


def _environment_of(program: str) -> str:
    """``ENV`` for ``ENV/bin/pip`` or ``ENV/bin/python3`` as written; ``""`` for a bare name."""
    if "/" not in program:
        return ""
    folder = posixpath.dirname(program)
    return posixpath.dirname(folder) if posixpath.basename(folder) in ("bin", "Scripts") else ""


def _uv(args: list[str], env: dict[str, str]) -> list[str]:
    words = operands(args, _UV_GLOBALS)
    found: list[str] = []
    if words[:1] == ["pip"] and _CHANGES & set(words[1:3]):
        found = option_values(args, _UV_PLACES, flags=_UV_FLAGS, short_equals=True)
        found += [env["UV_PYTHON"]] if env.get("UV_PYTHON") else []
        if _flag(args, "--system") or (
            _on(env.get("UV_SYSTEM_PYTHON")) and not _flag(args, "--no-system")
        ):
            found.append(SYSTEM)
        if not found:  # the active environment
            found = [env.get("VIRTUAL_ENV", ""), env.get("CONDA_PREFIX", "")]
    elif words[:1] == ["venv"]:  # ``uv venv [ENV]``: ``.venv`` when none is named
        named = operands(args[args.index("venv") + 1 :], _UV_VENV_VALUES)[-1:]
        found = named or [env.get("UV_PROJECT_ENVIRONMENT") or ".venv"]
    elif words[:1] and words[0] in _UV_SYNCS:
        found = [env.get("UV_PROJECT_ENVIRONMENT", "")]
        if _flag(args, "--active"):
            found.append(env.get("VIRTUAL_ENV", ""))
    directory = option_values(args, ("--directory",))[-1:]
    if directory:  # uv works in D: a relative place is D's
        found = [posixpath.join(directory[0], p) if p and p[0] != "\0" else p for p in found]
    return found


def places(name: str, args: list[str], written: str, env: dict[str, str]) -> list[str]:
    """The environments or folders ``name args`` installs into, as written (``""``:
    none named; :data:`USER`, :data:`SYSTEM`); ``written`` is the program as typed,
    ``env`` the variables it runs with as far as the command line sets them."""
    if _PIP.fullmatch(name) and _CHANGES & set(args):
        return _pip(args, written, env)
    if _PYTHON.fullmatch(name) and len(args) >= 2 and args[0] == "-m":
        if args[1] == "pip" and _CHANGES & set(args[2:]):
            return _pip(args[2:], written, env)
        if args[1] == "venv":
            return [a for a in args[2:] if not a.startswith("-")][-1:]
        if args[1] == "virtualenv":
            return operands(args[2:], _VIRTUALENV_VALUES)[-1:]
    if name == "virtualenv":
        return operands(args, _VIRTUALENV_VALUES)[-1:]
    return _uv(args, env) if name == "uv" else []


# Options of ``virtualenv`` and ``uv venv`` that take a value: the environment they make
# (over an existing one, whose links and ``pyvenv.cfg`` they rewrite) is the operand.
_VIRTUALENV_VALUES = frozenset(
    {"-p", "--python", "--prompt", "--creator", "--seeder", "--activators", "--app-data"}
    | {"--discovery", "--extra-search-dir", "--pip", "--setuptools", "--wheel", "--try-first-with"}
)
_UV_VENV_VALUES = frozenset(
    {"-p", "--python", "--prompt", "-i", "--index", "--default-index", "--index-url"}
    | {"--extra-index-url", "-f", "--find-links", "--index-strategy", "--keyring-provider"}
    | {"--exclude-newer", "--link-mode", "--python-preference"}
)
