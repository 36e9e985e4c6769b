"""Atomic, locked file operations shared by every store.

Hook processes run concurrently (parallel tool calls, several sessions), so
every read-modify-write of a state file happens under an exclusive
``fcntl.flock`` on a sibling ``.lock`` file, and every snapshot is written to
a temporary file, fsynced and renamed over the old one: a reader sees either
the old or the new file, never half of one.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import itertools
import os
from collections.abc import Callable, Iterator

from agentreflex.core.util import fastjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@contextlib.contextmanager
def locked(path: str, shared: bool = False) -> Iterator[None]:
    """Hold an exclusive (or shared) advisory lock on ``path + '.lock'``."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


_COUNTER = itertools.count()


def atomic_write_bytes(
    path: str,
    data: bytes,
    durable: bool = True,
    mode: int = 0o600,
    times_ns: tuple[int, int] | None = None,
) -> None:
    """Write ``data`` to ``path`` via temp file + fsync + rename.

    ``durable=False`` skips the fsync (readers still see the old or the new
    file, never a torn one) for copies that can be rebuilt from a durable
    source: an fsync costs a hook call up to a millisecond here.  ``mode``
    and ``times_ns`` (access, modification) are the new file's before it
    takes the name: a copy that replaces a file keeps what readers check.
    """
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    # a unique sibling name without importing tempfile (costly on the hot path)
    tmp = f"{path}.tmp-{os.getpid()}-{next(_COUNTER)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if times_ns is not None:
            os.utime(tmp, ns=times_ns)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_json(path: str, obj: Any, durable: bool = True) -> None:
    data = fastjson.dump_state(obj).encode()
    atomic_write_bytes(path, data, durable)


def append_line(path: str, line: str, durable: bool = False) -> None:
    """Append one line with a single ``write`` on an ``O_APPEND`` descriptor.

    Callers hold :func:`locked`, but even without it a single O_APPEND write
    cannot interleave with another process's line on a local filesystem.
    ``durable`` fsyncs the line before returning.
    """
    data = (line.rstrip("\n") + "\n").encode("utf-8", "replace")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        written = os.write(fd, data)
        while written < len(data):  # pragma: no cover - short writes are rare
            written += os.write(fd, data[written:])
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def ensure_private_dir(path: str) -> None:
    """Create a state directory (0700) that git ignores by itself (a ``*`` .gitignore).

    An existing one we own is tightened to 0700: session logs are nobody
    else's business, and a group-writable folder lets others swap them.
    """
    os.makedirs(path, mode=0o700, exist_ok=True)
    tighten(path, 0o700)
    ignore = os.path.join(path, ".gitignore")
    if not os.path.exists(ignore):
        with contextlib.suppress(OSError), open(ignore, "w") as fh:
            fh.write("# agentreflex state: local to this machine\n*\n")


def private_dirs(path: str) -> None:
    """Create ``path`` and its missing parents, each 0700 (the user's own state folders).

    ``os.makedirs(mode=...)`` gives the mode to the last folder only; a parent
    it creates (``~/.local/state``) would be readable by others.
    """
    if os.path.isdir(path):
        return
    private_dirs(os.path.dirname(path))
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)


def tighten(path: str, mode: int) -> None:
    """Set ``path``'s permission bits to ``mode`` when we own it and it allows more."""
    with contextlib.suppress(OSError):
        st = os.stat(path)
        if st.st_uid == os.geteuid() and st.st_mode & 0o777 & ~mode:
            os.chmod(path, mode)


def mtime_ns(path: str) -> int:
    """Modification time in ns, or -1 when the file cannot be seen (so it never matches)."""
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def stamp(path: str, follow: bool = False) -> list[int] | None:
    """What changes when a file is written or replaced (inode, size, modification and
    change times).

    Why: the look after a contained command compares these with the ones taken before
    it, to read again only what changed.  The change time because a command can put
    the modification time back (``touch -r``) after writing the same number of bytes in
    place; no one but the kernel sets the change time.  ``follow`` stamps what a link
    leads to; None when there is nothing there.
    """
    try:
        found = os.stat(path) if follow else os.lstat(path)
    except OSError:
        return None
    return [found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns]


def keep_newest(folder: str, limit: int) -> None:
    """Keep the ``limit`` newest files in ``folder``, deleting the rest.

    Why: a hook writes a record before a tool and reads it after; a tool that
    never finishes (denied, the host gone) leaves its record behind forever.
    """
    names = os.listdir(folder)
    if len(names) <= limit:
        return
    paths = [os.path.join(folder, n) for n in names]
    paths.sort(key=lambda p: os.stat(p).st_mtime_ns)
    for p in paths[: len(paths) - limit]:
        os.unlink(p)


