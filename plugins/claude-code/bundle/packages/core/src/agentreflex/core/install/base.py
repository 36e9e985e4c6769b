"""What every host adapter of ``agentreflex install`` provides."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentreflex.core.install.manifest import Record
from agentreflex.core.install.settingsfile import Change


@dataclass(frozen=True)
class Options:
    """What the user asked for."""

    scope: str  # "user", "project" or "local" (Claude Code's settings.local.json)
    project: str  # absolute project directory (the cwd unless --project-dir)
    binary: str  # absolute path of the agentreflex script the hooks will call
    sandbox: bool = False
    statusline: bool = False


@dataclass(frozen=True)
class SettingsFile:
    """One of a host's settings files as ``doctor`` read it: its path, its content, and
    whether our hooks are wired in it."""

    path: str
    settings: dict[str, Any]
    wired: bool


@dataclass
class HostView:
    """What ``doctor`` says about one host: core fills in what every host shares (where
    our hooks are wired, which binary they call), the host's installer adds its own.
    ``project`` and ``env`` are what it is looked at for."""

    project: str
    env: Mapping[str, str]
    wired: list[str] = field(default_factory=list)  # "where (what)", one per place
    commands: list[str] = field(default_factory=list)  # the hook commands found
    details: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    sandboxed: list[str] = field(default_factory=list)  # files configuring an OS sandbox
    notes: list[str] = field(default_factory=list)  # said after the binary's state
    ok: bool = True

    def problem(self, fix: str) -> None:
        """Something is wrong: ``fix`` says what to do."""
        self.ok = False
        self.fixes.append(fix)


def plugin_binary(file: SettingsFile, view: HostView) -> None:
    """A plugin's own config naming the agentreflex it calls (Hermes, the JS hosts)."""
    binary = file.settings.get("binary")
    if isinstance(binary, str):
        view.wired.append(f"the agentreflex plugin ({os.path.dirname(file.path)})")
        view.commands.append(binary)


class HostInstaller(Protocol):
    """One host's ``agentreflex install``.

    Optional, looked up with ``getattr``: ``expected_events`` (events a
    complete install wires, for ``doctor``), ``ours(settings)`` (our hook
    commands by event, for a settings shape other than ``{"hooks": ...}``),
    ``inspect_file(file, view)`` (a :class:`SettingsFile`) and
    ``inspect_host(view)`` (what ``doctor`` says that only this
    host knows, into a :class:`HostView`), ``finish_install``,
    ``prepare_uninstall``, ``finish_uninstall``, ``comments`` (true: the host reads its
    settings file with comments, and ``doctor`` reads it so).
    """

    name: str

    def settings_path(self, scope: str, project: str, env: Mapping[str, str]) -> str:
        """The file ``install`` edits for ``scope``."""

    def wire(self, settings: dict[str, Any], opts: Options, log: list[Record]) -> dict[str, Any]:
        """A copy of ``settings`` with our hooks (and extras, recorded in ``log``)."""

    def unwire(self, settings: dict[str, Any], path: str) -> dict[str, Any]:
        """A copy of ``settings`` without our hooks."""

    def notes(self, opts: Options, settings: dict[str, Any]) -> list[str]:
        """What the user should know or do next (printed after the diff)."""

    def locations(self, project: str, env: Mapping[str, str]) -> list[str]:
        """Every settings file our hooks for this host may sit in (for ``doctor``)."""

    def extra_install(self, opts: Options) -> list[Change]:
        """Changes to other files than ``settings_path`` (Codex's sandbox profile)."""

    def extra_uninstall(self, scope: str, project: str) -> list[Change]:
        """Undo :meth:`extra_install`."""


def quote(path: str) -> str:
    return shlex.quote(path)


def default_binary() -> str | None:
    """This installation's ``agentreflex`` script: beside the interpreter, else in its prefix."""
    for folder in (os.path.dirname(sys.executable), os.path.join(sys.prefix, "bin")):
        candidate = os.path.join(folder, "agentreflex")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None
