"""``install --sandbox``: the host's own OS sandbox keeps agentreflex's own files read-only.

The gate refuses writes to agentreflex's own files by what a command does, but
a determined agent with an interpreter can always find a route the gate does
not parse.  The host's OS sandbox closes those routes underneath: Claude
Code runs every Bash command in bubblewrap (Linux) or Seatbelt (macOS), and
``sandbox.filesystem.denyWrite`` paths are bound read-only there, whatever
the command.  ``permissions.deny`` ``Edit(...)`` rules do the same for the
Write/Edit/NotebookEdit tools (Claude Code merges them into the sandbox's
deny list too).

What is written (Claude Code 2.1.x settings, checked against its docs and the
2.1.328 binary's settings schema):

* ``sandbox.enabled = true``;
* ``sandbox.allowUnsandboxedCommands = false``: otherwise the agent may retry
  a refused command with ``dangerouslyDisableSandbox`` and, under
  ``--dangerously-skip-permissions``, nobody is asked;
* ``sandbox.filesystem.denyWrite``: every path of
  :func:`agentreflex.core.state.userdirs.protected_paths` (absolute);
* ``permissions.deny``: ``Edit(//path)`` and ``Edit(//path/**)`` for the same.

Installed code inside the project (an editable checkout of agentreflex
itself) is left out: making the project's own sources read-only would stop
the work.  With ``--user`` the per-project paths are left out (user settings
resolve relative paths against ``~/.claude``, not the project): run
``install --project --sandbox`` in each project for those.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from typing import Any

from agentreflex.core.install.base import Options
from agentreflex.core.install.manifest import Record, add_items, set_value
from agentreflex.core.install.settingsfile import InstallError
from agentreflex.core.state import userdirs

LINUX_TOOLS = ("bwrap", "socat")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def protected_paths(opts: Options) -> list[str]:
    """The protected paths this install protects, in ``protected_paths`` order."""
    project = os.path.abspath(opts.project)
    installed = {os.path.normpath(p) for p in userdirs.installed_paths()}
    chosen = []
    for path in userdirs.protected_paths(project):
        in_project = _inside(path, project)
        if in_project and path in installed:
            continue  # an editable checkout: the project's own sources
        if in_project and opts.scope == "user":
            continue
        chosen.append(path)
        # a link (a settings file kept in a dotfiles checkout, a home that is a link):
        # the sandbox lists paths, and a write to where it leads is not a write to it
        target = os.path.realpath(path)
        if target != path and not (_inside(target, project) and target in installed):
            chosen.append(target)
    return list(dict.fromkeys(chosen))


def edit_rules(paths: list[str]) -> list[str]:
    """``Edit(//abs)`` for a file, ``Edit(//abs/**)`` for a folder, both when absent."""
    rules = []
    for path in paths:
        if not os.path.isdir(path):
            rules.append(f"Edit(/{path})")
        if not os.path.isfile(path):
            rules.append(f"Edit(/{path}/**)")
    return rules


def missing_tools() -> list[str]:
    if not sys.platform.startswith("linux"):
        return []
    return [tool for tool in LINUX_TOOLS if shutil.which(tool) is None]


def claude_sandbox(settings: dict[str, Any], opts: Options, log: list[Record]) -> None:
    """Add the sandbox block and deny rules to ``settings`` (recorded for uninstall)."""
    if sys.platform not in ("darwin",) and not sys.platform.startswith("linux"):
        raise InstallError("Claude Code's sandbox runs on macOS, Linux and WSL2 only")
    paths = protected_paths(opts)
    read_only, unreadable, writable = policy_paths(opts)
    set_value(settings, ["sandbox", "enabled"], True, log)
    set_value(settings, ["sandbox", "allowUnsandboxedCommands"], False, log)
    set_value(settings, ["sandbox", "failIfUnavailable"], True, log)
    add_items(settings, ["sandbox", "filesystem", "denyWrite"], paths + read_only, log)
    add_items(settings, ["sandbox", "filesystem", "denyRead"], unreadable, log)
    add_items(settings, ["sandbox", "filesystem", "allowWrite"], writable, log)
    add_items(settings, ["permissions", "deny"], edit_rules(paths), log)


def policy_paths(opts: Options) -> tuple[list[str], list[str], list[str]]:
    """(read-only, unreadable, extra writable) from the containment policy (core/contain/contain.toml).

    The one list agentreflex's own bubblewrap boundary uses, so Claude Code's
    sandbox and ours agree.  Writable: the developer tools' caches (the
    project and temp folders are writable in Claude Code's sandbox already).
    Read-only paths inside the project are left out for ``--user`` (user
    settings resolve paths against ``~/.claude``), as are installed code
    folders that are an editable checkout in the project.
    """
    from agentreflex.core.contain import boundary as contain

    policy = contain.load_policy()
    project = os.path.abspath(opts.project)
    skip = {"{project}", "{tmp}"}
    # Claude Code's sandbox puts no folder of ours in a shadowed cache's place: writable there
    kept = [w for w in policy.writable + policy.shadowed if w not in skip]
    writable = contain.expand(kept, project)
    installed = {os.path.normpath(p) for p in userdirs.installed_paths()}
    read_only = [
        p
        for p in contain.expand([r for r in policy.read_only if r != "~"], project, held=True)
        if not (_inside(p, project) and (opts.scope == "user" or p in installed))
    ]
    return read_only, contain.expand(policy.unreadable, project, held=True), writable


def refused_variables(opts: Options, env: Mapping[str, str] | None = None) -> list[str]:
    """The variables whose value would have put a writable entry at home, above it or at the
    project (``npm_config_cache=/``, a link to home...), or at a folder something runs from
    later (``PRE_COMMIT_HOME=~/.ssh``, a folder on PATH), each with why it was left out.

    Why said: the writable list is worked out from the environment ``install`` runs in, and
    written into the host's settings for every later session; a value left out silently
    would leave the user wondering why that tool's cache is read-only in the sandbox.
    """
    from agentreflex.core.contain import boundary as contain
    from agentreflex.core.contain.policy import unmoved_reason

    values = os.environ if env is None else env
    policy = contain.load_policy()
    names = []
    for entry in [*policy.writable, *policy.shadowed]:
        if entry.startswith("{env:") and "}" in entry:
            names.append(entry[len("{env:") :].partition("}")[0].lower())
        elif entry.startswith("{cache}"):
            names.append("xdg_cache_home")
    home = userdirs.home_dir(values)
    project = [os.path.abspath(opts.project)]
    said = []
    for key, value in values.items():
        why = unmoved_reason(value, home, project, values) if value else None
        if key.lower() in names and why is not None:
            said.append(f"{key}={value} {why}")
    return said


def made_folders(opts: Options) -> list[str]:
    """The folders :func:`prepare` makes: the user's state dir, the project's ``.agentreflex``."""
    folders = [os.path.normpath(userdirs.user_state_dir())]
    if opts.scope != "user":
        folders.append(os.path.join(opts.project, ".agentreflex"))
    return folders


def made_files(opts: Options) -> list[str]:
    """The files :func:`prepare` makes: the per-user key, so a sandbox can hide it from the start."""
    return [os.path.normpath(userdirs.key_path())]


def prepare(opts: Options) -> None:
    """Make those folders (0700) and the key, so the sandbox has something to bind or hide."""
    for folder in made_folders(opts):
        if not os.path.lexists(folder):
            os.makedirs(folder, mode=0o700)
    from agentreflex.core.state.auth import load_key

    load_key()  # created now, not at the first hook: a profile lists only what exists


def claude_notes(opts: Options) -> list[str]:
    notes = [
        "sandbox: Bash commands now run in Claude Code's OS sandbox; agentreflex's own "
        "files are read-only to them and to the Write/Edit tools",
        "sandbox: commands can no longer fall back to running unsandboxed "
        "(sandbox.allowUnsandboxedCommands = false); network access follows Claude Code's "
        "sandbox rules (see /sandbox in Claude Code)",
    ]
    for refused in refused_variables(opts):
        notes.append(
            f"sandbox: {refused}: not made writable (the tool's cache stays read-only in the "
            "sandbox; set the variable to a folder of its own and install again)"
        )
    missing = missing_tools()
    if missing:
        notes.append(
            "sandbox: NOT ACTIVE YET: " + ", ".join(missing) + " missing; install them "
            "(Debian/Ubuntu: sudo apt-get install bubblewrap socat); until then Claude Code "
            "warns and runs commands unsandboxed"
        )
    if opts.scope == "user":
        notes.append(
            "sandbox: user settings protect your user-level files only; run "
            "`agentreflex install claude-code --project --sandbox` in a project to protect "
            "its .agentreflex/ and .claude/settings*.json"
        )
    return notes


# What loosens Claude Code's sandbox where a command runs in it (Claude Code 2.1.328 lists
# these in its own strict-mode check): (keys under "sandbox", the loosening value, why).
LOOSENING: tuple[tuple[tuple[str, ...], bool, str], ...] = (
    (("filesystem", "disabled"), True, "turns its filesystem confinement off"),
    (("allowNestedUserNamespaces",), True, "lets commands get around its file deny rules"),
    (("failIfUnavailable",), False, "runs commands unconfined where its backend is missing"),
    (("enableWeakerNestedSandbox",), True, "exposes the host's /proc to commands"),
    (
        ("network", "allowAllUnixSockets"),
        True,
        "lets commands reach servers (tmux, docker) that run commands outside every boundary",
    ),
)


def _loosened(files: list[str]) -> list[str]:
    """Each loosening key in force, with its file: the file of highest precedence that sets
    the key decides, as Claude Code merges its settings key by key."""
    from agentreflex.core.hosts.claude_code import sandbox_setting

    boxes = [(path, sandbox_setting(path) or {}) for path in files]
    found = []
    for keys, loose, why in LOOSENING:
        for path, box in boxes:
            node: Any = box
            for key in keys:
                node = node.get(key) if isinstance(node, dict) else None
            if node is None:
                continue
            if node is loose:
                found.append(f"sandbox.{'.'.join(keys)} = {str(loose).lower()} in {path} {why}")
            break
    return found


def _excluded_commands(files: list[str]) -> list[tuple[str, list[str]]]:
    """``sandbox.excludedCommands`` per settings file that sets it (Claude Code joins the
    lists); one that is not a list of strings is ``*``, any command (as the hook reads it:
    :func:`~agentreflex.core.hosts.claude_code.excluded_commands`)."""
    from agentreflex.core.hosts.claude_code import excluded_commands

    found = []
    for path in files:
        listed = excluded_commands([path])
        if listed:
            found.append((path, listed))
    return found


def claude_contained(project: str, env: Mapping[str, str]) -> tuple[bool, str]:
    """Is Claude Code's sandbox on, as ``install --sandbox`` writes it, with no unsandboxed retry?"""
    from agentreflex.core.hosts.claude_code import (
        sandbox_merged,
        sandbox_on,
        sandbox_setting,
        settings_files,
    )

    # key by key, as Claude Code merges them: a project file's `"enabled": false` or
    # `"allowUnsandboxedCommands": true` alone undoes what the user's settings say
    merged = sandbox_merged(settings_files(project, env))
    enabled, path = merged.get("enabled", (None, ""))
    if enabled is True and not sandbox_on(settings_files(project, env)):
        return False, f"not contained: Claude Code's sandbox is on in {path}, but not on Linux"
    if enabled is True:
        retry, where = merged.get("allowUnsandboxedCommands", (None, path))
        own = (sandbox_setting(path) or {}).get("allowUnsandboxedCommands")
        if retry is False and own is False:  # (said where it is turned on, as install writes it)
            files = settings_files(project, env)
            loosened = _loosened(files)
            if loosened:  # where Claude's sandbox runs a command, ours does not: said so
                return False, (
                    f"not contained: Claude Code's sandbox ({path}), loosened outside every "
                    "boundary: " + "; ".join(loosened)
                )
            excluded = _excluded_commands(files)
            if excluded:  # Claude runs them outside its sandbox, and the hook sees no flag
                said = "; ".join(f"{', '.join(map(repr, e))} in {f}" for f, e in excluded)
                return False, (
                    f"not contained: Claude Code's sandbox ({path}), but commands matching "
                    f"sandbox.excludedCommands run outside every boundary ({said})"
                )
            return True, f"contained: Claude Code's sandbox ({path})"
        return (
            False,
            f"not contained: {where if retry is not False else path} lets a refused command retry unsandboxed",
        )
    if path:
        return False, f"not contained: {path} turns Claude Code's sandbox off"
    return (
        False,
        "not contained: Claude Code's sandbox is off (`agentreflex install claude-code --sandbox`)"
        "; ours holds sessions that bypass permissions, and elsewhere only the commands your "
        "permission rules allow as written (Claude Code asks about the rest itself)",
    )
