"""Claude Code: hooks in ``settings.json`` (user: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``;
project: ``<project>/.claude/settings.json``), plus the optional status line and sandbox.

Quirks kept here:

* Claude Code runs a hook command through a shell and lets the tool run when
  a hook fails with anything but exit 2.  So the PreToolUse command ends in
  ``|| { ...; exit 2; }``: a missing or crashing ``agentreflex`` blocks the
  tool call with a reason instead of letting it through (fail closed, the
  same promise the plugin's launcher makes).  Exit 2 from agentreflex itself
  passes through unchanged.
* The event list and matchers are the plugin's (``plugins/claude-code/hooks/hooks.json``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from agentreflex.core.install import hookentries, sandbox
from agentreflex.core.install.base import HostView, Options, SettingsFile
from agentreflex.core.install.hookentries import HookSpec
from agentreflex.core.install.launcher import blocking_on_failure, launch, script_words
from agentreflex.core.install.manifest import Record, set_value
from agentreflex.core.install.settingsfile import (
    Change,
    InstallError,
    parse_json_object,
    read_text,
)

HOST = "claude-code"
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
    "PreCompact",
)
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")


def config_dir(env: Mapping[str, str]) -> str:
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".claude"
    )


def hook_command(binary: str, event: str) -> str:
    command = f"{launch(binary)} hook {HOST} {event}"
    return blocking_on_failure(command, binary) if event == "PreToolUse" else command


def statusline_command(binary: str) -> str:
    return f"{launch(binary)} statusline"


def specs(binary: str) -> list[HookSpec]:
    return [
        HookSpec(event, hook_command(binary, event), "*" if event in TOOL_EVENTS else None)
        for event in EVENTS
    ]


def plugin_enabled(settings: dict[str, Any]) -> bool:
    """The agentreflex plugin is enabled in these settings (``enabledPlugins``)."""
    plugins = settings.get("enabledPlugins")
    return isinstance(plugins, dict) and any(
        str(k).startswith("agentreflex@") and v is True for k, v in plugins.items()
    )


class ClaudeCodeInstaller:
    name = HOST
    expected_events = frozenset(EVENTS)

    def inspect_file(self, file: SettingsFile, view: HostView) -> None:
        """The plugin's enablement and the OS sandbox's settings, as doctor shows them."""
        if plugin_enabled(file.settings):
            view.wired.append(f"the agentreflex plugin (enabled in {file.path})")
        box = file.settings.get("sandbox")
        if isinstance(box, dict) and box.get("enabled") is True:
            view.sandboxed.append(file.path)

    def inspect_host(self, view: HostView) -> None:
        if view.wired:  # the file of highest precedence that says decides, as in Claude Code
            from agentreflex.core.hosts.claude_code import settings_files

            for path in settings_files(view.project, view.env):
                try:
                    value = parse_json_object(path, read_text(path)).get("disableAllHooks")
                except InstallError:
                    continue
                if value is True:
                    view.problem(
                        f"Claude Code runs none of agentreflex's hooks: disableAllHooks in "
                        f"{path} (take it out)"
                    )
                if value is not None:
                    break
        missing = sandbox.missing_tools() if view.sandboxed else []  # bwrap + socat
        if missing:
            view.problem(
                f"the sandbox cannot start without {', '.join(missing)} "
                "(Debian/Ubuntu: sudo apt-get install bubblewrap socat)"
            )

    def settings_path(self, scope: str, project: str, env: Mapping[str, str]) -> str:
        if scope in ("project", "local"):
            name = "settings.local.json" if scope == "local" else "settings.json"
            return os.path.join(project, ".claude", name)
        return os.path.join(config_dir(env), "settings.json")

    def wire(self, settings: dict[str, Any], opts: Options, log: list[Record]) -> dict[str, Any]:
        path = self.settings_path(opts.scope, opts.project, os.environ)
        out = hookentries.wire(settings, specs(opts.binary), HOST, path)
        if opts.statusline:
            current = out.get("statusLine")
            mine = isinstance(current, dict) and script_words(current.get("command"))[1:2] == [
                "statusline"
            ]
            if current is None or mine:
                line = {"type": "command", "command": statusline_command(opts.binary), "padding": 0}
                set_value(out, ["statusLine"], line, log)
        if opts.sandbox:
            sandbox.claude_sandbox(out, opts, log)
        return out

    def unwire(self, settings: dict[str, Any], path: str) -> dict[str, Any]:
        return hookentries.unwire(settings, HOST, path)

    def notes(self, opts: Options, settings: dict[str, Any]) -> list[str]:
        notes = []
        if opts.scope == "project":
            notes.append(
                "note: .claude/settings.json is usually committed, and the hooks call "
                f"{opts.binary}, which teammates may not have (their tool calls would be "
                "blocked until they run `agentreflex install claude-code --project` too); "
                "--local writes the untracked settings.local.json instead"
            )
        if plugin_enabled(settings):
            notes.append(
                "note: the agentreflex plugin is enabled here too, so every hook would run "
                "twice; keep one (`claude plugin disable agentreflex@agentreflex`, or "
                "`agentreflex uninstall claude-code`)"
            )
        current = settings.get("statusLine")
        if opts.statusline and isinstance(current, dict):
            words = script_words(current.get("command"))
            if words[1:2] != ["statusline"]:
                notes.append("kept your own statusLine; remove it first to use agentreflex's")
        if not opts.statusline and "statusLine" not in settings:
            notes.append(
                "offer: `agentreflex install claude-code --statusline` shows mode, last "
                "decision, open obligations and clearance in Claude Code's status line"
            )
        if opts.sandbox:
            notes.extend(sandbox.claude_notes(opts))
        elif os.name == "posix":
            notes.append(
                "offer: `--sandbox` turns on Claude Code's OS sandbox with agentreflex's own "
                "files read-only to the agent's commands"
            )
        return notes

    def extra_install(self, opts: Options) -> list[Change]:
        return []  # the sandbox lives in settings.json itself

    def extra_uninstall(self, scope: str, project: str) -> list[Change]:
        return []

    def locations(self, project: str, env: Mapping[str, str]) -> list[str]:
        return [
            os.path.join(config_dir(env), "settings.json"),
            os.path.join(config_dir(env), "settings.local.json"),
            os.path.join(project, ".claude", "settings.json"),
            os.path.join(project, ".claude", "settings.local.json"),
        ]
