"""Snapshots of the uncommitted work, kept where the repository never shows them.

A snapshot is a git tree of the whole work tree (tracked changes and
untracked, non-ignored files) written without touching the index or the work
tree: a copy of the index in a temporary ``GIT_INDEX_FILE``, changed files
hashed byte for byte (``--no-filters``) into a private object store
(``GIT_OBJECT_DIRECTORY``) that borrows the repository's own objects through
``GIT_ALTERNATE_OBJECT_DIRECTORIES``.  The store lives in the git directory
(``.git/agentreflex/snapshots/N``), where ``git clean`` cannot reach, and no
ref names it: not in ``git log --all``, branches, gitk, push or fetch.
Snapshots are pruned by age and count (:func:`prune`: a snapshot whose work a
newer one holds goes first); past the size bound the files that fit are saved
and the ones left out are named in a note (such a snapshot never allows a
discard).

Which files fit, past the bound (:func:`_within`): first every file last
changed before the session began (its ctime, which no program sets, before
the session's first hook call: the user's own work, which is what undo is
for), then the changes to files HEAD has, then new files (untracked or
staged), each class smallest first.  Not smallest first alone: a command that
made many small files (untracked, ``git add``-ed, or committed and grown) had
them fill the bound, and the user's one larger edit was left out of every
snapshot after it (red-team rt42).  A file the user edits during the session
counts with the agent's by this rule; a padding the agent makes before the
user's edit can still crowd it out, and the snapshot then says so.  A
repository nested in the work tree is not saved either, and named the same
way: never "saved the uncommitted work" in the question before a discard.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time

from agentreflex.core.redaction.redact import redact_head
from agentreflex.core.util import fastjson
from agentreflex.core.util.fsutil import open_folder, read_json, replace_in_place
from agentreflex.core.worktree.observe import Repo, status_entries
from agentreflex.core.worktree.observe import in_repo as git

MAX_BYTES = 64 << 20
KEEP_COUNT = 50  # the newest, kept whatever they hold
KEEP_MOST = 200  # in all, however many hold work no newer one does
KEEP_SECONDS = 7 * 86400
# snapshots taken between two prunes: a prune reads every snapshot's meta.json (some 50 us
# each), which each shell command's hook would otherwise pay
PRUNE_EVERY = 10
_NULL = "0" * 40
_MAX_META = 64 << 20  # a snapshot's meta.json or after.json: paths and ids, far below


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
        stash: str = "",
        covered: bool | None = None,
        top: str = "",
        git_dir: str = "",
    ) -> None:
        self.n, self.ts, self.command, self.session = n, ts, command, session
        self.tree, self.files, self.skipped = tree, files or [], skipped
        self.fingerprint = fingerprint
        self.stash = stash  # a stash commit about to be dropped, whose changes the tree holds
        # whether the next snapshot holds every file of this one as it is here (None: not
        # known yet); read when pruning, written once, since neither tree ever changes
        self.covered = covered
        # the work tree it was taken in: a repository's linked work trees share one store,
        # and a snapshot is restored only where it was taken ("": one from before this)
        self.top, self.git_dir = top, git_dir

    def taken_in(self, repo: Repo) -> bool:
        """Was this snapshot taken in ``repo``'s work tree (or is that not known)?"""
        return not self.git_dir or self.git_dir == os.path.realpath(repo.git_dir)

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
            stash=self.stash,
            covered=self.covered,
            top=self.top,
            git_dir=self.git_dir,
        )


def store_dir(repo: Repo) -> str:
    return os.path.join(repo.common_dir, "agentreflex", "snapshots")


def _env(
    repo: Repo, snap_dir: str, index: str | None = None, also: str | None = None
) -> dict[str, str]:
    """The snapshot's git: its own store, borrowing the repository's (and ``also``'s)."""
    env = {
        "GIT_OBJECT_DIRECTORY": os.path.join(snap_dir, "objects"),
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": os.pathsep.join(
            [repo.objects, os.path.join(also, "objects")] if also else [repo.objects]
        ),
        # a snapshot is written far more often than read: zlib level 1, not 6 (cost ~1/3)
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.looseCompression",
        "GIT_CONFIG_VALUE_0": "1",
    }
    if index:
        env["GIT_INDEX_FILE"] = index
    return env


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def _copy_file(src: str, dst: str) -> None:
    """``shutil.copyfile`` for the index, without importing shutil on the hook path.

    Every shell command's snapshot starts from a copy of the index; shutil
    would load its archive modules (bz2, lzma) first, about a millisecond of
    a hook process that has not the daemon.  The index is a few MB at most.
    """
    data = _read_bytes(src)  # never a FIFO a command put there to hang the hook on
    if data is None or os.path.islink(src):
        raise OSError(f"{src}: not a regular file")
    with open(dst, "wb") as out:
        out.write(data)