def file_mark(path: str) -> tuple[int, int, int] | None:
    """What :func:`remove_if_unchanged` compares: inode, modification time, size."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def remove_if_unchanged(path: str, mark: tuple[int, int, int] | None) -> None:
    """Remove the record read as ``mark``, not one written since.

    Why: a look's record is removed only once its work is done, so a daemon stopped
    inside the look (a signal from a process a command left running) leaves it to the
    hook process that answers in its place; a daemon resumed late must then not remove
    what that process wrote meanwhile (red-team rt33).
    """
    if mark is not None and file_mark(path) == mark:
        with contextlib.suppress(OSError):
            os.unlink(path)


def call_record_path(folder: str, session_id: str, tool_use_id: str) -> str:
    """The file in ``folder`` where a hook keeps what it saw before one tool call, for after it.

    Named by a digest of the session and call ids: both come from the host's
    payload, so they never become a path themselves.
    """
    from agentreflex.core.util.digest import sha256_hex

    return os.path.join(folder, sha256_hex(f"{session_id}\0{tool_use_id}", 32) + ".json")


def read_regular(path: str, limit: int, follow: bool = True) -> bytes | None:
    """Up to ``limit + 1`` bytes of the regular file ``path``; None for anything else.

    Why: the hook reads files a command could have made, and ``open`` on a FIFO
    waits for a writer forever: a hook that hangs until the host's timeout is a
    hook that lets everything through.  A device, a folder, a missing file, and
    a link when not ``follow``, are None too.
    """
    import stat

    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_json(
    path: str, limit: int = 1 << 20, parse: Callable[[bytes], Any] = fastjson.loads
) -> Any:
    """A small JSON file's value; None when there is none, it is no regular file (a FIFO a
    command made: see :func:`read_regular`), it is larger than ``limit`` or not JSON.

    ``parse`` reads a dialect instead (JSONC: :func:`agentreflex.core.util.jsonc.loads`
    of the decoded text); it raises ``ValueError`` on what is not one.
    """
    data = read_regular(path, limit)
    if data is None or len(data) > limit:
        return None
    try:
        return parse(data)
    except (ValueError, RecursionError):  # RecursionError: nested past any real file
        return None


def inside(path: str, folder: str) -> bool:
    """Is ``path`` the folder ``folder`` or below it (as spelled: no link is resolved)?"""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def through_link(path: str, roots: list[str]) -> str:
    """The outermost link on the way to ``path`` below the root it is in, else ``path``.

    Why: the looks after a command move aside, or write, what the command left in
    the project, outside any boundary.  A folder on the way that is a link
    (``ln -s ~/.gemini web/.gemini``) would lead that move or write to the user's
    own file; what must go is the link the command made.
    """
    for root in roots:
        if not path.startswith(root.rstrip("/") + "/"):
            continue
        current = root
        for part in path[len(root.rstrip("/")) + 1 :].split("/")[:-1]:
            current = os.path.join(current, part)
            if os.path.islink(current):
                return current
        return path
    return path


def open_folder(path: str, make: bool = False) -> int:
    """A descriptor of the folder ``path``, opened one part at a time from ``/`` and never
    through a link; ``OSError`` when a part is a link or no folder.

    Why: the looks after a command move and rewrite what it left, outside any
    boundary, by name.  A process the command left running can swap a folder on
    the way for a link to the user's home between the look's check and its act;
    a descriptor opened this way stays on the folder that was checked.  ``make``
    makes the folders missing on the way, each in the folder opened before it.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open("/", flags)
    try:
        for part in os.path.normpath(path).split("/"):
            if part:
                if make:  # a missing folder is made here, in the folder just opened
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, dir_fd=fd)
                inner = os.open(part, flags, dir_fd=fd)
                os.close(fd)
                fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def move_under(path: str, folder: str) -> str:
    """``path`` moved below ``folder`` (its whole path under it); where it went, or "" if it stayed.

    Why: what a command left that must not stay where it is (another host's
    settings, a git hook) is moved, not deleted: nothing stored is lost, and
    the warning says where to find it.  A symlink is moved as the link.  The
    move is made from the folder ``path`` is in, opened with no link on the way
    (:func:`open_folder`), so it never reaches through one; and it never
    replaces a copy kept earlier (a name already taken gets a number).
    """
    target = os.path.join(folder, path.lstrip("/"))
    try:
        parent = open_folder(os.path.dirname(path))
    except OSError:
        return ""
    name = os.path.basename(path)
    try:
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        target = _unused(target)
        try:
            os.rename(name, target, src_dir_fd=parent)
        except OSError as error:
            if error.errno != errno.EXDEV:
                return ""
            return _move_across(parent, name, path, target)
    except OSError:
        return ""
    finally:
        os.close(parent)
    return target


