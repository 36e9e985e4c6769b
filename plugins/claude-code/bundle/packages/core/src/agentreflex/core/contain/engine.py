"""The engine: bubblewrap's arguments for a plan, its arguments file, and whether it can start.

bubblewrap (``bwrap``) is what Claude Code itself runs on Linux,
Debian-packaged, LGPL-2.0+, a single ``clone``+mounts at start (about 2-4
ms), and it works as root and inside ``unshare -n``.  No namespace, seccomp
or Landlock code is written here: only bwrap's argument list.  See
SECURITY.md ("Containment") for the comparison with Landlock and
``@anthropic-ai/sandbox-runtime``.

Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from agentreflex.core.contain.mounts import Mount, Plan
from agentreflex.core.contain.policy import inside
from agentreflex.core.state import userdirs

__all__ = [
    "ENGINE",
    "NO_NAMESPACES",
    "args_file",
    "bwrap_args",
    "engine_path",
    "engine_refused",
    "filter_file",
    "needed",
]

ENGINE = "bwrap"


def engine_path() -> str | None:
    """The system's ``bwrap`` on PATH (Linux only), else None: the host is then not contained.

    Only a ``bwrap`` the system owns (:mod:`agentreflex.core.util.sysprog`): one
    planted in a project folder at the front of the host's ``PATH`` (an
    activated ``.venv/bin``) would run every "contained" command as written.
    """
    if not sys.platform.startswith("linux"):
        return None
    from agentreflex.core.util.sysprog import system_program

    return system_program(ENGINE)


# The kernel's own settings under /proc that root may write with no capabilities,
# read-only as Flatpak makes them (an interrupt's CPU mask under /proc/irq too).
_KERNEL_SETTINGS = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus")


# The variables that hold the way into a host's own servers, inherited by every command:
# its IDE companion's token and port (Gemini CLI's; Claude Code's port), and the password
# of OpenCode's server (`opencode serve`, `web`, `--port`), whose `/session/{id}/shell`
# runs a command in OpenCode's process, outside every boundary, with no plugin hook.  The
# network is shared, so the server is reached; without its password it refuses.  A
# contained command has no use for them.
HOST_SERVER_VARIABLES = (
    "GEMINI_CLI_IDE_AUTH_TOKEN",
    "GEMINI_CLI_IDE_SERVER_PORT",
    "GEMINI_CLI_IDE_SERVER_STDIO_COMMAND",
    "GEMINI_CLI_IDE_SERVER_STDIO_ARGS",
    "CLAUDE_CODE_SSE_PORT",
    "OPENCODE_SERVER_PASSWORD",
)

# What bwrap's first three mounts leave each part of the tree as.
_BASE = (("/dev", "rw"), ("/proc", "rw"), ("/", "ro"))


def needed(mounts: Sequence[Mount]) -> list[Mount]:
    """The mounts that change something: each bind costs bwrap about 0.1 ms at start-up.

    A read-only path under a read-only one (the whole filesystem is, to begin with), or
    a writable one under a writable one, is already what it would be made; ``mounts``
    come parents first (:func:`.mounts.plan`).  Hidden, pinned and shadowed paths are always
    mounted.
    """
    kept: list[Mount] = []
    kinds: dict[str, str] = {}  # the kept mounts' kinds by path: a walk up finds the deepest
    for mount in mounts:
        above = _deepest(mount.path, kinds)
        if above is None:
            above = next(kind for base, kind in _BASE if inside(mount.path, base))
        if mount.kind in _ALWAYS or mount.kind != _KIND_OF.get(above, above):
            kept.append(mount)
            kinds[mount.path] = mount.kind
    return kept


def _deepest(path: str, kinds: Mapping[str, str]) -> str | None:
    """The kind of the deepest path in ``kinds`` that holds ``path`` (itself included).

    Why a walk up, not a scan of the mounts kept so far: every hook call plans some fifty
    mounts and asks this of each (and again for a namespace holder it starts), which a
    scan made quadratic, about a tenth of the plan's cost."""
    folder = path
    while folder not in kinds:
        cut = folder.rfind("/")  # the paths are normalised: dirname's work, without its calls
        if cut <= 0:
            return None if folder == "/" else kinds.get("/")
        folder = folder[:cut]
    return kinds[folder]


# a pinned folder is writable, a shadowed one another folder, writable: what each leaves
# the paths below it as
_KIND_OF = {"pin": "rw", "shadow": "rw"}
# what is mounted whatever holds it
_ALWAYS = ("hide", "pin", "shadow")


