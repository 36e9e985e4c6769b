"""Put a snapshot's files back, refusing to overwrite work newer than the discard.

A file may be overwritten when it is missing, already equal to the snapshot,
equal to what the repository holds for it now (HEAD or the index: what a
discard leaves behind; only when a git object really holds those bytes), or equal to what the commands run after the
snapshot left in it (recorded by the post-tool hook).  Anything else was written after the
snapshot and is newer work: reported, and left alone unless ``force``.
Blobs are written byte for byte (no smudge filter runs), with the saved mode.
"""

from __future__ import annotations

import difflib
import functools
import os
import stat
from dataclasses import dataclass, field

from agentreflex.core.util import fsutil
from agentreflex.core.worktree.observe import Repo
from agentreflex.core.worktree.observe import in_repo as git
from agentreflex.core.worktree.snapshot import (
    Snapshot,
    _env,
    current_blobs,
    read_after,
    store_dir,
)


@dataclass
class Plan:
    """What a restore does: files to write, files already right, files it refuses (newer
    work, a path that is not in the work tree, or one the boundary holds).

    ``lone``: files whose bytes HEAD or the index name but no object holds (a missing
    object, or one that does not hash to its id).  Writing over them would lose the only
    copy: an index entry is the agent's to set without writing its object (``git
    update-index --cacheinfo`` with the hash of the user's newer work), and git reads a
    loose object without checking it.
    """

    write: list[str] = field(default_factory=list)
    same: list[str] = field(default_factory=list)
    newer: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    lone: list[str] = field(default_factory=list)
    diff: str = ""
    # the snapshot's tree could not be read (its objects gone or damaged): nothing planned
    unreadable: bool = False
    # paths asked for that the snapshot does not hold (nothing there to restore)
    missing: list[str] = field(default_factory=list)
    # paths whose folder is a link now (never written: the user removes the link first)
    linked: list[str] = field(default_factory=list)


def _tree_entries(repo: Repo, env: dict[str, str], ref: str) -> dict[str, tuple[str, str]]:
    return _read_tree(repo, env, ref) or {}


def _read_tree(repo: Repo, env: dict[str, str], ref: str) -> dict[str, tuple[str, str]] | None:
    """path -> (mode, blob) of every file of ``ref``; None when git cannot read it."""
    res = git(
        repo, ["ls-tree", "-r", "-z", "--full-tree", "--end-of-options", ref], env=env, timeout=30.0
    )
    out: dict[str, tuple[str, str]] = {}
    if res is None or res.returncode != 0:
        return None
    for raw in res.stdout.split(b"\0"):
        if not raw:
            continue
        meta, _, path = raw.decode("utf-8", "surrogateescape").partition("\t")
        mode, kind, oid = meta.split(" ")
        if kind == "blob":
            out[path] = (mode, oid)
    return out


def _index_blobs(repo: Repo) -> tuple[dict[str, str], set[str]]:
    """The index's blob per path, and the paths outside a sparse checkout (skip-worktree)."""
    res = git(repo, ["ls-files", "-t", "-s", "-z"], timeout=30.0)
    blobs: dict[str, str] = {}
    sparse: set[str] = set()
    if res is None or res.returncode != 0:
        return blobs, sparse
    for raw in res.stdout.split(b"\0"):
        if raw:
            meta, _, path = raw.decode("utf-8", "surrogateescape").partition("\t")
            tag, _, stage = meta.partition(" ")
            blobs[path] = stage.split(" ")[1]
            if tag == "S":
                sparse.add(path)
    return blobs, sparse


def wanted(path: str, only: list[str]) -> bool:
    """Is ``path`` one of ``only`` or under one (every path when ``only`` is empty)?"""
    # "." (``agentreflex undo N .`` from the top) is every path
    return not only or any(
        o == "." or path == o or path.startswith(o.rstrip("/") + "/") for o in only
    )


def plan(repo: Repo, snap: Snapshot, only: list[str], force: bool = False) -> Plan:
    """Compare the snapshot with the work tree now (``only``: repository-relative paths)."""
    env = _env(repo, os.path.join(store_dir(repo), str(snap.n)))
    every = _read_tree(repo, env, snap.tree)
    if every is None:
        return Plan(unreadable=True)
    saved = {p: e for p, e in every.items() if wanted(p, only)}
    missing = [o for o in only if not any(wanted(p, [o]) for p in saved)]
    now = current_blobs(repo, list(saved))
    after = read_after(repo, snap.n)
    known, sparse = _index_blobs(repo)
    head = {p: oid for p, (_, oid) in _tree_entries(repo, {}, "HEAD").items()}
    out = Plan(missing=missing)
    from agentreflex.core.contain.held import env_held, held_around, is_held

    held, top = held_around(repo.top), os.path.realpath(repo.top)
    for path, (_, oid) in sorted(saved.items()):
        if path in sparse and path not in snap.files:
            # outside the sparse checkout: never written to the work tree; but one the
            # snapshot saw there (a --skip-worktree file, observe._flagged) is put back
            continue
        target = work_tree_path(repo.top, path)
        if target is None:
            (out.linked if _link_on_the_way(repo.top, path) else out.outside).append(path)
            continue
        saved_bytes = functools.partial(_blob_or_empty, repo, env, oid)
        if is_held(target, held, top) or env_held(target, saved_bytes):
            out.held.append(path)  # even with force: the boundary holds it (contain/held.py)
            continue
        cur = now.get(path)
        if cur == oid:
            out.same.append(path)
        elif cur is None or force or cur == after.get(path):
            out.write.append(path)
        elif cur in (known.get(path), head.get(path)):
            (out.write if _blob(repo, env, cur) is not None else out.lone).append(path)
        else:
            out.newer.append(path)
    return out


