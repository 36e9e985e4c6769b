"""A cheap fingerprint of a git work tree, and what changed between two.

The fingerprint is git's own view: ``git status --porcelain=v2`` (the index's
stat data decides which tracked files changed; untracked, non-ignored files
are listed) plus each listed path's ``lstat``.  Files git reports clean are
not in it, so its size follows the uncommitted work, not the repository.
Two fingerprints diff into the files created, modified and deleted between
them: a file that leaves the listing was put back (modified, or created if
it had been deleted), one that joins it changed.
"""

from __future__ import annotations

import os
import subprocess
import sys  # loaded by safegit anyway
import time

from agentreflex.core.worktree.safegit import filter_overrides, git, work_tree_top

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import TypeVar

    _T = TypeVar("_T")

MAX_STATUS_BYTES = 32 << 20
MAX_LISTED = 200  # paths kept per kind in a recorded change

# one entry: (status letters, lstat signature (size, ctime, inode, mode) or None when absent)
Entry = tuple[str, tuple[int, int, int, int] | None]


class Repo:
    """Where a work tree's git lives (all absolute), and the ``-c`` pairs blanking its filters.

    A plain class: ``dataclasses`` costs a hook process an import it need not pay.
    """

    __slots__ = ("common_dir", "env", "filters", "git_dir", "index", "objects", "top")

    def __init__(
        self,
        top: str,
        git_dir: str,
        common_dir: str,
        index: str,
        objects: str,
        filters: list[str],
        env: dict[str, str] | None = None,
    ) -> None:
        self.top, self.git_dir, self.common_dir = top, git_dir, common_dir
        self.index, self.objects, self.filters = index, objects, filters
        # what every git run in it is told besides (a scratch repository's GIT_DIR:
        # :func:`scratch_repo`); empty for a repository git reads
        self.env = env or {}

    @property
    def scratch(self) -> bool:
        """Is this the guard's scratch stand-in for a repository git cannot read?"""
        return bool(self.env)


def find_repo(cwd: str) -> Repo | None:
    """The non-bare git work tree holding ``cwd``, or None (not one, bare, git failed)."""
    if _watch_enabled():
        from agentreflex.core.worktree import watch

        return watch.find_repo(cwd)
    return find_repo_uncached(cwd)


_REV_PARSE = [
    "rev-parse",
    "--path-format=absolute",
    "--show-toplevel",
    "--git-dir",
    "--git-common-dir",
    "--git-path",
    "index",
    "--git-path",
    "objects",
]


def find_repo_uncached(cwd: str) -> Repo | None:
    """:func:`find_repo` without the daemon's cache.

    The work tree is the folder holding the ``.git`` found above ``cwd``, never one a
    repository's ``core.worktree`` names, nor none because its ``core.bare`` says so:
    those settings are the agent's to write.  ``git config core.worktree ~`` had every
    later snapshot read the home folder, not the project, and undo restore nothing, or
    write the snapshot's files into a home that is itself a repository; ``git config
    core.bare true`` ended every snapshot (red-team rt42).  Every git the guard runs in the
    repository is told that folder (``GIT_WORK_TREE``, :func:`in_repo`)."""
    holder = work_tree_top(os.path.abspath(cwd)) if cwd and os.path.isdir(cwd) else ""
    if not holder:
        return None
    # rev-parse runs no filter: the overrides are read only for a real work tree
    res = git(cwd, _REV_PARSE)
    lines = res.stdout.decode("utf-8", "surrogateescape").splitlines() if res else []
    ok = res is not None and res.returncode == 0 and len(lines) == 5 and lines[0]
    while ok and _skipped(holder, lines[1]):
        # a ``.git`` folder git does not take for one (no HEAD, a garbled one): git went
        # on up and found the repository around it (red-team rt49: asked again with
        # ``holder`` as the work tree, that repository's index was read against it and
        # the snapshot held nothing).  Passed over as git passes it over: the repository
        # above lists its files as its own new files, and saves them with the rest.
        holder = work_tree_top(os.path.dirname(holder))
        if not holder:
            return None
    if not ok or os.path.realpath(lines[0]) != os.path.realpath(holder):
        # core.worktree elsewhere, or core.bare set: asked again from the folder holding
        # .git (its repository, never a bare one below it that cwd is in), told it is the
        # work tree; a .git git refuses there still answers no repository
        res = git(holder, _REV_PARSE, env={"GIT_WORK_TREE": os.path.realpath(holder)})
        if res is None or res.returncode != 0:
            return scratch_repo(holder)  # HEAD, refs or the index git refuses: see there
        lines = res.stdout.decode("utf-8", "surrogateescape").splitlines()
    filters = filter_overrides(cwd)
    if filters is None:
        return None
    if len(lines) != 5 or not lines[0]:
        return None
    top, git_dir, common_dir, index, objects = lines
    return Repo(top, git_dir, common_dir, index, objects, filters)


