"""The thin hook client: forward a hook call to the warm daemon, if one answers.

This module is imported on every hook call before anything else, so it uses
only ``os`` (already loaded by the interpreter) and the C-level ``_socket``
module: ``import socket`` alone would pull in enum and selectors (~14 ms).

Wire format over the Unix socket (all bytes):

    request:  b"ARX1\\0" host b"\\0" event_hint b"\\0" (key b"=" value b"\\0")* b"\\0" payload
    response: exit_code_byte stdout b"\\0" stderr

The client half-closes after sending; the daemon answers and closes.
"""

from __future__ import annotations

import os

MAGIC = b"ARX1\0"
# Environment that changes a decision: forwarded so the daemon evaluates the
# call exactly as this process would.
ENV_PREFIXES = (
    "REFLEX_",
    "JEV_",
    "AGENTREFLEX_",
    "CLAUDE_",
    "CODEX_",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "HOME",
    "PWD",
)


def socket_dir() -> str:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, "agentreflex")
    return os.path.join("/tmp", f"agentreflex-{os.getuid()}")


def socket_path() -> str:
    return os.environ.get("AGENTREFLEX_SOCKET") or os.path.join(socket_dir(), "daemon.sock")


def encode_request(host: str, hint: str, env: dict[str, str], payload: bytes) -> bytes:
    parts = [MAGIC, host.encode(), b"\0", hint.encode(), b"\0"]
    for key, value in env.items():
        if "\0" in key or "\0" in value:
            continue
        parts.append(f"{key}={value}".encode("utf-8", "surrogateescape") + b"\0")
    parts.append(b"\0")
    parts.append(payload)
    return b"".join(parts)


def forwarded_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIXES)}


def try_daemon(
    host: str, hint: str, payload: bytes, timeout: float = 5.0
) -> tuple[int, bytes, bytes] | None:
    """The daemon's answer, or None when no trustworthy daemon answered in time."""
    if os.environ.get("AGENTREFLEX_DAEMON", "").lower() == "off":
        return None
    path = socket_path()
    try:
        st = os.stat(path)
    except OSError:
        return None
    if st.st_uid != os.getuid() or (st.st_mode & 0o077):
        return None  # not ours, or readable by others: never trust it
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        sock.sendall(encode_request(host, hint, forwarded_env(), payload))
        sock.shutdown(_socket.SHUT_WR)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        sock.close()
    data = b"".join(chunks)
    if not data or data[0] == 255:  # nothing, or a stale daemon: evaluate here
        return None
    out, _, err = data[1:].partition(b"\0")
    return data[0], out, err