def _seed_index(repo: Repo, index: str, env: dict[str, str]) -> bool:
    """The temporary index: a copy of the real one, or HEAD's tree when that is unreadable."""
    with contextlib.suppress(OSError):  # no index yet: the check below falls back
        _copy_file(repo.index, index)
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


def _capture_list(
    repo: Repo, entries: dict[str, str], since_ns: int | None = None
) -> tuple[list[str], list[str], dict[str, int], dict[str, int], list[str]]:
    """Paths to hash (present and changed), paths to drop (gone), each present one's size,
    its class for :func:`_within` (0: changed before ``since_ns``, the session's start;
    1: a change to a file HEAD has; 2: a new file), and the nested repositories listed
    (git lists one as a folder; its files are not saved)."""
    present: list[str] = []
    gone: list[str] = []
    sizes: dict[str, int] = {}
    ranks: dict[str, int] = {}
    nested: list[str] = []
    for path, letters in entries.items():
        try:
            st = os.lstat(os.path.join(repo.top, path))
        except OSError:
            gone.append(path)
            continue
        if stat.S_ISDIR(st.st_mode):
            nested.append(path.rstrip("/"))  # a nested repository: not ours to save, and said
            continue
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            continue  # a fifo, a socket
        present.append(path)
        sizes[path] = st.st_size
        if since_ns is not None and st.st_ctime_ns < since_ns:
            ranks[path] = 0
        else:
            ranks[path] = 2 if letters == "?" or letters.startswith("A") else 1
    return present, gone, sizes, ranks, nested


def _within(
    present: list[str], sizes: dict[str, int], budget: int, ranks: dict[str, int] | None = None
) -> tuple[list[str], list[str]]:
    """The files that fit in ``budget`` bytes, by class (``ranks``: see the module), each
    smallest first, and the ones left out.

    Why not skip the whole snapshot past the bound: one file a command made just over it
    (``truncate -s 65M pad``, a sparse file that costs no disk) had every snapshot after
    it skipped, and the user's edits beside it were lost to the next discard (red-team
    rt34).  Why by class: many small files a command made filled the bound before the
    user's one larger edit (red-team rt42).  What is left out is said."""
    kept: list[str] = []
    left: list[str] = []
    rank = ranks or {}
    for path in sorted(present, key=lambda p: (rank.get(p, 2), sizes[p], p)):
        if sizes[path] <= budget:
            kept.append(path)
            budget -= sizes[path]
        else:
            left.append(path)
    return kept, sorted(left)


SMALL_BLOB = 64 << 10  # compressed (zlib level 1); bigger blobs are stored (level 0)


def _hash(repo: Repo, paths: list[str], env: dict[str, str]) -> list[str] | None:
    """Blob ids for ``paths``, written to the private store (symlinks as their target).

    Written here, not by ``git hash-object``: a loose object is
    ``zlib("blob <size>\\0" + bytes)`` under its SHA-1 (SHA-256 in a
    repository made so), which every git reads, and hashing in process spares
    a process per call and git's per-object temporary files.  And git opens
    the paths it is given through any link on the way, where a process a
    command left running could have swapped a folder for a link to the state
    folder and its key (red-team rt26); each file here is read from its folder
    opened with no link on the way (:func:`_read_bytes`).  Big blobs are
    stored uncompressed (zlib level 0): compressing 10 MB costs ~100 ms here,
    storing it ~15 ms, and a snapshot is pruned within days.
    """
    algorithm = _object_format(repo)
    if algorithm is None:
        return None
    store = env["GIT_OBJECT_DIRECTORY"]
    ids: list[str] = []
    made: set[str] = set()
    folders: dict[str, int] = {}
    try:
        for p in paths:
            data = _read_bytes(os.path.join(repo.top, p), folders)
            if data is None:
                return None
            # never only borrowed: the repository's objects are the agent's to delete or
            # rewrite (a staged file's blob, pruned after `git reset --hard`: red-team rt31)
            ids.append(_write_blob(store, None, data, made, algorithm=algorithm))
    finally:
        for fd in folders.values():
            os.close(fd)
    return ids


