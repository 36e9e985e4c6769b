"""Containment: the OS decides what an agent's shell command can reach (issue #28).

Why: the gate judges a command by how it is spelled, and a list of spellings
is never finished (``.pth`` files in the hook's interpreter, batch editors,
``ln -s ~ x && rm -rf x/``...).  A filesystem boundary holds whatever the
spelling.  This module is the one place that says what the boundary is (the
policy, :func:`load_policy`) and how a command is run inside it on hosts
without a sandbox of their own (:func:`rewrite`, bubblewrap).

The policy is ``contain.toml`` shipped beside this module (documented at
``policies/contain.toml``), extended only by the user's
``~/.config/agentreflex/contain.toml``: a project's files are the agent's to
write, so a project can't widen or narrow the boundary.

The engine is bubblewrap (``bwrap``): what Claude Code itself runs on Linux,
Debian-packaged, LGPL-2.0+, a single ``clone``+mounts at start (about 2-4 ms),
and it works as root and inside ``unshare -n``.  No namespace, seccomp or
Landlock code is written here: we only build bwrap's argument list.  See
SECURITY.md ("Containment") for the comparison with Landlock and
``@anthropic-ai/sandbox-runtime``.

Stdlib only.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from agentreflex.core.state import userdirs

__all__ = [
    "ENGINE",
    "Mount",
    "Plan",
    "Policy",
    "PolicyError",
    "engine_path",
    "inner_command",
    "load_policy",
    "plan",
    "rewrite",
    "socket_paths",
    "user_policy_path",
]

ENGINE = "bwrap"
_BUILTIN = os.path.join(os.path.dirname(__file__), "contain.toml")
_LISTS = ("writable", "read_only", "unreadable", "sockets")
# only a user's own contain.toml may name these: sockets it lets commands reach
_USER_ONLY = ("reach",)
# bwrap mount kinds, weakest first: for one path the strongest wins
_RANK = {"rw": 0, "ro": 1, "hide": 2}


class PolicyError(ValueError):
    """A policy file that can't be read or has the wrong shape."""


@dataclass(frozen=True)
class Policy:
    """The lists, still with placeholders (``{project}``, ``~``...), and the user's ``reach``."""

    writable: tuple[str, ...]
    read_only: tuple[str, ...]
    unreadable: tuple[str, ...]
    sockets: tuple[str, ...] = ()
    reach: tuple[str, ...] = ()


@dataclass(frozen=True)
class Mount:
    path: str
    kind: str  # "rw", "ro" or "hide"


@dataclass
class Plan:
    """The mounts for one project, and what the boundary could not cover."""

    mounts: list[Mount] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)


def user_policy_path(env: Mapping[str, str] | None = None) -> str:
    return os.path.join(userdirs.user_config_dir(env), "contain.toml")


def _read(path: str) -> dict[str, list[str]]:
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise PolicyError(f"{path}: can't be read ({exc.strerror})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{path}: not valid TOML ({exc})") from exc
    data = {k: v for k, v in data.items() if not (k == "contain" and path != _BUILTIN)}
    known = _LISTS if path == _BUILTIN else _LISTS + _USER_ONLY
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise PolicyError(
            f"{path}: unknown key(s) {', '.join(unknown)}; expected {', '.join(known)}"
        )
    lists: dict[str, list[str]] = {}
    for name in known:
        value = data.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise PolicyError(f"{path}: {name} must be a list of non-empty strings")
        lists[name] = value
    return lists


def load_policy(env: Mapping[str, str] | None = None) -> Policy:
    """The built-in policy plus the user's additions (never a project's file).

    A user file can only add entries: it is read to widen what is protected
    or writable, and a broken user file is an error (the caller falls back to
    the parse-based gate and says so) rather than silently ignored.
    """
    lists = {**_read(_BUILTIN), "reach": []}
    extra = user_policy_path(env)
    if os.path.exists(extra):
        for name, values in _read(extra).items():
            lists[name] = lists[name] + values
    return Policy(*(tuple(dict.fromkeys(lists[name])) for name in _LISTS + _USER_ONLY))


def _temp_dirs(env: Mapping[str, str]) -> list[str]:
    dirs = ["/tmp", "/var/tmp", "/dev/shm"]
    tmpdir = env.get("TMPDIR")
    if tmpdir and os.path.isabs(tmpdir):
        dirs.append(tmpdir)
    return dirs


