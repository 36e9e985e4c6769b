"""Codex CLI: hooks in ``hooks.json`` (user: ``$CODEX_HOME``, default ``~/.codex``;
project: ``<project>/.codex/hooks.json``), Claude's JSON shape.

Quirks kept here (Codex 0.169, see the host lab notes):

* ``hooks.json`` rather than ``[[hooks.<Event>]]`` tables in ``config.toml``:
  the same schema as Claude Code's, so one merge serves both hosts and the
  user's ``config.toml`` (and its comments) is never rewritten.  Codex warns
  when one layer has both; we say so when ``config.toml`` already has hooks.
* Codex skips an untrusted hook **without a message**.  Install records the
  approval ``/hooks`` would record (``hooks.state`` in the user's
  ``config.toml``, computed exactly as Codex computes it: :mod:`.codex_trust`)
  for our handlers only; where it cannot (the file is not valid TOML, or holds
  an entry of the user's for the same key) it tells the user to approve them
  with ``/hooks``.  ``doctor`` says for each hook whether Codex will run it.
* Project ``.codex/`` layers load only in a trusted project.
* No fail-closed wrapper: a Codex hook that fails (any exit but 2) lets the
  tool run regardless, and Codex may run the command without a shell.
* ``--sandbox`` writes a permissions profile into ``config.toml`` beside
  ``hooks.json`` (:mod:`.codex_sandbox`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from agentreflex.core.install import codex_sandbox, codex_trust, hookentries, manifest
from agentreflex.core.install.base import HostView, Options, SettingsFile
from agentreflex.core.install.hookentries import HookSpec
from agentreflex.core.install.launcher import launch
from agentreflex.core.install.manifest import Record
from agentreflex.core.install.settingsfile import (
    Change,
    InstallError,
    parse_json_object,
    read_text,
)

HOST = "codex"
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SubagentStop",
    "PreCompact",
)
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
_TOML_HOOKS = re.compile(r"^\s*\[\[?\s*hooks\s*\.\s*(?!state\b)[A-Za-z]+", re.MULTILINE)


def codex_home(env: Mapping[str, str]) -> str:
    return env.get("CODEX_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".codex"
    )


def specs(binary: str) -> list[HookSpec]:
    return [
        HookSpec(
            event,
            f"{launch(binary)} hook {HOST} {event}",
            "*" if event in TOOL_EVENTS else None,
        )
        for event in EVENTS
    ]


def toml_has_hooks(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            return bool(_TOML_HOOKS.search(fh.read()))
    except (OSError, UnicodeDecodeError):
        return False


class CodexInstaller:
    name = HOST

    def inspect_file(self, file: SettingsFile, view: HostView) -> None:
        """Whether Codex will run our hooks here (it skips untrusted ones silently)."""
        if not file.wired:
            return
        trusted, text = trust_view(file.path, file.settings, view.env)
        view.details.append(f"{file.path}: {text}")
        if not trusted:
            view.problem(
                "run `agentreflex install codex` again (it records the trust), "
                "or approve agentreflex's hooks with /hooks in codex"
            )

    def inspect_host(self, view: HostView) -> None:
        view.sandboxed.extend(_codex_profiles(self.locations(view.project, view.env)))
        if view.wired:
            _hooks_feature(view)

    def __init__(self) -> None:
        self.trust_left: list[str] = []  # keys install could not trust (the user's /hooks)
        self.trust_error = ""

    def settings_path(self, scope: str, project: str, env: Mapping[str, str]) -> str:
        if scope == "local":
            raise InstallError("Codex has no untracked project layer: use --project or --user")
        folder = os.path.join(project, ".codex") if scope == "project" else codex_home(env)
        return os.path.join(folder, "hooks.json")

    def wire(self, settings: dict[str, Any], opts: Options, log: list[Record]) -> dict[str, Any]:
        path = self.settings_path(opts.scope, opts.project, os.environ)
        return hookentries.wire(settings, specs(opts.binary), HOST, path)

    def unwire(self, settings: dict[str, Any], path: str) -> dict[str, Any]:
        return hookentries.unwire(settings, HOST, path)

    def notes(self, opts: Options, settings: dict[str, Any]) -> list[str]:
        path = self.settings_path(opts.scope, opts.project, os.environ)
        trust = codex_trust.user_config(codex_home(os.environ))
        if self.trust_error or self.trust_left:
            why = self.trust_error or (
                f"{trust} already has hook state of yours for "
                + ", ".join(k.rsplit(":", 3)[1] for k in self.trust_left)
            )
            notes = [
                f"codex: NEXT STEP: {why}; start `codex` once and trust agentreflex's hooks "
                "with /hooks (Codex skips untrusted hooks without a message)"
            ]
        else:
            notes = [f"codex: hooks trusted in {trust} (what /hooks would record for them)"]
        toml = os.path.join(os.path.dirname(path), "config.toml")
        if toml_has_hooks(toml):
            notes.append(
                f"codex: {toml} also defines [hooks]; Codex warns when one layer has both "
                "(move those entries into hooks.json)"
            )
        if opts.scope == "project":
            notes.append(
                "codex: project .codex/ hooks load only when Codex trusts the project "
                "(answer yes when codex asks, or run `codex exec --trust` in it once)"
            )
        if opts.sandbox:
            listed = codex_sandbox.sandbox_paths(opts)
            hidden = codex_sandbox.hidden_paths(opts)
            notes.append(
                f"codex: sandbox: commands run under the permissions profile "
                f"{codex_sandbox.PROFILE!r} (Codex's :workspace with {len(listed)} of "
                f"agentreflex's files read-only and {len(hidden)} unreadable, the key among them; "
                "paths that do not exist yet are not listed: run install again after); "
                "--dangerously-bypass-approvals-and-sandbox still runs commands unsandboxed"
            )
        return notes

    def _toml(self, scope: str, project: str) -> str:
        return os.path.join(
            os.path.dirname(self.settings_path(scope, project, os.environ)), "config.toml"
        )

    def extra_install(self, opts: Options) -> list[Change]:
        changes: dict[str, Change] = {}
        if opts.sandbox:
            path = self._toml(opts.scope, opts.project)
            changes[path] = codex_sandbox.install_change(path, read_text(path), opts)
        trust = self._trust_change(opts, changes)
        if trust is not None:
            changes[trust.path] = trust
        return list(changes.values())

    def _trust_change(self, opts: Options, changes: dict[str, Change]) -> Change | None:
        """The user's config.toml trusting our hooks as they will be after install."""
        self.trust_left, self.trust_error = [], ""
        hooks_path = self.settings_path(opts.scope, opts.project, os.environ)
        wired = self.wire(parse_json_object(hooks_path, read_text(hooks_path)), opts, [])
        entries = codex_trust.our_entries(hooks_path, wired, HOST)
        path = codex_trust.user_config(codex_home(os.environ))
        before = read_text(path)
        current = changes[path].after if path in changes else before
        try:
            after, self.trust_left = codex_trust.with_trust(current or "", hooks_path, entries)
        except ValueError as exc:
            self.trust_error = f"{path} {exc}, so install did not record the hooks' trust"
            return None
        if not after and before is None:
            return Change(path, None, None)
        return Change(path, before, before if after == before else after)

    def extra_uninstall(self, scope: str, project: str) -> list[Change]:
        """Our sandbox profile out of the scope's config.toml, our trust block out of the user's."""
        path = self._toml(scope, project)
        hooks_path = self.settings_path(scope, project, os.environ)
        user = codex_trust.user_config(codex_home(os.environ))
        changes: list[Change] = []
        for target in dict.fromkeys([path, user]):
            before = read_text(target)
            created = any(r.get("file_created") for r in manifest.records_for(target))
            after = before
            if target == path:
                after = codex_sandbox.uninstall_change(target, before, created).after
            if target == user and after is not None:
                after = codex_trust.strip_block(after, hooks_path)
                if created and not after.strip():
                    after = None
            changes.append(Change(target, before, after))
        return changes

    def locations(self, project: str, env: Mapping[str, str]) -> list[str]:
        return [
            os.path.join(codex_home(env), "hooks.json"),
            os.path.join(project, ".codex", "hooks.json"),
        ]


