"""Options and scripts of ordinary tools that run a shell command.

``tar --checkpoint-action=exec=CMD`` / ``--to-command=CMD`` / ``-I CMD``,
``zip -TT CMD``, ``rsync -e CMD``, ``ssh -o ProxyCommand=CMD``, ``sed``'s
``e`` command and ``s///e`` flag, ``vim -c '!CMD'`` / ``+!CMD``, ``less
+'!CMD'``, ``gdb -ex 'shell CMD'`` / ``lldb -o 'platform shell CMD'``, and the
entries a ``crontab`` installs: each is a command that runs, so the walker
judges it as shell (:meth:`RunnersMixin.exec_options`).  Only the programs
listed in :data:`PROGRAMS` come here.
"""

from __future__ import annotations

import re

_SED_E_CMD = re.compile(r"(?:^|[;\n{])\s*(?:\d+|\$|/[^/]*/)?\s*e\s+([^;\n}]+)")
_SED_S_E = re.compile(
    r"(?:^|[;\n{])\s*(?:\d+|\$|/[^/]*/)?\s*s(.)(?:(?!\1).)*\1((?:(?!\1).)*)\1([a-zA-Z0-9]*)"
)
_CRON_FIELDS = re.compile(r"^\s*(?:@\w+|(?:\S+\s+){4}\S+)\s+(.+)$")
_VIM = frozenset({"vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff"})


def _values(args: list[str], names: tuple[str, ...]) -> list[str]:
    """Values of options ``names`` (``--opt=V``, ``--opt V``, ``-xV``, ``-x V``)."""
    out: list[str] = []
    for i, a in enumerate(args):
        if a == "--":
            break
        for n in names:
            if a == n and i + 1 < len(args):
                out.append(args[i + 1])
            elif n.startswith("--") and a.startswith(n + "="):
                out.append(a[len(n) + 1 :])
            elif not n.startswith("--") and a.startswith(n) and len(a) > len(n) and len(n) == 2:
                out.append(a[len(n) :])
    return out


def _tar(args: list[str]) -> list[str]:
    out = []
    for action in _values(args, ("--checkpoint-action",)):
        kind, _, cmd = action.partition("=")
        if kind == "exec" and cmd:
            out.append(cmd)
    out += _values(args, ("--to-command", "--use-compress-program", "--rsh-command"))
    out += _values(args, ("--info-script", "--new-volume-script", "-F"))
    out += [v for v in _values(args, ("-I",)) if v]
    return out


def _sed(args: list[str]) -> list[str]:
    scripts = _values(args, ("-e", "--expression"))
    if not scripts:
        words = [a for a in args if not a.startswith("-")]
        scripts = words[:1]
    out: list[str] = []
    for s in scripts:
        out += [m.group(1).strip() for m in _SED_E_CMD.finditer(s)]
        out += [m.group(2) for m in _SED_S_E.finditer(s) if "e" in m.group(3) and m.group(2)]
    return out


def _vim(args: list[str]) -> list[str]:
    cmds = _values(args, ("-c", "--cmd")) + [a[1:] for a in args if a.startswith("+")]
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
    for opt in _values(args, ("-o",)):
        parts = re.split(r"[=\s]", opt.strip(), maxsplit=1)
        key, value = parts[0], (parts[1].strip() if len(parts) > 1 else "")
        if key.lower() in ("proxycommand", "localcommand", "knownhostscommand") and value:
            out.append(value)
    return out


def _debugger(args: list[str]) -> list[str]:
    """``gdb -ex 'shell CMD'`` (``!CMD``, ``pipe X | CMD``, ``python CODE``) and
    ``lldb -o 'platform shell CMD'`` (``script CODE``): a debugger's start-up
    commands run shell and Python."""
    import shlex

    out = []
    for command in _values(
        args,
        (
            "-ex",
            "--eval-command",
            "-iex",
            "--init-eval-command",
            "-o",
            "--one-line",
            "-O",
            "--one-line-before-file",
        ),
    ):
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
    "zip": lambda a: _values(a, ("-TT", "--unzip-command")),
    "rsync": lambda a: _values(a, ("-e", "--rsh")),
    "sed": _sed,
    "gsed": _sed,
    "ssh": _ssh,
    "scp": _ssh,
    "sftp": _ssh,
    "less": _less,
    "gdb": _debugger,
    "lldb": _debugger,
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
