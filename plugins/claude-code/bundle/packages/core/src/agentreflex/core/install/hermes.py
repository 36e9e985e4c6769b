"""Hermes Agent: a directory plugin in Hermes' plugins folder, enabled with Hermes' own CLI.

Quirks kept here (Hermes Agent 0.19, see the host lab notes and plugins/hermes/README.md):

* The plugin is copied to ``$HERMES_HOME/plugins/agentreflex/`` (``--user``; the
  default ``HERMES_HOME`` is ``~/.hermes``) or ``<project>/.hermes/plugins/agentreflex/``
  (``--project``; Hermes reads it only with ``HERMES_ENABLE_PROJECT_PLUGINS=1``).
* The "settings file" the shared install flow edits is the plugin's own
  ``agentreflex.json``: where this installation's code is (its ``sys.path``
  entries and Python version, for the in-process path) and its ``agentreflex``
  script (for the subprocess path).  ``plugin.yaml`` and ``__init__.py`` are
  extra files, written and removed through the same diff/backup/atomic-write flow.
* Plugins are opt-in: Hermes loads one only when it is in ``plugins.enabled`` of
  its ``config.yaml``.  Install runs ``hermes plugins enable agentreflex`` (the
  ``hermes`` on PATH, or ``$HERMES_BIN``) rather than rewriting that YAML
  itself; uninstall runs ``hermes plugins disable agentreflex``.  Without a
  ``hermes`` command it prints the command to run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping
from typing import Any, TextIO

from agentreflex.core.install.base import HostView, Options, SettingsFile, plugin_binary
from agentreflex.core.install.launcher import launch_argv
from agentreflex.core.install.manifest import Record
from agentreflex.core.install.settingsfile import Change, InstallError, read_text
from agentreflex.core.redaction.redact import redact

HOST = "hermes"
PLUGIN = "agentreflex"
PLUGIN_FILES = ("plugin.yaml", "__init__.py")
CONFIG_NAME = "agentreflex.json"
ENABLE_TIMEOUT = 60


def hermes_home(env: Mapping[str, str]) -> str:
    return env.get("HERMES_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".hermes"
    )


def plugin_dir(scope: str, project: str, env: Mapping[str, str]) -> str:
    if scope == "user":
        return os.path.join(hermes_home(env), "plugins", PLUGIN)
    if scope == "project":
        return os.path.join(project, ".hermes", "plugins", PLUGIN)
    raise InstallError("hermes has no --local scope: use --user or --project")


def plugin_source() -> str:
    """The plugin's files, shipped inside this package (``plugins/hermes/agentreflex`` links here)."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hermes_plugin")
    if all(os.path.isfile(os.path.join(folder, name)) for name in PLUGIN_FILES):
        return folder
    raise InstallError(f"the Hermes plugin's files are missing from {folder}")


