"""Snapshots of the uncommitted work, kept where the repository never shows them.

A snapshot is a git tree of the whole work tree (tracked changes and
untracked, non-ignored files) written without touching the index or the work
tree: a copy of the index in a temporary ``GIT_INDEX_FILE``, changed files
hashed byte for byte (``--no-filters``) into a private object store
(``GIT_OBJECT_DIRECTORY``) that borrows the repository's own objects through
``GIT_ALTERNATE_OBJECT_DIRECTORIES``.  The store lives in the git directory
(``.git/agentreflex/snapshots/N``), where ``git clean`` cannot reach, and no
ref names it: not in ``git log --all``, branches, gitk, push or fetch.
Snapshots are pruned by age and count; past the size bound a snapshot is
skipped with a note, never attempted.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import time

from agentreflex.core import fastjson
from agentreflex.core.worktree.observe import Repo, status_entries
from agentreflex.core.worktree.observe import in_repo as git

MAX_BYTES = 64 << 20
KEEP_COUNT = 50
KEEP_SECONDS = 7 * 86400
_NULL = "0" * 40


class Snapshot:
    """One saved state: number, when, what command, which files, and its tree."""

    def __init__(
        self,
        n: int,
        ts: float,
        command: str,
        session: str,
        tree: str = "",
        files: list[str] | None = None,
        skipped: str = "",
        fingerprint: str = "",
    ) -> None:
        self.n, self.ts, self.command, self.session = n, ts, command, session
        self.tree, self.files, self.skipped = tree, files or [], skipped
        self.fingerprint = fingerprint

    def to_json(self) -> dict[str, object]:
        return dict(
            n=self.n,
            ts=self.ts,
            command=self.command,
            session=self.session,
            tree=self.tree,
            files=self.files,
            skipped=self.skipped,
            fingerprint=self.fingerprint,
        )


def store_dir(repo: Repo) -> str:
    return os.path.join(repo.common_dir, "agentreflex", "snapshots")


def _env(repo: Repo, snap_dir: str, index: str | None = None) -> dict[str, str]:
    env = {
        "GIT_OBJECT_DIRECTORY": os.path.join(snap_dir, "objects"),
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": repo.objects,
        # a snapshot is written far more often than read: zlib level 1, not 6 (cost ~1/3)
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.looseCompression",
        "GIT_CONFIG_VALUE_0": "1",
    }
    if index:
        env["GIT_INDEX_FILE"] = index
    return env


def _next_number(root: str) -> int:
    numbers = [int(d) for d in _listdir(root) if d.isdigit()]
    return max(numbers, default=0) + 1


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def _seed_index(repo: Repo, index: str, env: dict[str, str]) -> bool:
    """The temporary index: a copy of the real one, or HEAD's tree when that is unreadable."""
    with contextlib.suppress(OSError):  # no index yet: the check below falls back
        shutil.copyfile(repo.index, index)
    check = git(repo, ["ls-files", "--stage", "--", ":(top)nonexistent"], env=env)
    if check is not None and check.returncode == 0:
        return True
    if os.path.exists(index):  # corrupt: start again from HEAD (or nothing, in a new repository)
        os.unlink(index)
    head = git(repo, ["read-tree", "HEAD"], env=env)
    return head is not None and (head.returncode == 0 or _no_head(repo))


def _no_head(repo: Repo) -> bool:
    res = git(repo, ["rev-parse", "--verify", "-q", "HEAD"])
    return res is not None and res.returncode == 1


def _capture_list(repo: Repo, entries: dict[str, str]) -> tuple[list[str], list[str], int]:
    """Paths to hash (present and changed), paths to drop (gone), total bytes to hash."""
    present: list[str] = []
    gone: list[str] = []
    size = 0
    for path in entries:
        try:
            st = os.lstat(os.path.join(repo.top, path))
        except OSError:
            gone.append(path)
            continue
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            continue  # a submodule or nested repository (not ours to save), a fifo, a socket
        present.append(path)
        size += st.st_size
    return present, gone, size


SMALL_BLOB = 64 << 10  # compressed (zlib level 1); bigger blobs are stored (level 0)


