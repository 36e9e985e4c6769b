"""Options and scripts of ordinary tools that run a shell command.

``tar --checkpoint-action=exec=CMD`` / ``--to-command=CMD`` / ``-I CMD``,
``zip -TT CMD``, ``rsync -e CMD``, ``ssh -o ProxyCommand=CMD``, ``scp -S
PROG`` and ``sftp -S PROG`` (the program run in ssh's place), ``sftp -D
PROG`` (a local sftp server it starts), ``sed``'s
``e`` command and ``s///e`` flag, ``vim -c '!CMD'`` / ``+!CMD``, ``less
+'!CMD'``, ``gdb -ex 'shell CMD'`` / ``lldb -o 'platform shell CMD'``, and the
entries a ``crontab`` installs: each is a command that runs, so the walker
judges it as shell (:meth:`RunnersMixin.exec_options`).  Only the programs
listed in :data:`PROGRAMS` come here.
"""

from __future__ import annotations

import re

from agentreflex.gate.shell.argv import operands, option_values

_SED_E_CMD = re.compile(r"(?:^|[;\n{])\s*(?:\d+|\$|/[^/]*/)?\s*e\s+([^;\n}]+)")
_SED_S_E = re.compile(
    r"(?:^|[;\n{])\s*(?:\d+|\$|/[^/]*/)?\s*s(.)(?:(?!\1).)*\1((?:(?!\1).)*)\1([a-zA-Z0-9]*)"
)
_CRON_FIELDS = re.compile(r"^\s*(?:@\w+|(?:\S+\s+){4}\S+)\s+(.+)$")
_VIM = frozenset({"vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff"})
# Each tool's short options that take no value: they may come first in a cluster
# whose last letter takes one (``tar -xI CMD``, ``rsync -avze CMD``, ``sed -ne S``,
# ``ssh -vo ProxyCommand=CMD``, ``vim -Rc '!CMD'``).  Reading too few lets the
# value's command through unjudged; a letter that takes a value read as a flag
# only reads more.  sed's ``-i`` is not one: ``-ie`` is ``-i`` with suffix ``e``.
_TAR_FLAGS = "AcdrtuxaBGhijJklmMnOopPRSsUvwWzZ"
_TAR_VALUED = "bCfFgHIKLNTVX"
_SED_FLAGS = "nrEsuz"
_VIM_FLAGS = "AbCdDeEFgHhlLmMNnRrvXxyZ"
_SSH_FLAGS = "346AaBCdfGgKkMNnOpqRrsTtVvXxYy"  # ssh's, scp's and sftp's
_RSYNC_FLAGS = "0468AaCcDdEFgHhIiJKkLlmNnOoPpqRrSstUuvWXxyz"


def _tar(args: list[str]) -> list[str]:
    """GNU tar reads long options abbreviated (``--to-comm=CMD``) and a first
    argument without a dash as letters whose values follow in turn (``tar xIf
    CMD a.tar``)."""
    args = _tar_dashed(args)
    out = []
    for action in option_values(args, ("--checkpoint-action",), prefixes=True):
        kind, _, cmd = action.partition("=")
        if kind == "exec" and cmd:
            out.append(cmd)
    names = ("--to-command", "--use-compress-program", "--rsh-command", "--info-script")
    out += option_values(
        args, (*names, "--new-volume-script", "-F"), flags=_TAR_FLAGS, prefixes=True
    )
    out += [v for v in option_values(args, ("-I",), flags=_TAR_FLAGS) if v]
    return out


def _tar_dashed(args: list[str]) -> list[str]:
    """``xIf CMD a.tar`` (the old style) as ``-x -I CMD -f a.tar``."""
    if not args or args[0].startswith("-"):
        return args
    out, rest = [], args[1:]
    for letter in args[0]:
        out.append("-" + letter)
        if letter in _TAR_VALUED and rest:
            out.append(rest.pop(0))
    return out + rest


def _sed(args: list[str]) -> list[str]:
    scripts = option_values(args, ("-e", "--expression"), flags=_SED_FLAGS, prefixes=True)
    if not scripts:  # the first operand (``-l N``'s and ``-f FILE``'s values are not)
        scripts = operands(args, frozenset({"-l", "--line-length", "-f", "--file"}))[:1]
    out: list[str] = []
    for s in scripts:
        out += [m.group(1).strip() for m in _SED_E_CMD.finditer(s)]
        out += [m.group(2) for m in _SED_S_E.finditer(s) if "e" in m.group(3) and m.group(2)]
    return out


