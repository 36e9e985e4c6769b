"""The thin hook client: forward a hook call to the warm daemon, if one answers.

This module is imported on every hook call before anything else, so it uses
only ``os`` and ``sys`` (already loaded by the interpreter) and the C-level
``_socket`` module: ``import socket`` alone would pull in enum and selectors
(~14 ms).

Whose daemon it talks to (issue 21): only one of this user and this
installation.  The socket's name is derived from :func:`installation_id`
(the interpreter prefix and version, ``sys.path`` and the state of its
directories, which changes with every installed distribution and version) and the request carries the
whole id, which the daemon compares with its own: a core-plus-gate install
never gets the answer of a full install's daemon.  The socket's directory is
opened once (``O_DIRECTORY | O_NOFOLLOW``), checked on that descriptor (ours,
mode 0700) and connected through that same descriptor, so nothing can be
swapped between the check and the connect; then the server's uid is read from
the connected socket (``SO_PEERCRED``; ``LOCAL_PEERCRED`` on the BSDs), and on
Linux the peer's own ``/proc`` entry must show this installation's daemon
(:func:`runs_our_daemon`), before a byte of the payload is sent.  Anything
unexpected: evaluate in-process.

Wire format over the Unix socket (all bytes):

    request:  b"ARX2\\0" install_id b"\\0" host b"\\0" event_hint b"\\0"
              (key b"=" value b"\\0")* b"\\0" payload
    response: exit_code_byte stdout b"\\0" stderr

The client half-closes after sending; the daemon answers and closes.  A
response of one byte >= 253 means "evaluate it yourself" (busy, another
installation, stale code).
"""

from __future__ import annotations

import os
import sys

from agentreflex.core.util.ownpython import ISOLATED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _socket import socket as Socket
    from collections.abc import Mapping

# The variables window managers and terminals set to their command socket's path: the
# boundary hides those sockets (contain/policy.py), and the daemon must see the session's
SOCKET_VARIABLES = (
    "SWAYSOCK",
    "I3SOCK",
    "NIRI_SOCKET",
    "ALACRITTY_SOCKET",
    "WEZTERM_UNIX_SOCKET",
    "BSPWM_SOCKET",
    "RXVT_SOCKET",
)

MAGIC = b"ARX2\0"
BUSY, FOREIGN, STALE = 253, 254, 255  # one-byte answers meaning "evaluate it yourself"
TIMEOUT = 5.0
# Environment that changes a decision: forwarded so the daemon evaluates the
# call exactly as this process would.
ENV_PREFIXES = (
    "REFLEX_",
    "JEV_",
    "AGENTREFLEX_",
    "CLAUDE_",
    "CODEX_",
    "GEMINI_CLI_HOME",  # where Gemini CLI keeps the session files the guard reads
    "GEMINI_PROJECT_DIR",  # the session's project (hook/sessionproject.py)
    "COPILOT_HOME",  # the same for Copilot CLI
    "COPILOT_ALLOW_ALL",  # whether it runs every tool without asking (contained commands)
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "HOME",
    "PWD",
    # what the looks and the boundary's plan read from the host's environment (red-team
    # rt33): the PATH folders a host runs programs from, the temp folder, the sockets of
    # servers that run what they are asked outside the boundary (contain/policy.py), the
    # hosts' own folders and switches; the daemon's own values are another session's
    "PATH",
    "TMPDIR",
    "USER",
    "XDG_RUNTIME_DIR",
    "XDG_DATA_HOME",
    "TMUX",  # and TMUX_TMPDIR
    "DBUS_SESSION_BUS_ADDRESS",
    "DOCKER_HOST",
    "KITTY_LISTEN_ON",
    "HYPRLAND_INSTANCE_SIGNATURE",
    *SOCKET_VARIABLES,
    "GIT_TEMPLATE_DIR",
    "CLAUDECODE",
    "OPENCODE_CONFIG",  # and OPENCODE_CONFIG_CONTENT
    "OPENCODE_PERMISSION",
    "OPENCODE_BIN",
    "HERMES_HOME",
    "HERMES_PROFILE",
    "PI_CODING_AGENT_DIR",
    "GEMINI_CLI_TRUST_WORKSPACE",
    "GEMINI_RESTRICTED_MODE",
    # where Gemini CLI reads its system settings: the compression threshold a PreCompress
    # is judged by (hosts/gemini_compress.py), and GEMINI_CLI_SYSTEM_DEFAULTS_PATH
    "GEMINI_CLI_SYSTEM_",
    # Poetry's virtualenvs folders, which {poetry_envs} reads (contain/poetryenvs.py,
    # red-team rt83)
    "POETRY_VIRTUALENVS_PATH",
    "POETRY_CACHE_DIR",
    # and, beside these, every variable a contain.toml entry names ({env:NAME}): see
    # policy_variables, the policy itself is their one list
)
# the built-in containment policy (contain/policy.py reads it; its {env:NAME} are read here)
BUILTIN_POLICY = os.path.join(os.path.dirname(os.path.dirname(__file__)), "contain", "contain.toml")


