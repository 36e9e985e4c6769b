"""``install codex --sandbox``: a Codex permissions profile with agentreflex's own files read-only
and its secrets unreadable (``"deny"``).

Codex 0.169 sandboxes every command (bubblewrap on Linux, Seatbelt on macOS)
and takes its rules from a named permissions profile.  Checked against the
real ``codex sandbox`` of 0.169.0: a profile that extends Codex's own
``:workspace`` profile and lists a folder inside the project as ``"read"``
keeps that folder read-only while the rest of the project stays writable::

    default_permissions = "agentreflex"

    [permissions.agentreflex]
    extends = ":workspace"

    [permissions.agentreflex.filesystem]
    "/home/me/proj/.agentreflex" = "read"

Only absolute paths that exist are listed: for a listed path that does not
exist, Codex leaves an empty directory in its place (seen in 0.169.0), which
would litter the project with ``opencode.json/`` and the like.  The project's
``.agentreflex`` is created first so it is always there.

Everyday work keeps working as without the sandbox (issue #28), checked in the
real ``codex sandbox`` and ``codex exec`` of 0.169.0:

* the project's ``.git`` is listed ``"write"`` (so ``git commit`` works), its
  ``config`` and ``hooks`` (where git is told to run code) ``"read"``;
  Codex's ``:workspace`` alone makes all of ``.git`` read-only.  Listed by
  absolute path, where they exist, as the rest: a project-level install
  covers its own project.  (Codex's ``":project_roots"`` table would apply
  to every project, but in 0.169 a listed path missing from a project makes
  the session fail to start at random: ``bwrap: Can't get type of source``.)
* ``[permissions.agentreflex.network] enabled = true``: a dev server Codex
  keeps running answers the next command, and package installs reach their
  registry (``:workspace`` alone refuses every socket).  Network containment
  is not agentreflex's job; set ``enabled = false`` there to have Codex's
  default back.

Quirks:

* The edit is plain text between marker comments, so the user's
  ``config.toml`` keeps its comments and layout (no TOML writer needed);
  ``tomllib`` checks the file before and after.  ``default_permissions`` is a
  top-level key, so its block goes first in the file; the tables go last.
* A config that already chooses ``default_permissions`` (or has its own
  ``[permissions.agentreflex]``) is refused: we do not replace a user's
  profile, we say which entries to add to it.
* ``--dangerously-bypass-approvals-and-sandbox`` (or an explicit
  ``--sandbox danger-full-access``) on the command line still runs commands
  unsandboxed; the gate asks the user before an agent can relaunch that way.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from typing import Any

from agentreflex.core.install.base import Options
from agentreflex.core.install.sandbox import made_files, made_folders, policy_paths, protected_paths
from agentreflex.core.install.settingsfile import Change, InstallError
from agentreflex.core.state import userdirs

PROFILE = "agentreflex"
BEGIN = "# >>> agentreflex install codex --sandbox (removed by: agentreflex uninstall codex)"
END = "# <<< agentreflex"


def without_ours(text: str) -> str:
    """``text`` as it was before install: no blocks, nor the blank line put before the tail."""
    return strip_blocks(text.replace("\n\n" + BEGIN, "\n" + BEGIN))


def strip_blocks(text: str) -> str:
    """``text`` without our marked blocks."""
    out: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        if line.rstrip("\r\n") == BEGIN:
            inside = True
        elif inside and line.rstrip("\r\n") == END:
            inside = False
        elif not inside:
            out.append(line)
    return "".join(out)


def _parse(path: str, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(
            f"{path} is not valid TOML ({exc}); fix it by hand, nothing was written"
        ) from exc


def sandbox_paths(opts: Options) -> list[str]:
    """The protected paths that exist, and the folders install makes (so a rerun lists the same)."""
    made = set(made_folders(opts))
    # the folders this install writes its own files in (hooks.json, config.toml): listed
    # the first time too, so a second install has nothing to add
    made.add(os.environ.get("CODEX_HOME") or os.path.join(userdirs.home_dir(), ".codex"))
    if opts.scope != "user":
        made.add(os.path.join(os.path.abspath(opts.project), ".codex"))
    read_only, _unreadable, _writable = policy_paths(opts)  # the containment policy's list too
    wanted = list(dict.fromkeys(protected_paths(opts) + read_only))
    return [p for p in wanted if os.path.lexists(p) or p in made]


def hidden_paths(opts: Options) -> list[str]:
    """The policy's unreadable paths (the key, the trust record, the daemon's sockets) that exist,
    and the sockets of servers that run commands (``sockets``: ``/tmp/tmux-UID``...).

    Codex's ``"deny"`` makes a path unreadable to commands (checked against the
    real ``codex sandbox`` of 0.169.0: ``cat`` of a denied file is refused, and a
    contained ``tmux new-window`` could not reach a denied tmux folder, where it
    reached the user's tmux server without one).  Only paths that exist: for a
    missing one under a folder its sandbox writes, Codex leaves an empty file
    behind (seen: ``/tmp/emacs0``), which would keep that server from starting.
    """
    from agentreflex.core.contain import boundary as contain

    _read_only, unreadable, _writable = policy_paths(opts)
    made = set(made_files(opts))
    present = [p for p in dict.fromkeys(unreadable) if os.path.lexists(p) or p in made]
    # the servers that would run a command outside the sandbox (the user's tmux...), the
    # ones there now: Codex makes an empty file at a missing denied path under a folder
    # its sandbox may write (/tmp/tmux-0), and the server could then never start there
    servers = [p for p in contain.socket_paths(os.path.abspath(opts.project)) if os.path.lexists(p)]
    return list(dict.fromkeys(present + servers))


def git_entries(opts: Options) -> list[tuple[str, str]]:
    """The project's ``.git`` writable and where git is told to run code read-only,
    for a project-level install (the paths that exist)."""
    if opts.scope == "user":
        return []
    git_dir = os.path.join(os.path.abspath(opts.project), ".git")
    if not os.path.isdir(git_dir):
        return []  # no repository, or a linked worktree's .git file: left as Codex has it
    entries = [(git_dir, "write")]
    entries += [
        (os.path.join(git_dir, name), "read")
        for name in ("config", "hooks")
        if os.path.lexists(os.path.join(git_dir, name))
    ]
    return entries


def pinned_folders(opts: Options, listed: list[str]) -> list[str]:
    """The project's folders that hold a listed path, for a project-level install.

    Why: Codex's bubblewrap mounts each listed path, and a mount follows its
    folder, which could still be renamed.  Checked in the real ``codex
    sandbox`` of 0.169.0: ``mv .claude .c && mkdir .claude`` then wrote a new
    ``.claude/settings.json`` past its ``"read"`` entry (as ``mv .github``
    did for ``.github/hooks``), where ``mv .git`` was refused: ``.git`` is
    listed ``"write"``, so Codex mounts it too, and a mount point can't be
    renamed.  Each such folder is listed ``"write"`` (as writable as before).
    """
    if opts.scope == "user":
        return []
    project = os.path.abspath(opts.project)
    found: list[str] = []
    for path in listed:
        folder = os.path.dirname(path)
        while folder.startswith(project + "/"):
            if os.path.isdir(folder) and not os.path.islink(folder):
                found.append(folder)
            folder = os.path.dirname(folder)
    return [f for f in dict.fromkeys(found) if f not in listed]


def render(opts: Options, paths: list[str]) -> tuple[str, str]:
    """Our two blocks: the top-level key, and the profile's tables."""
    head = f'{BEGIN}\ndefault_permissions = "{PROFILE}"\n{END}\n'
    hidden = hidden_paths(opts)
    entries = "".join(f'{json.dumps(p)} = "read"\n' for p in paths)
    entries += "".join(f'{json.dumps(p)} = "deny"\n' for p in hidden)
    git = [(p, a) for p, a in git_entries(opts) if p not in paths]  # the policy lists config too
    taken = {*paths, *hidden, *(p for p, _ in git)}
    git += [(p, "write") for p in pinned_folders(opts, [*paths, *hidden]) if p not in taken]
    entries += "".join(f"{json.dumps(p)} = {json.dumps(a)}\n" for p, a in git)
    tail = (
        f"{BEGIN}\n"
        f"# Codex's own :workspace permissions, with agentreflex's files read-only,\n"
        f"# its secrets (the per-user key, the trust record) unreadable, and git commit\n"
        f"# working (.git writable, its config and hooks read-only)\n"
        f"[permissions.{PROFILE}]\n"
        'extends = ":workspace"\n\n'
        f"[permissions.{PROFILE}.filesystem]\n"
        f"{entries}\n"
        "# network containment is not agentreflex's job: a dev server and package installs\n"
        "# work as without the sandbox (false: Codex's default, no network)\n"
        f"[permissions.{PROFILE}.network]\n"
        "enabled = true\n"
        f"{END}\n"
    )
    return head, tail