def _hash(repo: Repo, paths: list[str], env: dict[str, str]) -> list[str] | None:
    """Blob ids for ``paths``, written to the private store (symlinks as their target).

    Written here, not by ``git hash-object``: a loose object is
    ``zlib("blob <size>\\0" + bytes)`` under its SHA-1, which every git reads,
    and hashing in process spares a process per call and git's per-object
    temporary files.  Big blobs are stored uncompressed (zlib level 0):
    compressing 10 MB costs ~100 ms here, storing it ~15 ms, and a snapshot
    is pruned within days.  A SHA-256 repository is left to git.
    """
    if _object_format(repo) != "sha1":
        return _hash_with_git(repo, paths, env)
    store = env["GIT_OBJECT_DIRECTORY"]
    ids: list[str] = []
    for p in paths:
        data = _read_bytes(os.path.join(repo.top, p))
        if data is None:
            return None
        ids.append(_write_blob(store, repo.objects, data))
    return ids


def _object_format(repo: Repo) -> str:
    """ "sha1" unless the repository's config says otherwise (read, never run)."""
    try:
        with open(os.path.join(repo.common_dir, "config"), "rb") as fh:
            text = fh.read(1 << 20).lower()
    except OSError:
        return "sha1"
    return "other" if b"objectformat" in text else "sha1"