def _skipped(holder: str, git_dir: str) -> bool:
    """Did git pass over ``holder``'s ``.git`` folder for a repository above it?"""
    own = os.path.join(holder, ".git")
    if os.path.islink(own) or not os.path.isdir(own):
        return False  # a .git file names its repository: git never passes one over
    found = os.path.realpath(git_dir)
    return found != os.path.realpath(own) and not found.startswith(
        os.path.realpath(holder) + os.sep
    )


SCRATCH = "scratch"  # the guard's stand-in git folder, in .git/agentreflex/
_SCRATCH_HEAD = b"ref: refs/heads/agentreflex-scratch\n"
_SCRATCH_CONFIG = b"[core]\n\trepositoryformatversion = 0\n\tbare = false\n"


_SCRATCH_FILES = frozenset({"HEAD", "config", "objects", "refs"})


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def scratch_repo(top: str) -> Repo | None:
    """A stand-in for the repository at ``top`` that git refuses or cannot snapshot, or None.

    Why: an empty or garbled ``.git/HEAD`` (a crash or a full disk mid-write), a HEAD
    naming no object, or the refs gone: git refused the repository, no snapshot was
    taken, and the gate (which asks git what is uncommitted) let ``rm -rf src`` run; the
    work was lost (red-team rt49).  The snapshot needs no history: a git folder of the
    guard's own (``.git/agentreflex/scratch``: a HEAD on an unborn branch, a config it
    writes each time, nothing of the repository's config, hooks or filters read), with
    ``.git`` itself the snapshot store's home, sees the whole work tree as new files,
    and its ``.gitignore`` files still apply.  Only for a real ``.git`` folder (not a
    link, not a ``.git`` file naming another) that holds an ``objects`` folder."""
    import stat

    from agentreflex.core.util.fsutil import replace_in_place

    git_dir = os.path.join(top, ".git")
    try:
        for path in (git_dir, os.path.join(git_dir, "objects")):
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return None
        folder = os.path.join(git_dir, "agentreflex", SCRATCH)
        if any(os.path.islink(p) for p in (os.path.dirname(folder), folder)):
            return None  # a link on the way: never written where it leads
        inside = [_listdir(os.path.join(folder, part)) for part in ("objects", "refs")]
        if set(_listdir(folder)) - _SCRATCH_FILES or any(inside):
            # nothing but what this writes: a ``commondir``, ``info/exclude`` or
            # ``objects/info/alternates`` put there would name another repository's
            # config, hide files from the snapshot, or lend it objects
            import shutil

            shutil.rmtree(folder)
        for part in ("objects", "refs"):
            os.makedirs(os.path.join(folder, part), exist_ok=True)
        if os.path.realpath(folder) != os.path.join(
            os.path.realpath(git_dir), "agentreflex", SCRATCH
        ):
            return None  # a link on the way: never written where it leads
        replace_in_place(os.path.join(folder, "HEAD"), _SCRATCH_HEAD, 0o600)
        replace_in_place(os.path.join(folder, "config"), _SCRATCH_CONFIG, 0o600)
    except OSError:
        return None
    env = {"GIT_DIR": folder}
    res = git(top, ["rev-parse", "--git-dir"], env={**env, "GIT_WORK_TREE": top})
    if res is None or res.returncode != 0:
        return None
    filters = filter_overrides(top, env)
    if filters is None:
        return None
    return Repo(
        top,
        git_dir,
        git_dir,
        os.path.join(folder, "index"),
        os.path.join(git_dir, "objects"),
        filters,
        env,
    )


def in_repo(
    repo: Repo,
    args: list[str],
    *,
    env: dict[str, str] | None = None,
    timeout: float = 2.0,
    data: bytes | None = None,
) -> subprocess.CompletedProcess[bytes] | None:
    """:func:`git` at the work tree's top with its filter overrides, that top its work tree
    whatever the repository's ``core.worktree`` says (:func:`find_repo_uncached`)."""
    env = {**repo.env, **(env or {}), "GIT_WORK_TREE": repo.top}
    return git(repo.top, args, env=env, timeout=timeout, data=data, filters=repo.filters)


