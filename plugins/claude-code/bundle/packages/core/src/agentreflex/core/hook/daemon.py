"""The warm daemon: one per user and installation, on a private Unix socket.

It keeps configuration, compiled rules, the shell parser and judge
connections loaded so a hook call costs little more than starting Python.
Each request is answered by the same :func:`run_hook` the hook process uses,
with the client's decision-relevant environment applied, so both paths decide
identically.  It exits by itself after ``idle_seconds`` without a request.

Whom it answers (issue 21): a peer with its own uid, whose request carries
its own :func:`~agentreflex.core.hook.client.installation_id` (anything else gets
"evaluate it yourself").  It serves only from a directory that is its own and
nobody else's (opened with ``O_NOFOLLOW``, checked and bound through that
descriptor), and refuses to start anywhere else.

Why threads: a client that connects and then says nothing, or sends slowly,
must not hold up every other hook.  Each connection gets its own thread with
a bounded read; requests with the same forwarded environment are evaluated
side by side, and one with a different environment waits at most
``GATE_WAIT`` for the process environment to be its own, else it is told to
evaluate itself (see :class:`EnvGate`).  An event is recorded only if its
client is still waiting for the answer: one that timed out evaluates and
records the event itself.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable

from agentreflex.core.hook.client import (
    BUSY,
    FOREIGN,
    MAGIC,
    STALE,
    forwarded,
    installation_id,
    peer_pid,
    peer_uid,
    policy_variables,
    socket_path,
)
from agentreflex.core.util.fsutil import mtime_ns
from agentreflex.core.util.ownpython import isolated

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.hook.runtime import HookOutcome

MAX_REQUEST = 11 * 1024 * 1024
READ_SECONDS = 2.0  # a whole request, however slowly it trickles in
GATE_WAIT = 1.0  # longest wait for the environment to be a request's own
MAX_CLIENTS = 32  # connections served at once; more are told to evaluate themselves


class UnsafeDirectory(OSError):
    """The daemon's directory is not this user's alone: refuse to serve there."""


def open_private_dir(directory: str, create: bool = True) -> int:
    """An fd on ``directory``, created 0700 if missing, refused unless ours alone.

    Why: with ``XDG_RUNTIME_DIR`` unset the directory is in /tmp, where another
    local user can create it first (or a symlink by its name) and answer our
    hooks.  Every check is made on the open descriptor, and the socket is then
    bound through it, so nothing can be swapped in between.
    """
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(directory, 0o700)
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(directory, flags)
    except OSError as exc:
        raise UnsafeDirectory(
            f"refusing to use {directory}: it is not a plain directory ({exc.strerror}); "
            "another local user may have put something there. Remove it, or set "
            "XDG_RUNTIME_DIR to a private directory."
        ) from None
    st = os.fstat(fd)
    problem = ""
    if st.st_uid != os.getuid():
        problem = f"it belongs to uid {st.st_uid}, not to you (uid {os.getuid()})"
    elif st.st_mode & 0o077:
        problem = f"its mode is {st.st_mode & 0o777:o}: other users may enter or write it"
    if problem:
        os.close(fd)
        raise UnsafeDirectory(
            f"refusing to use {directory}: {problem}, so another local user could answer "
            "your hooks. Remove it (or fix it), or set XDG_RUNTIME_DIR to a private directory."
        )
    os.fchmod(fd, 0o700)
    return fd


def _at(fd: int, name: str, fallback: str) -> str:
    """``name`` inside the directory open as ``fd``: through the descriptor on Linux.

    Elsewhere (no /proc) the plain ``fallback`` path; the client's peer check
    then still refuses anything that is not this user's daemon.
    """
    proc = f"/proc/self/fd/{fd}"
    return f"{proc}/{name}" if os.path.isdir(proc) else fallback


def pid_path(path: str | None = None) -> str:
    return (path or socket_path()) + ".pid"


def is_running(path: str | None = None) -> int | None:
    """The daemon's pid if one of ours is alive and answering on the socket."""
    sock_file = path or socket_path()
    try:
        dir_fd = open_private_dir(os.path.dirname(sock_file) or ".", create=False)
    except OSError:
        return None
    try:
        name = os.path.basename(sock_file)
        try:
            pid_fd = os.open(name + ".pid", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
            with os.fdopen(pid_fd) as fh:
                pid = int(fh.read().strip())
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.settimeout(1.0)
            probe.connect(_at(dir_fd, name, sock_file))
            if peer_uid(probe) != os.getuid():
                return None
        except OSError:
            return None
        finally:
            probe.close()
        return pid
    finally:
        os.close(dir_fd)


def _read_request(conn: socket.socket, seconds: float = READ_SECONDS) -> bytes:
    """The whole request, within ``seconds`` in all (a trickling client is cut off)."""
    deadline = time.monotonic() + seconds
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("request not received in time")
        conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REQUEST:
            raise ValueError("request too large")
    return b"".join(chunks)


def parse_request(data: bytes) -> tuple[str, str, str, dict[str, str], bytes]:
    """(installation id, host, event hint, forwarded environment, payload)."""
    if not data.startswith(MAGIC):
        raise ValueError("bad request magic")
    rest = data[len(MAGIC) :]
    install, rest = rest.split(b"\0", 1)
    host, rest = rest.split(b"\0", 1)
    hint, rest = rest.split(b"\0", 1)
    env: dict[str, str] = {}
    while True:
        item, rest = rest.split(b"\0", 1)
        if not item:
            break
        key, _, value = item.decode("utf-8", "surrogateescape").partition("=")
        env[key] = value
    return install.decode("utf-8", "surrogateescape"), host.decode(), hint.decode(), env, rest


class EnvGate:
    """Lets requests with the same environment run together, one environment at a time.

    ``os.environ`` is one per process and the hook path reads it (HOME, the
    XDG dirs, REFLEX_*), so two requests may run side by side only if they
    forwarded the same variables.  The first request of another environment
    waits for the running ones to finish, at most ``wait`` seconds.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._current: tuple[tuple[str, str], ...] | None = None
        self._active = 0

    def enter(self, env: dict[str, str], wait: float) -> bool:
        key = tuple(sorted(env.items()))
        with self._cond:
            if not self._cond.wait_for(
                lambda: self._active == 0 or self._current == key, timeout=wait
            ):
                return False
            if self._current != key:
                _apply_environment(env)
                self._current = key
            self._active += 1
            return True

    def leave(self) -> None:
        with self._cond:
            self._active -= 1
            self._cond.notify_all()


def _apply_environment(env: dict[str, str]) -> None:
    """Make the client's forwarded variables this process's own (and no others like them).

    Like them: every spelling of a variable the policy reads, this session's and the one
    before (its user's contain.toml may name others), so the daemon's own
    ``Npm_Config_Cache`` is not taken for the session's (red-team rt84).
    """
    policy = policy_variables(os.environ) | policy_variables(env)
    for key in [k for k in os.environ if forwarded(k, policy)]:
        del os.environ[key]
    os.environ.update(env)


def client_gone(conn: socket.socket) -> bool:
    """Has the client closed its end (it gave up waiting and evaluates by itself)?

    The client only half-closes (SHUT_WR) after its request, which reads as
    end-of-file but not as a hang-up; its full close is POLLHUP.
    """
    import select

    poller = select.poll()
    poller.register(conn.fileno(), select.POLLIN)
    return any(
        events & (select.POLLHUP | select.POLLERR | select.POLLNVAL)
        for _fd, events in poller.poll(0)
    )


def code_stamp() -> list[tuple[str, int]]:
    """Modification times of every agentreflex module this process loaded.

    A daemon whose code changed on disk (an upgrade, a developer's edit, a new
    plug-in) must not keep answering with the old code.
    """
    from agentreflex.core import registry

    stamp: list[tuple[str, int]] = [("sys.path", hash(repr(registry.path_key())))]
    for name, module in sorted(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name.startswith("agentreflex") and path:
            stamp.append((path, mtime_ns(path)))
    return stamp


def still_fresh(stamp: list[tuple[str, int]]) -> bool:
    """True when every file of ``stamp`` is unchanged (modules loaded later are new anyway)."""
    from agentreflex.core import registry

    if not stamp or stamp[0] != ("sys.path", hash(repr(registry.path_key()))):
        return False
    return all(mtime_ns(path) == mtime for path, mtime in stamp[1:])


_STAMP: list[tuple[str, int]] = []
_INSTALL = ""
_GATE = EnvGate()


def handle(conn: socket.socket) -> bool:
    """Answer one request; False when the daemon is stale and must exit."""
    from agentreflex.core.hook.runtime import run_hook

    if peer_uid(conn) != os.getuid():
        return True
    if not _sees_what_we_see(peer_pid(conn)):
        conn.sendall(bytes([FOREIGN]))  # a contained command: never the key's oracle
        return True
    if not still_fresh(_STAMP):
        conn.sendall(bytes([STALE]))
        return False
    install, host, hint, env, payload = parse_request(_read_request(conn))
    if install != _INSTALL:  # another installation's client: not ours to answer
        conn.sendall(bytes([FOREIGN]))
        return True
    if not _GATE.enter(env, GATE_WAIT):
        conn.sendall(bytes([BUSY]))
        return True
    from agentreflex.core.hosts import hostprocess

    hostprocess.serving(peer_pid(conn) or 0)  # the host is the hook process's ancestor
    try:
        outcome = run_hook(host, payload, os.environ, hint or None, still_wanted=_waiting(conn))
    finally:
        hostprocess.serving(None)
        _GATE.leave()
    reply = outcome.reply
    conn.settimeout(READ_SECONDS)
    conn.sendall(
        bytes([reply.exit_code & 0xFF])
        + reply.stdout.encode("utf-8", "backslashreplace")  # as the hook process writes it
        + b"\0"
        + reply.stderr.encode("utf-8", "backslashreplace")
    )
    _export(outcome, env)  # after the reply: the hook never waits for telemetry
    return True


def _sees_what_we_see(pid: int | None) -> bool:
    """Is the peer in this daemon's mount and user namespaces (as the client requires of
    the daemon, :func:`~agentreflex.core.hook.client.runs_our_daemon`)?

    A command in the boundary is in others: answered, it would have the daemon, which
    holds the key the boundary hides, seal what it likes into a session (red-team rt33).
    Without ``/proc`` (macOS) only the uid is known.
    """
    if not os.path.isdir("/proc/self"):
        return True
    if pid is None:
        return False
    try:
        return all(
            os.readlink(f"/proc/{pid}/ns/{space}") == os.readlink(f"/proc/self/ns/{space}")
            for space in ("mnt", "user")
        )
    except OSError:
        return False


def _export(outcome: HookOutcome, sent: dict[str, str]) -> None:
    """Offer the decision to the OTLP export ([export] otlp in user config); never raises."""
    policy = policy_variables(os.environ)
    env = {k: v for k, v in os.environ.items() if not forwarded(k, policy)}
    env.update(sent)
    with contextlib.suppress(Exception):
        from agentreflex.core.otlp import live

        live.offer(outcome, env)


def _waiting(conn: socket.socket) -> Callable[[], bool]:
    return lambda: not client_gone(conn)


def _single_instance(dir_fd: int, name: str) -> int | None:
    """An fd holding the daemon lock, or None when another daemon holds it."""
    import fcntl

    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(name + ".lock", flags, 0o600, dir_fd=dir_fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def serve(idle_seconds: float, path: str | None = None) -> int:
    """Run the daemon in the foreground until idle for ``idle_seconds``."""
    global _INSTALL
    _INSTALL = installation_id()
    sock_file = path or socket_path(_INSTALL)
    try:
        dir_fd = open_private_dir(os.path.dirname(sock_file) or ".")
    except OSError as exc:
        print(f"agentreflex serve: {exc}", file=sys.stderr)
        return 2
    from agentreflex.core.worktree import watch

    watch.enable()  # fingerprints kept between calls (issue 29's warm-daemon figures)
    try:
        return _serve_in(dir_fd, sock_file, idle_seconds)
    finally:
        os.close(dir_fd)


def _serve_in(dir_fd: int, sock_file: str, idle_seconds: float) -> int:
    global _STAMP
    from agentreflex.core.hook.runtime import load_plugins

    name = os.path.basename(sock_file)
    lock = _single_instance(dir_fd, name)
    if lock is None:
        print(f"agentreflex daemon already running on {sock_file}", file=sys.stderr)
        return 1
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=dir_fd)  # stale: its owner no longer holds the lock
    load_plugins()  # warm: import reflexes, compile rules, load the parser
    _warm_up()
    _STAMP = code_stamp()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        server.bind(_at(dir_fd, name, sock_file))
    finally:
        os.umask(old_umask)
    server.listen(64)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    with os.fdopen(os.open(name + ".pid", flags, 0o600, dir_fd=dir_fd), "w") as fh:
        fh.write(str(os.getpid()))
    from agentreflex.core.hook import localjudge

    stop = threading.Event()  # SIGTERM from here on ends the daemon cleanly
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    judge = localjudge.start(os.environ, stop.is_set)  # only when the user asked for one
    try:
        _accept_loop(server, idle_seconds, stop)
    finally:
        localjudge.stop(judge)
        _close_export()
        with contextlib.suppress(OSError):
            server.close()
        for leftover in (name, name + ".pid"):
            with contextlib.suppress(OSError):
                os.unlink(leftover, dir_fd=dir_fd)
        os.close(lock)
    return 0


def _close_export() -> None:
    if "agentreflex.core.otlp.live" in sys.modules:
        with contextlib.suppress(Exception):
            sys.modules["agentreflex.core.otlp.live"].close_all()


def _accept_loop(server: socket.socket, idle_seconds: float, stop: threading.Event) -> None:
    """Accept until idle, stale or SIGTERM; each connection is served on its own thread.

    ``stop`` may already be set: a SIGTERM that came while the daemon started.
    """
    slots = threading.BoundedSemaphore(MAX_CLIENTS)
    lock = threading.Lock()
    active = [0]
    last = [time.monotonic()]

    def _stop(*_: object) -> None:
        stop.set()
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_RDWR)

    def _serve_one(conn: socket.socket) -> None:
        try:
            with conn, contextlib.suppress(Exception):
                if not handle(conn):
                    _stop()
        finally:
            with lock:
                active[0] -= 1
                last[0] = time.monotonic()
            slots.release()

    signal.signal(signal.SIGTERM, _stop)
    server.settimeout(min(idle_seconds, 2.0))
    while not stop.is_set():
        try:
            conn, _ = server.accept()
        except TimeoutError:
            with lock:
                idle = active[0] == 0 and time.monotonic() - last[0] >= idle_seconds
            if idle:
                break
            continue
        except OSError:
            if stop.is_set():
                break
            raise
        if stop.is_set() or not slots.acquire(blocking=False):
            with conn, contextlib.suppress(OSError):
                conn.sendall(bytes([BUSY]))  # too many at once (or closing): evaluate yourself
            continue
        with lock:
            active[0] += 1
            last[0] = time.monotonic()
        threading.Thread(target=_serve_one, args=(conn,), daemon=True).start()
    _drain(lock, active)


def _drain(lock: threading.Lock, active: list[int], seconds: float = 10.0) -> None:
    """Let requests in flight finish (and their records be written) before exiting."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with lock:
            if active[0] <= 0:
                return
        time.sleep(0.02)


def _warm_up() -> None:
    """Run one harmless decision so lazy imports (parsers, rules) happen now."""
    import tempfile

    from agentreflex.core.hook.runtime import check_command

    with contextlib.suppress(Exception):
        check_command("ls -la", tempfile.gettempdir())


def start_detached(idle_seconds: float) -> None:
    """Start a daemon in the background (used by SessionStart and `serve --detach`).

    Raises :class:`UnsafeDirectory` (and starts nothing) when the daemon's
    directory is not this user's alone.
    """
    dir_fd = open_private_dir(os.path.dirname(socket_path()) or ".")
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW
        out = os.open("daemon.log", flags, 0o600, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    try:
        # cwd "/": ``-m`` puts the working directory first on sys.path, and a
        # project's own ``agentreflex/`` folder must never become the daemon's code.
        subprocess.Popen(
            isolated(
                sys.executable, "-m", "agentreflex.core.cli", "serve", "--idle", str(idle_seconds)
            ),
            cwd="/",
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            close_fds=True,
        )
    finally:
        os.close(out)


def stop(path: str | None = None, wait: float = 5.0) -> bool:
    pid = is_running(path)
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return True
        time.sleep(0.05)
    return False