def bwrap_args(result: Plan, engine: str = ENGINE, joined: bool = False) -> list[str]:
    """bwrap's arguments: the whole filesystem read-only, then the policy's mounts.

    No new network, IPC or session namespace and no ``--die-with-parent``:
    background servers, the network and the terminal behave as without
    containment.  ``/dev`` is the host's own, and ``/proc`` too unless ``joined``.

    A user namespace not the host's, always (``--unshare-user``, or the
    project's when ``joined``): without one, a command
    run as root could follow ``/proc/PID/root`` of any process outside into
    the host's own, writable mounts and past every mount below.  The kernel
    refuses that link to a process of another user namespace.  An
    unprivileged bwrap makes one anyway; as root it must be asked.

    No capabilities (``--cap-drop ALL``): bwrap run as root keeps them all
    in the sandbox, and a command could then ``umount`` a read-only mount, or
    remount it writable, and write what it covered.  An unprivileged bwrap
    drops them anyway.

    The kernel's settings under ``/proc`` read-only, as Flatpak makes them,
    when running as root: root, even with no capabilities, may still write
    ``/proc/sys`` (``kernel.core_pattern`` names a program the kernel then
    runs as root, outside everything) and ``/proc/sysrq-trigger``.

    ``joined``: the user and pid namespaces are the project's
    (:mod:`.pidns`), read from descriptors the line opens, and ``/proc`` is
    that namespace's own: a command sees and signals the project's other
    commands, and no process outside.
    """
    if joined:
        from agentreflex.core.contain.pidns import PIDNS_FD, USERNS_FD

        spaces = ["--userns", USERNS_FD, "--pidns", PIDNS_FD]
        proc = ["--proc", "/proc"]
    else:
        spaces, proc = ["--unshare-user"], ["--bind", "/proc", "/proc"]
    args = [engine, *spaces, "--cap-drop", "ALL", *_base(proc), *_other_terminals()]
    for name in HOST_SERVER_VARIABLES:  # the hosts' servers' tokens, hidden like their files
        args += ["--unsetenv", name]
    return args + _mount_args(result)


def holder_view(result: Plan) -> list[str]:
    """bwrap's mount arguments for the holder of a project's namespaces (:mod:`.pidns`).

    The boundary, all read-only: a command reaches the holder's filesystem
    through ``/proc/1/root``, and finds there no more than it may read.
    """
    return _base(["--proc", "/proc"]) + _mount_args(result, writable=False)


def _base(proc: list[str]) -> list[str]:
    return ["--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", *proc]


_PTS = "/dev/pts"


def _other_terminals() -> list[str]:
    """Each terminal open when the command starts, an empty device inside (red-team rt97).

    Why: a terminal's device is its user's to write, and what is written
    there reaches the terminal emulator, which acts on some of it: kitty with
    ``allow_remote_control yes`` runs the remote-control command an escape
    code carries (``launch`` a shell, outside), and OSC 52 sets the clipboard
    the user pastes into a shell.  The command keeps its own terminal: the
    host opens it after the hook answered, or hands it over as an open file
    (``/dev/tty`` is the kernel's, whatever the name), and the terminals a
    command opens itself (tmux, ``script``) are new ones, on the host's
    ``/dev/pts`` as before.  A terminal opened later is seen from the next
    command on; one closed between the hook's answer and the command's start
    makes bwrap fail that command ("Can't create file at /dev/pts/N"), as a
    socket file of the ``sockets`` list gone in between does.
    """
    try:
        names = os.listdir(_PTS)
    except OSError:
        return []
    args: list[str] = []
    for name in names:
        if name.isdigit():
            args += ["--ro-bind", "/dev/null", f"{_PTS}/{name}"]
    return args


def _mount_args(result: Plan, writable: bool = True) -> list[str]:
    args: list[str] = []
    if os.geteuid() == 0:  # another user can't write them anyway: no mounts to pay for
        for kernel in _KERNEL_SETTINGS:
            args += ["--ro-bind-try", kernel, kernel]
    for mount in needed(result.mounts):  # "-try": a path gone since the plan is skipped
        if mount.kind == "shadow":
            if writable:  # the holder's view keeps the real one, read-only like the rest
                args += ["--bind", result.sources[mount.path], mount.path]
        elif mount.kind in ("rw", "pin"):
            args += ["--bind-try" if writable else "--ro-bind-try", mount.path, mount.path]
        elif mount.kind == "ro":
            args += ["--ro-bind-try", mount.path, mount.path]
        elif not writable and not os.path.lexists(mount.path):
            continue  # nothing to hide yet, and no writable folder to make it in
        elif os.path.isdir(mount.path) or not os.path.lexists(mount.path):
            # an empty folder in memory over it, read-only by its mode: one mount where
            # "--remount-ro" would be a second (about 0.12 ms each).  Its owner may chmod
            # it; what is then written there is in memory, seen only inside, and gone
            # with the boundary, while what the folder covers stays out of sight.
            args += ["--perms", "0555", "--tmpfs", mount.path]
        else:
            args += ["--ro-bind", "/dev/null", mount.path]
    return args