def install_change(path: str, before: str | None, opts: Options) -> Change:
    """The new ``config.toml`` with our profile (``before`` unchanged when already so)."""
    base = without_ours(before or "")
    data = _parse(path, base)
    if "default_permissions" in data:
        raise InstallError(
            f"{path} already sets default_permissions = {data['default_permissions']!r}; "
            "agentreflex will not replace your profile: add "
            + ", ".join(f'{json.dumps(p)} = "read"' for p in sandbox_paths(opts)[:3])
            + " (and the other protected paths) to its [permissions.<name>.filesystem] table"
        )
    permissions = data.get("permissions")
    if isinstance(permissions, dict) and PROFILE in permissions:
        raise InstallError(f"{path} already has a [permissions.{PROFILE}] of its own")
    head, tail = render(opts, sandbox_paths(opts))
    if base and not base.endswith("\n"):
        base += "\n"
    after = head + base + ("\n" if base.strip() else "") + tail
    if _parse(path, after).get("default_permissions") != PROFILE:  # pragma: no cover
        raise InstallError(f"{path}: the edited file would not select the profile")
    return Change(path, before, before if after == before else after)


def uninstall_change(path: str, before: str | None, created: bool) -> Change:
    """``config.toml`` without our blocks (deleted if install created it and nothing is left)."""
    if before is None:
        return Change(path, None, None)
    after = without_ours(before)
    if after == before:
        return Change(path, before, before)
    if created and not after.strip():
        return Change(path, before, None)
    _parse(path, after)
    return Change(path, before, after)


