"""The project's process namespace: one per project and boot, which every contained command joins.

Why: a contained command that shared the user's pid namespace could signal
the user's other processes, the hook's own among them, and Gemini CLI and
Copilot CLI run a command as written when the hook dies (red-team rt30).  A
command in a pid namespace of its own could not, but a dev server it started
in the background would then die with it, and a later command could not
reach it with ``kill``/``pkill``.  So the commands of one project share one
pid namespace, made by a holder: a bwrap (``--unshare-user --unshare-pid``)
whose first process, pid 1 inside, only reaps what is orphaned there.  Each
contained command joins it (bwrap's ``--userns`` and ``--pidns``, from
descriptors the rewritten line opens on ``/proc/PID/ns``): the commands see
and signal each other, and nothing outside.

* The holder can't be killed from inside: the kernel drops every signal a
  process of the namespace sends its pid 1 that pid 1 has no handler for
  (all, here: SIGKILL and SIGSTOP too).  Only a process outside can end it.
* It is found by a record in the user's state folder, which no contained
  command can write; before it is joined, the pid's start time and its two
  namespaces must be the ones recorded, and neither namespace the hook's own
  (a pid reused by a process outside is never joined).
* Its own mounts are the project's boundary, read-only: a command can open
  ``/proc/1/root``, and must find there nothing it could not already read.
* It leaves when its namespace has held nothing but itself for
  :data:`IDLE_SECONDS`; a background server keeps it.  The next command
  starts another.
* Where it can't be started, commands keep the user's pid namespace (the
  boundary is unchanged), as before.  The failure is kept beside the record
  (``.fail``) for :data:`RETRY_SECONDS`: every command tried again, paying
  for a bwrap that fails each time (red-team rt49); ``doctor`` and ``status``
  say what it means (:func:`fallback`).  Inside the boundary the state folder
  is read-only: no command can forge the failure, nor clear it.

No namespace code is written here: bwrap makes and joins the namespaces.
Stdlib only: it is on the hook's path (the holder is started once).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence

from agentreflex.core.state import userdirs

__all__ = [
    "IDLE_SECONDS",
    "PIDNS_FD",
    "RETRY_SECONDS",
    "USERNS_FD",
    "fallback",
    "holder",
    "redirections",
    "stop",
]

# the descriptors bwrap reads the namespaces from: one digit, as every shell takes them
USERNS_FD = "6"
PIDNS_FD = "7"

IDLE_SECONDS = 300
# how long a holder that could not be started is not tried again (each try costs a bwrap)
RETRY_SECONDS = 600
_FAILED = ".fail"  # beside the record; not a name stop()'s glob takes for a record

# pid 1 of the namespace: every signal back to its default (the kernel then drops them
# all, sent from inside), SIGCHLD waited for, orphans reaped, gone when alone for a while
_REAPER = f"""
import os, signal, sys, time
for n in range(1, signal.NSIG):
    try:
        signal.signal(n, signal.SIG_DFL)
    except (OSError, ValueError, RuntimeError):
        pass
signal.pthread_sigmask(signal.SIG_BLOCK, {{signal.SIGCHLD}})
import ctypes
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no /proc/1/root, no ptrace
ready = int(sys.argv[1])
os.write(ready, b"1")
os.close(ready)
seen = time.monotonic()
while True:
    signal.sigtimedwait({{signal.SIGCHLD}}, 30)
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
    if any(n.isdigit() and n != "1" for n in os.listdir("/proc")):
        seen = time.monotonic()
    elif time.monotonic() - seen > {IDLE_SECONDS}:
        break
"""


def redirections(pid: int) -> str:
    """What the rewritten line adds for bwrap to join holder ``pid``'s namespaces."""
    return f" {USERNS_FD}< /proc/{pid}/ns/user {PIDNS_FD}< /proc/{pid}/ns/pid"


def holder(
    engine: str,
    view: Sequence[str] | Callable[[], Sequence[str]],
    project: str,
    env: Mapping[str, str] | None,
) -> int | None:
    """The pid of ``project``'s holder, started if there is none; None where none can be had.

    ``view`` is bwrap's mount arguments for the holder's own filesystem, or what makes
    them: only a holder started needs them, and on every other command working them out
    was a tenth of the hook's plan (rt82).
    """
    record = _record_path(project, env)
    if record is None:
        return None
    found = _verified(record)
    if found is not None:
        return found
    if _failed_at(record) is not None:
        return None  # tried a short while ago, and it could not be had: not each command
    import fcntl

    # the state folder may refuse a write (its filesystem filled from the project or a cache
    # a command writes, red-team rt70): the lock and the record are then done without, and
    # the holder just started is joined all the same, never the user's pid namespace
    lock = _open_lock(record)
    try:
        if lock is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(lock, fcntl.LOCK_EX)
        found = _verified(record)  # another hook started it meanwhile
        if found is None and _failed_at(record) is None:
            found = _start(engine, view() if callable(view) else view)
            if found is None:
                _remember_failure(record)
            else:
                _keep(record, found)
        return found
    finally:
        if lock is not None:
            os.close(lock)


