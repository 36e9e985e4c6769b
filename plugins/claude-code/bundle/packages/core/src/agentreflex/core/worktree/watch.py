"""What the warm daemon keeps between calls so a fingerprint costs little.

A full ``git status`` reads the whole index and ``lstat``s every tracked
file: ~10 ms on 10k files, ~250 ms on 100k.  The daemon instead keeps, per
repository, the last status listing and an inotify watch on every directory
holding a tracked or listed file.  A call then

* re-runs the full ``git status`` when anything that changes the status of
  every path moved: the index file's (mtime_ns, size, inode), ``HEAD`` and
  the ref it names, ``packed-refs``, ``info/exclude``, the repository's and
  the user's git config, a ``.gitignore``/``.gitattributes`` event, a
  renamed directory, an event queue overflow;
* otherwise asks git only about the paths the kernel said changed
  (``git --literal-pathspecs status … -- PATH…``; at most
  :data:`MAX_DIRTY`, else the full status) and none at all when nothing
  changed, so the cost follows the calls' changes, not the repository.

The answer is git's own, path for path: a path's status depends only on its
HEAD entry, its index entry and its file, and the first two are covered by
the full-rescan key.  Linux only (inotify through ``ctypes``); elsewhere, or
when watches run out, every call is the full status; a repository takes at
most a sixteenth of the user's inotify watches (:func:`_dir_cap`).  Writes the kernel does
not report through a directory watch (a shared ``mmap``, a hard link edited
from outside the work tree) are seen at the next full rescan.  Only the
daemon enables this (:func:`enable`): a one-shot hook process would pay the
set-up for nothing.
"""

from __future__ import annotations

import contextlib
import os
import stat
import struct
import sys
import threading

from agentreflex.core.worktree import observe

MAX_DIRTY = 128  # paths asked about one by one; more and the full status is cheaper
MAX_DIRS = 20000  # directories watched per repository; more and no cache is kept
MAX_REPOS = 8  # repositories cached at once (the least recently used is dropped)
MAX_HASHED = 8 << 20  # a bigger same-size rewrite is compared by git, not read here
MAX_NEW_DIRS = 64  # directories a call may add to the watch (mkdir -p, unpacking)

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000
_MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
)
_EVENT = struct.Struct("iIII")
_ENTRY = struct.Struct(">10I20sH")  # ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size
# path -> (ctime, mtime, ino, mode, uid, gid, size, blob id) of stage-0 entries without flags
_Entries = dict[str, tuple[tuple[int, int], tuple[int, int], int, int, int, int, int, bytes]]
_Index = tuple[_Entries, int]  # and the index file's mtime in seconds (racy-git check)
_NO_INDEX: _Index = ({}, 0)
_RESCAN_NAMES = (".gitignore", ".gitattributes", ".git")

_enabled = False
_lock = threading.Lock()
_caches: dict[str, _Cache] = {}


def enable(on: bool = True) -> None:
    """Keep fingerprint caches in this process (the daemon calls this once)."""
    global _enabled
    _enabled = on and sys.platform.startswith("linux")
    if not _enabled:
        with _lock:
            for cache in _caches.values():
                cache.close()
            _caches.clear()


def enabled() -> bool:
    return _enabled


def status_entries(repo: observe.Repo, skip: str, full: bool = False) -> dict[str, str] | None:
    """The full status listing (path -> letters), from the cache when one is kept.

    ``full``: ask git about every path, not only those the kernel reported: after a
    shell command, whose writes through a second name of a file (a hard link) or a
    shared ``mmap`` no directory watch reports (red-team rt33).  The watches are kept.
    """
    if not _enabled:
        return observe.status_entries(repo)
    with _lock:
        cache = _caches.pop(repo.top, None) or _Cache(repo.top)
        _caches[repo.top] = cache  # most recently used last
        while len(_caches) > MAX_REPOS:
            _caches.pop(next(iter(_caches))).close()
    with cache.lock:
        try:
            return cache.entries(repo, skip, full)
        except BaseException:  # out of time (util.deadline) with the kernel's events drained:
            cache.close()  # a listing that missed them must not be the next call's
            raise