def _placeholders(project: str, env: Mapping[str, str]) -> dict[str, list[str]]:
    """What each ``{name}`` of the policy stands for, worked out once per plan."""
    from agentreflex.core.hook.client import socket_dir

    values: dict[str, list[str]] = {
        "{project}": [project],
        "{tmp}": _temp_dirs(env),
        "{key}": [userdirs.key_path(env)],
        "{trust}": [userdirs.trust_record_path(env)],
        "{daemon}": [socket_dir()],
        "{plugin_envs}": [p for p in [env.get("CLAUDE_PLUGIN_DATA", "")] if os.path.isabs(p)],
        "{interpreter}": [os.path.realpath(sys.prefix), sys.prefix],
        "{installed}": [p for p in userdirs.installed_paths() if not _editable_in(p, project)],
        "{protected}": list(userdirs.protected_paths(project, env)),
        "{runtime}": [_runtime_dir(env)],
        "{tmux}": _tmux_dirs(env),
        "{dbus}": _unix_paths(env.get("DBUS_SESSION_BUS_ADDRESS", ""), "unix:path="),
        "{docker}": _unix_paths(env.get("DOCKER_HOST", ""), "unix://"),
    }
    values["{guarded}"] = values["{protected}"]  # its older name, in users' contain.toml
    values["{user}"] = [_user_name(env)]  # a word in a path, not a path: see _expand
    return values


def _runtime_dir(env: Mapping[str, str]) -> str:
    runtime = env.get("XDG_RUNTIME_DIR", "")
    return runtime if os.path.isabs(runtime) else f"/run/user/{os.getuid()}"


def _tmux_dirs(env: Mapping[str, str]) -> list[str]:
    """tmux's socket folders: ``$TMUX_TMPDIR/tmux-UID`` (else /tmp), and the one ``$TMUX`` names."""
    base = env.get("TMUX_TMPDIR", "")
    dirs = [os.path.join(base if os.path.isabs(base) else "/tmp", f"tmux-{os.getuid()}")]
    socket = env.get("TMUX", "").split(",", 1)[0]
    if os.path.isabs(socket):
        dirs.append(os.path.dirname(socket))
    return dirs


def _unix_paths(address: str, prefix: str) -> list[str]:
    """The socket files in a D-Bus address list or ``DOCKER_HOST`` (abstract ones have none)."""
    paths = []
    for part in address.split(";"):
        if part.startswith(prefix):
            path = part[len(prefix) :].split(",", 1)[0]
            if os.path.isabs(path):
                paths.append(path)
    return paths


def _user_name(env: Mapping[str, str]) -> str:
    name = env.get("USER", "")
    if name and "/" not in name:
        return name
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def _expand(entry: str, values: dict[str, list[str]], home: str) -> list[str]:
    """One policy entry as absolute paths (``values`` from :func:`_placeholders`)."""
    if "{uid}" in entry or "{user}" in entry:
        entry = entry.replace("{uid}", str(os.getuid())).replace("{user}", values["{user}"][0])
    for name, paths in values.items():
        if entry == name:
            return paths
        if entry.startswith(name + "/"):
            return [os.path.join(p, entry[len(name) + 1 :]) for p in paths]
    if entry == "~" or entry.startswith("~/"):
        entry = home + entry[1:]
    if not os.path.isabs(entry):
        raise PolicyError(
            f"containment path {entry!r} is not absolute (use ~, {{project}} or {{tmp}})"
        )
    return [entry]


def expand(entries: Sequence[str], project: str, env: Mapping[str, str] | None = None) -> list[str]:
    """Policy entries as absolute paths (for hosts' own sandboxes, which take path lists)."""
    values = os.environ if env is None else env
    placeholders = _placeholders(os.path.abspath(project), values)
    home = userdirs.home_dir(values)
    paths: list[str] = []
    for entry in entries:
        paths += [os.path.normpath(p) for p in _globbed(_expand(entry, placeholders, home))]
    return list(dict.fromkeys(paths))


def _editable_in(folder: str, project: str) -> bool:
    """An editable checkout of agentreflex's own sources in the project: the project's work."""
    return (
        _inside(folder, project)
        and "/site-packages/" not in folder + "/"
        and not folder.endswith("/bin/agentreflex")
    )


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _cover(path: str, kind: str, project: str, result: Plan) -> Mount | None:
    """A mount for ``path``; a missing path is covered by its nearest existing folder.

    bwrap can only mount over what exists.  A read-only path that does not
    exist yet (``.claude/settings.json`` before any install) is protected by
    making its nearest existing parent read-only, as long as that parent is
    below the project root; otherwise the path is reported as uncovered (the
    parse-based gate still answers for it).  A missing unreadable path has
    nothing to read.
    """
    if os.path.lexists(path):
        return Mount(path, kind)
    if kind != "ro":
        return None  # nothing to read, and it can't be created: its folder is read-only or ours
    parent = os.path.dirname(path)
    while parent != "/" and not os.path.lexists(parent):
        parent = os.path.dirname(parent)
    if os.path.basename(parent) == ".git" and os.path.isdir(parent):
        # a read-only .git would stop every commit: the missing path (a hooks
        # folder git made none of) becomes an empty folder that can't be written
        return Mount(path, "hide")
    if _inside(parent, project) and parent != project:
        return Mount(parent, kind)
    result.uncovered.append(path)
    return None


