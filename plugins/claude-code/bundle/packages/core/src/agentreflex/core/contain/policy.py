"""The containment policy: which paths a contained command may write, may only read, can't see.

Why a module of its own: the lists are data (``contain.toml`` shipped beside
this module, documented at ``policies/contain.toml``), extended only by the
user's ``~/.config/agentreflex/contain.toml`` (a project's files are the
agent's to write, so a project can't widen or narrow the boundary).  This
module reads them and turns each entry, placeholders and all (``{project}``,
``{tmp}``, ``{key}``, ``~``...), into absolute paths; :mod:`.mounts` makes
mounts of them, and the hosts' own sandboxes take them as path lists.

Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from agentreflex.core.hook.client import BUILTIN_POLICY, SOCKET_VARIABLES, user_policy_file
from agentreflex.core.state import userdirs
from agentreflex.core.util.fsutil import inside

__all__ = [
    "Policy",
    "PolicyError",
    "expand",
    "expand_entry",
    "globbed",
    "inside",
    "load_policy",
    "placeholders",
    "shadow_source",
    "socket_paths",
    "sockets",
    "user_disabled",
    "user_policy_path",
    "writable_roots",
]

_BUILTIN = BUILTIN_POLICY
_LISTS = ("writable", "read_only", "unreadable", "sockets", "shadowed", "runs_later")
# only a user's own contain.toml may name these: sockets it lets commands reach
_USER_ONLY = ("reach",)


class PolicyError(ValueError):
    """A policy file that can't be read or has the wrong shape."""


@dataclass(frozen=True)
class Policy:
    """The lists, still with placeholders (``{project}``, ``~``...), and the user's ``reach``."""

    writable: tuple[str, ...]
    read_only: tuple[str, ...]
    unreadable: tuple[str, ...]
    sockets: tuple[str, ...] = ()
    shadowed: tuple[str, ...] = ()
    runs_later: tuple[str, ...] = ()
    reach: tuple[str, ...] = ()


def user_policy_path(env: Mapping[str, str] | None = None) -> str:
    # one definition, the hook client's: it reads the file's {env:NAME} to forward them
    return user_policy_file(os.environ if env is None else env)


# each file's lists by (path, inode, size, mtime): a hook reads the policy more than once
# per command (its plan, its sockets, its status), and parsing the TOML is most of the cost
_READ: dict[tuple[str, int, int, int], dict[str, list[str]]] = {}