def _blob_or_empty(repo: Repo, env: dict[str, str], oid: str) -> bytes:
    return _blob(repo, env, oid) or b""


def _blob(repo: Repo, env: dict[str, str], oid: str) -> bytes | None:
    """The blob's bytes, only when they hash to ``oid``: git reads a loose object without
    checking it, and one the snapshot borrowed from the repository (a tree of HEAD's, an
    older snapshot's blob) is the agent's to rewrite (red-team rt31)."""
    import hashlib

    res = git(repo, ["cat-file", "blob", oid], env=env, timeout=30.0)
    if res is None or res.returncode != 0:
        return None
    algorithm = {40: "sha1", 64: "sha256"}.get(len(oid))
    if algorithm is None:
        return None
    found = hashlib.new(algorithm, b"blob %d\0" % len(res.stdout), usedforsecurity=False)
    found.update(res.stdout)
    return res.stdout if found.hexdigest() == oid else None


def show_diff(repo: Repo, snap: Snapshot, paths: list[str], limit: int = 200_000) -> str:
    """A unified diff from the work tree now to the snapshot, for ``--dry-run``."""
    env = _env(repo, os.path.join(store_dir(repo), str(snap.n)))
    saved = _tree_entries(repo, env, snap.tree)
    chunks: list[str] = []
    for path in paths:
        data = _blob(repo, env, saved[path][1]) or b""
        try:
            with open(os.path.join(repo.top, path), "rb") as fh:
                cur = fh.read(limit)
        except OSError:
            cur = b""
        a = cur.decode("utf-8", "replace").splitlines(keepends=True)
        b = data[:limit].decode("utf-8", "replace").splitlines(keepends=True)
        chunks.extend(difflib.unified_diff(a, b, f"a/{path}", f"b/{path}"))
    return "".join(chunks)[:limit]


def apply(repo: Repo, snap: Snapshot, paths: list[str]) -> list[str]:
    """Write ``paths`` from the snapshot; the ones that could not be written.

    Each path's place is resolved again here and checked again against what the boundary
    holds: a link a background process made once :func:`plan` had checked (``a/b ->
    ../.claude``) would otherwise lead the write to a held file (red-team rt34).  The write
    then opens that same resolved folder with no link on the way (:func:`_write`).
    """
    from agentreflex.core.contain.held import env_held, held_around, is_held

    env = _env(repo, os.path.join(store_dir(repo), str(snap.n)))
    saved = _tree_entries(repo, env, snap.tree)
    held, top = held_around(repo.top), os.path.realpath(repo.top)
    failed: list[str] = []
    for path in paths:
        mode, oid = saved[path]
        target = work_tree_path(repo.top, path)
        data = _blob(repo, env, oid) if target else None
        if (
            data is None
            or target is None
            or is_held(target, held, top)
            or env_held(target, functools.partial(bytes, data))
            or not _write(target, mode, data)
        ):
            failed.append(path)
    return failed


def _link_on_the_way(top: str, path: str) -> str:
    """The first folder of ``path`` (in the work tree) that is a link now, or ""."""
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        folder = "/".join(parts[:i])
        if folder in ("", ".", "..") or folder.lower() == ".git":
            return ""
        if os.path.islink(os.path.join(top, folder)):
            return folder
    return ""


def file_on_the_way(top: str, path: str) -> str:
    """The first folder of ``path`` that is something else now (a file a command put
    there), or "": undo makes no folder where one is, and says which (red-team rt42)."""
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        folder = "/".join(parts[:i])
        try:
            st = os.lstat(os.path.join(top, folder))
        except OSError:
            return ""  # missing: undo makes it
        if not stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode):
            return folder
    return ""


def work_tree_path(top: str, path: str) -> str | None:
    """Where ``path`` of a snapshot is written, or None when that is not in the work tree.

    Why: a snapshot's tree is written outside any boundary, by the user's own
    ``agentreflex undo``.  A tree holding ``..`` or ``.git/hooks/pre-commit``, or a
    path through a folder since replaced by a link (``lib -> ~``, or ``src -> lib``
    inside the work tree), would write where git never puts a work-tree file: home,
    a hook git runs, or another folder's files.
    """
    parts = path.split("/")
    if path.startswith("/") or any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
        return None
    real_top = os.path.realpath(top)
    target = os.path.join(real_top, path)
    folder = os.path.realpath(os.path.dirname(target))
    if folder != os.path.dirname(target):
        # a folder on the way is a link now, wherever it leads: git never writes a path
        # beyond a link, and ``src -> lib`` had undo write src's files over lib's
        # (red-team rt42)
        return None
    return os.path.join(folder, parts[-1])


def _write(target: str, mode: str, data: bytes) -> bool:
    """``data`` written at ``target`` as git would (a file, executable or not, or a link),
    from its folder opened with no link on the way and under a fresh name renamed over
    (:func:`~agentreflex.core.util.fsutil.replace_in_place`): a process the agent left
    running may swap a folder on the way, or the file itself, for a link to the user's
    home between :func:`work_tree_path`'s check and this write."""
    try:
        fsutil.replace_in_place(
            target, data, 0o755 if mode == "100755" else 0o644, make=True, link=mode == "120000"
        )
    except OSError:
        return False
    return True
