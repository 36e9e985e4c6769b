"""The warm daemon: one per user, on a private Unix socket.

It keeps configuration, compiled rules, the shell parser and judge
connections loaded so a hook call costs little more than starting Python.
Requests are served one at a time by the same :func:`run_hook` the hook
process uses, with the client's decision-relevant environment applied for
the duration of the request, so both paths decide identically.  It exits by
itself after ``idle_seconds`` without a request.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator

from agentreflex.core.client import ENV_PREFIXES, MAGIC, socket_dir, socket_path
from agentreflex.core.fsutil import mtime_ns

MAX_REQUEST = 11 * 1024 * 1024
STALE = 255  # exit byte meaning "my code changed since I started: evaluate yourself"


def _prepare_socket_dir(path: str) -> None:
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    st = os.stat(directory)
    if st.st_uid != os.getuid():
        raise PermissionError(f"{directory} is owned by another user")
    os.chmod(directory, 0o700)


def pid_path(path: str | None = None) -> str:
    return (path or socket_path()) + ".pid"


def is_running(path: str | None = None) -> int | None:
    """The daemon's pid if one is alive and answering on the socket."""
    sock_file = path or socket_path()
    try:
        with open(pid_path(sock_file)) as fh:
            pid = int(fh.read().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(sock_file)
    except OSError:
        return None
    finally:
        probe.close()
    return pid


def _read_request(conn: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REQUEST:
            break
    return b"".join(chunks)


def parse_request(data: bytes) -> tuple[str, str, dict[str, str], bytes]:
    if not data.startswith(MAGIC):
        raise ValueError("bad request magic")
    rest = data[len(MAGIC) :]
    host, rest = rest.split(b"\0", 1)
    hint, rest = rest.split(b"\0", 1)
    env: dict[str, str] = {}
    while True:
        item, rest = rest.split(b"\0", 1)
        if not item:
            break
        key, _, value = item.decode("utf-8", "surrogateescape").partition("=")
        env[key] = value
    return host.decode(), hint.decode(), env, rest


@contextlib.contextmanager
def client_environment(env: dict[str, str]) -> Iterator[None]:
    """Apply the client's forwarded variables; restore ours afterwards."""
    saved = {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIXES)}
    for key in saved:
        del os.environ[key]
    os.environ.update(env)
    try:
        yield
    finally:
        for key in [k for k in os.environ if k.startswith(ENV_PREFIXES)]:
            del os.environ[key]
        os.environ.update(saved)


def _peer_uid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


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


def handle(conn: socket.socket) -> bool:
    """Answer one request; False when the daemon is stale and must exit."""
    from agentreflex.core.runtime import run_hook

    if _peer_uid(conn) != os.getuid():
        return True
    if not still_fresh(_STAMP):
        conn.sendall(bytes([STALE]))
        return False
    host, hint, env, payload = parse_request(_read_request(conn))
    with client_environment(env):
        outcome = run_hook(host, payload, os.environ, hint or None)
    reply = outcome.reply
    conn.sendall(
        bytes([reply.exit_code & 0xFF]) + reply.stdout.encode() + b"\0" + reply.stderr.encode()
    )
    return True


def _single_instance(sock_file: str) -> int | None:
    """An fd holding the daemon lock, or None when another daemon holds it."""
    import fcntl

    fd = os.open(sock_file + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def serve(idle_seconds: float, path: str | None = None) -> int:
    """Run the daemon in the foreground until idle for ``idle_seconds``."""
    global _STAMP
    from agentreflex.core.runtime import load_plugins

    sock_file = path or socket_path()
    _prepare_socket_dir(sock_file)
    lock = _single_instance(sock_file)
    if lock is None:
        print(f"agentreflex daemon already running on {sock_file}", file=sys.stderr)
        return 1
    with contextlib.suppress(FileNotFoundError):
        os.unlink(sock_file)  # stale: its owner no longer holds the lock
    load_plugins()  # warm: import reflexes, compile rules, load the parser
    _warm_up()
    _STAMP = code_stamp()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        server.bind(sock_file)
    finally:
        os.umask(old_umask)
    os.chmod(sock_file, 0o600)
    server.listen(64)
    with open(pid_path(sock_file), "w") as fh:
        fh.write(str(os.getpid()))
    try:
        _accept_loop(server, idle_seconds)
    finally:
        with contextlib.suppress(OSError):
            server.close()
        for leftover in (sock_file, pid_path(sock_file)):
            with contextlib.suppress(OSError):
                os.unlink(leftover)
        os.close(lock)
    return 0


def _accept_loop(server: socket.socket, idle_seconds: float) -> None:
    stop = False

    def _on_term(signum: int, frame: object) -> None:
        nonlocal stop
        stop = True
        server.close()

    signal.signal(signal.SIGTERM, _on_term)
    server.settimeout(idle_seconds)
    while not stop:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            return
        except OSError:
            if stop:
                return
            raise
        fresh = True
        with conn, contextlib.suppress(Exception):
            conn.settimeout(30)
            fresh = handle(conn)
        if not fresh:
            return


def _warm_up() -> None:
    """Run one harmless decision so lazy imports (parsers, rules) happen now."""
    import tempfile

    from agentreflex.core.runtime import check_command

    with contextlib.suppress(Exception):
        check_command("ls -la", tempfile.gettempdir())


def start_detached(idle_seconds: float) -> None:
    """Start a daemon in the background (used by SessionStart and `serve --detach`)."""
    log = os.path.join(socket_dir(), "daemon.log")
    os.makedirs(socket_dir(), mode=0o700, exist_ok=True)
    with open(log, "ab") as out:
        subprocess.Popen(
            [sys.executable, "-m", "agentreflex.core.cli", "serve", "--idle", str(idle_seconds)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            close_fds=True,
        )


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
