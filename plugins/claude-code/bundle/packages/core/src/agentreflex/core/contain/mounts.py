"""The mounts that make the policy a boundary for one project.

Why apart from :mod:`.policy`: the policy says which paths; this says what
bwrap can actually mount over them.  A path that does not exist yet, a
hidden folder, a host's settings folder the project lacks and a mount that
changes nothing each need a decision of their own, made here once for every
engine that takes mounts.

Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from agentreflex.core.contain.policy import (
    Policy,
    expand_entry,
    globbed,
    inside,
    placeholders,
    shadow_source,
    sockets,
)
from agentreflex.core.state import userdirs
from agentreflex.core.util.fsutil import Realpaths

__all__ = ["Mount", "Plan", "describe", "plan", "writable"]

# bwrap mount kinds, weakest first: for one path the strongest wins (a cache the user
# lists read-only stays read-only rather than shadowed)
_RANK = {"rw": 0, "shadow": 1, "ro": 2, "hide": 3}


@dataclass(frozen=True)
class Mount:
    path: str
    # "rw", "ro", "hide", "pin": writable, and a mount point of its own (_pins), or
    # "shadow": the guard's own writable folder in its place (Plan.sources)
    kind: str


@dataclass
class Plan:
    """The mounts for one project, and what the boundary could not cover."""

    mounts: list[Mount] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)
    # a shadowed path's stand-in folder (policy.shadow_source), by the path
    sources: dict[str, str] = field(default_factory=dict)


def _cover(
    path: str,
    kind: str,
    project: str,
    result: Plan,
    chosen: Mapping[str, str],
    gits: Sequence[str] = (),
) -> Mount | None:
    """A mount for ``path``; a missing path is covered by its nearest existing folder.

    bwrap can only mount over what exists.  A read-only path that does not
    exist yet (``.claude/settings.json`` before any install) is protected by
    making its nearest existing parent read-only, as long as that parent is
    below the project root; otherwise the path is reported as uncovered (the
    parse-based gate still answers for it).  A missing unreadable path has
    nothing to read, except where the boundary lets commands write (a temp
    folder: the deepest of the mounts ``chosen`` so far that holds it is
    writable): there it is made an empty folder, so a command can't create
    what a program outside reads from it (Gemini CLI's IDE folder).
    """
    if os.path.lexists(path):
        return Mount(path, kind)
    if kind == "hide" and _writable_at(path, chosen):
        return Mount(path, kind)  # bwrap makes it, and leaves it behind empty
    if kind != "ro":
        return None  # nothing to read, and it can't be created: its folder is read-only or ours
    parent = os.path.dirname(path)
    while parent != "/" and not os.path.lexists(parent):
        parent = os.path.dirname(parent)
    if (os.path.basename(parent) == ".git" or parent in gits) and os.path.isdir(parent):
        # a read-only .git would stop every commit: the missing path (a hooks
        # folder git made none of) becomes an empty folder that can't be written;
        # so in a linked work tree's common folder, whatever its name ({git})
        return Mount(path, "hide")
    if inside(parent, project) and parent != project:
        return Mount(parent, kind)
    result.uncovered.append(path)
    return None


def _writable_at(path: str, chosen: Mapping[str, str]) -> bool:
    """Is the deepest mount in ``chosen`` that holds ``path`` a writable one?"""
    holders = [p for p in chosen if inside(path, p) and p != path]
    return bool(holders) and chosen[max(holders, key=len)] == "rw"


def plan(
    project: str,
    policy: Policy,
    env: Mapping[str, str] | None = None,
    folders: Sequence[str] = (),
) -> Plan:
    """The mounts, ordered so that a deeper path is mounted after (over) its parent.

    Nothing is mounted inside a hidden folder: it is empty and read-only in the
    boundary already, and bwrap could not make a mount point there (the hook's
    own interpreter lives inside the Claude Code plugin's hidden data folder).

    ``folders`` are the running host's own settings folders in the project
    (its adapter's ``project_settings``: ``.claude``, ``.opencode``...).  One
    that does not exist is made an empty read-only folder: bwrap leaves it
    behind, empty (git does not list an empty folder), and a command can't
    create the host's settings there (``.claude/settings.local.json`` with
    ``disableAllHooks``, an OpenCode plugin that undoes the containment),
    which a missing path's nearest existing folder, the project root, could
    not be made read-only to stop.
    """
    # a plain copy: its entries are read some five hundred times a plan ({env:NAME} entries
    # scan them all), and os.environ decodes each one again every time
    values = dict(os.environ if env is None else env)
    resolve = Realpaths()
    project = resolve(project)
    named = placeholders(project, values)
    home = userdirs.home_dir(values)
    result = Plan()
    chosen: dict[str, str] = {}
    for kind, entries in (
        ("rw", policy.writable),
        ("ro", policy.read_only),
        ("shadow", policy.shadowed),
        ("hide", policy.unreadable),
    ):
        for entry in entries:
            held = kind in ("ro", "hide")
            for raw in globbed(expand_entry(entry, named, home, values, held)):
                path = os.path.normpath(raw)
                if kind == "shadow":
                    mount = _shadow(path, chosen, result, values)
                else:
                    mount = _cover(path, kind, project, result, chosen, named["{git}"])
                if mount is not None:
                    _choose(mount, chosen, resolve, result)
    for path in named.get("{runs_later_missing}", []):
        if _writable_at(path, chosen):  # a host's folder moved out of home, not made yet
            chosen[path] = "hide"  # bwrap makes it, empty, and it stays so in the command
    for path in sockets(policy, named, home, resolve, values):
        if os.path.lexists(path):
            chosen[path] = "hide"
    for folder in folders:
        path = os.path.normpath(os.path.join(project, folder))
        if inside(path, project) and path != project and not os.path.lexists(path):
            chosen[path] = "hide"
            result.uncovered = [u for u in result.uncovered if not inside(u, path)]
    chosen.update(_pins(chosen))
    ordered = sorted(chosen.items(), key=lambda item: (item[0].count("/"), item[0]))
    hidden = [
        p for p, kind in ordered if kind == "hide" and (os.path.isdir(p) or not os.path.lexists(p))
    ]
    result.mounts = [
        Mount(path, kind)
        for path, kind in ordered
        if not _linked(path, chosen, resolve)
        and not any(inside(path, h) and path != h for h in hidden)
    ]
    return result


def _linked(path: str, chosen: Mapping[str, str], resolve: Realpaths) -> bool:
    """Whether ``path`` is a link, or has one on its way, whose end is mounted already (as
    strongly).

    Why: the mount there covers every spelling, and bubblewrap, which reads an absolute
    link from its own root while it sets up, fails the command on the other: the socket
    ``/var/run/docker.sock`` (``/var/run`` -> ``/run`` on Debian and Ubuntu), a server's
    ``~/.pm2`` linked to another disk (red-team rt99).
    """
    if os.path.islink(path):
        return True
    real = resolve(path)
    if real == path or real not in chosen:
        return False
    return _RANK.get(chosen[real], 0) >= _RANK.get(chosen[path], 0)


def _choose(mount: Mount, chosen: dict[str, str], resolve: Realpaths, result: Plan) -> None:
    """Record ``mount`` in ``chosen`` (as its path is spelled and as it resolves), unless
    a stronger kind was chosen there already."""
    for path in dict.fromkeys((mount.path, resolve(mount.path))):
        if _RANK[mount.kind] >= _RANK[chosen.get(path, "rw")]:
            chosen[path] = mount.kind
        if mount.kind == "shadow":
            result.sources[path] = result.sources[mount.path]


def _shadow(
    path: str, chosen: Mapping[str, str], result: Plan, env: Mapping[str, str]
) -> Mount | None:
    """A cache a program outside runs code from, with the guard's own folder in its place.

    Why: ``npx -y NAME`` (a host's MCP server), ``git commit`` (pre-commit's
    environments) and ``go build`` run, outside any boundary, what these caches
    hold, with no check of its bytes; a contained command that could write them
    would have its code run there later (red-team rt75).  In the boundary each is
    a folder of the guard's, writable, so installs and builds work and are kept
    from one command to the next, and the real cache is out of reach.

    A missing cache is shadowed where a command could create it (its folder is
    writable): the hook makes the empty folder first, as the tool itself would
    (what bwrap would make as a mount point in the middle of a command), else it
    is left to its read-only folder.  Where the stand-in can't be made (a full
    disk) the path is an empty read-only folder instead: the tool fails in the
    boundary, never the real cache.
    """
    if os.path.lexists(path) and not os.path.isdir(path):
        return Mount(path, "hide")  # a file where the cache's folder should be
    if not os.path.lexists(path) and not _writable_at(path, chosen):
        return None  # nothing to shadow, and no command can make it
    source = shadow_source(path, env)
    try:
        os.makedirs(path, exist_ok=True)
        os.makedirs(source, mode=0o700, exist_ok=True)
    except OSError:
        return Mount(path, "hide")
    result.sources[path] = source
    return Mount(path, "shadow")


def _pins(chosen: Mapping[str, str]) -> dict[str, str]:
    """The writable folders that hold a protected mount, each made a mount point ("pin").

    Why: a mount is attached to its folder, and a folder that holds one can
    still be renamed.  ``mv .git .g && mkdir .git && cp -a .g/. .git`` left a
    ``.git/config`` no mount covered (its ``core.fsmonitor`` runs at the user's
    next ``git status``), as ``mv .claude`` would leave a new ``settings.json``,
    or ``mv proj old && mkdir proj`` a new project.  A mount point itself can't
    be renamed or removed (EBUSY).  So every folder between a read-only or
    hidden path and the writable mount above it, and that mount, is bound over
    itself, writable as before: about 0.1 ms each at start-up.

    The walk goes on above a writable mount that is itself inside a writable
    one (the project in a temp folder): renaming a folder above the project,
    ``mv ../../a ../../a.gone``, took the project with every mount in it and
    left its path free for a folder of the command's own (red-team rt65).
    """
    pins: dict[str, str] = {}
    for path, kind in chosen.items():
        if kind == "rw":
            continue
        between: list[str] = []
        folder = os.path.dirname(path)
        # (a path spelled with a leading // is its own dirname: stop there too)
        while folder not in ("/", os.path.dirname(folder)) and chosen.get(folder) in (None, "rw"):
            if folder in chosen:  # a writable mount: pinned, and so is what holds it
                pins.update(dict.fromkeys([*between, folder], "pin"))
                between = []
            else:
                between.append(folder)
            folder = os.path.dirname(folder)
    return pins


def writable(result: Plan, path: str) -> bool:
    """Can a command in the boundary ``result`` plans write ``path``?  The deepest mount
    holding it says; outside every mount the system's read-only root does."""
    resolved = os.path.realpath(path)
    holding = [m for m in result.mounts if inside(resolved, m.path)]
    deepest = max(holding, key=lambda m: len(m.path), default=None)
    return deepest is not None and deepest.kind in ("rw", "pin")


def describe(result: Plan) -> list[str]:
    """Lines for ``doctor``: what is writable, read-only and hidden."""
    names = {"rw": "writable", "pin": "writable", "ro": "read-only", "hide": "unreadable"}
    lines = [
        f"{'shadowed':10} {m.path} (writable: {result.sources[m.path]} in its place)"
        if m.kind == "shadow"
        else f"{names[m.kind]:10} {m.path}"
        for m in result.mounts
    ]
    lines += [
        f"uncovered  {path} (the parse-based check answers for it)" for path in result.uncovered
    ]
    return lines