def code_paths() -> list[str]:
    """This installation's ``sys.path`` entries beyond the standard library."""
    stdlib = {
        os.path.realpath(p)
        for p in (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"])
    }
    skip = {os.path.realpath(os.path.dirname(sys.executable))}
    found: list[str] = []
    for entry in sys.path:
        if not entry or not os.path.isabs(entry) or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        inside_stdlib = any(real == s or real.startswith(s + os.sep) for s in stdlib)
        if real in skip or (inside_stdlib and "site-packages" not in real):
            continue
        if entry not in found:
            found.append(entry)
    return found


class HermesInstaller:
    name = HOST

    def inspect_file(self, file: SettingsFile, view: HostView) -> None:
        plugin_binary(file, view)

    def inspect_host(self, view: HostView) -> None:
        if view.commands:
            view.notes.append("Hermes loads it only while enabled (`hermes plugins list`)")

    def settings_path(self, scope: str, project: str, env: Mapping[str, str]) -> str:
        return os.path.join(plugin_dir(scope, project, env), CONFIG_NAME)

    def wire(self, settings: dict[str, Any], opts: Options, log: list[Record]) -> dict[str, Any]:
        from agentreflex.core.install.base import default_binary

        wired: dict[str, Any] = {"binary": opts.binary, "launch": launch_argv(opts.binary)}
        if opts.binary == default_binary():  # this interpreter is the one the script runs
            wired["python"] = f"{sys.version_info[0]}.{sys.version_info[1]}"
            wired["paths"] = code_paths()
        return wired

    def unwire(self, settings: dict[str, Any], path: str) -> dict[str, Any]:
        return {}

    def notes(self, opts: Options, settings: dict[str, Any]) -> list[str]:
        notes = []
        if opts.scope == "project":
            notes.append(
                "note: Hermes loads project plugins only with HERMES_ENABLE_PROJECT_PLUGINS=1 "
                "in its environment; --user does not need it"
            )
        notes.append(
            "note: `hermes --safe-mode` (or HERMES_SAFE_MODE=1) skips every plugin, this "
            "one included: see plugins/hermes/README.md for making agentreflex hold anyway"
        )
        return notes

    def locations(self, project: str, env: Mapping[str, str]) -> list[str]:
        return [self.settings_path(s, project, env) for s in ("user", "project")]

    def extra_install(self, opts: Options) -> list[Change]:
        source = plugin_source()
        target = plugin_dir(opts.scope, opts.project, os.environ)
        changes = []
        for name in PLUGIN_FILES:
            with open(os.path.join(source, name), encoding="utf-8") as fh:
                text = fh.read()
            path = os.path.join(target, name)
            changes.append(Change(path, read_text(path), text))
        return changes

    def extra_uninstall(self, scope: str, project: str) -> list[Change]:
        target = plugin_dir(scope, project, os.environ)
        changes = []
        for name in PLUGIN_FILES:
            path = os.path.join(target, name)
            before = read_text(path)
            changes.append(Change(path, before, None))
        return changes

    def finish_install(self, opts: Options, out: TextIO) -> None:
        """Compile the plugin, then enable it the way a user does: ``hermes plugins enable``."""
        _compile_plugin(plugin_dir(opts.scope, opts.project, os.environ))
        if opts.scope == "user":
            _hermes_plugins("enable", out)
            return
        # Hermes 0.19's `plugins enable` looks for user and bundled plugins only
        print(
            f"note: enable it in {os.path.join(hermes_home(os.environ), 'config.yaml')} "
            f"yourself (Hermes 0.19's `hermes plugins enable` does not see project "
            f"plugins): add `{PLUGIN}` to the list `plugins: enabled:`",
            file=out,
        )

    def prepare_uninstall(self, scope: str, project: str, out: TextIO) -> None:
        """``hermes plugins disable`` while Hermes can still find the plugin."""
        if scope != "user":
            return
        try:
            _hermes_plugins("disable", out)
        except InstallError as exc:  # not enabled, or Hermes is gone: the files go anyway
            print(f"note: {exc}", file=out)

    def finish_uninstall(self, scope: str, project: str, out: TextIO) -> None:
        _remove_empty(plugin_dir(scope, project, os.environ))


def hermes_command(env: Mapping[str, str]) -> str | None:
    chosen = env.get("HERMES_BIN") or shutil.which("hermes", path=env.get("PATH"))
    return chosen or None


def _hermes_plugins(action: str, out: TextIO) -> None:
    binary = hermes_command(os.environ)
    if binary is None:
        print(
            f"note: no `hermes` command on PATH: run `hermes plugins {action} {PLUGIN}` "
            "yourself (or set HERMES_BIN)",
            file=out,
        )
        return
    try:
        done = subprocess.run(
            [binary, "plugins", action, PLUGIN],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=ENABLE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise InstallError(f"`{binary} plugins {action} {PLUGIN}` failed: {exc}") from exc
    if done.returncode != 0:
        raise InstallError(
            f"`{binary} plugins {action} {PLUGIN}` exited {done.returncode}: "
            + redact((done.stderr or done.stdout).strip())[-400:]  # redacted, then cut
        )
    print(f"ran `{binary} plugins {action} {PLUGIN}`", file=out)


def _compile_plugin(folder: str) -> None:
    """Write the plugin's bytecode now: Hermes imports it at every start, and where
    ``PYTHONDONTWRITEBYTECODE`` is set it would compile it each time (4-13 ms instead
    of 0.4 ms measured).  The bytecode is tagged with this Python's version, so a
    Hermes on another Python simply ignores it."""
    import contextlib
    import py_compile

    # a read-only folder: Hermes compiles it in memory, as before
    with contextlib.suppress(OSError, py_compile.PyCompileError):
        py_compile.compile(os.path.join(folder, "__init__.py"), doraise=True)


def _remove_empty(folder: str) -> None:
    """The plugin folder once its files are gone.

    The shared flow backed up each file before deleting it; those backups are
    copies of files install itself wrote (nothing of the user's), so they go too.
    Anything else in the folder stays, and so does the folder.
    """
    ours = (*PLUGIN_FILES, CONFIG_NAME)
    try:
        names = [n for n in os.listdir(folder) if n != "__pycache__"]
        if all(n.endswith(".bak") and any(n.startswith(o + ".") for o in ours) for n in names):
            shutil.rmtree(folder)
    except OSError:
        pass