_repos: dict[str, tuple[list[object], observe.Repo]] = {}


def find_repo(cwd: str) -> observe.Repo | None:
    """:func:`observe.find_repo`, kept while nothing it was read from changed.

    The key: every directory from ``cwd`` up to the one holding ``.git``
    (a new ``.git`` below ends the walk sooner), the ``.git`` entry
    (and its text when it is a file), the repository's and the user's git
    config (the filter overrides come from them) and ``HOME``.  A config
    that includes another file is never cached.
    """
    if not _enabled:
        return observe.find_repo_uncached(cwd)
    key = _repo_key(cwd)
    with _lock:
        hit = _repos.get(cwd)
    if key is not None and hit is not None and hit[0] == key:
        return hit[1]
    repo = observe.find_repo_uncached(cwd)
    if (
        repo is None
        or key is None
        or repo.scratch  # a stand-in: asked again, git may read the repository next time
        # a .git passed over (git found the repository above it): the key is not its
        or os.path.realpath(_first_dot(cwd)) != os.path.realpath(repo.top)
        or not _config_cacheable(repo)
    ):
        return repo
    key = _repo_key(cwd)  # read again: a change during the look-up is seen next time
    if key is not None:
        with _lock:
            _repos[cwd] = (key, repo)
            while len(_repos) > 4 * MAX_REPOS:
                _repos.pop(next(iter(_repos)))
    return repo


def _config_files(git_dir: str) -> list[str]:
    home = os.environ.get("HOME", "")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return [
        os.path.join(git_dir, "config"),
        os.path.join(git_dir, "config.worktree"),
        os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
    ]


def _first_dot(cwd: str) -> str:
    """The nearest folder at or above ``cwd`` with any ``.git`` entry (where the key stops)."""
    here = os.path.abspath(cwd)
    while not os.path.lexists(os.path.join(here, ".git")):
        parent = os.path.dirname(here)
        if parent == here:
            return ""
        here = parent
    return here


def _repo_key(cwd: str) -> list[object] | None:
    here = os.path.abspath(cwd)
    key: list[object] = [os.environ.get("HOME", ""), os.environ.get("XDG_CONFIG_HOME", "")]
    while True:
        try:
            st = os.stat(here)
        except OSError:
            return None
        key.append((here, st.st_ino))
        dot = os.path.join(here, ".git")
        try:
            dst = os.lstat(dot)
        except FileNotFoundError:
            parent = os.path.dirname(here)
            if parent == here:
                return None
            here = parent
            continue
        except OSError:
            return None
        file = stat.S_ISREG(dst.st_mode)
        key.append((dst.st_mtime_ns if file else 0, dst.st_ino, dst.st_mode))
        git_dirs = [dot]
        if file:
            try:
                with open(dot, encoding="utf-8", errors="surrogateescape") as fh:
                    text = fh.read(4096)
            except OSError:
                return None
            key.append(text)
            target = text.partition("gitdir:")[2].strip()
            if not target:
                return None
            target = os.path.join(here, target)
            git_dirs = [target, os.path.join(target, "..", "..")]  # a worktree's common dir
        for gd in git_dirs:
            key += [_stat_key(f) for f in _config_files(gd)]
            key.append(_stat_key(os.path.join(gd, "commondir")))
        return key


def _config_cacheable(repo: observe.Repo) -> bool:
    """No config file of this repository includes another (which the key could not see)."""
    for path in {*_config_files(repo.common_dir), *_config_files(repo.git_dir)}:
        try:
            with open(path, "rb") as fh:
                text = fh.read(1 << 20)
        except FileNotFoundError:
            continue
        except OSError:
            return False
        if b"include" in text.lower():
            return False
    return True