def _object_format(repo: Repo) -> str | None:
    """The repository's object hash ("sha1", or "sha256" where its config says so: read,
    never run); None for one this code does not write."""
    from agentreflex.core.util.fsutil import read_regular

    # never a FIFO's open (a nested repository's config is the agent's): no wait (rt31)
    found = read_regular(os.path.join(repo.common_dir, "config"), 1 << 20)
    if found is None:
        return "sha1"
    text = found[: 1 << 20].lower()
    if b"objectformat" not in text:
        return "sha1"
    values = {
        value.strip()
        for key, _, value in (line.partition(b"=") for line in text.splitlines())
        if key.strip() == b"objectformat"
    }
    # sha1 written out is the default git takes it for (red-team rt49: no snapshot ever)
    if values <= {b"sha1"}:
        return "sha1"
    return "sha256" if values == {b"sha256"} else None


def _read_bytes(path: str, folders: dict[str, int] | None = None) -> bytes | None:
    """A regular file's bytes or a symlink's target; None for anything else.

    Read from its folder, opened one part at a time with no link on the way
    (:func:`~agentreflex.core.util.fsutil.open_folder`; kept in ``folders``
    for the next file there, the caller closes them), the file itself not
    followed: a folder swapped for a link after ``git status`` listed the
    file reaches nothing.
    """
    folder, name = os.path.split(path)
    parent = folders.get(folder) if folders is not None else None
    try:
        if parent is None:
            parent = open_folder(folder)
            if folders is not None:
                folders[folder] = parent
        try:
            st = os.stat(name, dir_fd=parent, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                return os.fsencode(os.readlink(name, dir_fd=parent))
            if not stat.S_ISREG(st.st_mode):
                return None
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            fd = os.open(name, flags, dir_fd=parent)
        finally:
            if folders is None:
                os.close(parent)
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


def _write_blob(
    store: str,
    borrowed: str | None,
    data: bytes,
    made: set[str],
    kind: str = "blob",
    algorithm: str = "sha1",
) -> str:
    """Write one loose object into ``store`` (unless it is already there or borrowed); its id.

    ``borrowed``: the repository's objects folder, or None to copy regardless.

    ``made``: the fan-out folders known to exist (spares a ``mkdir`` per blob).
    """
    import hashlib
    import zlib

    header = b"%s %d\0" % (kind.encode(), len(data))
    h = hashlib.new(algorithm, header, usedforsecurity=False)
    h.update(data)
    oid = h.hexdigest()
    rel = os.path.join(oid[:2], oid[2:])
    target = os.path.join(store, rel)
    if os.path.exists(target) or (borrowed and os.path.exists(os.path.join(borrowed, rel))):
        return oid
    z = zlib.compressobj(1 if len(data) <= SMALL_BLOB else 0)
    folder = os.path.join(store, oid[:2])
    if folder not in made:
        os.makedirs(folder, exist_ok=True)
        made.add(folder)
    tmp = os.path.join(folder, f"tmp_obj_{os.getpid()}_{oid[2:10]}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o444)
    try:
        for part in (z.compress(header), z.compress(data), z.flush()):
            view = memoryview(part)
            while view:
                view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.replace(tmp, target)
    return oid


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
    stash: str = "",
    since_ns: int | None = None,
    held: list[str] | None = None,
) -> Snapshot | None:
    """Save the work tree's uncommitted state; None when git cannot be asked at all.

    ``held``: the submodules and linked work trees inside holding work, when the caller
    just asked (:func:`.submodules.with_work`); None: asked here.

    ``since_ns``: when the session began (ns), for which files come first past the
    size bound (see the module); None when not known.

    ``stash``: a stash commit about to be dropped.  The snapshot then also
    holds the stash's work-tree changes (what it changed over the commit it
    was made on, and its untracked files), their blobs copied into the
    private store (a dropped stash's objects are soon pruned), so undo puts
    the stashed work back into the work tree.

    ``fingerprint``: the work tree's, when known; equal to the newest
    snapshot's, that snapshot already holds this state and is answered.
    ``entries``: the status the caller just read (path -> letters), which
    spares a second ``git status``; when that quick way fails (an index
    git cannot read), the careful way starts again from HEAD.
    """
    root = store_dir(repo)
    own = os.path.join(os.path.realpath(repo.common_dir), "agentreflex", "snapshots")
    if any(os.path.islink(p) for p in (os.path.dirname(root), root)):
        raise OSError(f"{root}: the snapshot store leads elsewhere (a link)")
    os.makedirs(root, exist_ok=True)
    if os.path.realpath(root) != own:
        # a link on the way (a repository the agent made: its .git/agentreflex -> ~/.config)
        # would have the snapshot written, and pruned, where it leads (red-team rt31)
        raise OSError(f"{root}: the snapshot store leads elsewhere (a link)")
    numbers = sorted(int(d) for d in _listdir(root) if d.isdigit())
    if len(numbers) > KEEP_MOST or (numbers and numbers[-1] % PRUNE_EVERY == 0):
        prune(repo)
    kept = listing(repo, newest=1)
    if stash:
        fingerprint = ""  # the work tree may be unchanged; the stash is what is saved
    if (
        fingerprint
        and kept
        and kept[-1].fingerprint == fingerprint
        and kept[-1].tree
        and kept[-1].taken_in(repo)
    ):
        return kept[-1]
    n = (numbers[-1] if numbers else 0) + 1
    while True:
        # a folder of its own, never one another session's snapshot is being taken in (both
        # read the same numbers): they shared the temporary index, and one's clean-up
        # removed the other's folder with its saved snapshot (red-team rt42)
        try:
            os.mkdir(os.path.join(root, str(n)))
            break
        except FileExistsError:
            n += 1
    # redacted before it is cut, as everything stored: undo --list shows it
    shown = redact_head(command, 500)
    snap = Snapshot(n, time.time(), shown, session, fingerprint=fingerprint, stash=stash)
    snap.top, snap.git_dir = repo.top, os.path.realpath(repo.git_dir)
    snap_dir = os.path.join(root, str(n))
    os.mkdir(os.path.join(snap_dir, "objects"))
    index = os.path.join(snap_dir, "index")
    env = _env(repo, snap_dir, index)
    try:
        done = entries is not None and _capture(repo, snap, env, entries, max_bytes, since_ns, held)
        if not done and not _capture(repo, snap, env, None, max_bytes, since_ns, held):
            _give_up(snap_dir)
            return None
        return _save(snap_dir, snap)
    finally:
        if os.path.exists(index):
            os.unlink(index)


def _capture(
    repo: Repo,
    snap: Snapshot,
    env: dict[str, str],
    entries: dict[str, str] | None,
    limit: int,
    since_ns: int | None = None,
    held: list[str] | None = None,
) -> bool:
    """Fill ``snap`` (its tree, or why it was skipped); False when git failed."""
    index = env["GIT_INDEX_FILE"]
    left_out = ""
    if entries is None:
        if not _seed_index(repo, index, env):
            return False
        entries = status_entries(repo, env)
        if entries is None:
            # past git's bounds (a command made millions of files beside the work): the
            # tracked changes are still saved, never nothing (red-team rt34)
            entries = status_entries(repo, env, untracked=False)
            if entries is None:
                return False
            left_out = "untracked files not saved: git could not list them within its bounds"
    else:
        try:
            _copy_file(repo.index, index)
        except OSError:
            return False
    present, gone, sizes, ranks, nested = _capture_list(repo, entries, since_ns)
    if nested:
        # said, so the question before a discard never calls the work saved (red-team rt42)
        named = ", ".join(nested[:5]) + (f" and {len(nested) - 5} more" if len(nested) > 5 else "")
        left_out = "; ".join(filter(None, (left_out, f"nested repositories not saved: {named}")))
    restaged = sorted(
        p
        for p, letters in entries.items()
        if len(letters) == 2
        and not {".", "?", "U"} & set(letters)
        and letters not in ("AA", "DD")  # unmerged
    )
    if restaged:
        # staged, then changed again: the work tree's bytes are saved, the staged ones not
        # (the question said "saved the uncommitted work" of them)
        named = ", ".join(restaged[:5]) + (
            f" and {len(restaged) - 5} more" if len(restaged) > 5 else ""
        )
        said = f"staged versions of files changed again not saved: {named}"
        left_out = "; ".join(filter(None, (left_out, said)))
    if held is None:
        from agentreflex.core.worktree.submodules import with_work

        held = with_work(repo.top)
    if held:
        # a submodule's own work: git's status here never enters it (red-team rt49)
        named = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
        said = f"uncommitted work of submodules or linked work trees not saved: {named}"
        left_out = "; ".join(filter(None, (left_out, said)))
    stashed: list[tuple[str, str, str]] = []
    stash_size = 0
    if snap.stash:
        read = _stash_changes(repo, snap.stash)
        if read is None:
            snap.skipped = f"stash {snap.stash[:12]} could not be read"
            return True
        stashed, stash_size = read
    size = sum(sizes.values()) + stash_size
    if stash_size > limit:
        snap.skipped = f"{size} bytes of uncommitted work is over the {limit}-byte bound"
        snap.files = sorted(present)[:200]
        return True
    if size > limit:
        present, left = _within(present, sizes, limit - stash_size, ranks)
        named = ", ".join(left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
        snap.skipped = f"{len(left)} file(s) over the {limit}-byte bound not saved: {named}"
    if left_out:
        snap.skipped = "; ".join(filter(None, (left_out, snap.skipped)))
    if stashed and not _copy_blobs(repo, [oid for _, oid, _ in stashed], env):
        return False
    extra = [f"{mode} {oid}\t{path}\0" for mode, oid, path in stashed]
    tree = _write_tree(repo, present, gone, env, extra)
    if tree is None or (snap.stash and not _own_trees(repo, tree, env)):
        return False
    snap.tree = tree
    snap.files = sorted({*present, *gone, *(path for _, _, path in stashed)})
    return True


def _stash_changes(repo: Repo, stash: str) -> tuple[list[tuple[str, str, str]], int] | None:
    """(mode, blob, path) of what a stash changed or added in the work tree, and their bytes.

    A stash commit's first parent is the commit it was made on and its third,
    if any, holds the untracked files; files the stash deleted are left out
    (undo writes files back, it does not delete).  None: not a stash, or a
    repository whose objects are not SHA-1.
    """
    if _object_format(repo) != "sha1":
        return None
    res = git(repo, ["rev-list", "--parents", "-n", "1", "--end-of-options", stash])
    parents = res.stdout.decode().split() if res is not None and res.returncode == 0 else []
    if len(parents) < 3:
        return None
    out: dict[str, tuple[str, str, str]] = {}
    res = git(repo, ["diff-tree", "-r", "-z", "--no-renames", parents[1], stash], timeout=30.0)
    if res is None or res.returncode != 0:
        return None
    fields = res.stdout.split(b"\0")
    for meta, raw_path in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.decode().split(" ")
        if len(parts) == 5 and parts[4] in ("A", "M", "T") and parts[1] != "160000":
            path = raw_path.decode("utf-8", "surrogateescape")
            out[path] = (parts[1], parts[3], path)
    if len(parents) > 3:
        res = git(repo, ["ls-tree", "-r", "-z", "--full-tree", parents[3]], timeout=30.0)
        if res is None or res.returncode != 0:
            return None
        for raw in res.stdout.split(b"\0"):
            info, _, path = raw.decode("utf-8", "surrogateescape").partition("\t")
            mode_kind_oid = info.split(" ")
            if len(mode_kind_oid) == 3 and mode_kind_oid[1] == "blob":
                out[path] = (mode_kind_oid[0], mode_kind_oid[2], path)
    changes = sorted(out.values(), key=lambda c: c[2])
    if not changes:
        return [], 0
    sizes = git(
        repo,
        ["cat-file", "--batch-check=%(objectsize)"],
        data="".join(oid + "\n" for _, oid, _ in changes).encode(),
        timeout=30.0,
    )
    if sizes is None or sizes.returncode != 0:
        return None
    try:
        total = sum(int(x) for x in sizes.stdout.split())
    except ValueError:
        return None
    return changes, total


def _copy_blobs(repo: Repo, oids: list[str], env: dict[str, str], kind: str = "blob") -> bool:
    """Copy objects from the repository into the snapshot's own store (not merely borrowed)."""
    res = git(
        repo,
        ["cat-file", "--batch"],
        env=env,
        data="".join(oid + "\n" for oid in oids).encode(),
        timeout=30.0,
    )
    if res is None or res.returncode != 0:
        return False
    data, pos, made = res.stdout, 0, set[str]()
    store = env["GIT_OBJECT_DIRECTORY"]
    for oid in oids:
        end = data.find(b"\n", pos)
        head = data[pos:end].split(b" ")
        if end < 0 or len(head) != 3 or head[1] != kind.encode():
            return False
        size = int(head[2])
        body = data[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
        if _write_blob(store, None, body, made, kind) != oid:
            return False
    return True


def _own_trees(repo: Repo, tree: str, env: dict[str, str]) -> bool:
    """Copy into the private store every tree of ``tree`` that is only borrowed.

    ``write-tree`` does not write a tree the repository already has; for a
    stash that is the stash's own tree, pruned soon after the drop.
    """
    res = git(repo, ["ls-tree", "-r", "-t", "-z", "--full-tree", tree], env=env, timeout=30.0)
    if res is None or res.returncode != 0:
        return False
    trees = [tree]
    for raw in res.stdout.split(b"\0"):
        parts = raw.partition(b"\t")[0].split(b" ")
        if len(parts) == 3 and parts[1] == b"tree":
            trees.append(parts[2].decode())
    store = env["GIT_OBJECT_DIRECTORY"]
    missing = [t for t in trees if not os.path.exists(os.path.join(store, t[:2], t[2:]))]
    return not missing or _copy_blobs(repo, missing, env, "tree")


def _write_tree(
    repo: Repo, present: list[str], gone: list[str], env: dict[str, str], extra: list[str]
) -> str | None:
    ids = _hash(repo, present, env)
    if ids is None:
        return None
    # NUL-terminated (-z): a name may hold a newline, which would end a line early and have
    # git refuse the whole list (no snapshot, ever again: red-team rt31)
    lines = [f"{_mode(repo, p)} {i}\t{p}\0" for p, i in zip(present, ids, strict=True)]
    lines += [f"0 {_NULL}\t{p}\0" for p in gone]
    lines += extra  # last: a stash's version of a path wins
    data = "".join(lines).encode("utf-8", "surrogateescape")
    tree = _index_tree(repo, data, env, "write-tree")
    changed = [*present, *gone, *(line.partition("\t")[2][:-1] for line in extra)]
    if tree is None or _own_changed_trees(repo, tree, changed, env):
        return tree
    # a tree the repository holds under one of those ids is not what the id names (one
    # planted there): the paths' folders again (update-index drops their cached trees),
    # written where git looks first with the repository's objects out of sight
    alone = {**env, "GIT_ALTERNATE_OBJECT_DIRECTORIES": ""}
    again = _index_tree(repo, data, alone, "write-tree", "--missing-ok")
    return tree if again == tree and _own_changed_trees(repo, tree, changed, env) else None


def _index_tree(repo: Repo, data: bytes, env: dict[str, str], *write: str) -> str | None:
    """``data`` (``--index-info`` lines) into the temporary index, then its tree."""
    if data:
        res = git(repo, ["update-index", "-z", "--index-info"], env=env, data=data, timeout=30.0)
        if res is None or res.returncode != 0:
            return None
    res = git(repo, list(write), env=env, timeout=30.0)
    if res is None or res.returncode != 0:
        return None
    return res.stdout.decode().strip()


def _own_changed_trees(repo: Repo, tree: str, paths: list[str], env: dict[str, str]) -> bool:
    """Copy into the private store every tree from ``tree`` down to each of ``paths``, each
    checked to hash to its id; False when one does not (or git failed).

    Why: ``write-tree`` writes no tree the repository's objects already hold, and git reads
    a subtree without checking it.  A process a command left running, seeing the user's
    edit, could plant a loose object under the folder's tree id the next snapshot makes,
    listing other blobs, and undo would write those (red-team rt34).  The trees off these
    paths are HEAD's folders, unchanged: their files are the committed ones.
    """
    algorithm = _object_format(repo)
    if algorithm is None:
        return False
    width = 20 if algorithm == "sha1" else 32
    wanted: set[str] = set()
    for p in paths:
        folder = p.rpartition("/")[0]
        while folder and folder not in wanted:
            wanted.add(folder)
            folder = folder.rpartition("/")[0]
    store, made = env["GIT_OBJECT_DIRECTORY"], set[str]()
    level = [("", tree)]
    while level:
        res = git(
            repo,
            ["cat-file", "--batch"],
            env=env,
            data="".join(oid + "\n" for _, oid in level).encode(),
            timeout=30.0,
        )
        if res is None or res.returncode != 0:
            return False
        data, pos, below = res.stdout, 0, list[tuple[str, str]]()
        for folder, oid in level:
            end = data.find(b"\n", pos)
            head = data[pos:end].split(b" ")
            if end < 0 or len(head) != 3 or head[1] != b"tree":
                return False
            body = data[end + 1 : end + 1 + int(head[2])]
            pos = end + 1 + int(head[2]) + 1
            if _write_blob(store, None, body, made, "tree", algorithm) != oid:
                return False
            i = 0
            while i < len(body):
                space = body.index(b" ", i)
                nul = body.index(b"\0", space)
                name = body[space + 1 : nul].decode("utf-8", "surrogateescape")
                path = f"{folder}/{name}" if folder else name
                if body[i:space] == b"40000" and path in wanted:
                    below.append((path, body[nul + 1 : nul + 1 + width].hex()))
                i = nul + 1 + width
        level = below
    return True


def _give_up(snap_dir: str) -> None:
    import shutil

    shutil.rmtree(snap_dir, ignore_errors=True)


def _save(snap_dir: str, snap: Snapshot) -> Snapshot:
    """meta.json written under a fresh name in the folder opened link by link: the store
    of a repository the agent made is the agent's to write, and a link it put at the name
    written (by a process left running, while the snapshot is taken) is never followed."""
    data = fastjson.dumps(snap.to_json()).encode("utf-8", "surrogateescape")
    replace_in_place(os.path.join(snap_dir, "meta.json"), data, 0o600, durable=True)
    return snap


def current_blobs(repo: Repo, paths: list[str], limit: int | None = None) -> dict[str, str]:
    """Blob ids of the regular files among ``paths`` as they are now (nothing written), up to
    ``limit`` bytes in all when one is given (the hook's: hashing gigabytes a command wrote
    would outlast the host's wait for it).

    Hashed here, not by ``git hash-object --stdin-paths``, which reads one path a line: a
    name with a newline in it made git stop at a path that is not there, every file then
    read as missing, and undo wrote over newer work (red-team rt31)."""
    algorithm = _object_format(repo)
    if algorithm is None:
        return {}
    out: dict[str, str] = {}
    total = 0
    for path in paths:
        try:
            found = os.stat(os.path.join(repo.top, path))
        except OSError:
            continue
        if not stat.S_ISREG(found.st_mode):
            continue
        if limit is not None and total + found.st_size > limit:
            continue  # larger than any snapshot holds: undo takes it for newer work
        total += found.st_size
        # "" for a file there that could not be read whole: never taken for missing
        out[path] = _file_id(os.path.join(repo.top, path), algorithm, found.st_size) or ""
    return out


def _file_id(path: str, algorithm: str, size: int) -> str | None:
    """The blob id of the regular file at ``path`` (a link followed, as git did), read in
    chunks; None for anything else (a FIFO is never waited on) or a file that is not ``size``
    bytes (swapped since it was looked at: never more read than was counted)."""
    import hashlib

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != size:
            return None
        h = hashlib.new(algorithm, b"blob %d\0" % st.st_size, usedforsecurity=False)
        left = st.st_size
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                return None
            h.update(chunk)
            left -= len(chunk)
        if os.read(fd, 1) or os.fstat(fd).st_size != st.st_size:
            return None  # grew while read
        return h.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)


def record_after(repo: Repo, n: int, paths: list[str]) -> None:
    """What the command run after snapshot ``n`` left in ``paths``: undo may overwrite it.

    Without this, a file the command rewrote (not reset to HEAD) would look
    like newer work to ``agentreflex undo`` and be refused.
    """
    path = os.path.join(store_dir(repo), str(n), "after.json")
    after = read_after(repo, n)
    after.update({p: oid for p, oid in current_blobs(repo, paths, MAX_BYTES).items() if oid})
    replace_in_place(path, fastjson.dumps(after).encode("utf-8", "surrogateescape"), 0o600)


def read_after(repo: Repo, n: int) -> dict[str, str]:
    data = read_json(os.path.join(store_dir(repo), str(n), "after.json"), _MAX_META)
    if data is None:
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def listing(repo: Repo, newest: int | None = None) -> list[Snapshot]:
    """Every snapshot kept for this repository, oldest first; ``newest``: only that many
    of the newest readable ones (the hook needs the last one alone)."""
    root = store_dir(repo)
    out: list[Snapshot] = []
    for d in sorted((d for d in _listdir(root) if d.isdigit()), key=int, reverse=True):
        if newest is not None and len(out) >= newest:
            break
        try:
            # read_json: no FIFO's open, whose wait would hold the hook (a nested
            # repository's store is the agent's to write: red-team rt31)
            meta = read_json(os.path.join(root, d, "meta.json"), _MAX_META)
            # the number is the folder's, never the file's: prune removes store/N, and a
            # meta.json written where a command could ("n": "/home/u") must not name it
            meta["n"] = int(d)
            out.append(Snapshot(**meta))
        except (OSError, ValueError, TypeError, AttributeError):
            continue
    out.reverse()
    return out


def prune(
    repo: Repo, keep: int = KEEP_COUNT, max_age: float = KEEP_SECONDS, most: int = KEEP_MOST
) -> None:
    """Drop snapshots older than ``max_age``; past the newest ``keep``, those whose work the
    next snapshot holds; then the oldest, down to ``most`` in all.

    Why not simply the newest ``keep``: a snapshot is what undo has of work a command
    discarded, and fifty cheap commands (``echo N > x``), each taking a snapshot, pushed
    the one before ``rm -rf src`` out (red-team rt31).  Now a snapshot holding work no
    newer one holds outlives them, up to ``most`` commands' worth.
    """
    snaps = listing(repo)
    cutoff = time.time() - max_age
    doomed = {s.n for s in snaps if s.ts < cutoff}
    leftovers = _unfinished(repo, {s.n for s in snaps})
    alive = [s for s in snaps if s.n not in doomed]
    for i, older in enumerate(alive[:-keep]):
        if _covered(repo, older, alive[i + 1]):
            doomed.add(older.n)
    alive = [s for s in alive if s.n not in doomed]
    doomed.update(s.n for s in alive[: max(0, len(alive) - most)])
    if not doomed and not leftovers:
        return
    import shutil  # only when a snapshot is pruned, not on every hook

    root = store_dir(repo)
    for name in [*map(str, sorted(doomed)), *sorted(leftovers)]:
        # out of the listing at once (a rename), then removed: a prune stopped half way
        # (the host's wait over) left a listed snapshot with part of its objects gone
        # (red-team rt42); what a stopped removal leaves, the next prune removes
        gone = os.path.join(root, name)
        if name.isdigit():
            gone = os.path.join(root, f"{name}{_GONE}{os.getpid()}")
            try:
                os.rename(os.path.join(root, name), gone)
            except OSError:
                continue
        shutil.rmtree(gone, ignore_errors=True)


STALE_SECONDS = 3600  # far past any snapshot's taking (each git it runs is bounded)


_GONE = ".gone-"  # a doomed snapshot's folder, renamed out of the listing


def _unfinished(repo: Repo, listed: set[int]) -> set[str]:
    """Snapshot folders with no readable record, untouched for :data:`STALE_SECONDS`, and
    the removals a stopped prune began (their names).

    Why: a hook stopped while taking a snapshot (the host's wait over) leaves its folder,
    blobs up to the size bound, with no meta.json: never listed, so never restored as
    whole, but prune read only the listed ones, and such folders stayed for good (red-team
    rt42).  A newer one may be another session's snapshot being taken."""
    root = store_dir(repo)
    old = time.time() - STALE_SECONDS
    out: set[str] = set()
    for d in _listdir(root):
        if _GONE in d and d.partition(_GONE)[0].isdigit():
            out.add(d)  # a removal a stopped prune began
            continue
        if not d.isdigit() or int(d) in listed:
            continue
        try:
            newest = max(
                os.lstat(os.path.join(root, d, *part)).st_mtime
                for part in ((), ("objects",))
                if os.path.lexists(os.path.join(root, d, *part))
            )
        except (OSError, ValueError):
            continue
        if newest < old:
            out.add(d)
    return out


def _covered(repo: Repo, older: Snapshot, newer: Snapshot) -> bool:
    """True when ``newer`` holds every file ``older`` does, as ``older`` has it (or ``older``
    holds nothing undo could write back); the answer is kept in ``older``'s meta.json."""
    if not older.tree:
        return True
    if older.git_dir != newer.git_dir:
        return False  # another work tree's: never restored where ``older`` was taken
    if older.covered is None:
        older.covered = bool(newer.tree) and _tree_within(repo, older, newer)
        with contextlib.suppress(OSError):
            _save(os.path.join(store_dir(repo), str(older.n)), older)
    return older.covered


def _tree_within(repo: Repo, older: Snapshot, newer: Snapshot) -> bool:
    """No file of ``older``'s tree deleted, changed or of another type in ``newer``'s."""
    root = store_dir(repo)
    env = _env(repo, os.path.join(root, str(older.n)), also=os.path.join(root, str(newer.n)))
    args = ["diff-tree", "-r", "-z", "--no-renames", "--name-only", "--diff-filter=DMT"]
    res = git(repo, [*args, older.tree, newer.tree], env=env, timeout=30.0)
    return res is not None and res.returncode == 0 and not res.stdout
