"""The work-tree files the project's own git settings run or read: a hooks folder, an include.

Why: ``.git/config`` and ``.git/hooks`` are read-only in the boundary, but a
user's settings may point git into the work tree: ``core.hooksPath .husky/_``
(husky, whose hooks run ``.husky/NAME``), ``core.hooksPath .githooks`` (many
projects' setup scripts), ``include.path ../.gitconfig`` (a team's shared
settings).  A contained command could rewrite those files, and git would run
the hook, or read ``core.fsmonitor`` from the include, at the user's next
commit or ``git status``, outside any boundary.  So each such path that exists
inside the project is read-only too (the policy's ``{git_runs}``).

The settings are read here, not by git (the hook's path runs no program for a
plan): the project's ``.git/config`` and ``config.worktree`` (a linked work
tree's: its repository's common ``config`` and its own ``config.worktree``,
:mod:`.linkedgit`; an include there may name a file in the common folder,
writable in the boundary, which is held too), and the user's
own (``~/.gitconfig``, ``$XDG_CONFIG_HOME/git/config``) for a relative
``core.hooksPath``, which git takes from the work tree's top.  Only the keys
that name a path are read.  Stdlib only, and small.
"""

from __future__ import annotations

import os

from agentreflex.core.contain import linkedgit
from agentreflex.core.util.fsutil import read_regular

__all__ = ["named_paths"]

_MAX_BYTES = 1 << 20  # a settings file larger than this is not read


def named_paths(project: str, home: str, xdg_config: str = "", existing: bool = True) -> list[str]:
    """The paths inside ``project`` its git settings run (the hooks folder, and husky's
    folder above ``.husky/_``) or read (an included file): those that exist (what the
    boundary holds), or with ``existing`` false those that don't yet too (what the look
    after a command moves aside when it made one: a user's global relative ``core.hooksPath
    .githooks`` names a folder a project may not have, and git runs what a command put
    there at the user's next commit; red-team rt83)."""
    gitdir = os.path.join(project, ".git")
    found: list[str] = []
    own = [os.path.join(gitdir, "config"), os.path.join(gitdir, "config.worktree")]
    found_linked = linkedgit.linked(project, home)
    if found_linked is not None:  # a linked work tree: git reads these instead
        own = [
            os.path.join(found_linked.common, "config"),
            os.path.join(found_linked.own, "config.worktree"),
        ]
    users = [
        os.path.join(home, ".gitconfig"),
        os.path.join(xdg_config or os.path.join(home, ".config"), "git", "config"),
    ]
    for config in [*own, *users]:
        for key, value in _entries(config):
            if key == "core.hookspath":
                found.append(_hooks_folder(_path(value, project, home)))
            elif config in own and (key == "include.path" or _include_if(key)):
                found.append(_path(value, os.path.dirname(config), home))
    # the project's, and a linked work tree's common folder (writable in the boundary too:
    # an include.path of its config may name a file there)
    roots = [project] + ([found_linked.common] if found_linked else [])
    within = tuple(r.rstrip("/") + "/" for r in roots)
    return [
        p
        for p in dict.fromkeys(found)
        if p.startswith(within) and (os.path.lexists(p) or not existing)
    ]


def _hooks_folder(path: str) -> str:
    """husky v9's hooks (``.husky/_/NAME``) run ``.husky/NAME``: its whole folder counts."""
    return os.path.dirname(path) if os.path.basename(path) == "_" else path


def _include_if(key: str) -> bool:
    return key.startswith("includeif.") and key.endswith(".path")


def _path(value: str, base: str, home: str) -> str:
    """``value`` as git reads a path setting: ``~/`` is home, a relative one is from ``base``."""
    if value.startswith("~/"):
        value = os.path.join(home, value[2:])
    return os.path.normpath(os.path.join(base, value))


def _entries(config: str) -> list[tuple[str, str]]:
    """``config``'s ``section[.subsection].key`` and value pairs that name paths, as git-config(1)
    spells them (sections and keys in any case, a subsection as written, quotes and
    comments); none when the file is missing, too large or not text."""
    data = read_regular(config, _MAX_BYTES, follow=True)
    if data is None or len(data) > _MAX_BYTES:
        return []
    found: list[tuple[str, str]] = []
    section = ""
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = _section(line)
            line = line[line.find("]") + 1 :].strip()  # `[core] hooksPath = x` is allowed
        if not line or line[0] in "#;" or "=" not in line or not section:
            continue
        key, _, value = line.partition("=")
        found.append((f"{section}.{key.strip().lower()}", _value(value)))
    return found


def _section(header: str) -> str:
    """``[core]`` -> ``core``; ``[includeIf "gitdir:~/w/"]`` -> ``includeif.gitdir:~/w/``."""
    inner = header[1 : header.find("]")] if "]" in header else header[1:]
    name, _, sub = inner.partition(" ")
    sub = sub.strip()
    if sub.startswith('"') and sub.endswith('"') and len(sub) >= 2:
        return f"{name.lower()}.{sub[1:-1]}"
    return inner.lower()


def _value(text: str) -> str:
    """A value: its quotes taken off, a comment after it (outside quotes) dropped."""
    out: list[str] = []
    quoted = False
    i = 0
    text = text.strip()
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(text[i + 1], text[i + 1]))
            i += 2
            continue
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
        i += 1
    return "".join(out).strip()
