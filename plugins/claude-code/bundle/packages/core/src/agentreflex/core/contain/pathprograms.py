"""The programs a host finds by name in a folder of its PATH that a contained command can write.

Why: a host started in an activated virtualenv (``source .venv/bin/activate &&
claude``, uv's and Python's documented way), with direnv's ``PATH_add bin``,
or by ``npx`` (whose ``~/.npm/_npx/.../node_modules/.bin`` comes first), has a
folder the boundary leaves writable at the front of its PATH, and it runs
programs by name outside any boundary: Claude Code looks ``git`` up on its
PATH and runs it at each session start (2.1.328: ``which("git")``), the
servers and hooks the settings name start ``python3``, ``node``, ``npx``,
``jq`` or ``ruff``, the shell the host runs each command in is looked up,
and the user starts the host itself by name.  That folder must stay writable
(``pip install`` writes ``.venv/bin``), so a contained command could put a
``git`` there, or replace ``python3`` (red-team rt25, rt27).  The guard's own
programs are the system's already (:mod:`agentreflex.core.util.sysprog`).

So before and after each shell command the names in :data:`PROGRAMS` in
each such folder are stamped, as the PATH spells the folder (a folder on the
way made a link is itself what changed, and what goes); one a command made or
changed is moved aside, unless it is a link to the program its name promises
(``python3 -> /usr/bin/python3.11``, as ``python -m venv`` and ``uv venv``
make them), every step of which is outside what a contained command can
write.  A link it replaced is put back.  Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Mapping

from agentreflex.core.util.fsutil import (
    inside,
    move_under,
    replace_in_place,
    stamp,
    through_link,
)

__all__ = ["PROGRAMS", "after", "before", "folders", "system_link"]

# what the hosts start by name: git for their status and checkpoints, the shells they run
# commands and hooks in, the interpreters and runners their settings' servers and hooks
# name (MCP's documented `python3 server.py`, `npx -y pkg`, `uvx pkg`; Claude Code's hooks
# documentation pipes to `jq`; formatters), the hosts themselves, which the user starts
# by name, and the virtualenv's activation scripts, which the user's shell sources
# (not the project's own tools a package manager installs there, a formatter or a linter:
# their code is in the same writable tree, site-packages or node_modules, whatever the name)
PROGRAMS = (
    "git", "bash", "sh", "zsh", "dash", "fish", "env", "node", "nodejs", "npx", "npm", "pnpm",
    "pnpx", "yarn", "bun", "bunx", "deno", "python", "python3", "uv", "uvx", "ssh", "gpg",
    "docker", "podman", "make", "rg", "jq", "yq", "curl", "claude", "codex", "gemini",
    "copilot", "opencode", "pi", "hermes", "agentreflex", "activate", "activate.fish",
    "activate.csh", "activate.nu",
    # and what the user types in the shell direnv's `PATH_add` or mise's `_.path` gave the
    # same folders (a planted `sudo` reads their password; `less` is git's pager, `vi` its
    # editor), and what the hosts' file search runs (pi: `fd`), none of which a package
    # manager puts in a virtualenv or node_modules/.bin
    "sudo", "su", "doas", "gh", "glab", "less", "more", "vi", "vim", "nvim", "nano",
    "emacs", "code", "cursor", "ls", "cat", "cp", "mv", "rm", "grep", "find", "fd", "fdfind",
    "sed", "awk", "tar", "xargs", "diff", "tmux", "screen", "scp", "rsync", "ssh-add",
    "ssh-agent", "gpg2", "git-lfs", "kubectl", "terraform", "cargo", "go", "direnv", "mise",
)  # fmt: skip
_FAMILY = re.compile(r"[\d.]+$")  # python3.11 is a python3, is a python


def folders(
    projects: list[str], roots: list[str], env: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """The folders of the host's PATH (this hook's: the host started it) that a contained
    command may be able to write: inside ``projects``, or inside ``roots`` (home and the temp
    folders, where the policy's writable caches are: :func:`after` asks the policy only when
    something there changed), each with the one it is in.

    An empty or relative entry is a folder of the one the host runs in: the project.
    """
    path = (os.environ if env is None else env).get("PATH", "")
    found: dict[str, str] = {}
    for entry in path.split(os.pathsep):
        where = os.path.normpath(os.path.join(projects[0], entry)) if projects else entry
        for spelled in dict.fromkeys((where, os.path.realpath(where))):
            root = next((r for r in (*projects, *roots) if inside(spelled, r)), None)
            if root is not None:
                found.setdefault(spelled, root)
    return list(found.items())


def before(where: list[tuple[str, str]]) -> dict[str, list[object]]:
    """Each program of :data:`PROGRAMS` in ``where`` (or the link on the way to it): its
    stamp, and where it leads if a link."""
    record: dict[str, list[object]] = {}
    for path in _units(where):
        mark = stamp(path)
        if mark is not None and (os.path.isfile(path) or _is_folder_link(path, where)):
            record[path] = [mark, _target(path)]
    return record


def after(
    record: dict[str, list[object]],
    where: list[tuple[str, str]],
    keep: str,
    act: bool,
    writable: Callable[[], list[str]],
    projects: list[str],
) -> list[tuple[str, str]]:
    """The programs in ``where`` made or changed since ``record`` (a :func:`before`), each
    with where it was moved below ``keep`` ("" when it could not be, or ``act`` is False).

    ``writable`` gives the folders a contained command can write (asked only when a
    program changed).  A link that was there before is put back.
    """
    changed: list[tuple[str, str]] = []
    outside = {root for _, root in where} - set(projects)
    for path in _units(where):
        had, now = record.get(path), stamp(path)
        if now is None or (had is not None and had[0] == now):
            continue
        if not (os.path.isfile(path) or _is_folder_link(path, where)):
            continue  # a folder named `node`, a dangling link: nothing a host can run
        if any(inside(path, root) for root in outside) and not any(
            inside(path, w) for w in writable()
        ):
            continue  # not a command's to write: the user's own update (`claude update`)
        if system_link(path, writable()):
            continue
        moved = move_under(path, keep) if act else ""
        if moved and had is not None and isinstance(had[1], str):
            # the link the command replaced (the venv's python3): as it was
            with contextlib.suppress(OSError):
                replace_in_place(path, had[1].encode(), 0o777, link=True)
        changed.append((path, moved))
    return changed


def _units(where: list[tuple[str, str]]) -> list[str]:
    """Each program's path, or the outermost link on the way to it below its root (a
    ``.venv/bin`` made a link to a folder elsewhere is what a command changed)."""
    units: dict[str, None] = {}
    for folder, root in where:
        probe = os.path.join(folder, PROGRAMS[0])
        link = through_link(probe, [root])  # the folder's way looked at once, not per name
        if link != probe:
            units[link] = None
        else:
            units.update(dict.fromkeys(os.path.join(folder, name) for name in PROGRAMS))
    return list(units)


def _is_folder_link(path: str, where: list[tuple[str, str]]) -> bool:
    """Is ``path`` a link on the way to a PATH folder (not a program in one)?"""
    return os.path.islink(path) and any(inside(folder, path) for folder, _ in where)


def _target(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def system_link(path: str, writable: list[str]) -> bool:
    """Is ``path`` a link to the program its name promises, every step of the way outside
    what a contained command can write?  (``git -> /bin/bash`` is no git: it would run a
    file named by git's first argument as a script.)"""
    if not os.path.islink(path) or os.path.isdir(path):
        return False
    real = os.path.realpath(path)
    if not os.path.isfile(real):
        return False
    if _FAMILY.sub("", os.path.basename(real)) != _FAMILY.sub("", os.path.basename(path)):
        return False
    hop, seen = path, 0
    while os.path.islink(hop) and seen < 40:
        step = os.path.normpath(os.path.join(os.path.dirname(hop), os.readlink(hop)))
        seen += 1
        if os.path.dirname(step) == os.path.dirname(hop) and os.path.basename(step) in PROGRAMS:
            hop = step  # python -> python3 beside it: a program this look watches too
            continue
        hop = step
        if any(inside(hop, w) for w in writable) or _through_writable_link(hop, writable):
            return False
    return not any(inside(real, w) for w in writable)


def _through_writable_link(path: str, writable: list[str]) -> bool:
    """Does a folder on the way to ``path`` lie in a writable place and is it a link?"""
    current = "/"
    for part in path.strip("/").split("/")[:-1]:
        current = os.path.join(current, part)
        if os.path.islink(current) and any(inside(current, w) for w in writable):
            return True
    return False