class _Inotify:
    """The few inotify calls needed, through ``ctypes`` (imported only here)."""

    def __init__(self) -> None:
        import ctypes

        self._libc = ctypes.CDLL(None, use_errno=True)
        self._ctypes = ctypes
        self.fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")

    def add(self, path: str) -> int:
        wd = int(self._libc.inotify_add_watch(self.fd, os.fsencode(path), _MASK))
        if wd < 0:
            raise OSError(self._ctypes.get_errno(), "inotify_add_watch", path)
        return wd

    def read(self) -> list[tuple[int, int, str]]:
        """Every queued event as (watch, mask, name); [] when none."""
        out: list[tuple[int, int, str]] = []
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return out
            if not data:
                return out
            pos = 0
            while pos + _EVENT.size <= len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, pos)
                pos += _EVENT.size
                name = data[pos : pos + length].split(b"\0", 1)[0]
                pos += length
                out.append((wd, mask, os.fsdecode(name)))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


class _Cache:
    """One repository's last listing, the watches that keep it true, and its key."""

    def __init__(self, top: str) -> None:
        self.top = top
        self.lock = threading.Lock()
        self.broken = False  # watching failed: every call is the full status
        self.listing: dict[str, str] | None = None
        self.key: list[object] = []
        self.skip = ""
        self.dirs: dict[int, str] = {}  # watch -> directory relative to top ("" for top)
        self.notify: _Inotify | None = None
        self.index: _Index | None = None  # parsed lazily, dropped with the key
        self.plain = False  # nothing converts bytes on their way in (see _from_index)
        self.pending: set[str] = set()  # directories to ask git about on the next call

    def close(self) -> None:
        if self.notify is not None:
            self.notify.close()
            self.notify = None
        self.dirs.clear()
        self.listing = None
        self.index = None
        self.plain = False
        self.pending = set()

    def entries(self, repo: observe.Repo, skip: str, full: bool = False) -> dict[str, str] | None:
        key = _key(repo)
        if self.broken:
            if key == self.key:
                return observe.status_entries(repo)
            self.broken = False  # the index moved (files added or removed): try again
        if self.listing is None or key != self.key or skip != self.skip or self.notify is None:
            return self._rebuild(repo, skip, key)
        dirty, rescan = self._drain(skip)
        dirty |= self.pending  # watched only after the status that listed them
        self.pending = set()
        if rescan or len(dirty) > MAX_DIRTY:
            return self._rebuild(repo, skip, key)
        if full:
            return self._relist(repo)
        if not dirty:
            return dict(self.listing)
        quick = self._from_index(repo, dirty)
        if quick is not None:
            listing = dict(self.listing)
            for path, y in quick.items():
                x = listing.get(path, "..")[0]
                if x + y == "..":
                    listing.pop(path, None)
                else:
                    listing[path] = x + y
            self.listing = listing
            return dict(listing)
        part = _partial_status(repo, sorted(dirty))
        if part is None:
            return self._rebuild(repo, skip, key)
        listing = {p: xy for p, xy in self.listing.items() if not _under_any(p, dirty)}
        listing.update(part)
        self.listing = listing
        return dict(listing)

    def _from_index(self, repo: observe.Repo, dirty: set[str]) -> dict[str, str] | None:
        """Each dirty path's work-tree letter when its index entry alone settles it, else None.

        Only the answers git's own comparison (``ie_match_stat``) makes
        without reading the file: gone ("D"); size changed ("M", unless the
        index records size 0); every stat field equal and not racily clean
        ("."); and, when nothing can convert the file's bytes (no
        attributes, no ``core.autocrlf``/``core.eol``, SHA-1), the file's blob
        id against the entry's, as git compares them. Anything else (a new or untracked path, a directory, a type
        or mode change, equal size but a new mtime, flags, conflicts) goes
        to git.
        """
        if self.index is None:
            self.index = _read_index(repo.index)
            if self.index is None:
                self.index = _NO_INDEX
        if self.index is _NO_INDEX:
            return None
        entries, stamp = self.index
        out: dict[str, str] = {}
        for path in dirty:
            entry = entries.get(path)
            if entry is None:
                return None
            ctime, mtime, ino, mode, uid, gid, size, sha = entry
            try:
                st = os.lstat(os.path.join(self.top, path))
            except FileNotFoundError:
                out[path] = "D"
                continue
            except OSError:
                return None
            if mode >> 12 not in (0o10, 0o12):
                return None  # a submodule
            want_type = stat.S_IFLNK if mode >> 12 == 0o12 else stat.S_IFREG
            if stat.S_IFMT(st.st_mode) != want_type or (
                want_type == stat.S_IFREG and (st.st_mode ^ mode) & 0o100
            ):
                return None  # type or mode change: git's letter depends on config
            if size != st.st_size & 0xFFFFFFFF:
                if size == 0:
                    return None
                out[path] = "M"
                continue
            same = (
                mtime == (st.st_mtime_ns // 10**9, st.st_mtime_ns % 10**9)
                and ctime == (st.st_ctime_ns // 10**9, st.st_ctime_ns % 10**9)
                and ino == st.st_ino & 0xFFFFFFFF
                and uid == st.st_uid & 0xFFFFFFFF
                and gid == st.st_gid & 0xFFFFFFFF
            )
            if same and mtime[0] < stamp:
                out[path] = "."
                continue
            if not self.plain or st.st_size > MAX_HASHED:
                return None  # git would read the file through a conversion we do not model
            blob = _blob_id(os.path.join(self.top, path), want_type == stat.S_IFLNK)
            if blob is None:
                return None
            out[path] = "." if blob == sha else "M"
        return out

    def _rebuild(self, repo: observe.Repo, skip: str, key: list[object]) -> dict[str, str] | None:
        """Watch every directory holding a tracked file, then read the full status."""
        self.close()
        self.skip, self.key = skip, key
        try:
            self.notify = _Inotify()
            tracked = observe.in_repo(repo, ["ls-files", "-z", "--cached"], timeout=10.0)
            if tracked is None or tracked.returncode != 0:
                self.close()
                return observe.status_entries(repo)
            dirs = {""}
            names = [os.fsdecode(raw) for raw in tracked.stdout.split(b"\0") if raw]
            for name in names:
                self._parents(name, dirs)
            plain = _no_conversion(repo) and not any(_is_attributes(n) for n in names)
            if len(dirs) > _dir_cap():
                raise OSError("too many directories to watch")
            for d in sorted(dirs):
                self._watch(d)
        except OSError:
            self.close()
            self.broken = True
            return observe.status_entries(repo)
        listing = observe.status_entries(repo)
        if listing is None:
            self.close()
            return None
        extra: set[str] = set()
        for path in listing:
            self._parents(path, extra)
        self.plain = plain and not any(_is_attributes(p) for p in listing)
        self.index = _read_index(repo.index) or _NO_INDEX  # now, not on the next edit
        try:
            for d in sorted(extra - dirs):
                self._watch(d)
        except OSError:
            self.close()
            self.broken = True
            return listing
        # a change there between the status and its watch has no event: ask again next call
        self.pending = extra - dirs
        self.listing = listing
        return dict(listing)

    def _relist(self, repo: observe.Repo) -> dict[str, str] | None:
        """git's whole status, the watches kept (new folders it lists watched, as after
        :meth:`_rebuild`)."""
        listing = observe.status_entries(repo)
        if listing is None:
            self.close()
            return None
        extra: set[str] = set()
        for path in listing:
            self._parents(path, extra)
        try:
            for d in sorted(extra - set(self.dirs.values())):
                self._watch(d)
                self.pending.add(d)  # a change there before its watch: asked next call
        except OSError:
            self.close()
            self.broken = True
            return listing
        self.index = None  # read again when next needed
        self.listing = listing
        return dict(listing)

    def _parents(self, path: str, into: set[str]) -> None:
        d = os.path.dirname(path.rstrip("/"))
        while d and d not in into:
            into.add(d)
            d = os.path.dirname(d)

    def _watch(self, rel: str) -> None:
        assert self.notify is not None
        try:
            wd = self.notify.add(os.path.join(self.top, rel) if rel else self.top)
        except OSError as exc:
            import errno

            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return  # gone (or a file now): its parent's event says so
            raise
        self.dirs[wd] = rel

    def _drain(self, skip: str) -> tuple[set[str], bool]:
        """Paths the kernel reported changed since the last call; True: rescan everything."""
        assert self.notify is not None
        dirty: set[str] = set()
        new_dirs: list[str] = []
        skip_prefix = skip.rstrip("/") + "/" if skip else ""
        for wd, mask, name in self.notify.read():
            if mask & IN_Q_OVERFLOW:
                return dirty, True
            if mask & IN_IGNORED:
                self.dirs.pop(wd, None)
                continue
            base = self.dirs.get(wd)
            if base is None:
                continue
            if mask & (IN_MOVE_SELF | IN_DELETE_SELF):
                if mask & IN_MOVE_SELF or not base:
                    return dirty, True  # a renamed watched directory: its paths are stale
                continue
            rel = f"{base}/{name}" if base else name
            if skip_prefix and (rel + "/").startswith(skip_prefix):
                continue
            if name == ".git" and not base:
                continue  # the repository's own git directory: the key covers it
            if name in _RESCAN_NAMES:
                return dirty, True
            if mask & IN_ISDIR and mask & IN_MOVED_FROM:
                return dirty, True
            if mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO):
                new_dirs.append(rel)
            dirty.add(rel)
        for rel in new_dirs:
            if not self._watch_tree(rel):
                return dirty, True
        return dirty, False

    def _watch_tree(self, rel: str) -> bool:
        """Watch a new directory and those under it; False when there are too many."""
        count = 0
        stack = [rel]
        while stack:
            d = stack.pop()
            count += 1
            if count > MAX_NEW_DIRS or len(self.dirs) >= _dir_cap():
                return False
            try:
                self._watch(d)
                with os.scandir(os.path.join(self.top, d)) as it:
                    for entry in it:
                        if entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                            stack.append(f"{d}/{entry.name}")
            except OSError:
                return False
        return True


def _is_attributes(path: str) -> bool:
    return path == ".gitattributes" or path.endswith("/.gitattributes")


def _no_conversion(repo: observe.Repo) -> bool:
    """No config or attributes file can change a file's bytes on their way into git."""
    res = observe.in_repo(
        repo,
        [
            "config",
            "--get-regexp",
            r"^(core\.(autocrlf|eol|attributesfile|bigfilethreshold)|extensions\.objectformat)$",
        ],
    )
    if res is None or res.returncode != 1 or res.stdout:
        return False  # set (or git failed): let git compare
    home = os.environ.get("HOME", "")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return not any(
        os.path.exists(p)
        for p in (
            os.path.join(repo.common_dir, "info", "attributes"),
            os.path.join(xdg, "git", "attributes"),
        )
    )


def _blob_id(path: str, link: bool) -> bytes | None:
    """The SHA-1 blob id of a file's bytes (a symlink's target), as ``hash-object`` gives it."""
    import hashlib

    try:
        if link:
            data = os.fsencode(os.readlink(path))
        else:
            from agentreflex.core.util.fsutil import read_regular

            # never a FIFO's open: a file swapped for one after its lstat held the daemon,
            # and every hook waiting on its lock, for ever (red-team rt31)
            found = read_regular(path, MAX_HASHED, follow=False)
            if found is None or len(found) > MAX_HASHED:
                return None
            data = found
    except OSError:
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).digest()