def _unused(target: str) -> str:
    n = 1
    found = target
    while os.path.lexists(found):
        found, n = f"{target}.{n}", n + 1
    return found


def _move_across(parent: int, name: str, path: str, target: str) -> str:
    """Another filesystem (a project in /tmp, the state folder in home): the entry is renamed
    in its own folder, out of every host's sight (a name no host reads, no suffix), and stays
    there: copying it over by path would follow a folder inside it that a process swapped
    for a link meanwhile."""
    hidden = f".agentreflex-moved-{os.getpid()}-{next(_COUNTER)}"
    os.rename(name, hidden, src_dir_fd=parent, dst_dir_fd=parent)
    return os.path.join(os.path.dirname(path), hidden)


def replace_in_place(
    path: str,
    data: bytes,
    mode: int,
    make: bool = False,
    link: bool = False,
    durable: bool = False,
) -> None:
    """``path`` replaced by ``data`` in its folder, opened with no link on the way
    (:func:`open_folder`; ``make`` makes the missing folders): never written through one.

    Made under a fresh name (``O_EXCL | O_NOFOLLOW``, ``mode`` set on the descriptor) and
    renamed over the old entry, so a link put where the file is meanwhile is replaced,
    never followed.  ``link`` makes a symbolic link to ``data`` instead of a file;
    ``durable`` syncs the data before the rename.
    """
    parent = open_folder(os.path.dirname(path), make)
    temp = f".{os.path.basename(path)}.tmp-{os.getpid()}-{next(_COUNTER)}"
    try:
        if link:
            os.symlink(data.decode("utf-8", "surrogateescape"), temp, dir_fd=parent)
        else:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(temp, flags, 0o600, dir_fd=parent)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                os.fchmod(fh.fileno(), mode & 0o777)  # no set-id bits for what it writes
                if durable:
                    fh.flush()
                    os.fsync(fh.fileno())
        os.replace(temp, os.path.basename(path), src_dir_fd=parent, dst_dir_fd=parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=parent)
        raise
    finally:
        os.close(parent)


def read_in_place(path: str, limit: int) -> bytes | None:
    """A regular file's bytes (at most ``limit`` + 1) read from its folder opened with no
    link on the way, the file itself not followed either; None if there is none."""
    try:
        parent = open_folder(os.path.dirname(path))
    except OSError:
        return None
    try:
        fd = os.open(
            os.path.basename(path), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=parent
        )
    except OSError:
        return None
    finally:
        os.close(parent)
    with os.fdopen(fd, "rb") as fh:
        import stat

        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        return fh.read(limit + 1)


class Realpaths:
    """``os.path.realpath`` for many paths that share folders, each folder looked up once.

    Why: a containment plan resolves some eighty paths (the policy's entries,
    each mount) on every shell command, and ``realpath`` ``lstat``s every
    component of every one: about 560 calls, a third of the hook's work on a
    command.  Most share ``/home/USER`` or the project.  One instance serves
    one plan and is then dropped: a folder may be replaced by a link between
    two commands.  Same answer as ``os.path.realpath`` (non-strict).
    """

    def __init__(self) -> None:
        self._known: dict[str, str] = {"/": "/"}
        self._linked: set[str] = set()  # paths a link is on the way to: realpath's own answer

    def __call__(self, path: str) -> str:
        known = self._known.get(path)
        if known is not None:
            return known
        if not path.startswith("/") or path.endswith("/") or "/./" in path or "/../" in path:
            return os.path.realpath(path)  # not in the form folders are built from: no memo
        folder, name = path.rsplit("/", 1)
        if name in (".", ".."):
            return os.path.realpath(path)
        parent = self(folder or "/")
        candidate = os.path.join(parent, name)
        if (folder or "/") in self._linked or os.path.islink(candidate):
            # past a link, the whole path as realpath resolves it: one piece at a time, a
            # loop (`l -> l/..`) would resolve otherwise than it does (hypothesis found)
            candidate = os.path.realpath(path)
            self._linked.add(path)
        self._known[path] = candidate
        return candidate