READABLE = (
    "reads are not confined: a command can still read agentreflex's per-user key and its trust "
    "records (`agentreflex install codex --sandbox` writes a permissions profile that hides them)"
)


def _merge(low: dict[str, Any], high: dict[str, Any]) -> dict[str, Any]:
    """``high`` over ``low`` table by table, as Codex layers its config files."""
    out = dict(low)
    for key, value in high.items():
        below = out.get(key)
        out[key] = (
            _merge(below, value) if isinstance(below, dict) and isinstance(value, dict) else value
        )
    return out


def codex_contained(project: str, env: Mapping[str, str]) -> tuple[bool, str]:
    """Is Codex's sandbox on in the config it reads, and does it hide the per-user key?

    Codex layers a trusted project's ``.codex/config.toml`` over the user's
    ``config.toml``, key by key and table by table: what is judged is the merge
    (a project file that only says ``default_permissions = ":danger-full-access"``,
    or lists the key ``"read"`` in our profile, undoes the user's install).  A
    permissions profile (``default_permissions``, what ``install --sandbox``
    writes) wins over the older ``sandbox_mode`` of the same file or one below
    it (Codex's own rule when both are absent from the command line); a
    ``sandbox_mode`` in a file above the profile's is taken as the one that
    holds.  Either confines writes; only a profile listing the key as
    ``"deny"`` (or ``"none"``) confines reading it.
    """
    home = env.get("CODEX_HOME") or os.path.join(userdirs.home_dir(env), ".codex")
    key = userdirs.key_path(env)
    layers: list[tuple[str, dict[str, Any]]] = []  # lowest precedence first
    for path in (os.path.join(home, "config.toml"), os.path.join(project, ".codex", "config.toml")):
        try:
            with open(path, "rb") as handle:
                layers.append((path, tomllib.load(handle)))
        except (OSError, tomllib.TOMLDecodeError):
            continue
    data: dict[str, Any] = {}
    source: dict[str, int] = {}  # top-level key -> the layer it comes from
    for n, (_path, layer) in enumerate(layers):
        data = _merge(data, layer)
        source.update(dict.fromkeys(layer, n))
    # the config's own `profile = "name"`: Codex applies [profiles.name] over every file
    chosen = data.get("profile")
    profiles = data.get("profiles")
    overlay = (
        profiles.get(chosen) if isinstance(profiles, dict) and isinstance(chosen, str) else None
    )
    if isinstance(overlay, dict) and layers:
        top = len(layers)
        layers.append((f"{layers[source['profile']][0]} [profiles.{chosen}]", overlay))
        for key in ("sandbox_mode", "default_permissions"):
            if key in overlay:
                data[key], source[key] = overlay[key], top
    profile, mode = data.get("default_permissions"), data.get("sandbox_mode")
    if mode is not None and source["sandbox_mode"] > source.get("default_permissions", -1):
        profile = None  # a sandbox_mode above the profile's file: judged by it
    if isinstance(profile, str):
        path = layers[source["default_permissions"]][0]
        if profile == ":danger-full-access":
            return False, f"not contained: default_permissions = {profile!r} in {path}"
        tables = data.get("permissions")
        table = tables.get(profile, {}) if isinstance(tables, dict) else {}
        listed = table.get("filesystem", {}) if isinstance(table, dict) else {}
        where = f"Codex's permissions profile {profile!r} ({path})"
        if isinstance(listed, dict) and listed.get(key) in ("deny", "none"):
            return True, f"contained: {where}; the per-user key is unreadable to commands"
        return True, f"contained: {where}; {READABLE}"
    if mode is not None:
        path = layers[source["sandbox_mode"]][0]
        if mode in ("workspace-write", "read-only"):
            return True, f"contained: Codex's sandbox, {mode} ({path}); {READABLE}"
        return False, f"not contained: sandbox_mode = {mode!r} in {path}"
    return False, "not contained: no Codex sandbox set (`agentreflex install codex --sandbox`)"