def _codex_profiles(hook_files: list[str]) -> list[str]:
    found = []
    for hooks in hook_files:
        toml = os.path.join(os.path.dirname(hooks), "config.toml")
        text = read_text(toml) if os.path.isfile(toml) else None
        if text and codex_sandbox.BEGIN in text:
            found.append(toml)
    return found


def project_trusted(folder: str, config: str) -> bool:
    """Codex loads a project's ``.codex/`` only under a ``trust_level = "trusted"`` entry."""
    import tomllib

    try:
        projects = tomllib.loads(read_text(config) or "").get("projects")
    except tomllib.TOMLDecodeError:
        return False
    if not isinstance(projects, dict):
        return False
    best = ""
    for key, entry in projects.items():
        inside = folder == key or folder.startswith(key.rstrip("/") + "/")
        if inside and len(key) > len(best) and isinstance(entry, dict):
            best = key
    return bool(best) and projects[best].get("trust_level") == "trusted"


def trust_view(path: str, settings: dict[str, Any], env: Mapping[str, str]) -> tuple[bool, str]:
    """Whether Codex will run each of our hooks in ``path`` (it skips untrusted ones silently)."""
    config = codex_trust.user_config(codex_home(env))
    table = codex_trust.states(read_text(config) or "")
    by_status: dict[str, list[str]] = {}
    for key, digest in codex_trust.our_entries(path, settings, "codex").items():
        event = key.rsplit(":", 3)[1]
        by_status.setdefault(codex_trust.status(key, digest, table), []).append(event)
    bad = {s: e for s, e in by_status.items() if s != "trusted"}
    folder = os.path.dirname(os.path.dirname(path))
    if os.path.dirname(path) != codex_home(env) and not project_trusted(folder, config):
        return False, (
            f"Codex will NOT run them: {folder} is not a trusted project in {config}, so Codex "
            "ignores its .codex/ (trust it when codex asks, or run `codex exec --trust` there)"
        )
    if not bad:
        return True, f"Codex will run all {len(by_status.get('trusted', []))} (trusted in {config})"
    listed = "; ".join(f"{s.upper()}: {', '.join(sorted(e))}" for s, e in sorted(bad.items()))
    return False, f"Codex will NOT run some of them ({listed}; Codex skips them without a message)"


def _hooks_feature(view: HostView) -> None:
    """``[features] hooks = false`` (``codex_hooks``, its older name) in the config Codex
    reads, a trusted project's layered over the user's: Codex then runs no hooks."""
    import tomllib

    home = codex_home(view.env)
    for path in (
        os.path.join(view.project, ".codex", "config.toml"),
        os.path.join(home, "config.toml"),
    ):  # the project's first: the first that says decides
        try:
            with open(path, "rb") as handle:
                features = tomllib.load(handle).get("features")
        except (OSError, tomllib.TOMLDecodeError):
            continue
        for key in ("hooks", "codex_hooks"):
            value = features.get(key) if isinstance(features, dict) else None
            if value is False:
                view.problem(f"Codex runs no hooks: features.{key} = false in {path}")
            if value is not None:
                return