def _read_bytes(path: str) -> bytes | None:
    """A regular file's bytes or a symlink's target; None for anything else."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return os.fsencode(os.readlink(path))
        if not stat.S_ISREG(st.st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)


def _write_blob(store: str, borrowed: str, data: bytes) -> str:
    """Write one loose blob into ``store`` (unless it is already there or borrowed); its id."""
    import hashlib
    import zlib

    header = b"blob %d\0" % len(data)
    h = hashlib.sha1(header, usedforsecurity=False)
    h.update(data)
    oid = h.hexdigest()
    rel = os.path.join(oid[:2], oid[2:])
    target = os.path.join(store, rel)
    if os.path.exists(target) or os.path.exists(os.path.join(borrowed, rel)):
        return oid
    z = zlib.compressobj(1 if len(data) <= SMALL_BLOB else 0)
    body = z.compress(header) + z.compress(data) + z.flush()
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f"tmp_obj_{os.getpid()}_{oid[2:10]}")
    with open(tmp, "wb") as fh:
        fh.write(body)
    os.replace(tmp, target)
    return oid


def _hash_with_git(repo: Repo, paths: list[str], env: dict[str, str]) -> list[str] | None:
    """:func:`_hash` through ``git hash-object`` (any object format)."""
    plain = [p for p in paths if not os.path.islink(os.path.join(repo.top, p))]
    ids: dict[str, str] = {}
    if plain:
        res = git(
            repo,
            ["hash-object", "-w", "--no-filters", "--stdin-paths"],
            env=env,
            data="".join(p + "\n" for p in plain).encode("utf-8", "surrogateescape"),
            timeout=30.0,
        )
        if res is None or res.returncode != 0:
            return None
        ids.update(zip(plain, res.stdout.decode().split(), strict=False))
    for p in paths:
        if p not in ids:
            target = os.readlink(os.path.join(repo.top, p)).encode("utf-8", "surrogateescape")
            res = git(repo, ["hash-object", "-w", "--stdin"], env=env, data=target)
            if res is None or res.returncode != 0:
                return None
            ids[p] = res.stdout.decode().strip()
    return [ids[p] for p in paths] if len(ids) == len(paths) else None


def _mode(repo: Repo, path: str) -> str:
    st = os.lstat(os.path.join(repo.top, path))
    if stat.S_ISLNK(st.st_mode):
        return "120000"
    return "100755" if st.st_mode & 0o111 else "100644"


def take(
    repo: Repo,
    command: str,
    session: str,
    max_bytes: int = MAX_BYTES,
    fingerprint: str = "",
    entries: dict[str, str] | None = None,
) -> Snapshot | None:
    """Save the work tree's uncommitted state; None when git cannot be asked at all.

    ``fingerprint``: the work tree's, when known; equal to the newest
    snapshot's, that snapshot already holds this state and is answered.
    ``entries``: the status the caller just read (path -> letters), which
    spares a second ``git status``; when that quick way fails (an index
    git cannot read), the careful way starts again from HEAD.
    """
    root = store_dir(repo)
    os.makedirs(root, exist_ok=True)
    prune(repo)
    kept = listing(repo)
    if fingerprint and kept and kept[-1].fingerprint == fingerprint and kept[-1].tree:
        return kept[-1]
    n = _next_number(root)
    snap = Snapshot(n, time.time(), command[:500], session, fingerprint=fingerprint)
    snap_dir = os.path.join(root, str(n))
    os.makedirs(os.path.join(snap_dir, "objects"), exist_ok=True)
    index = os.path.join(snap_dir, "index")
    env = _env(repo, snap_dir, index)
    try:
        done = entries is not None and _capture(repo, snap, env, entries, max_bytes)
        if not done and not _capture(repo, snap, env, None, max_bytes):
            _give_up(snap_dir)
            return None
        return _save(snap_dir, snap)
    finally:
        if os.path.exists(index):
            os.unlink(index)


def _capture(
    repo: Repo, snap: Snapshot, env: dict[str, str], entries: dict[str, str] | None, limit: int
) -> bool:
    """Fill ``snap`` (its tree, or why it was skipped); False when git failed."""
    index = env["GIT_INDEX_FILE"]
    if entries is None:
        if not _seed_index(repo, index, env):
            return False
        entries = status_entries(repo, env)
        if entries is None:
            return False
    else:
        try:
            shutil.copyfile(repo.index, index)
        except OSError:
            return False
    present, gone, size = _capture_list(repo, entries)
    if size > limit:
        snap.skipped = f"{size} bytes of uncommitted work is over the {limit}-byte bound"
        snap.files = sorted(present)[:200]
        return True
    tree = _write_tree(repo, present, gone, env)
    if tree is None:
        return False
    snap.tree, snap.files = tree, sorted(present + gone)
    return True


def _write_tree(repo: Repo, present: list[str], gone: list[str], env: dict[str, str]) -> str | None:
    ids = _hash(repo, present, env)
    if ids is None:
        return None
    lines = [f"{_mode(repo, p)} {i}\t{p}\n" for p, i in zip(present, ids, strict=True)]
    lines += [f"0 {_NULL}\t{p}\n" for p in gone]
    if lines:
        res = git(
            repo,
            ["update-index", "--index-info"],
            env=env,
            data="".join(lines).encode("utf-8", "surrogateescape"),
            timeout=30.0,
        )
        if res is None or res.returncode != 0:
            return None
    res = git(repo, ["write-tree"], env=env)
    if res is None or res.returncode != 0:
        return None
    return res.stdout.decode().strip()


def _give_up(snap_dir: str) -> None:
    shutil.rmtree(snap_dir, ignore_errors=True)


def _save(snap_dir: str, snap: Snapshot) -> Snapshot:
    tmp = os.path.join(snap_dir, "meta.json.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(fastjson.dumps(snap.to_json()))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, os.path.join(snap_dir, "meta.json"))
    return snap


def current_blobs(repo: Repo, paths: list[str]) -> dict[str, str]:
    """Blob ids of the regular files among ``paths`` as they are now (nothing written)."""
    plain = [p for p in paths if os.path.isfile(os.path.join(repo.top, p))]
    if not plain:
        return {}
    res = git(
        repo,
        ["hash-object", "--no-filters", "--stdin-paths"],
        data="".join(p + "\n" for p in plain).encode("utf-8", "surrogateescape"),
        timeout=30.0,
    )
    if res is None or res.returncode != 0:
        return {}
    return dict(zip(plain, res.stdout.decode().split(), strict=False))


def record_after(repo: Repo, n: int, paths: list[str]) -> None:
    """What the command run after snapshot ``n`` left in ``paths``: undo may overwrite it.

    Without this, a file the command rewrote (not reset to HEAD) would look
    like newer work to ``agentreflex undo`` and be refused.
    """
    path = os.path.join(store_dir(repo), str(n), "after.json")
    after = read_after(repo, n)
    after.update(current_blobs(repo, paths))
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(fastjson.dumps(after))
    os.replace(tmp, path)


def read_after(repo: Repo, n: int) -> dict[str, str]:
    try:
        with open(os.path.join(store_dir(repo), str(n), "after.json"), encoding="utf-8") as fh:
            data = fastjson.loads(fh.read())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def listing(repo: Repo) -> list[Snapshot]:
    """Every snapshot kept for this repository, oldest first."""
    root = store_dir(repo)
    out: list[Snapshot] = []
    for d in sorted((d for d in _listdir(root) if d.isdigit()), key=int):
        try:
            with open(os.path.join(root, d, "meta.json"), encoding="utf-8") as fh:
                out.append(Snapshot(**fastjson.loads(fh.read())))
        except (OSError, ValueError, TypeError):
            continue
    return out


def prune(repo: Repo, keep: int = KEEP_COUNT, max_age: float = KEEP_SECONDS) -> None:
    """Drop snapshots older than ``max_age`` and all but the newest ``keep``."""
    snaps = listing(repo)
    cutoff = time.time() - max_age
    doomed = [s for s in snaps if s.ts < cutoff] + snaps[: max(0, len(snaps) - keep)]
    for s in doomed:
        shutil.rmtree(os.path.join(store_dir(repo), str(s.n)), ignore_errors=True)