def _vim(args: list[str]) -> list[str]:
    cmds = option_values(args, ("-c", "--cmd"), flags=_VIM_FLAGS) + [
        a[1:] for a in args if a.startswith("+")
    ]
    out = []
    for c in cmds:
        c = c.lstrip(":").strip()
        for prefix in ("silent!", "silent", "exe", "execute"):
            c = c.removeprefix(prefix).strip()
        if c.startswith("!"):
            out.append(c[1:])
        elif c.startswith(("r !", "r!", "w !", "w!")):
            out.append(c.split("!", 1)[1])
    return out


def _less(args: list[str]) -> list[str]:
    """``less +'!CMD' FILE``: the start-up command ``!`` runs CMD in a shell."""
    return [a[2:] for a in args if a.startswith("+!") and len(a) > 2]


def _ssh(args: list[str]) -> list[str]:
    out = []
    for opt in option_values(args, ("-o",), flags=_SSH_FLAGS):
        parts = re.split(r"[=\s]", opt.strip(), maxsplit=1)
        key, value = parts[0], (parts[1].strip() if len(parts) > 1 else "")
        if key.lower() in ("proxycommand", "localcommand", "knownhostscommand") and value:
            out.append(value)
    return out


# gdb reads its long options with one dash or two, with ``=`` or spaced, and
# abbreviated (getopt_long_only); never attached (``-exCMD`` is ``-e xCMD``).
_GDB = (
    *("-ex", "--ex", "-eval-command", "--eval-command"),
    *("-iex", "--iex", "-init-eval-command", "--init-eval-command"),
)
# lldb's since LLVM 9 take the value as the next argument only (``Separate``
# options); older ones read ``-oCMD`` (getopt): it is read, as the older do.
_LLDB = ("-o", "--one-line", "-one-line", "-O", "--one-line-before-file", "-one-line-before-file")


def _gdb(args: list[str]) -> list[str]:
    return _debugger(option_values(args, _GDB, attached=False, prefixes=True))


def _lldb(args: list[str]) -> list[str]:
    return _debugger(option_values(args, _LLDB))


def _debugger(commands: list[str]) -> list[str]:
    """``gdb -ex 'shell CMD'`` (``!CMD``, ``pipe X | CMD``, ``python CODE``) and
    ``lldb -o 'platform shell CMD'`` (``script CODE``): a debugger's start-up
    commands run shell and Python."""
    import shlex

    out = []
    for command in commands:
        command = command.strip()
        verb, _, rest = command.partition(" ")
        if command.startswith("!"):
            out.append(command[1:])
        elif verb == "shell" or (verb == "platform" and rest.startswith("shell ")):
            out.append(rest.removeprefix("shell ") if verb == "platform" else rest)
        elif verb in ("pipe", "|") and "|" in rest:
            out.append(rest.split("|", 1)[1])
        elif verb in ("python", "py", "script", "python-interactive", "pi") and rest:
            out.append(shlex.join(["python3", "-c", rest]))
    return out


PROGRAMS = {
    "tar": _tar,
    "gtar": _tar,
    "bsdtar": _tar,
    "zip": lambda a: option_values(a, ("-TT", "--unzip-command")),
    "rsync": lambda a: option_values(a, ("-e", "--rsh"), flags=_RSYNC_FLAGS),
    "sed": _sed,
    "gsed": _sed,
    "ssh": _ssh,
    "scp": lambda a: _ssh(a) + option_values(a, ("-S",), flags=_SSH_FLAGS),
    "sftp": lambda a: _ssh(a) + option_values(a, ("-S", "-D"), flags=_SSH_FLAGS),
    "less": _less,
    "gdb": _gdb,
    "lldb": _lldb,
    **{name: _vim for name in _VIM},
}


def commands(name: str, args: list[str]) -> list[str]:
    """Shell commands ``name args`` runs through its own options or script."""
    pick = PROGRAMS.get(name)
    return [c for c in pick(args) if c.strip()] if pick else []


def cron_entries(text: str) -> list[str]:
    """The commands of a crontab text (schedule fields, comments and settings left out)."""
    out = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _CRON_FIELDS.match(line)
        if m and "=" not in line.split()[0]:
            out.append(m.group(1))
    return out