def socket_dir() -> str:
    """Where this user's daemons listen: ``$XDG_RUNTIME_DIR/agentreflex``, else /tmp."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, "agentreflex")
    return os.path.join("/tmp", f"agentreflex-{os.getuid()}")


def installation_id() -> str:
    """What makes this installation decide the way it does, as one string.

    The interpreter (prefix and version), the import path after the script's
    own directory (or the cwd), and the modification time of each of its directories.
    Installing, upgrading or removing any distribution (an agentreflex
    package's ``agentreflex_gate-0.1.0.dist-info`` included) adds or removes
    an entry of its directory, which changes that directory's time: two
    installations with different agentreflex packages or versions never share
    an id.  One ``stat`` per entry (about 3 µs), where listing the
    directories cost ~0.8 ms on this project's machines; code edited in place
    is the daemon's own check (it steps aside when its modules change).
    """
    parts = [sys.prefix, str(sys.hexversion)]
    # -P (ownpython.ISOLATED) prepends nothing; else sys.path[0] is the script's or cwd
    for entry in sys.path if sys.flags.safe_path else sys.path[1:]:
        try:
            parts.append(f"{entry}\t{os.stat(entry).st_mtime_ns}")
        except OSError:
            parts.append(f"{entry}\t-")
    return "\n".join(parts)


def _short(text: str) -> str:
    """A short, stable name for ``text`` (not a security boundary: the id is compared whole)."""
    raw = text.encode("utf-8", "surrogateescape")
    return format(int.from_bytes(raw, "little") % 0x1FFFFFFFFFFFFFFF, "016x")


def socket_path(install: str | None = None) -> str:
    """This installation's socket (``AGENTREFLEX_SOCKET`` overrides the place, not the checks)."""
    explicit = os.environ.get("AGENTREFLEX_SOCKET")
    if explicit:
        return explicit
    name = f"daemon-{_short(install or installation_id())}.sock"
    return os.path.join(socket_dir(), name)


def encode_request(
    host: str, hint: str, env: dict[str, str], payload: bytes, install: str = ""
) -> bytes:
    parts = [MAGIC, install.encode("utf-8", "surrogateescape"), b"\0"]
    parts += [host.encode(), b"\0", hint.encode(), b"\0"]
    for key, value in env.items():
        if "\0" in key or "\0" in value:
            continue
        parts.append(f"{key}={value}".encode("utf-8", "surrogateescape") + b"\0")
    parts.append(b"\0")
    parts.append(payload)
    return b"".join(parts)


def user_policy_file(env: Mapping[str, str]) -> str:
    """The user's own contain.toml, as ``env`` places it (the config folder's, XDG_CONFIG_HOME
    else ~/.config; what contain/policy.py reads)."""
    base = env.get("XDG_CONFIG_HOME") or ""
    if not os.path.isabs(base):  # the XDG spec: a relative value is ignored
        base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".config")
    return os.path.join(base, "agentreflex", "contain.toml")


def _env_entries(path: str) -> frozenset[str]:
    """The ``NAME`` of each ``"{env:NAME}..."`` entry in the policy file ``path``, lowercased.

    Read as text, not as TOML (tomllib costs milliseconds on every hook call): an entry is
    a quoted string that begins ``{env:`` (contain/policy.py expand_entry), and a comment
    line is skipped.  A test holds the names found so to the parsed policy's; reading one
    too many only forwards one more variable.
    """
    try:
        st = os.stat(path)
        key = (path, st.st_ino, st.st_size, st.st_mtime_ns)
        if key in _SCANNED:  # the daemon and the .env look ask often; the file rarely changes
            return _SCANNED[key]
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return frozenset()
    _SCANNED[key] = names = _scan(text)
    return names


# each policy file's names by (path, inode, size, mtime)
_SCANNED: dict[tuple[str, int, int, int], frozenset[str]] = {}


def _scan(text: str) -> frozenset[str]:
    names = set()
    at = text.find("{env:")
    while at != -1:
        line = text[text.rfind("\n", 0, at) + 1 : at]
        end = text.find("\n", at)
        name, closed, _ = text[at + 5 : len(text) if end == -1 else end].partition("}")
        if line[-1:] in ("'", '"') and not line.lstrip().startswith("#") and closed and name:
            names.add(name.lower())
        at = text.find("{env:", at + 5)
    return frozenset(names)