def args_file(mounts: list[str], env: Mapping[str, str] | None) -> str | None:
    """bwrap's mount arguments, NUL-separated, in the user's state folder; None if it can't be written.

    Named by content, so one project's boundary is one file, written once.
    """
    data = b"".join(arg.encode("utf-8", "surrogateescape") + b"\0" for arg in mounts)
    return _stored(data, ".args", env)


def filter_file(env: Mapping[str, str] | None) -> str | None:
    """The terminal filter (:mod:`.terminal`) as a file bwrap can read, or None where none ships.

    The state folder's copy keeps the host's record of the command short (and
    Gemini CLI's twin rules match it).  Where it can't be written (a full
    disk, and a filter new since an upgrade was never stored) the package's own
    copy is read instead: the same bytes, in agentreflex's code folders, which
    are read-only inside the boundary.  Dropping the filter there would let a
    contained command that filled the disk type into the host's terminal
    (red-team rt70); refusing the command would stop the user freeing space.
    """
    from agentreflex.core.contain.terminal import shipped, shipped_path

    data = shipped()
    if not data:
        return None
    return _stored(data, ".bpf", env) or shipped_path()


def _stored(data: bytes, suffix: str, env: Mapping[str, str] | None) -> str | None:
    """``data`` in the state folder's ``contain/``, named by its hash; None if it can't be written.

    A file found under that name is used only when it holds exactly ``data``:
    a command that once ran outside the boundary (shadow mode, a host not
    contained) could have planted ``--bind / /`` under an arguments file's
    name, or a filter that lets everything through under the filter's, and
    every later "contained" command would then run unconfined.
    """
    import hashlib

    folder = os.path.join(userdirs.user_state_dir(env), "contain")
    path = os.path.join(folder, hashlib.sha256(data).hexdigest()[:32] + suffix)
    if _holds(path, data):
        return path
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        temp = f"{path}.{os.getpid()}"
        with open(temp, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except OSError:
        return None
    return path


def _holds(path: str, data: bytes) -> bool:
    """Is ``path`` a regular file (not a link, not a FIFO to hang on) whose bytes are ``data``?"""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        held = b""
        while len(held) <= len(data):
            chunk = os.read(fd, len(data) + 1 - len(held))
            if not chunk:
                break
            held += chunk
        return held == data
    except OSError:
        return False
    finally:
        os.close(fd)


NO_NAMESPACES = (
    "the kernel must let this user make a user namespace: sysctl user.max_user_namespaces "
    "above 0, kernel.unprivileged_userns_clone = 1 where it exists, and on Ubuntu 24.04 "
    "AppArmor's bwrap profile (kernel.apparmor_restrict_unprivileged_userns)"
)


def engine_refused(engine: str, env: Mapping[str, str] | None) -> str:
    """Why bwrap can't start a boundary on this machine, or "" when it can.

    Why: a bwrap that is installed but refused by the kernel (no user
    namespaces, a container's seccomp profile, Ubuntu's AppArmor rule) would
    fail every command it wraps.  The command is then left to the
    parse-based gate, and doctor says why.  Only a success is remembered
    (per engine file and boot): a remembered success that is forged makes
    commands fail closed, while a remembered failure could be forged to turn
    containment off.
    """
    import hashlib
    import subprocess

    try:
        info = os.stat(engine)
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            boot = handle.read().strip()
    except OSError:
        info, boot = None, ""
    stamp = f"{engine}|{getattr(info, 'st_ino', 0)}|{getattr(info, 'st_mtime_ns', 0)}|{boot}|{os.getuid()}"
    folder = os.path.join(userdirs.user_state_dir(env), "contain")
    mark = os.path.join(folder, "works-" + hashlib.sha256(stamp.encode()).hexdigest()[:24])
    if boot and os.path.isfile(mark):
        return ""
    from agentreflex.core.util.sysprog import system_program

    # the system's true: one first on the host's PATH (a project's .venv/bin) is the agent's,
    # and would run with the key readable (no mounts here) and could fail the probe on purpose
    probe = [*bwrap_args(Plan(), engine), "--", system_program("true") or "/bin/true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode != 0:
        lines = (done.stderr or "").strip().splitlines()
        return lines[-1] if lines else f"exit status {done.returncode}"
    if boot:
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            with open(mark, "w", encoding="ascii"):
                pass
        except OSError:
            pass  # asked again next time: a few milliseconds
    return ""
