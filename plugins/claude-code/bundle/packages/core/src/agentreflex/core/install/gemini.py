"""Gemini CLI: hooks in ``settings.json`` (user: ``~/.gemini/settings.json``;
project: ``<project>/.gemini/settings.json``), Claude's table shape.

Quirks kept here (Gemini CLI 0.61, ``packages/core/src/hooks/`` in its bundle):

* A handler's ``timeout`` is in **milliseconds** (default 60000), unlike
  Claude's seconds.
* ``hooks`` also holds settings keys (``enabled``, ``disabled``,
  ``notifications``): they are set aside while merging and kept as they are.
* Gemini runs settings hooks only in a *trusted folder*
  (``~/.gemini/trustedFolders.json``, folder trust is on by default); project
  hooks are announced once with a warning and then remembered by
  ``name:command`` in ``~/.gemini/trusted_hooks.json``.  We never write
  either file: ``doctor`` says whether the folder is trusted.
* The command runs through a shell and exit 2 blocks with stderr as the
  reason, so ``BeforeTool`` ends in Claude Code's ``|| { ...; exit 2; }``:
  a missing or crashing agentreflex blocks the tool call (fail closed).
* Gemini checks its policy on the arguments the hook gave, i.e. on the
  contained line: install also writes the user's shell rules mirrored for
  that line (``install/gemini_policy.py``), and uninstall takes them out.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from typing import Any

from agentreflex.core.install import gemini_policy, hookentries
from agentreflex.core.install.base import HostView, Options, SettingsFile
from agentreflex.core.install.launcher import blocking_on_failure, launch
from agentreflex.core.install.manifest import Record
from agentreflex.core.install.settingsfile import (
    Change,
    InstallError,
    parse_json_object,
    read_text,
)

HOST = "gemini"
EVENTS = ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "PreCompress")
TOOL_EVENTS = ("BeforeTool", "AfterTool")
SETTINGS_KEYS = ("enabled", "disabled", "notifications")
TIMEOUT_MS = 30000


def gemini_home(env: Mapping[str, str]) -> str:
    return os.path.join(env.get("HOME") or os.path.expanduser("~"), ".gemini")


def hook_command(binary: str, event: str) -> str:
    command = f"{launch(binary)} hook {HOST} {event}"
    return blocking_on_failure(command, binary) if event == "BeforeTool" else command


def group(binary: str, event: str) -> dict[str, Any]:
    handler = {
        "name": f"agentreflex-{event}",
        "type": "command",
        "command": hook_command(binary, event),
        "timeout": TIMEOUT_MS,
    }
    out: dict[str, Any] = {"matcher": "*"} if event in TOOL_EVENTS else {}
    out["hooks"] = [handler]
    return out


def _split(settings: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(settings with only event tables under ``hooks``, the settings keys set aside)."""
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    aside: dict[str, Any] = {}
    if isinstance(hooks, dict):
        aside = {k: hooks.pop(k) for k in SETTINGS_KEYS if k in hooks}
    return out, aside


def _join(settings: dict[str, Any], aside: dict[str, Any]) -> dict[str, Any]:
    if aside:
        settings["hooks"] = {**aside, **settings.get("hooks", {})}
    return settings


