"""The folders below a project that the looks around a shell command go into, listed once.

Why: what a contained command writes below the project root, no mount holds
(a mount needs a path that exists, and each costs start-up time), yet some of
it runs outside the boundary later: a repository's settings and hooks
(:mod:`.nestedgit`), the hosts' settings a session started in a folder below
reads, and Claude Code's skills there (:mod:`.nestedhosts`), and a ``.env``
Gemini CLI would load there (:mod:`.dotenv`).  Both looks need the same folders, so one walk serves
both: one listing per folder, once per look.

How far: every folder one down is looked in (VS Code runs git in each
repository it finds there when the folder opens, ``node_modules`` aside); of
those, the ones package managers and builds fill are not gone into, and the
folders two down are listed up to a bound, which keeps the look cheap in a
large tree (and which a command can pad past: SECURITY.md).  Links are never
followed.  Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import os
import stat

from agentreflex.core.contain import nestedhosts

__all__ = ["DEPTH", "Walk", "walk"]

DEPTH = 2
_NOT_GONE_INTO = frozenset(
    {"node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox", "target"}
)
_MAX_FOLDERS = 2000
_BARE = frozenset({"HEAD", "objects", "refs"})  # gitrepository-layout(5): what git takes for one
_ENV = (".env", ".gemini")  # Gemini CLI reads .gemini/.env, else .env, from where it starts
_MARKS = _BARE | {".git", *_ENV, *nestedhosts.MARKS}


class Walk:
    """What one walk found below a project.

    ``gits``: each ``FOLDER/.git`` (with its mode: a folder, a file or a link),
    and each bare repository, the project itself included, as a folder (git
    takes one for a repository when the ``.git`` above it is broken).
    ``hosts``: each folder below the project root holding a host's settings
    (:data:`.nestedhosts.MARKS`: not the root's own, which the boundary holds),
    and each link below it to a folder that holds one (``ln -s /tmp/x web``: a
    host may follow it; the link is the unit).
    ``env``: the ``.env`` files Gemini CLI would read started in a folder below
    the root (``web/.gemini/.env``, ``web/.env``), where one is there.  A plain class: ``dataclasses`` costs a hook
    process an import it need not pay.
    """

    __slots__ = ("env", "gits", "hosts")

    def __init__(self) -> None:
        self.gits: list[tuple[str, int]] = []
        self.hosts: list[str] = []
        self.env: list[str] = []


def walk(project: str) -> Walk:
    """Walk ``project`` down to :data:`DEPTH` folders (see the module's docstring)."""
    found = Walk()
    level: list[str] = [project]
    for depth in range(DEPTH + 1):
        below: list[str] = []
        for folder in level:
            going_on = depth < DEPTH and (
                not depth or os.path.basename(folder) not in _NOT_GONE_INTO
            )
            try:
                marks, inside, links = _listing(folder, going_on)
            except OSError:
                continue
            if ".git" in marks and depth:
                found.gits.append((marks[".git"].path, _mode(marks[".git"])))
            elif marks.keys() >= _BARE and marks["HEAD"].is_file(follow_symlinks=False):
                found.gits.append((folder, stat.S_IFDIR))
            if depth and not marks.keys().isdisjoint(nestedhosts.MARKS):
                found.hosts.append(folder)
            found.hosts += links  # not gone into: the link is what a command made
            if depth and ".gemini" in marks:
                found.env.append(os.path.join(marks[".gemini"].path, ".env"))
            if depth and ".env" in marks:
                found.env.append(marks[".env"].path)
            below += inside
        # the folders one down all (but node_modules: VS Code looks in none either); those
        # two down while they are few
        level = [f for f in below if depth or os.path.basename(f) != "node_modules"]
        if depth and len(level) > _MAX_FOLDERS:
            break
    return found


def _listing(
    folder: str, folders: bool
) -> tuple[dict[str, os.DirEntry[str]], list[str], list[str]]:
    """``folder``'s entries that mark a repository or a host's folder, and (when ``folders``)
    its folders and its links to a folder holding a host's settings."""
    marks: dict[str, os.DirEntry[str]] = {}
    inside: list[str] = []
    links: list[str] = []
    with os.scandir(folder) as listing:
        for entry in listing:
            if entry.name in _MARKS:
                marks[entry.name] = entry
            if not folders or entry.name == ".git":
                continue
            if entry.is_dir(follow_symlinks=False):
                inside.append(entry.path)
            elif entry.is_symlink() and _holds_hosts(entry.path):
                links.append(entry.path)
    return marks, inside, links


def _holds_hosts(link: str) -> bool:
    return os.path.isdir(link) and any(
        os.path.lexists(os.path.join(link, name)) for name in nestedhosts.MARKS
    )


def _mode(entry: os.DirEntry[str]) -> int:
    if entry.is_symlink():
        return stat.S_IFLNK
    return stat.S_IFDIR if entry.is_dir(follow_symlinks=False) else stat.S_IFREG
