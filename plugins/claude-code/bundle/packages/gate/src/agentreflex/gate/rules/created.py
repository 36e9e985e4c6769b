"""Folders and files a command creates itself, so that what it then does to them loses nothing.

``mkdir -p /home/app && chown -R app:app /home/app`` (and ``useradd -m app``,
which makes ``/home/app``) hands a folder the same command just made to its
user: a container-build idiom, not a change to the system's own files
(issue 30); so does ``touch /var/run/nginx.pid && chown nginx /var/run/nginx.pid``
for a file.  :func:`made_dirs` lists those folders and files in the order the commands
run; the permission rules skip targets inside them.  A folder that exists
already is not made (``mkdir -p /etc`` changes nothing), so only folders
absent now count.
"""

from __future__ import annotations

import os

from agentreflex.gate.model import Cmd, has_marker
from agentreflex.gate.shell.paths import Where, resolve

PERMS = frozenset({"chown", "chmod", "chgrp"})
_USERADD = frozenset({"useradd", "adduser"})


def made_dirs(cmds: list[Cmd], where: Where) -> dict[int, list[str]]:
    """For each command (by position), the folders made by the commands before it."""
    out: dict[int, list[str]] = {}
    made: list[str] = []
    for k, cmd in enumerate(cmds):
        if cmd.name in PERMS:
            out[k] = list(made)
        made.extend(_makes(cmd, where))
    return out


def _makes(cmd: Cmd, where: Where) -> list[str]:
    args = cmd.args
    if cmd.name == "mkdir" or (cmd.name == "install" and "-d" in args):
        valued = {"-m", "--mode", "-o", "--owner", "-g", "--group"}
        words = [
            a
            for i, a in enumerate(args)
            if not a.startswith("-") and not (i and args[i - 1] in valued)
        ]
        made = [resolve(w, where, cmd.cwd) for w in words if w and not has_marker(w)]
        return [m for m in made if not os.path.lexists(m)]  # mkdir -p of /etc makes nothing
    if cmd.name == "touch" and not any(a in ("-c", "--no-create") for a in args):
        valued = {"-d", "--date", "-r", "--reference", "-t"}
        words = [
            a
            for i, a in enumerate(args)
            if not a.startswith("-") and not (i and args[i - 1] in valued)
        ]
        made = [resolve(w, where, cmd.cwd) for w in words if w and not has_marker(w)]
        return [m for m in made if not os.path.lexists(m)]  # a file that exists is not made
    if cmd.name in _USERADD and any(a in ("-m", "--create-home") for a in args):
        home = _value(args, ("-d", "--home-dir", "--home"))
        user = [a for a in args if not a.startswith("-")][-1:] if args else []
        made = [resolve(home, where, cmd.cwd)] if home else []
        if not home and user and not has_marker(user[0]):
            made = [f"/home/{user[0]}"]
        return [m for m in made if not os.path.lexists(m)]
    return []


def _value(args: list[str], options: tuple[str, ...]) -> str:
    for i, a in enumerate(args):
        if a in options and i + 1 < len(args):
            return args[i + 1]
        for o in options:
            if o.startswith("--") and a.startswith(o + "="):
                return a.split("=", 1)[1]
    return ""


def all_made(cmd: Cmd, made: list[str], where: Where) -> bool:
    """Whether every target of a chown/chmod/chgrp lies inside a folder in ``made``."""
    if not made:
        return False
    words = [a for a in cmd.args if not a.startswith("-") or a[1:2].isdigit()]
    targets = words[1:]
    if not targets:
        return False
    mode = words[0]
    if cmd.name == "chmod" and ("s" in mode or (len(mode) == 4 and mode[0] in "2467")):
        return False  # setuid/setgid stays judged, new folder or not
    for t in targets:
        full = resolve(t, where, cmd.cwd)
        if has_marker(full) or not any(full == m or full.startswith(m + "/") for m in made):
            return False
    return True