def ignored_under(repo: Repo, rels: list[str]) -> list[str] | None:
    """The ignored files and folders (a folder once, with ``/``) at or under ``rels``
    (paths from the top); None when git could not say.

    Why one place: no snapshot holds an ignored file, so a discard that reaches one is
    never relaxed (:mod:`relax`) and the question before it names them (:mod:`hook`)."""
    args = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]
    done = in_repo(repo, [*args, "--", *rels])
    if done is None or done.returncode != 0:
        return None
    return [p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def status_entries(
    repo: Repo,
    env: dict[str, str] | None = None,
    pathspecs: list[str] | None = None,
    untracked: bool = True,
) -> dict[str, str] | None:
    """path -> porcelain v2 letters ("?" for untracked), or None when git cannot tell.

    ``pathspecs``: only these paths (and what is under them), taken literally.
    ``untracked``: False lists the tracked changes alone (quick, whatever lies beside).
    """
    args = [
        "--literal-pathspecs",
        "status",
        "--porcelain=v2",
        "-z",
        "--untracked-files=all" if untracked else "--untracked-files=no",
        "--ignore-submodules=all",
        "--no-renames",
    ]
    if pathspecs:
        args += ["--", *pathspecs]
    res = in_repo(repo, args, env=env)
    if res is None or res.returncode != 0 or len(res.stdout) > MAX_STATUS_BYTES:
        return None
    out: dict[str, str] = {}
    for raw in res.stdout.split(b"\0"):
        line = raw.decode("utf-8", "surrogateescape")
        if line.startswith("? "):
            out[line[2:]] = "?"
        elif line[:2] in ("1 ", "u "):
            fields = line.split(" ", 10 if line[0] == "u" else 8)
            out[fields[-1]] = fields[1]
    hidden = _flagged(repo, env, pathspecs)
    if hidden is None:
        return None
    for path in hidden:
        if path not in out and os.path.lexists(os.path.join(repo.top, path)):
            out[path] = ".M"
    return out


def _flagged(
    repo: Repo, env: dict[str, str] | None, pathspecs: list[str] | None
) -> list[str] | None:
    """The tracked paths whose index entry has the assume-unchanged or skip-worktree bit.

    Why: ``git status`` takes such a file for unchanged without looking at it, and the
    index is the agent's to write.  A command set the bit on a tracked file
    (``git update-index --assume-unchanged``); the user's edits to it after that were
    in no fingerprint and no snapshot, and the next command's ``rm`` lost them for good
    (red-team rt34).  So each one that is there is listed as modified: the snapshot
    hashes it (a few files, where any), and its stat is in the fingerprint.

    The listing is one more git process on every status read (a quarter of it in this
    project's own repository), so the whole list is kept per index file, under the
    index's stat (:func:`_index_stamp`): git rewrites the index by renaming a new file
    over it, and nothing sets a file's ctime back.  ``env`` (a snapshot's own index)
    is never cached.
    """
    if env is not None:
        return _list_flagged(repo, env, pathspecs)
    now = time.time_ns()
    stamp = _index_stamp(repo.index)
    every = _cached_flagged(repo.index, stamp) if stamp else None
    if every is None:
        every = _list_flagged(repo, None, None)
        if every is None:
            return None
        # kept only for an index not rewritten while git read it, and last written a while
        # before: a write in the same clock tick as the last one could keep its ctime
        # (git's own "racy index" rule)
        if stamp and stamp == _index_stamp(repo.index) and now - stamp[4] > RACY_NS:
            _cache_flagged(repo.index, stamp, every)
    return [p for p in every if _within(p, pathspecs)] if pathspecs else every


def _list_flagged(
    repo: Repo, env: dict[str, str] | None, pathspecs: list[str] | None
) -> list[str] | None:
    args = ["--literal-pathspecs", "ls-files", "-z", "-v"]
    if pathspecs:
        args += ["--", *pathspecs]
    res = in_repo(repo, args, env=env)
    if res is None or res.returncode != 0 or len(res.stdout) > MAX_STATUS_BYTES:
        return None
    out: list[str] = []
    for raw in res.stdout.split(b"\0"):
        tag, _, path = raw.partition(b" ")
        # -v: "S" skip-worktree, a lowercase letter assume-unchanged ("s": both)
        if path and (tag == b"S" or tag.islower()):
            out.append(path.decode("utf-8", "surrogateescape"))
    return out


def _within(path: str, pathspecs: list[str]) -> bool:
    """``path`` is one of the literal ``pathspecs`` (from the top) or lies under one."""
    for spec in pathspecs:
        spec = spec.rstrip("/")
        if spec in ("", ".") or path == spec or path.startswith(spec + "/"):
            return True
    return False


RACY_NS = 100_000_000  # 0.1 s: many file systems stamp times by a clock tick of a few ms
MAX_CACHED_FLAGGED = 20_000  # a sparse checkout flags most of its files: listed again instead


def _index_stamp(index: str) -> list[int] | None:
    try:
        st = os.stat(index)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _flagged_cache_path(index: str) -> str:
    from agentreflex.core.state.userdirs import user_cache_dir
    from agentreflex.core.util.digest import sha256_hex

    return os.path.join(user_cache_dir(), f"flagged-{sha256_hex(index, 24)}.json")


def _cached_flagged(index: str, stamp: list[int]) -> list[str] | None:
    from agentreflex.core.util.fsutil import read_json

    copy = read_json(_flagged_cache_path(index), limit=MAX_STATUS_BYTES)
    if not isinstance(copy, dict) or copy.get("index") != index or copy.get("stamp") != stamp:
        return None
    paths = copy.get("paths")
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        return None
    return paths


def _cache_flagged(index: str, stamp: list[int], paths: list[str]) -> None:
    """Kept in the user's cache folder, which the gate guards and the boundary keeps read-only:
    a forged copy would hide a flagged file from every snapshot."""
    if len(paths) > MAX_CACHED_FLAGGED:
        return
    from agentreflex.core.util import fastjson
    from agentreflex.core.util.fsutil import atomic_write_bytes

    text = fastjson.dumps({"index": index, "stamp": stamp, "paths": paths}, separators=(",", ":"))
    path = _flagged_cache_path(index)
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        atomic_write_bytes(path, text.encode("utf-8", "surrogateescape"), durable=False)
    except (OSError, ValueError):
        pass  # a read-only cache folder: listed again next time


def _watch_enabled() -> bool:
    """True in the daemon, which keeps a cache between calls (:mod:`.watch`)."""
    mod = sys.modules.get("agentreflex.core.worktree.watch")
    return mod is not None and bool(getattr(mod, "_enabled", False))


def _stat(path: str) -> tuple[int, int, int, int] | None:
    """(size, ctime, inode, mode): the ctime, not the mtime, which a program puts back
    (``touch -r``, ``os.utime``) after a same-size edit of a file git listed before and
    after, and the look after the command saw no change (red-team rt42); every write
    moves the ctime, and no program sets it."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_size, st.st_ctime_ns, st.st_ino, st.st_mode)


def fingerprint(repo: Repo, skip: str = "", full: bool = False) -> dict[str, Entry] | None:
    """The listed paths with their letters and stat; ``skip``: a folder to leave out.

    ``full``: git's whole status even in the daemon (after code the agent ran, which
    can write where no watch reports it: :mod:`.watch`)."""
    if _watch_enabled():
        from agentreflex.core.worktree import watch

        entries = watch.status_entries(repo, skip, full)
    else:
        entries = status_entries(repo)
    if entries is None:
        return None
    prefix = skip.rstrip("/") + "/" if skip else ""
    return {
        p: (xy, _stat(os.path.join(repo.top, p)))
        for p, xy in checked(entries.items())
        if not (prefix and (p + "/").startswith(prefix))
    }


def checked(items: Iterable[_T], every: int = 1024) -> Iterator[_T]:
    """``items``, with the thread's deadline checked every ``every`` (a stat or a read
    each): the look is given up between files, on threads that have no timer too."""
    from agentreflex.core.util import deadline

    for n, item in enumerate(items):
        if not n % every:
            deadline.check()
        yield item


class Changes:
    """The files one tool call created, modified and deleted (repository-relative)."""

    def __init__(self) -> None:
        self.created: list[str] = []
        self.modified: list[str] = []
        self.deleted: list[str] = []

    def __bool__(self) -> bool:
        return bool(self.created or self.modified or self.deleted)

    def to_json(self) -> dict[str, list[str]]:
        return {
            "created": sorted(self.created)[:MAX_LISTED],
            "modified": sorted(self.modified)[:MAX_LISTED],
            "deleted": sorted(self.deleted)[:MAX_LISTED],
        }


def diff(before: dict[str, Entry], after: dict[str, Entry]) -> Changes:
    """What happened to each path between two fingerprints."""
    out = Changes()
    for path in before.keys() | after.keys():
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        old_there = old is None or old[1] is not None  # not listed: clean, so present
        new_there = new is None or new[1] is not None
        if old is not None and old[0] == "?" and new is None:
            out.deleted.append(path)  # an untracked file is not listed once gone
        elif old_there and not new_there:
            out.deleted.append(path)
        elif (not old_there and new_there) or (old is None and new is not None and new[0] == "?"):
            out.created.append(path)
        else:
            out.modified.append(path)
    return out