def plan(
    project: str,
    policy: Policy,
    env: Mapping[str, str] | None = None,
    folders: Sequence[str] = (),
) -> Plan:
    """The mounts, ordered so that a deeper path is mounted after (over) its parent.

    Nothing is mounted inside a hidden folder: it is empty and read-only in the
    boundary already, and bwrap could not make a mount point there (the hook's
    own interpreter lives inside the Claude Code plugin's hidden data folder).

    ``folders`` are the running host's own settings folders in the project
    (its adapter's ``project_settings``: ``.claude``, ``.opencode``...).  One
    that does not exist is made an empty read-only folder: bwrap leaves it
    behind, empty (git does not list an empty folder), and a command can't
    create the host's settings there (``.claude/settings.local.json`` with
    ``disableAllHooks``, an OpenCode plugin that undoes the containment),
    which a missing path's nearest existing folder, the project root, could
    not be made read-only to stop.
    """
    values = os.environ if env is None else env
    project = os.path.realpath(project)
    placeholders = _placeholders(project, values)
    home = userdirs.home_dir(values)
    result = Plan()
    chosen: dict[str, str] = {}
    for kind, entries in (
        ("rw", policy.writable),
        ("ro", policy.read_only),
        ("hide", policy.unreadable),
    ):
        for entry in entries:
            for raw in _globbed(_expand(entry, placeholders, home)):
                mount = _cover(os.path.normpath(raw), kind, project, result)
                if mount is None:
                    continue
                for path in dict.fromkeys((mount.path, os.path.realpath(mount.path))):
                    if _RANK[mount.kind] >= _RANK[chosen.get(path, "rw")]:
                        chosen[path] = mount.kind
    for path in _sockets(policy, placeholders, home):
        if os.path.lexists(path):
            chosen[path] = "hide"
    for folder in folders:
        path = os.path.normpath(os.path.join(project, folder))
        if _inside(path, project) and path != project and not os.path.lexists(path):
            chosen[path] = "hide"
            result.uncovered = [u for u in result.uncovered if not _inside(u, path)]
    ordered = sorted(chosen.items(), key=lambda item: (item[0].count("/"), item[0]))
    hidden = [
        p for p, kind in ordered if kind == "hide" and (os.path.isdir(p) or not os.path.lexists(p))
    ]
    result.mounts = [
        Mount(path, kind)
        for path, kind in ordered
        if not os.path.islink(path) and not any(_inside(path, h) and path != h for h in hidden)
    ]
    return result


def _globbed(paths: list[str]) -> list[str]:
    """Paths with a ``*`` as what they match now (``.git/modules/*/config``)."""
    import glob

    found: list[str] = []
    for path in paths:
        found += sorted(glob.glob(path)) if "*" in path else [path]
    return found


def _sockets(policy: Policy, placeholders: dict[str, list[str]], home: str) -> list[str]:
    """The servers' sockets and their folders, less what the user lets through.

    Why apart from ``unreadable``: these are hidden for what the server
    behind them would run, not for what they hold, and the user may let one
    through (``reach``); agentreflex's own secrets can't be let through.  A
    ``*`` entry is what it matches now; the others are listed even when
    missing, and the callers keep the ones that exist (bwrap can only mount
    over what exists; Codex would leave a file at a missing one).
    """

    def paths(entries: tuple[str, ...]) -> set[str]:
        found: set[str] = set()
        for entry in entries:
            for path in _globbed(_expand(entry, placeholders, home)):
                found.update((os.path.normpath(path), os.path.realpath(path)))
        return found

    reached = paths(policy.reach)
    return sorted(p for p in paths(policy.sockets) - reached if os.path.realpath(p) not in reached)


def socket_paths(project: str, env: Mapping[str, str] | None = None) -> list[str]:
    """The policy's servers' sockets as absolute paths, for hosts' own sandboxes (Codex)."""
    values = os.environ if env is None else env
    placeholders = _placeholders(os.path.abspath(project), values)
    return _sockets(load_policy(env), placeholders, userdirs.home_dir(values))


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


