"""GitHub Copilot CLI: a hooks file of agentreflex's own, version 1.

Project: ``<project>/.github/hooks/agentreflex.json``; user:
``$COPILOT_HOME/hooks/agentreflex.json`` (default ``~/.copilot/hooks/``), both
read by Copilot CLI (its hooks reference: policy, user, project and plugin
hooks are all run).  Each entry is ``{"type": "command", "bash": ...,
"timeoutSec": ...}``; the payload does not name its event, so every command
names it (``agentreflex hook copilot preToolUse``).  The file is ours, but a
user's own entries in it are kept and the merge is by command like every host.

Quirks: repository hooks run only in a folder the user trusted in Copilot
CLI (its first-start prompt); we never record that trust.  Copilot also reads
``.claude/settings.json`` hooks, so a project wired for Claude Code runs
those too (``doctor`` says so).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from typing import Any

from agentreflex.core.install import hookentries
from agentreflex.core.install.base import HostView, Options, SettingsFile, quote
from agentreflex.core.install.launcher import launch
from agentreflex.core.install.manifest import Record
from agentreflex.core.install.settingsfile import Change, InstallError

HOST = "copilot"
EVENTS = (
    "sessionStart",
    "userPromptSubmitted",
    "preToolUse",
    "postToolUse",
    "agentStop",
    "subagentStop",
)
TIMEOUT_SEC = 30
FILE_NAME = "agentreflex.json"


def copilot_home(env: Mapping[str, str]) -> str:
    return env.get("COPILOT_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".copilot"
    )


def hook_command(binary: str, event: str) -> str:
    """The command; on ``preToolUse`` a missing or failing agentreflex answers deny itself.

    Why: our adapter always exits 0, so a non-zero exit means agentreflex did
    not run; the wrapper then prints Copilot's own deny answer (fail closed)
    instead of relying on how Copilot treats a failed hook.
    """
    command = f"{launch(binary)} hook {HOST} {event}"
    if event != "preToolUse":
        return command
    reason = f"agentreflex: {binary} failed or is missing; blocking this tool call (run: agentreflex doctor)"
    deny = json.dumps({"permissionDecision": "deny", "permissionDecisionReason": reason})
    return f"{command} || printf '%s\\n' {quote(deny)}"


def _entries(settings: dict[str, Any], path: str) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f'{path}: "hooks" is not an object; nothing was written')
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            raise InstallError(f'{path}: "hooks.{event}" is not a list; nothing was written')
    return hooks


def _is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and hookentries.is_ours(entry.get("bash"), HOST)


def ours(settings: dict[str, Any]) -> dict[str, list[str]]:
    """Our commands in a Copilot hooks file, by event (malformed parts skipped)."""
    found: dict[str, list[str]] = {}
    hooks = settings.get("hooks")
    for event, entries in hooks.items() if isinstance(hooks, dict) else []:
        for entry in entries if isinstance(entries, list) else []:
            if _is_ours(entry):
                found.setdefault(str(event), []).append(str(entry["bash"]))
    return found


class CopilotInstaller:
    name = HOST

    def inspect_file(self, file: SettingsFile, view: HostView) -> None:
        """A project's ``.github/hooks`` load only in a folder Copilot CLI trusts."""
        if not file.wired or not file.path.startswith(
            os.path.join(view.project, ".github") + os.sep
        ):
            return
        loads, text = folder_trust(view.project, view.env)
        view.details.append(f"Copilot CLI {'loads' if loads else 'will NOT load'} them: {text}")
        if not loads:
            view.problem("trust this folder when Copilot CLI asks, if you mean to")

    def ours(self, settings: dict[str, Any]) -> dict[str, list[str]]:
        """Our commands in a hooks file (``doctor`` reads Copilot's flat shape through this)."""
        return ours(settings)

    def settings_path(self, scope: str, project: str, env: Mapping[str, str]) -> str:
        if scope in ("project", "local"):
            return os.path.join(project, ".github", "hooks", FILE_NAME)
        return os.path.join(copilot_home(env), "hooks", FILE_NAME)

    def wire(self, settings: dict[str, Any], opts: Options, log: list[Record]) -> dict[str, Any]:
        path = self.settings_path(opts.scope, opts.project, os.environ)
        out = self.unwire(settings, path)
        out.setdefault("version", 1)
        hooks = out.setdefault("hooks", {})
        for event in EVENTS:
            entry = {
                "type": "command",
                "bash": hook_command(opts.binary, event),
                "timeoutSec": TIMEOUT_SEC,
            }
            hooks[event] = [*hooks.get(event, []), entry]
        return out

    def unwire(self, settings: dict[str, Any], path: str) -> dict[str, Any]:
        out = copy.deepcopy(settings)
        if "hooks" not in out:
            return out
        hooks = _entries(out, path)
        for event in list(hooks):
            kept = [e for e in hooks[event] if not _is_ours(e)]
            if kept or not hooks[event]:
                hooks[event] = kept
            else:
                del hooks[event]
        if not hooks:
            del out["hooks"]
            if out.get("version") == 1 and len(out) == 1:
                del out["version"]  # only what we wrote was left
        return out

    def notes(self, opts: Options, settings: dict[str, Any]) -> list[str]:
        notes = [
            "note: Copilot CLI runs repository hooks only in a folder you trusted when it "
            "asked; agentreflex never records that trust for you"
        ]
        if opts.scope == "project":
            notes.append(
                "note: .github/hooks/ is usually committed, and the hooks call "
                f"{opts.binary}, which teammates may not have"
            )
        return notes

    def extra_install(self, opts: Options) -> list[Change]:
        return []

    def extra_uninstall(self, scope: str, project: str) -> list[Change]:
        return []

    def locations(self, project: str, env: Mapping[str, str]) -> list[str]:
        return [
            os.path.join(copilot_home(env), "hooks", FILE_NAME),
            os.path.join(project, ".github", "hooks", FILE_NAME),
        ]


def folder_trust(project: str, env: Mapping[str, str]) -> tuple[bool, str]:
    """Whether Copilot CLI loads ``project``'s ``.github/hooks`` in ``-p`` mode.

    From Copilot CLI 1.0.102's own code: repository hooks load when the folder
    is trusted (``trusted_folders``, migrated to ``trustedFolders``, in
    ``$COPILOT_HOME/config.json``, a JSON file that may start with ``//``
    comment lines), or with ``COPILOT_ALLOW_ALL=true`` or
    ``GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true``.
    """
    for name in ("COPILOT_ALLOW_ALL", "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS"):
        if env.get(name) == "true":
            return True, f"{name}=true loads repository hooks everywhere"
    path = os.path.join(copilot_home(env), "config.json")
    try:
        with open(path, encoding="utf-8") as fh:
            lines = [line for line in fh if not line.lstrip().startswith("//")]
        config = json.loads("".join(lines))
    except (OSError, ValueError):
        config = {}
    folders: list[Any] = []
    if isinstance(config, dict):
        for key in ("trustedFolders", "trusted_folders"):
            value = config.get(key)
            folders.extend(value if isinstance(value, list) else [])
    for folder in folders:
        if (
            isinstance(folder, str)
            and folder
            and (project == folder.rstrip("/") or project.startswith(folder.rstrip("/") + "/"))
        ):
            return True, f"{project} is trusted in {path}"
    return False, f"{project} is not a trusted folder in {path} (Copilot asks on its first start)"