def _open_lock(record: str) -> int | None:
    """The lock beside ``record``, made if need be; None where the state folder refuses it."""
    try:
        os.makedirs(os.path.dirname(record), mode=0o700, exist_ok=True)
        return os.open(record + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        return None


def _keep(record: str, pid: int) -> None:
    """Record holder ``pid`` for the next commands, where the state folder takes the write.

    Where it does not, the next command starts a holder of its own (its namespace then not
    shared with this one's background processes): the boundary is the same.
    """
    with contextlib.suppress(OSError):
        _write(record, pid)
        os.unlink(record + _FAILED)


def fallback(project: str, env: Mapping[str, str] | None = None) -> str:
    """What ``doctor`` and ``status`` say when ``project``'s commands run in the user's pid
    namespace because its holder could not be started lately ("" when not known to)."""
    record = _record_path(project, env)
    when = _failed_at(record) if record is not None else None
    if when is None:
        return ""
    import time

    again = time.strftime("%H:%M", time.localtime(when + RETRY_SECONDS))
    return (
        "the project's own pid namespace could not be started (bwrap refused it), so "
        "contained commands run in your pid namespace: a command, or a background process "
        "it leaves running, can see and signal your other processes (the host's and the "
        f"hook's among them); files stay inside the boundary.  Tried again after {again}"
    )


def _failed_at(record: str) -> float | None:
    """When the holder last failed to start, if that is under :data:`RETRY_SECONDS` ago."""
    import time

    try:
        when = os.stat(record + _FAILED).st_mtime
    except OSError:
        return None
    now = time.time()
    return when if now - RETRY_SECONDS < when <= now + 60 else None


def _remember_failure(record: str) -> None:
    """Mark the failure (its time is the file's); a folder that can't be written: not kept."""
    try:
        fd = os.open(record + _FAILED, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        return
    try:
        os.utime(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _record_path(project: str, env: Mapping[str, str] | None) -> str | None:
    import hashlib

    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            boot = handle.read().strip()
    except OSError:
        return None
    key = f"{project}|{os.getuid()}|{boot}".encode("utf-8", "surrogateescape")
    name = "pidns-" + hashlib.sha256(key).hexdigest()[:24]
    return os.path.join(userdirs.user_state_dir(env), "contain", name)


def _identity(pid: int) -> tuple[int, int, int] | None:
    """(start time, user namespace, pid namespace) of ``pid``, or None when it is gone or going."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
        fields = stat[stat.rindex(b")") + 2 :].split()
        if fields[0] in (b"Z", b"X"):
            return None  # dead: its namespace takes no one in
        start = int(fields[19])
        return (
            start,
            os.stat(f"/proc/{pid}/ns/user").st_ino,
            os.stat(f"/proc/{pid}/ns/pid").st_ino,
        )
    except (OSError, ValueError, IndexError):
        return None


def _verified(record: str) -> int | None:
    """The recorded holder's pid, if that process is still the one recorded; else None."""
    try:
        with open(record, encoding="ascii") as handle:
            words = handle.read().split()
        pid, *recorded = (int(word) for word in words)
    except (OSError, ValueError):
        return None
    if len(recorded) != 3 or pid <= 1:
        return None
    identity = _identity(pid)
    if identity is None or list(identity) != recorded:
        return None
    try:  # never the hook's own namespaces: joining them would change nothing
        if identity[1] == os.stat("/proc/self/ns/user").st_ino:
            return None
        if identity[2] == os.stat("/proc/self/ns/pid").st_ino:
            return None
    except OSError:
        return None
    return pid


def _start(engine: str, view: Sequence[str]) -> int | None:
    """Start a holder (detached: its own session, no descriptor of the host's); its pid or None."""
    import json
    import subprocess
    import sys
    import time

    from agentreflex.core.util.sysprog import system_program

    shell = system_program("sh")
    if shell is None:
        return None
    read, write = os.pipe()
    ready_read, ready = os.pipe()
    argv = [
        engine,
        "--unshare-user",
        "--unshare-pid",
        "--as-pid-1",
        "--cap-drop",
        "ALL",
        *view,
        "--info-fd",
        str(write),
        "--",
        sys.executable,
        "-I",
        "-S",
        "-c",
        _REAPER,
        str(ready),
    ]
    try:
        # through a shell that leaves it running: the holder is nobody's child to wait for
        subprocess.run(
            [shell, "-c", '"$@" &', "holder", *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write, ready),
            env={},
            start_new_session=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        os.close(read)
        os.close(ready_read)
        return None
    finally:
        os.close(write)
        os.close(ready)
    deadline = time.monotonic() + 5
    try:
        info = _until(read, b"}", deadline)
        # and its pid 1 running: a holder that could not start would fail every command
        if _until(ready_read, b"1", deadline) != b"1":
            return None
        pid = int(json.loads(info.decode())["child-pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    finally:
        os.close(read)
        os.close(ready_read)
    return pid if _identity(pid) is not None else None


def _until(fd: int, end: bytes, deadline: float) -> bytes:
    """What ``fd`` gives until ``end``, its end, or ``deadline`` (time.monotonic)."""
    import select
    import time

    data = b""
    while end not in data:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data


def _write(record: str, pid: int) -> None:
    identity = _identity(pid)
    if identity is None:
        raise OSError("the holder left at once")
    temp = f"{record}.{os.getpid()}"
    try:
        with open(temp, "w", encoding="ascii") as handle:
            handle.write(" ".join(str(n) for n in (pid, *identity)) + "\n")
        os.replace(temp, record)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp)  # a part written before the disk was full
        raise


def stop(env: Mapping[str, str] | None = None) -> int:
    """End every holder the state folder records (and all that runs in its namespace); how many."""
    import glob
    import signal
    import time

    ended = 0
    folder = os.path.join(userdirs.user_state_dir(env), "contain")
    for record in glob.glob(os.path.join(glob.escape(folder), "pidns-*[0-9a-f]")):
        pid = _verified(record)
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)  # pid 1 of the namespace: everything in it ends
                ended += 1
            except OSError:
                continue
            for _ in range(200):
                if _identity(pid) is None:
                    break
                time.sleep(0.01)
    return ended
