"""The git folders of a project that is a linked work tree, taken only where git made them.

Why: a project made by ``git worktree add ../app-feat`` (and by ``claude
--worktree``, Codex's app, Conductor, claude-squad: one work tree per agent)
has a ``.git`` *file*, ``gitdir: <main>/.git/worktrees/NAME``.  Everything
``git add``, ``git commit`` or ``git stash`` writes is there (the work tree's
index and HEAD) and in the repository's common folder ``<main>/.git``
(objects, refs, logs, packed-refs, and the ``*.lock`` files git renames into
it), both outside the project and read-only with the rest of home: no commit
could be made in the boundary (red-team rt83).  So the boundary makes them
writable, as an ordinary project's ``.git`` is, and holds read-only in them
what it holds in an ordinary one (settings, hooks: the same policy entries,
``{git}``).

The ``.git`` file is a command's to write, so it is taken at its word only
where git itself made the pair: a regular file (no link), whose folder is
``<common>/worktrees/<name>`` of a repository (``HEAD``, ``objects/``,
``refs/``) whose ``commondir`` leads back to that common folder and whose
``gitdir`` names this very ``.git``; no link on the way to either (the paths
as spelled are the paths resolved), and a common folder whose work tree is
not home, nor above it, nor inside a path the guard holds.  A forged pointer
(at ``~/.ssh``, at a folder in ``/tmp`` whose ``commondir`` names home) makes
nothing writable.  Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import stat

from agentreflex.core.util.fsutil import inside, read_regular
from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

__all__ = [
    "LAID_OUT",
    "OTHERS_STATE",
    "Linked",
    "linked",
    "others_branches",
    "others_state",
    "remembered",
    "work_trees",
]

_POINTER = "gitdir: "
# the other work trees' own files in the common folder (the main one's in it, each linked
# one's in its folder there) that decide what git later runs or writes in their work
# trees: a stopped rebase's todo list and a cherry-pick's or revert's (their `exec` lines
# run at the user's `git rebase --continue` there, git-rebase(1)), the index (what the
# user's next `git commit` there commits) and HEAD (what `git reset --hard` writes).  The
# project keeps its own in its own folder, so the boundary holds these (red-team rt87)
LAID_OUT = ("rebase-merge", "rebase-apply", "sequencer")  # none unless a git stopped there
OTHERS_STATE = ("HEAD", "index", *LAID_OUT)


@record(frozen=True)
class Linked:
    """A linked work tree's git folders: the repository's shared one and its own in it."""

    common: str  # <main>/.git: objects, refs, the settings and hooks
    own: str  # <common>/worktrees/NAME: its index, HEAD, logs, config.worktree


# what linked() found, by (project, home), while a plan or a look is worked out (remembered)
_KNOWN: contextvars.ContextVar[dict[tuple[str, str], Linked | None] | None]
_KNOWN = contextvars.ContextVar("linked", default=None)


@contextlib.contextmanager
def remembered() -> Iterator[None]:
    """Within it, :func:`linked` reads each project's git folders once.

    Why: one plan asks for them twice and one look six times or more (the
    watched paths, git's settings, the inside repositories' folders, pointers
    and held settings), about 0.25 ms each in a linked work tree (rt91).  Only
    within one plan or one look: a command may rewrite the folders between two,
    and the daemon answers several calls at once (a context variable is its
    thread's own).
    """
    if _KNOWN.get() is not None:
        yield
        return
    token = _KNOWN.set({})
    try:
        yield
    finally:
        _KNOWN.reset(token)


def linked(project: str, home: str, held: Sequence[str] = ()) -> Linked | None:
    """``project``'s git folders when it is a linked work tree git made, else None.

    ``held``: paths the guard holds (its own files, the hosts' settings); a common
    folder inside one is not taken.
    """
    known, key = _KNOWN.get(), (project, home)
    if known is None or key not in known:
        found = _found(project, home)
        if known is not None:
            known[key] = found
    else:
        found = known[key]
    if found is None or any(inside(found.common, os.path.normpath(h)) for h in held):
        return None
    return found


def _found(project: str, home: str) -> Linked | None:
    """:func:`linked` with no held paths."""
    dot = os.path.join(os.path.realpath(project), ".git")
    own = _named(dot, dot)
    if own is None or os.path.realpath(own) != own:
        return None
    common = _named(os.path.join(own, "commondir"), own, prefix="")
    if common is None or os.path.realpath(common) != common:
        return None
    if os.path.dirname(own) != os.path.join(common, "worktrees"):
        return None  # git's layout: the work tree's folder is in the common one
    if _named(os.path.join(own, "gitdir"), own, prefix="") != os.path.normpath(dot):
        return None  # the repository does not know this work tree as its own
    if not _repository(common) or _refused(common, home):
        return None
    return Linked(common, own)


def _named(path: str, base: str, prefix: str = _POINTER) -> str | None:
    """The folder the small file ``path`` names (after ``prefix``), read as git reads it
    (one line, line ends stripped; relative to ``base``'s folder for a ``.git`` file,
    to ``base`` itself otherwise), never through a link; None if there is none."""
    data = read_regular(path, 4096, follow=False)
    if data is None or len(data) > 4096 or b"\0" in data:
        return None
    text = data.decode("utf-8", "surrogateescape")
    if not text.startswith(prefix):
        return None
    value = text[len(prefix) :].rstrip("\r\n")
    if not value or "\n" in value:
        return None
    folder = os.path.dirname(base) if prefix else base
    return os.path.normpath(os.path.join(folder, value))


def _repository(common: str) -> bool:
    """Is ``common`` a repository's folder as git makes one (no link in it where git looks)?"""
    try:
        head = os.lstat(os.path.join(common, "HEAD")).st_mode
        objects = os.lstat(os.path.join(common, "objects")).st_mode
        refs = os.lstat(os.path.join(common, "refs")).st_mode
    except OSError:
        return False
    return stat.S_ISREG(head) and stat.S_ISDIR(objects) and stat.S_ISDIR(refs)


def _refused(common: str, home: str) -> bool:
    """Is ``common`` one the boundary must not open: home's own repository (``~/.git``, a
    dotfiles checkout of home), or one at or above home?  (One in a held path is refused
    by :func:`linked`.)"""
    return inside(os.path.normpath(home), os.path.dirname(common))


def work_trees(common: str) -> list[str]:
    """The linked work trees' folders in ``common`` (``worktrees/NAME``), never through a link."""
    folder = os.path.join(common, "worktrees")
    try:
        names = sorted(os.listdir(folder)) if not os.path.islink(folder) else []
    except OSError:
        return []
    paths = [os.path.join(folder, n) for n in names]
    return [p for p in paths if os.path.isdir(p) and not os.path.islink(p)]


def others_state(found: Linked, names: Sequence[str] = OTHERS_STATE) -> list[str]:
    """The ``names`` paths of the work trees other than ``found``'s: the main one's in the
    common folder, each other linked one's in its folder there."""
    folders = [found.common, *(w for w in work_trees(found.common) if w != found.own)]
    return [os.path.join(f, name) for f in folders for name in names]


# where a work tree's git folder names the branch it has checked out: HEAD ("ref:
# refs/heads/NAME"), and a stopped rebase's head-name (the branch its end updates)
_NAMES_BRANCH = ("HEAD", "rebase-merge/head-name", "rebase-apply/head-name")


def others_branches(found: Linked) -> list[str]:
    """The loose ref files (``<common>/refs/heads/NAME``, regular files) of the branches the
    work trees other than ``found``'s have checked out, not the project's own.

    Why: refs are shared by every work tree, and a command could move the branch the
    main checkout has checked out; the user's next ``git reset --hard`` or ``git status``
    there takes the command's commit (red-team rt91).  A branch that is only in
    ``packed-refs`` has no file to hold (see SECURITY.md, "linked work tree").
    """
    heads = os.path.join(found.common, "refs", "heads")
    mine = {_branch(os.path.join(found.own, name)) for name in _NAMES_BRANCH}
    named = [_branch(path) for path in others_state(found, _NAMES_BRANCH)]
    paths = [os.path.normpath(os.path.join(heads, n)) for n in named if n and n not in mine]
    return [p for p in dict.fromkeys(paths) if p != heads and inside(p, heads) and _regular(p)]


def _branch(path: str) -> str:
    """The branch (``NAME`` of ``refs/heads/NAME``) the small file ``path`` names, or ""."""
    data = read_regular(path, 1024, follow=False)
    text = data.decode("utf-8", "surrogateescape").strip() if data else ""
    text = text.removeprefix("ref: ")
    return text[len("refs/heads/") :] if text.startswith("refs/heads/") else ""


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False