def _read_index(path: str) -> _Index | None:
    """The plain entries of a git index (versions 2 to 4); None for anything unusual.

    A split or sparse index, or an unreadable one, answers None: git is asked.
    Entries with a stage, the assume-unchanged bit or extended flags
    (skip-worktree, intent-to-add) are left out, so git is asked about them.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read()
            stamp = os.fstat(fh.fileno()).st_mtime_ns // 10**9
    except OSError:
        return None
    if len(data) < 32 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3, 4):
        return None
    entries: _Entries = {}
    pos = 12
    prev = b""
    try:
        for _ in range(count):
            f = _ENTRY.unpack_from(data, pos)
            flags = f[11]
            start = pos
            pos += _ENTRY.size
            if flags & 0x4000:  # extended flags follow (v3+)
                pos += 2
            if version == 4:
                b = data[pos]
                pos += 1
                strip = b & 0x7F
                while b & 0x80:  # git's offset varint
                    b = data[pos]
                    pos += 1
                    strip = ((strip + 1) << 7) | (b & 0x7F)
                end = data.index(b"\0", pos)
                name = prev[: len(prev) - strip] + data[pos:end]
                pos = end + 1
                prev = name
            else:
                end = data.index(b"\0", pos)
                name = data[pos:end]
                pos = start + ((end - start + 8) & ~7)
            if flags & 0xF000:  # assume-valid, extended or a conflict stage
                continue
            entries[os.fsdecode(name)] = (
                (f[0], f[1]),
                (f[2], f[3]),
                f[5],
                f[6],
                f[7],
                f[8],
                f[9],
                f[10],
            )
    except (struct.error, IndexError, ValueError):
        return None
    ext = pos
    while ext + 8 <= len(data) - 20:
        sig, size = struct.unpack_from(">4sI", data, ext)
        if sig in (b"link", b"sdir"):
            return None
        ext += 8 + size
    return entries, stamp


def _dir_cap() -> int:
    """Directories one repository may watch: :data:`MAX_DIRS`, and at most a sixteenth
    of the user's inotify watches (shared with editors and file watchers), so even
    :data:`MAX_REPOS` caches leave half of them to the rest."""
    try:
        with open("/proc/sys/fs/inotify/max_user_watches", "rb") as fh:
            limit = int(fh.read().strip())
    except (OSError, ValueError):
        limit = 8192
    return min(MAX_DIRS, limit // 16)


def _under_any(path: str, dirty: set[str]) -> bool:
    if path in dirty:
        return True
    d = os.path.dirname(path.rstrip("/"))
    while d:
        if d in dirty:
            return True
        d = os.path.dirname(d)
    return False


def _partial_status(repo: observe.Repo, paths: list[str]) -> dict[str, str] | None:
    return observe.status_entries(repo, pathspecs=paths)


def _stat_key(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _key(repo: observe.Repo) -> list[object]:
    """What, when it changes, may change every path's status: then the full status runs."""
    head = os.path.join(repo.git_dir, "HEAD")
    try:
        with open(head, "rb") as fh:
            head_text = fh.read(4096)
    except OSError:
        head_text = b""
    key: list[object] = [head_text]
    names = [
        repo.index,
        head,
        os.path.join(repo.common_dir, "packed-refs"),
        os.path.join(repo.common_dir, "info", "exclude"),
        os.path.join(repo.common_dir, "info", "attributes"),
        os.path.join(repo.common_dir, "config"),
        os.path.join(repo.git_dir, "config.worktree"),
    ]
    if head_text.startswith(b"ref: "):
        names.append(os.path.join(repo.common_dir, os.fsdecode(head_text[5:].strip())))
    home = os.environ.get("HOME", "")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    names += [
        os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
        os.path.join(xdg, "git", "ignore"),
        os.path.join(xdg, "git", "attributes"),
    ]
    key += [_stat_key(n) for n in names]
    return key