class GeminiInstaller:
    name = HOST
    comments = True  # Gemini CLI strips comments from settings.json (doctor reads it so)

    def __init__(self) -> None:
        self.policy_left: list[str] = []  # shell rules install could not mirror, and why

    def inspect_file(self, file: SettingsFile, view: HostView) -> None:
        """Gemini CLI runs a folder's hooks only once the folder is trusted."""
        if not file.wired:
            return
        folder, text = folder_trust(view.project, view.env)
        verdict = {True: "will run them", False: "will NOT run them", None: "waits"}
        view.details.append(f"Gemini CLI {verdict[folder]} here: {text}")
        if folder is False:
            view.problem("trust this folder in Gemini CLI (/permissions) if you mean to")

    def settings_path(self, scope: str, project: str, env: Mapping[str, str]) -> str:
        if scope in ("project", "local"):
            return os.path.join(project, ".gemini", "settings.json")
        return os.path.join(gemini_home(env), "settings.json")

    def wire(self, settings: dict[str, Any], opts: Options, log: list[Record]) -> dict[str, Any]:
        path = self.settings_path(opts.scope, opts.project, os.environ)
        bare, aside = _split(settings)
        out = hookentries.unwire(bare, HOST, path)
        hooks = out.setdefault("hooks", {})
        for event in EVENTS:
            hooks[event] = [*hooks.get(event, []), group(opts.binary, event)]
        return _join(out, aside)

    def unwire(self, settings: dict[str, Any], path: str) -> dict[str, Any]:
        bare, aside = _split(settings)
        return _join(hookentries.unwire(bare, HOST, path), aside)

    def notes(self, opts: Options, settings: dict[str, Any]) -> list[str]:
        notes = [
            "note: Gemini CLI runs settings hooks only in a trusted folder (it asks on first "
            "start; `agentreflex doctor` shows whether this one is trusted)"
        ]
        notes.extend(f"note: {line}" for line in self.policy_left)
        if opts.scope == "project":
            notes.append(
                "note: Gemini CLI shows a warning listing these project hooks the first time "
                "it runs them here, then remembers them in ~/.gemini/trusted_hooks.json"
            )
        return notes

    def extra_install(self, opts: Options) -> list[Change]:
        change, self.policy_left = gemini_policy.install_change(opts.project, os.environ)
        return [change]

    def extra_uninstall(self, scope: str, project: str) -> list[Change]:
        other = self.settings_path(
            "user" if scope in ("project", "local") else "project", project, os.environ
        )
        if "hook gemini" in (read_text(other) or ""):
            return []  # the other install still contains commands: its twins stay
        return [gemini_policy.uninstall_change(os.environ)]

    def inspect_host(self, view: HostView) -> None:
        """Are the user's shell rules mirrored for the contained line as they are now?"""
        if not view.wired:
            return
        self._hooks_turned_off(view)
        change, left = gemini_policy.install_change(view.project, view.env)
        view.details.extend(left)
        if change.changed:
            view.problem(
                f"run `agentreflex install {HOST}` again: {change.path} does not mirror your "
                "shell rules as they are now (contained commands they allow would ask)"
            )
        elif change.after is not None:
            view.details.append(f"your shell rules hold for contained commands ({change.path})")

    def _hooks_turned_off(self, view: HostView) -> None:
        """``hooks.enabled: false`` (the project's file over the user's, as Gemini merges
        them) or our handlers' names in a ``hooks.disabled`` list: Gemini skips them."""
        enabled_seen = False
        for path in reversed(self.locations(view.project, view.env)):  # the project's first
            try:
                hooks = parse_json_object(path, read_text(path), comments=True).get("hooks")
            except InstallError:
                continue
            if not isinstance(hooks, dict):
                continue
            if "enabled" in hooks and not enabled_seen:
                enabled_seen = True
                if hooks["enabled"] is False:
                    view.problem(f"Gemini CLI runs no hooks: hooks.enabled = false in {path}")
            names = hooks.get("disabled")
            ours = (
                [n for n in names if str(n).startswith("agentreflex-")]
                if isinstance(names, list)
                else []
            )
            if ours:
                view.problem(
                    f"Gemini CLI skips {', '.join(map(str, ours))}: hooks.disabled in {path}"
                )

    def locations(self, project: str, env: Mapping[str, str]) -> list[str]:
        return [
            os.path.join(gemini_home(env), "settings.json"),
            os.path.join(project, ".gemini", "settings.json"),
        ]


def folder_trust(project: str, env: Mapping[str, str]) -> tuple[bool | None, str]:
    """Whether Gemini CLI trusts ``project`` (its ``checkPathTrust``, file part only)."""
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return True, "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder"
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "false" or env.get("GEMINI_RESTRICTED_MODE") == (
        "true"
    ):
        return False, "the environment marks every folder untrusted"
    path = os.path.join(gemini_home(env), "trustedFolders.json")
    try:
        with open(path, encoding="utf-8") as fh:
            rules = json.load(fh)
    except (OSError, ValueError):
        rules = {}
    best, level = "", ""
    for rule, value in rules.items() if isinstance(rules, dict) else []:
        base = os.path.dirname(rule) if value == "TRUST_PARENT" else rule
        inside = project == base or project.startswith(base.rstrip("/") + "/")
        if inside and len(base) > len(best):
            best, level = base, str(value)
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return True, f"{project} is trusted in {path}"
    if level == "DO_NOT_TRUST":
        return False, f"{project} is marked DO_NOT_TRUST in {path}"
    return None, f"{project} is not in {path} yet (Gemini CLI asks on its first start there)"