# The kernel's own settings under /proc that root may write with no capabilities
# (Flatpak makes these read-only too, with /proc/irq and /proc/bus).
_KERNEL_SETTINGS = ("/proc/sys", "/proc/sysrq-trigger")

# What bwrap's first three mounts leave each part of the tree as.
_BASE = (("/dev", "rw"), ("/proc", "rw"), ("/", "ro"))


def needed(mounts: Sequence[Mount]) -> list[Mount]:
    """The mounts that change something: each bind costs bwrap about 0.1 ms at start-up.

    A read-only path under a read-only one (the whole filesystem is, to begin with), or
    a writable one under a writable one, is already what it would be made; ``mounts``
    come parents first (:func:`plan`).  Hidden paths are always mounted.
    """
    kept: list[Mount] = []
    for mount in mounts:
        above = next((m.kind for m in reversed(kept) if _inside(mount.path, m.path)), None)
        if above is None:
            above = next(kind for base, kind in _BASE if _inside(mount.path, base))
        if mount.kind == "hide" or mount.kind != above:
            kept.append(mount)
    return kept


def bwrap_args(result: Plan, engine: str = ENGINE) -> list[str]:
    """bwrap's arguments: the whole filesystem read-only, then the policy's mounts.

    No new pid, network, IPC or session namespace and no ``--die-with-parent``:
    background servers, the network and the terminal behave as without
    containment.  ``/dev`` and ``/proc`` are the host's own.

    A new user namespace, always (``--unshare-user``): without one, a command
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
    """
    args = [
        engine,
        "--unshare-user",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/",
        "/",
        "--dev-bind",
        "/dev",
        "/dev",
        "--bind",
        "/proc",
        "/proc",
    ]
    if os.geteuid() == 0:  # another user can't write them anyway: no mounts to pay for
        for kernel in _KERNEL_SETTINGS:
            args += ["--ro-bind-try", kernel, kernel]
    for mount in needed(result.mounts):  # "-try": a path gone since the plan is skipped
        if mount.kind == "rw":
            args += ["--bind-try", mount.path, mount.path]
        elif mount.kind == "ro":
            args += ["--ro-bind-try", mount.path, mount.path]
        elif os.path.isdir(mount.path) or not os.path.lexists(mount.path):
            args += ["--tmpfs", mount.path, "--remount-ro", mount.path]
        else:
            args += ["--ro-bind", "/dev/null", mount.path]
    return args


def rewrite(
    command: str,
    project: str,
    shell: str = "bash",
    env: Mapping[str, str] | None = None,
    folders: Sequence[str] = (),
) -> str:
    """``command`` as a shell line that runs it inside the boundary.

    The host runs the result with its own shell in the same working
    directory; bwrap keeps that directory, the environment, stdin, stdout,
    stderr and the exit status of the inner shell.  Raises
    :class:`PolicyError` for a broken policy and ``FileNotFoundError`` when
    bwrap is missing: the caller then falls back to the parse-based gate.
    """
    engine = engine_path()
    if engine is None:
        raise FileNotFoundError("bwrap (bubblewrap) is not installed: not contained")
    result = plan(project, load_policy(env), env, folders)
    mounts = bwrap_args(result, engine)[1:]
    from agentreflex.core.util.sysprog import system_program

    inner = [system_program(shell) or "/bin/sh", "-c", command]
    stored = _args_file(mounts, env)
    if stored is None:
        return shlex.join([engine, *mounts, "--", *inner])
    # the model sees the host's record of the command: keep it short (bwrap reads
    # the mounts from a file only the guard writes, read-only inside the boundary)
    return f"{shlex.quote(engine)} --args 9 -- {shlex.join(inner)} 9< {shlex.quote(stored)}"


def inner_command(line: str) -> str | None:
    """The command a line :func:`rewrite` made runs, or None for any other line.

    Why: Gemini CLI and Copilot CLI hand the hook after a tool the arguments
    the tool ran with, which are the rewritten ones; the reflexes after the
    tool (the evidence of a test run above all) must read the agent's own
    command.  Only the two exact shapes ``rewrite`` writes are recognised;
    a look-alike the agent typed runs the same inner command, so reading it
    so says nothing false.
    """
    if ENGINE not in line:
        return None
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    if not words or os.path.basename(words[0]) != ENGINE:
        return None
    if len(words) == 9 and words[1:4] == ["--args", "9", "--"] and words[7] == "9<":
        tail = words[4:7]
    elif len(words) >= 5 and words[-4] == "--":
        tail = words[-3:]
    else:
        return None
    return tail[2] if tail[1] == "-c" else None