def _read(path: str) -> dict[str, list[str]]:
    try:
        st = os.stat(path)
    except OSError as exc:
        raise PolicyError(f"{path}: can't be read ({exc.strerror})") from exc
    key = (path, st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _READ:
        _READ[key] = _parse(path)
    return _READ[key]


def _parse(path: str) -> dict[str, list[str]]:
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


def _temp_dirs(env: Mapping[str, str], projects: Sequence[str]) -> list[str]:
    """``{tmp}``: the system's temp folders, and ``TMPDIR`` unless :func:`temp_refused`
    says why not (then programs' own temp files go where the boundary makes them fail)."""
    found = userdirs.temp_dirs(env)
    system = userdirs.SYSTEM_TEMP_DIRS
    return [d for d in found if d in system or not temp_refused(env, projects)]


def temp_refused(env: Mapping[str, str], projects: Sequence[str]) -> str:
    """Why ``TMPDIR`` is no temp folder of the boundary's ("" where it is one).

    Why the cache variables' rule (:func:`unmoved_reason`): ``{tmp}`` is writable as a
    whole, and a ``TMPDIR`` at ``~/.ssh``, a folder on the PATH, the folder that holds
    the user's projects, the guard's state or above home made all of it writable
    (red-team rt96).  A session's environment can carry such a value (a project's
    ``.envrc``, a dotenv the host loads).  The system's temp folders stay writable.
    """
    value = userdirs.temp_dir(env)
    if value in userdirs.SYSTEM_TEMP_DIRS or value not in userdirs.temp_dirs(env):
        return ""
    why = unmoved_reason(value, userdirs.home_dir(env), projects, env)
    return f"TMPDIR={env.get('TMPDIR', '')} {why}" if why else ""


def _temp_dir(env: Mapping[str, str]) -> str:
    return userdirs.temp_dir(env)


def placeholders(project: str, env: Mapping[str, str]) -> dict[str, list[str]]:
    """What each ``{name}`` of the policy stands for, worked out once per plan (the project's
    git folders read once for it: :func:`.linkedgit.remembered`)."""
    from agentreflex.core.contain import linkedgit

    with linkedgit.remembered():
        return _placeholders(project, env)


def _placeholders(project: str, env: Mapping[str, str]) -> dict[str, list[str]]:
    from agentreflex.core.contain import gitruns, hostruns

    values: dict[str, list[str]] = {
        "{tmp}": _temp_dirs(env, (project,)),
        **_own_files((project,), env),
        "{host_runs}": hostruns.named_files(project),
        # (only those that exist: a missing path would be held by its folder, read-only)
        "{run_paths}": [p for p in hostruns.run_paths(project) if os.path.lexists(p)],
        "{git_runs}": gitruns.named_paths(
            project, userdirs.home_dir(env), env.get("XDG_CONFIG_HOME", "")
        ),
        "{runtime}": [_runtime_dir(env)],
        "{tmux}": _tmux_dirs(env),
        "{dbus}": _unix_paths(env.get("DBUS_SESSION_BUS_ADDRESS", ""), "unix:path="),
        "{docker}": _unix_paths(env.get("DOCKER_HOST", ""), "unix://"),
        "{named_sockets}": _named_sockets(env, _runtime_dir(env)),
        "{cache}": cache_homes(env, project),
    }
    from agentreflex.core.contain import homelinks, poetryenvs

    home = userdirs.home_dir(env)
    poetry = [os.path.join(c, "pypoetry", "virtualenvs") for c in values["{cache}"]]
    poetry += moved_paths(env, "POETRY_VIRTUALENVS_PATH", home, (project,))
    poetry += [
        os.path.join(p, "virtualenvs")
        for p in moved_paths(env, "POETRY_CACHE_DIR", home, (project,))
    ]
    values["{poetry_envs}"] = poetryenvs.others(list(dict.fromkeys(poetry)), project)
    roots = (project, *values["{tmp}"])
    found = homelinks.targets(userdirs.home_dir(env), roots)
    values["{home_links}"] = [p for p in found if os.path.lexists(p)]
    values.update(_git_folders(project, home, values))
    moved = _moved_out(home, env)
    values["{runs_later}"] = [p for p in moved if os.path.lexists(p)]
    # (not a policy placeholder: the plan makes each an empty read-only folder, .mounts;
    # where a link leads, a link being no mount point: red-team rt99)
    values["{runs_later_missing}"] = [os.path.realpath(p) for p in moved if not os.path.exists(p)]
    values["{guarded}"] = values["{protected}"]  # its older name, in users' contain.toml
    values["{user}"] = [_user_name(env)]  # a word in a path, not a path: see _expand
    return values


def _own_files(projects: Sequence[str], env: Mapping[str, str]) -> dict[str, list[str]]:
    """The placeholders worked out from the environment alone, without reading a project's
    settings: the projects, the temp folder, and the guard's own files.

    Why apart: :func:`unmoved_reason` holds a cache variable's value against the paths
    these name in the read-only and unreadable lists, and works them out with no other
    placeholder (``{cache}`` itself is worked out with :func:`unmoved_reason`).
    """
    from agentreflex.core.hook.client import socket_dir

    home = userdirs.home_dir(env)
    return {
        "{project}": list(projects),
        "{tmpdir}": [_temp_dir(env)],
        # the guard's secrets (userdirs.secret_paths, the gate's list too)
        "{key}": [userdirs.secret_paths(env)[0]],
        "{trust}": [userdirs.secret_paths(env)[1]],
        # its folder, and a socket put elsewhere (AGENTREFLEX_SOCKET): hidden all the same
        "{daemon}": [socket_dir(), *_explicit_socket(env)],
        "{plugin_envs}": [p for p in [env.get("CLAUDE_PLUGIN_DATA", "")] if os.path.isabs(p)],
        "{interpreter}": [os.path.realpath(sys.prefix), sys.prefix],
        "{installed}": [
            p
            for p in userdirs.installed_paths()
            if not any(_editable_in(p, project) for project in projects)
        ],
        "{protected}": [p for q in projects for p in userdirs.protected_paths(q, env)],
        "{claude_ide}": [
            os.path.join(env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude"), "ide")
        ],
    }


def _git_folders(project: str, home: str, values: dict[str, list[str]]) -> dict[str, list[str]]:
    """``{git}``: where git keeps the project's settings, hooks and submodules (its ``.git``,
    and a linked work tree's common folder too); ``{git_worktree}``: the folder of its
    ``config.worktree`` (the same, or the linked work tree's own in the common one);
    ``{linked_git}``: the common folder a linked work tree's commits write
    (contain/linkedgit.py), none for an ordinary project; ``{others_state}``: the other
    work trees' HEAD, index and stopped rebase or sequencer in it, where they exist;
    ``{others_branches}``: the loose refs of the branches they have checked out."""
    from agentreflex.core.contain import linkedgit

    dot = os.path.join(project, ".git")
    names = ("{protected}", "{installed}", "{interpreter}", "{key}", "{trust}", "{daemon}")
    found = linkedgit.linked(project, home, [p for n in names for p in values[n]])
    if found is None:
        return {
            "{git}": [dot],
            "{git_worktree}": [dot],
            "{linked_git}": [],
            "{others_state}": [],
            "{others_branches}": [],
        }
    return {
        "{git}": [dot, found.common],
        "{git_worktree}": [dot, found.own],
        "{linked_git}": [found.common],
        "{others_state}": [p for p in linkedgit.others_state(found) if os.path.lexists(p)],
        "{others_branches}": linkedgit.others_branches(found),
    }


def _linked_common(project: str, home: str) -> list[str]:
    from agentreflex.core.contain import linkedgit

    found = linkedgit.linked(os.path.realpath(project), home)
    return [found.common] if found else []


def cache_homes(env: Mapping[str, str], *projects: str) -> list[str]:
    """``{cache}``: the folders the tools put their caches in, ``XDG_CACHE_HOME`` and
    ``~/.cache`` both.

    Why both: the tools follow the variable (the XDG base directory spec; pre-commit's
    store.py, go's os.UserCacheDir, node-gyp's env-paths, Playwright's registry), and a
    host started with it has the real caches there, often under /tmp, where an entry for
    ``~/.cache`` did not look (red-team rt80); the user's own shell, without it, uses
    ``~/.cache``.
    """
    home = userdirs.home_dir(env)
    moved = moved_paths(env, "XDG_CACHE_HOME", home, projects)
    return list(dict.fromkeys([*moved, os.path.join(home, ".cache")]))


def moved_paths(env: Mapping[str, str], name: str, home: str, projects: Sequence[str]) -> list[str]:
    """``{env:NAME}``: where the variable ``name`` moved a tool's cache, as the host's
    environment has it (the hook runs with it, and so does the command).

    A name is matched whatever its case (npm reads ``npm_config_*`` so): more paths only
    hold more.  A value :func:`unmoved_reason` gives a reason for moves nothing.
    """
    paths = []
    for key, value in env.items():
        if key.lower() == name.lower() and unmoved_reason(value, home, projects, env) is None:
            paths.append(spelled(value))
    return list(dict.fromkeys(paths))


def _held_values(env: Mapping[str, str], name: str) -> list[str]:
    """``{env:NAME}`` in a read-only or unreadable entry: each absolute value, any case."""
    found = [spelled(v) for k, v in env.items() if k.lower() == name.lower() and os.path.isabs(v)]
    return list(dict.fromkeys(found))


def spelled(path: str) -> str:
    """``path`` normalised as the kernel reads it: POSIX's ``normpath`` keeps a leading
    ``//``, which the kernel, bubblewrap and Claude Code's sandbox all read as ``/``."""
    path = os.path.normpath(path)
    return "/" + path.lstrip("/") if path.startswith("//") else path


def unmoved_reason(
    value: str, home: str, projects: Sequence[str], env: Mapping[str, str]
) -> str | None:
    """Why a variable's ``value`` can't stand for a tool's cache folder, or None.

    A relative or empty value moves nothing (the XDG spec's rule), nor one at or above
    home or a project, as spelled or where its links lead (``//home/me``, a link to home
    or to the project's folder above): an entry there would stand for all of it, and
    ``install --sandbox`` would write it into the host's settings for every later session.
    Nor one at, above or in a folder something runs from later or that the boundary holds
    (:func:`_held_reason`): a project's ``.envrc`` or a dotenv the host loads can set
    ``PRE_COMMIT_HOME=~/.ssh`` before the session starts (red-team rt92).
    """
    if not os.path.isabs(value):
        return "is not an absolute path"
    path = spelled(value)
    real = os.path.realpath(path)
    led = f" (it leads to {real})" if real != path else ""
    for root, what in [(home, "home"), *((p, "the project") for p in projects)]:
        roots = {spelled(root), os.path.realpath(root)}
        if any(inside(r, p) for r in roots for p in (path, real)):
            return f"is {what} or a folder above it{led}"
    why = _held_reason((path, real), home, projects, env)
    return why + led if why else None


def _held_reason(
    values: Sequence[str], home: str, projects: Sequence[str], env: Mapping[str, str]
) -> str | None:
    """Why a cache folder at ``values`` (as spelled, where its links lead) would open a path
    to writes that the boundary must not, or None.

    At, above or in: a path the policy holds read-only or secret (its ``read_only`` and
    ``unreadable`` entries, the guard's files among them) or a folder something runs from
    later (its ``runs_later`` list: ``~/.ssh``, ``~/.config``...); at or above: a folder
    on the session's PATH, where a program put runs outside later.  Only above, never in,
    the guard's rebuilt caches (``userdirs.rebuilt_paths``), which follow the very
    ``XDG_CACHE_HOME`` the tools' caches are worked out from and stay held by their own
    read-only entries.  ``~`` itself is rt90's rule: a value in home is not refused for it.
    """
    for held, spelt, what, above, within in _held(home, projects, env):
        if (above and any(inside(spelt, v) for v in values)) or (
            within and any(inside(v, spelt) for v in values)
        ):
            return f"is {held}{what}"
    return None


# the held paths by what they were worked out from, with when: one plan's worth (a plan
# asks for each cache variable set, and each held path is resolved through its links)
_HELD: dict[tuple[object, ...], tuple[float, list[tuple[str, str, str, bool, bool]]]] = {}
_HELD_FOR_S = 1.0


def _held(
    home: str, projects: Sequence[str], env: Mapping[str, str]
) -> list[tuple[str, str, str, bool, bool]]:
    """(path, as spelled or where its links lead, what it is, whether a value above it and
    whether one in it is refused), for :func:`_held_reason`."""
    import time

    key = (home, tuple(projects), tuple(sorted(env.items())))
    now = time.monotonic()
    kept = _HELD.get(key)
    if kept is not None and now - kept[0] < _HELD_FOR_S:
        return kept[1]
    lists = _lists_or_builtin(env)
    rebuilt = set(userdirs.rebuilt_paths(env))
    deep = [
        *(
            (p, ", held read-only or secret in the boundary, or a folder above or in it", above)
            for p, above in _held_paths(lists, home, projects, env)
        ),
        *(
            (p, ", a folder something runs from later, or a folder above or in it", True)
            for p in _runs_later(lists["runs_later"], home, env)
        ),
    ]
    found = [
        (held, spelt, what, above and held not in rebuilt, True)
        for held, what, above in deep
        for spelt in dict.fromkeys((held, os.path.realpath(held)))
    ]
    path = [p for p in env.get("PATH", "").split(":") if os.path.isabs(p)]
    found += [
        (folder, spelt, " on the PATH, or a folder above it", True, False)
        for folder in dict.fromkeys(path)
        for spelt in dict.fromkeys((spelled(folder), os.path.realpath(folder)))
    ]
    _HELD.clear()  # the last environment's only: a daemon serves one session's at a time
    _HELD[key] = (now, found)
    return found


def _lists_or_builtin(env: Mapping[str, str]) -> dict[str, list[str]]:
    """The policy's lists (the built-in ones where the user's file can't be read)."""
    try:
        policy = load_policy(env)
    except PolicyError:
        return _read(_BUILTIN)
    return {name: list(getattr(policy, name)) for name in _LISTS}


def _held_paths(
    lists: Mapping[str, list[str]], home: str, projects: Sequence[str], env: Mapping[str, str]
) -> list[tuple[str, bool]]:
    """The read-only and unreadable entries that name a path by the environment alone, each
    with whether a value above it is refused.

    Left out: ``~`` (rt90's rule), patterns, and the placeholders that read a project's
    settings or the environment's cache variables (``{env:NAME}``, ``{cache}``): those
    are worked out with this very rule.  A path in the temp folder (``{tmpdir}/gemini/ide``)
    refuses only a value in it: ``TMPDIR`` itself is checked with this rule, and is always
    above it.
    """
    light = _own_files(projects, env)
    light["{git}"] = light["{git_worktree}"] = [os.path.join(p, ".git") for p in projects]
    found: dict[str, bool] = {}
    for entry in lists["read_only"] + lists["unreadable"]:
        name = entry.partition("}")[0] + "}"
        if entry == "~" or "*" in entry or (entry.startswith("{") and name not in light):
            continue
        for path in expand_entry(entry, light, home, env):
            found[spelled(path)] = found.get(spelled(path), False) or name != "{tmpdir}"
    return list(found.items())


# the folders ``runs_later`` names by the variable that moves them (not ``{env:NAME}``: that
# names a cache the policy reads, which the hook forwards and keeps; hook/client.py)
_MOVED_HOMES = {
    "{config_home}": "XDG_CONFIG_HOME",
    "{data_home}": "XDG_DATA_HOME",
    "{claude_home}": "CLAUDE_CONFIG_DIR",
    "{codex_home}": "CODEX_HOME",
    "{copilot_home}": "COPILOT_HOME",
}


def _moved_out(home: str, env: Mapping[str, str]) -> list[str]:
    """The ``runs_later`` folders outside home (where ``XDG_CONFIG_HOME``,
    ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME`` or ``COPILOT_HOME`` put them).

    Why: home is read-only in the boundary, these folders in it with it; moved out (``/tmp/
    cfg``), one was writable as part of the temp folder, though the host reads its settings,
    hooks and commands from there at its next start, outside any boundary (red-team rt96).
    ``{runs_later}`` is those that exist (a hosts' sandbox takes a path list, and a missing
    path there may be left behind as a file); the plan makes a missing one in a writable
    folder an empty read-only folder, so a command can't make it either; a link to a
    missing folder, the folder it leads to (red-team rt99).
    """
    homes = {spelled(home), os.path.realpath(home)}
    found = _runs_later(_lists_or_builtin(env)["runs_later"], home, env)
    return [p for p in dict.fromkeys(found) if not any(inside(p, h) for h in homes)]


def _runs_later(entries: Sequence[str], home: str, env: Mapping[str, str]) -> list[str]:
    """The ``runs_later`` entries as paths: ``~/...``, absolute, or a :data:`_MOVED_HOMES`
    placeholder as its variable holds it (none where it is unset or relative)."""
    found = []
    for entry in entries:
        name, brace, rest = entry.partition("}")
        if brace and name + brace in _MOVED_HOMES:
            value = env.get(_MOVED_HOMES[name + brace], "")
            entry = value + rest if os.path.isabs(value) else ""
        elif entry == "~" or entry.startswith("~/"):
            entry = home + entry[1:]
        if os.path.isabs(entry):
            found.append(spelled(entry))
    return found


def _explicit_socket(env: Mapping[str, str]) -> list[str]:
    """The daemon's socket where ``AGENTREFLEX_SOCKET`` put it (red-team rt33: outside the
    socket folder, a contained command reached it)."""
    path = env.get("AGENTREFLEX_SOCKET", "")
    return [path] if os.path.isabs(path) else []


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


def _named_sockets(env: Mapping[str, str], runtime: str) -> list[str]:
    """The command sockets the session's variables name (kitty's ``unix:PATH``; Hyprland's
    folder from its instance signature); abstract ones (``unix:@x``) have no file."""
    paths = [env.get(name, "") for name in SOCKET_VARIABLES]
    paths += _unix_paths(env.get("KITTY_LISTEN_ON", ""), "unix:")
    signature = env.get("HYPRLAND_INSTANCE_SIGNATURE", "")
    if signature and "/" not in signature and signature not in (".", ".."):
        paths += [os.path.join(runtime, "hypr", signature), os.path.join("/tmp/hypr", signature)]
    return [p for p in paths if os.path.isabs(p)]


def _user_name(env: Mapping[str, str]) -> str:
    name = env.get("USER", "")
    if name and "/" not in name:
        return name
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def expand_entry(
    entry: str,
    values: dict[str, list[str]],
    home: str,
    env: Mapping[str, str] | None = None,
    held: bool = False,
) -> list[str]:
    """One policy entry as absolute paths (``values`` from :func:`placeholders`; ``env`` the
    host's environment, for ``{env:NAME}``).

    ``held``: the entry is a read-only or unreadable one.  :func:`unmoved_reason` keeps a
    variable's value from making a folder writable; for an entry that holds a path it
    would only take the entry away, and leave what it held writable (red-team rt96): there
    every absolute value counts.
    """
    if entry.startswith("{env:") and "}" in entry:
        name, _, rest = entry[len("{env:") :].partition("}")
        values_env = os.environ if env is None else env
        if held:
            found = _held_values(values_env, name)
        else:
            found = moved_paths(values_env, name, home, values["{project}"])
        return [p + rest for p in found]
    if "{uid}" in entry or "{user}" in entry:
        entry = entry.replace("{uid}", str(os.getuid())).replace("{user}", values["{user}"][0])
    # the placeholder it starts with, looked up (each plan expands some 120 entries)
    name, brace, rest = entry.partition("}")
    paths = values.get(name + brace) if brace and rest[:1] in ("", "/") else None
    if paths is not None:
        return [os.path.join(p, rest[1:]) for p in paths] if rest else paths
    if entry == "~" or entry.startswith("~/"):
        entry = home + entry[1:]
    if not os.path.isabs(entry):
        raise PolicyError(
            f"containment path {entry!r} is not absolute (use ~, {{project}} or {{tmp}})"
        )
    return [entry]


def expand(
    entries: Sequence[str],
    project: str,
    env: Mapping[str, str] | None = None,
    held: bool = False,
) -> list[str]:
    """Policy entries as absolute paths (for hosts' own sandboxes, which take path lists);
    ``held`` for read-only or unreadable ones (:func:`expand_entry`)."""
    values = os.environ if env is None else env
    named = placeholders(os.path.abspath(project), values)
    home = userdirs.home_dir(values)
    paths: list[str] = []
    for entry in entries:
        found = expand_entry(entry, named, home, values, held)
        paths += [os.path.normpath(p) for p in globbed(found)]
    return list(dict.fromkeys(paths))


def writable_roots(projects: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
    """The folders a contained command can write in these projects' boundaries, worked out
    without the placeholders that read the projects' settings (the looks' cheap form).

    A policy that can't be read gives ``/``: everything counts as writable then.
    """
    values = os.environ if env is None else env
    try:
        # a shadowed cache counts: where a host's own sandbox runs the command (it has no
        # folder of the guard's to put in its place) it is the real one, and writable
        policy = load_policy(values)
        entries = policy.writable + policy.shadowed
    except PolicyError:
        return ["/"]
    light: dict[str, list[str]] = {
        "{project}": list(projects),
        "{tmp}": _temp_dirs(values, projects),
        "{tmpdir}": [_temp_dir(values)],
        "{user}": [_user_name(values)],
        "{cache}": cache_homes(values, *projects),
    }
    home = userdirs.home_dir(values)
    # a linked work tree's common folder: more roots only count more as writable
    light["{linked_git}"] = [g for p in projects for g in _linked_common(p, home)]
    found: list[str] = []
    for entry in entries:
        if entry.startswith("{") and not entry.startswith((*light, "{env:")):
            continue  # a placeholder that reads settings: not a writable root anyway
        try:
            found += [
                os.path.normpath(p) for p in globbed(expand_entry(entry, light, home, values))
            ]
        except PolicyError:
            continue
    return list(dict.fromkeys(found))


def shadow_source(path: str, env: Mapping[str, str] | None = None) -> str:
    """The guard's own folder that stands in for the shadowed cache ``path`` in the boundary.

    Why a folder of its own: what a contained command installs there (an ``npx``
    package, a pre-commit environment, a compiled package) is never what a program
    outside runs from the real cache.  In the guard's cache folder, which holds only
    what can be made again, one per cache path, kept between commands so a second
    ``npx`` or build in the boundary finds the first one's work.
    """
    import hashlib

    name = hashlib.sha256(os.fsencode(path)).hexdigest()[:16]
    return os.path.join(userdirs.user_cache_dir(env), "shadow", name)


def _editable_in(folder: str, project: str) -> bool:
    """An editable checkout of agentreflex's own sources in the project: the project's work."""
    return (
        inside(folder, project)
        and "/site-packages/" not in folder + "/"
        and not folder.endswith("/bin/agentreflex")
    )


def globbed(paths: list[str], listings: dict[str, list[str]] | None = None) -> list[str]:
    """Paths with a ``*`` as what they match now (``.git/modules/*/config``).

    A pattern only its last part has a ``*`` in (``/tmp/sway-ipc.*.sock``) is matched
    against its folder's listing, kept in ``listings`` for the next such pattern there:
    a busy temp folder is listed once per plan, not once per server's pattern.
    """
    import glob

    found: list[str] = []
    for path in paths:
        if "*" not in path:
            found.append(path)
            continue
        folder, name = os.path.split(path)
        if listings is None or "*" in folder or "[" in path:
            found += sorted(glob.glob(path))
            continue
        if folder not in listings:
            listings[folder] = _listing(folder)
        import fnmatch

        hidden_ok = name.startswith(".")  # as glob: a leading * does not match a dotfile
        head = name.split("*", 1)[0]  # the literal start: most entries stop there
        near = _starting(listings[folder], head)
        found += [
            os.path.join(folder, entry)
            for entry in fnmatch.filter(near, name)
            if hidden_ok or not entry.startswith(".")
        ]
    return found


# a folder's sorted listing by its path, with the (device, inode, mtime, ctime) it was
# listed at: kept by a warm daemon from one plan to the next (:func:`_listing`)
_LISTED: dict[str, tuple[tuple[int, int, int, int], list[str]]] = {}
_SETTLED_NS = 1_000_000_000  # a folder changed less than this before its listing: not kept


def _listing(folder: str) -> list[str]:
    """``folder``'s names, sorted; [] where it can't be listed.

    Why kept: the servers' socket patterns are matched against their folder's listing,
    and a busy temp folder listed on every command was a tenth of a plan.  Kept only
    while the folder's (device, inode, mtime, ctime) is what it was, and only for a
    folder last changed more than a second before it was listed (as git treats a "racy"
    index entry): the kernel stamps a change with a coarse clock, so a socket made in
    the same tick as the listing could leave the mtime as it was, and go unhidden.
    """
    import time

    try:
        st = os.stat(folder)
    except OSError:
        return []
    key = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
    kept = _LISTED.get(folder)
    if kept is not None and kept[0] == key:
        return kept[1]
    listed_at = time.time_ns()
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    if listed_at - max(st.st_mtime_ns, st.st_ctime_ns) > _SETTLED_NS:
        _LISTED[folder] = (key, names)
    else:
        _LISTED.pop(folder, None)
    return names


def _starting(listing: list[str], head: str) -> list[str]:
    """The names in a sorted ``listing`` that start with ``head``: one run, found by bisection."""
    import bisect

    start = bisect.bisect_left(listing, head)
    end = start
    while end < len(listing) and listing[end].startswith(head):
        end += 1
    return listing[start:end]


def sockets(
    policy: Policy,
    named: dict[str, list[str]],
    home: str,
    resolve: Callable[[str], str] = os.path.realpath,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """The servers' sockets and their folders, less what the user lets through.

    Why apart from ``unreadable``: these are hidden for what the server
    behind them would run, not for what they hold, and the user may let one
    through (``reach``); agentreflex's own secrets can't be let through.  Only
    the sockets that exist now are given (a ``*`` entry is what it matches):
    bwrap can only mount over what exists, Codex would leave a file at a
    missing one, and resolving the links of every missing default path was
    most of a hook call's plan.  ``env`` is the host's environment, for an
    ``{env:NAME}`` entry (``{env:PM2_HOME}/rpc.sock``): the daemon's own is not it.
    """

    listings: dict[str, list[str]] = {}  # each folder listed once (:func:`globbed`)

    def paths(entries: tuple[str, ...], existing: bool) -> set[str]:
        found: set[str] = set()
        for entry in entries:
            # held: a socket is hidden wherever the variable puts it (in ~/.config too)
            for path in globbed(expand_entry(entry, named, home, env, held=True), listings):
                if not existing or os.path.lexists(path):
                    found.update((os.path.normpath(path), resolve(path)))
        return found

    reached = paths(policy.reach, existing=False)
    hidden = paths(policy.sockets, existing=True) - reached
    return sorted(p for p in hidden if os.path.lexists(p) and resolve(p) not in reached)


def socket_paths(project: str, env: Mapping[str, str] | None = None) -> list[str]:
    """The policy's servers' sockets as absolute paths, for hosts' own sandboxes (Codex)."""
    values = os.environ if env is None else env
    named = placeholders(os.path.abspath(project), values)
    return sockets(load_policy(env), named, userdirs.home_dir(values), env=values)


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