def policy_variables(env: Mapping[str, str]) -> frozenset[str]:
    """Every variable the containment policy reads (its ``{env:NAME}`` entries, the built-in
    file's and the user's), lowercased: a name is matched in any case, as npm reads its.

    Why from the policy files themselves: the warm daemon plans the boundary with the
    session's values of exactly these (red-team rt80, rt84); a list of its own would miss
    the user's entries and any spelling it did not foresee.
    """
    return _env_entries(BUILTIN_POLICY) | _env_entries(user_policy_file(env))


def forwarded(key: str, policy: frozenset[str]) -> bool:
    """Whether the variable ``key`` changes a decision (``policy``: :func:`policy_variables`)."""
    return key.startswith(ENV_PREFIXES) or key.lower() in policy


def forwarded_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of ``env`` (this process's) the daemon must decide with."""
    values = os.environ if env is None else env
    policy = policy_variables(values)
    return {k: v for k, v in values.items() if forwarded(k, policy)}


def _peer_credentials(sock: Socket) -> tuple[bytes, bool]:
    """The socket's peer credentials, raw, and whether they are Linux's (``SO_PEERCRED``)."""
    import _socket

    opt = getattr(_socket, "SO_PEERCRED", None)
    linux = opt is not None
    level = _socket.SOL_SOCKET
    if opt is None:  # macOS / BSD: struct xucred {u_int version; uid_t uid; ...}
        opt, level = getattr(_socket, "LOCAL_PEERCRED", None), 0
    if opt is None:
        return b"", False
    try:
        return sock.getsockopt(level, opt, 64), linux
    except OSError:
        return b"", False


def peer_uid(sock: Socket) -> int | None:
    """The uid of the process at the other end of a connected Unix socket, if knowable."""
    creds, _ = _peer_credentials(sock)
    # Linux struct ucred {pid_t pid; uid_t uid; gid_t gid}: the uid is the second int,
    # as it is in xucred.
    return int.from_bytes(creds[4:8], sys.byteorder) if len(creds) >= 8 else None


def peer_pid(sock: Socket) -> int | None:
    """The pid of the process at the other end (Linux's ``struct ucred`` only), if knowable."""
    creds, linux = _peer_credentials(sock)
    return int.from_bytes(creds[0:4], sys.byteorder) if linux and len(creds) >= 4 else None


# What decides which code an interpreter runs at start-up, beside its command line:
# a daemon started with other values than this hook's may run other code.
_STARTUP_ENV = frozenset(
    {
        *(b"PYTHONPATH", b"PYTHONHOME", b"PYTHONSTARTUP", b"PYTHONUSERBASE"),
        *(b"PYTHONNOUSERSITE", b"PYTHONSAFEPATH", b"PYTHONPLATLIBDIR", b"PYTHONEXECUTABLE"),
        *(b"LD_PRELOAD", b"LD_LIBRARY_PATH", b"LD_AUDIT"),
    }
)

# How :func:`agentreflex.core.hook.daemon.start_detached` starts the daemon (after its Python).
_SERVE = [*(os.fsencode(flag) for flag in ISOLATED), b"-m", b"agentreflex.core.cli", b"serve"]


def _argument_path(arg: bytes, cwd: str) -> str:
    path = os.fsdecode(arg)
    return os.path.realpath(path if os.path.isabs(path) else os.path.join(cwd, path))


def runs_our_daemon(pid: int) -> bool:
    """Whether process ``pid`` is this installation's daemon, as its own ``/proc`` entry shows.

    The socket's owner is checked by uid, but an agent runs as the same user: a
    few lines of server it starts where the client looks would receive every
    hook's payload (and the environment forwarded with it) and could answer
    "allow" to all of them (issue 28).  So the peer must be this interpreter
    (``exe``), started the way the daemon is started (``python -m
    agentreflex.core.cli serve`` from ``/``, as :func:`start_detached` does, or
    this installation's own ``agentreflex serve``), with the same start-up
    variables as this hook (``PYTHONPATH``, ``LD_PRELOAD``...).  Its code is then
    this installation's, which the boundary makes read-only and the gate
    protects.  And it must see what this hook sees (the same mount and user
    namespaces): the real daemon started by a contained command would see only
    the boundary (no key, a read-only state folder, a bubblewrap that may not
    start inside another) and could answer that commands are not contained.
    Without ``/proc`` (macOS) only the uid can be checked (SECURITY.md).
    """
    if not os.path.isdir("/proc/self"):
        return True
    base = f"/proc/{pid}"
    try:
        for space in ("mnt", "user"):
            if os.readlink(f"{base}/ns/{space}") != os.readlink(f"/proc/self/ns/{space}"):
                return False
        exe = os.readlink(base + "/exe")
        cwd = os.readlink(base + "/cwd")
        with open(base + "/cmdline", "rb") as fh:
            argv = fh.read().split(b"\0")
        with open(base + "/environ", "rb") as fh:
            environ = fh.read().split(b"\0")
    except OSError:
        return False
    if exe != os.path.realpath(sys.executable):
        return False
    module = argv[1 : 1 + len(_SERVE)] == _SERVE and cwd == "/"
    ours = os.path.realpath(os.path.join(sys.prefix, "bin", "agentreflex"))
    script = len(argv) > 2 and argv[2] == b"serve" and _argument_path(argv[1], cwd) == ours
    if not (module or script):
        return False
    theirs = {k: v for k, _, v in (e.partition(b"=") for e in environ) if k in _STARTUP_ENV}
    mine = {k: v for k, v in os.environb.items() if k in _STARTUP_ENV}
    return theirs == mine


def private_dir_fd(directory: str) -> int | None:
    """An fd on ``directory`` if it is a real directory of ours with mode 0700, else None.

    The checks are made on the open descriptor, so a symlink, a directory of
    another user or one others may enter is refused, and whatever is later
    reached through the descriptor is what was checked.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(directory, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        return None
    if st.st_uid != os.getuid() or (st.st_mode & 0o777) != 0o700:
        os.close(fd)
        return None
    return fd


def _connect(fd: int, path: str, timeout: float) -> Socket | None:
    """A socket connected to our own daemon at ``path`` in the checked directory ``fd``."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        via = f"/proc/self/fd/{fd}/{os.path.basename(path)}"  # the checked directory itself
        try:
            sock.connect(via)
        except FileNotFoundError:
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                raise  # no daemon there
            sock.connect(path)  # no /proc: the peer check below still holds
        if peer_uid(sock) != os.getuid():
            raise PermissionError("the daemon is not ours")
        pid = peer_pid(sock)
        if pid is not None and not runs_our_daemon(pid):
            raise PermissionError("the process listening there is not this installation's daemon")
    except OSError:
        sock.close()
        return None
    return sock


def _socket_file(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    # and its change time: a file made on the freed inode of the daemon's own (ext4 gives
    # it the same number at once) is a new file all the same (red-team rt33)
    return st.st_dev, st.st_ino, st.st_ctime_ns


def verified_socket(path: str) -> tuple[int, int, int] | None:
    """The (device, inode, change time) of ``path`` when this installation's daemon listens there.

    For the JavaScript shims (OpenCode, pi), which cannot read a socket's peer
    credentials: they run this once per socket file and then talk only to a
    socket file with the same identity, checked again after connecting.  An
    agent's server put there takes a new socket file, which is checked anew.
    """
    before = _socket_file(path)
    fd = private_dir_fd(os.path.dirname(path) or ".")
    if before is None or fd is None:
        return None
    try:
        sock = _connect(fd, path, TIMEOUT)
    finally:
        os.close(fd)
    if sock is None:
        return None
    sock.close()
    return before if _socket_file(path) == before else None


def try_daemon(
    host: str, hint: str, payload: bytes, timeout: float = TIMEOUT
) -> tuple[int, bytes, bytes] | None:
    """The daemon's answer, or None when no trustworthy daemon answered in time."""
    if os.environ.get("AGENTREFLEX_DAEMON", "").lower() == "off":
        return None
    explicit = os.environ.get("AGENTREFLEX_SOCKET")
    fd = private_dir_fd(os.path.dirname(explicit) or "." if explicit else socket_dir())
    if fd is None:
        return None  # no daemon directory, or one that is not ours alone
    try:
        install = installation_id()
        sock = _connect(fd, socket_path(install), timeout)
    finally:
        os.close(fd)
    if sock is None:
        return None
    import _socket

    chunks = []
    try:
        sock.sendall(encode_request(host, hint, forwarded_env(), payload, install))
        sock.shutdown(_socket.SHUT_WR)
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        return None  # closing the socket tells the daemon not to record this event
    finally:
        sock.close()
    data = b"".join(chunks)
    if not data or (len(data) == 1 and data[0] >= BUSY):
        return None  # nothing, busy, another installation, stale code: evaluate here
    out, _, err = data[1:].partition(b"\0")
    return data[0], out, err