def _args_file(mounts: list[str], env: Mapping[str, str] | None) -> str | None:
    """bwrap's mount arguments, NUL-separated, in the user's state folder; None if it can't be written.

    Named by content, so one project's boundary is one file, written once.  A
    file found under that name is used only when it holds exactly these
    arguments: a command that once ran outside the boundary (shadow mode, a
    host not contained) could have planted ``--bind / /`` under the name, and
    every later "contained" command would then run unconfined.
    """
    import hashlib

    data = b"".join(arg.encode("utf-8", "surrogateescape") + b"\0" for arg in mounts)
    folder = os.path.join(userdirs.user_state_dir(env), "contain")
    path = os.path.join(folder, hashlib.sha256(data).hexdigest()[:32] + ".args")
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


def describe(result: Plan) -> list[str]:
    """Lines for ``doctor``: what is writable, read-only and hidden."""
    names = {"rw": "writable", "ro": "read-only", "hide": "unreadable"}
    lines = [f"{names[m.kind]:10} {m.path}" for m in result.mounts]
    lines += [
        f"uncovered  {path} (the parse-based check answers for it)" for path in result.uncovered
    ]
    return lines


def run_argv(
    command: Sequence[str], project: str, env: Mapping[str, str] | None = None
) -> list[str]:
    """An argument vector (not a shell line) run inside the boundary."""
    engine = engine_path()
    if engine is None:
        raise FileNotFoundError("bwrap (bubblewrap) is not installed: not contained")
    return [*bwrap_args(plan(project, load_policy(env), env), engine), "--", *command]


def user_disabled(env: Mapping[str, str] | None = None) -> bool:
    """``contain = false`` in the user's ``contain.toml``: the only switch (a project has none).

    A broken value counts as not disabled: a switch that turns protection
    off must be spelled exactly.
    """
    path = user_policy_path(env)
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle).get("contain") is False
    except (OSError, tomllib.TOMLDecodeError):
        return False


def status(env: Mapping[str, str] | None = None) -> tuple[bool, str]:
    """(contained, why) for agentreflex's own engine, for ``doctor`` and ``status``."""
    if user_disabled(env):
        return False, f"not contained: contain = false in {user_policy_path(env)}"
    engine = engine_path()
    if engine is None:
        return (
            False,
            "not contained: bubblewrap (bwrap) is not installed (Linux: apt-get install bubblewrap)",
        )
    try:
        load_policy(env)
    except PolicyError as exc:
        return False, f"not contained: {exc}"
    refused = _engine_refused(engine, env)
    if refused:
        return False, f"not contained: bubblewrap cannot start here ({refused}); {_NO_NAMESPACES}"
    return True, "contained: shell commands run in bubblewrap (policies/contain.toml)"


_NO_NAMESPACES = (
    "the kernel must let this user make a user namespace: sysctl user.max_user_namespaces "
    "above 0, kernel.unprivileged_userns_clone = 1 where it exists, and on Ubuntu 24.04 "
    "AppArmor's bwrap profile (kernel.apparmor_restrict_unprivileged_userns)"
)


def _engine_refused(engine: str, env: Mapping[str, str] | None) -> str:
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
    probe = [*bwrap_args(Plan(), engine), "--", shutil.which("true") or "/bin/true"]
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


# what an agent can still do where no boundary holds: said by doctor and SECURITY.md
UNCONTAINED_RISKS = (
    "only the parse-based check of each command stands between a shell command and agentreflex's own files: "
    "a spelling it does not parse (an interpreter, a batch editor, a symlink made in the same "
    "command) can change .agentreflex/, the hosts' hook settings or the hook's interpreter, "
    "delete home, or read the per-user key"
)


def shell_rewrite(
    command: str,
    project: str,
    env: Mapping[str, str] | None = None,
    folders: Sequence[str] = (),
) -> tuple[str, str]:
    """(the command to run, a note): the contained line, or the command itself and why not.

    Never raises: a missing engine, a broken policy or an empty project
    leaves the command as it is (the parse-based gate has already answered
    for it, and fails closed for agentreflex's own files) and says so.
    """
    if not command.strip() or not project or not os.path.isabs(project):
        return command, "not contained: no project folder from the host"
    contained, why = status(env)
    if not contained:
        return command, why
    try:
        return rewrite(command, project, env=env, folders=folders), ""
    except (OSError, PolicyError) as exc:
        return command, f"not contained: {exc}"
