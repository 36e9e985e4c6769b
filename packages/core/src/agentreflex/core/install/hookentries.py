"""Claude-style hook tables (``{"hooks": {Event: [{matcher, hooks: [handler]}]}}``).

Claude Code's ``settings.json`` and Codex's ``hooks.json`` share this shape, so
both adapters use these functions.  Our handlers are recognised by their
command, not by a marker key (the hosts validate handler objects): a command
whose script is an ``agentreflex`` script followed by ``hook HOST``
(:func:`.launcher.script_words`).
That also catches entries written by another installation of agentreflex
(another venv), so reinstalling from elsewhere replaces them instead of
doubling every hook.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from typing import Any

from agentreflex.core.install.launcher import script_words
from agentreflex.core.install.settingsfile import InstallError


@dataclass(frozen=True)
class HookSpec:
    """One handler to register: the event, the shell command, the matcher (if any)."""

    event: str
    command: str
    matcher: str | None = None
    timeout: int = 30

    def group(self) -> dict[str, Any]:
        handler = {"type": "command", "command": self.command, "timeout": self.timeout}
        out: dict[str, Any] = {} if self.matcher is None else {"matcher": self.matcher}
        out["hooks"] = [handler]
        return out


def is_ours(command: Any, host: str) -> bool:
    """``command`` runs an ``agentreflex`` script's ``hook HOST`` (through its Python or not)."""
    words = script_words(command)
    return (
        len(words) >= 3
        and os.path.basename(words[0]) == "agentreflex"
        and words[1] == "hook"
        and words[2] == host
    )


def _handlers(group: Any) -> list[Any] | None:
    if isinstance(group, dict) and isinstance(group.get("hooks"), list):
        return group["hooks"]  # type: ignore[no-any-return]
    return None


def _strip(groups: list[Any], host: str) -> list[Any]:
    """``groups`` without our handlers; a group left with no handler is dropped."""
    kept: list[Any] = []
    for group in groups:
        handlers = _handlers(group)
        if handlers is None:
            kept.append(group)
            continue
        left = [
            h for h in handlers if not (isinstance(h, dict) and is_ours(h.get("command"), host))
        ]
        if len(left) == len(handlers):
            kept.append(group)
        elif left:
            kept.append({**group, "hooks": left})
    return kept


def _table(settings: dict[str, Any], path: str) -> dict[str, Any]:
    hooks = settings.get("hooks")
    if hooks is None:
        return {}
    if not isinstance(hooks, dict):
        raise InstallError(f'{path}: "hooks" is not an object; nothing was written')
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise InstallError(f'{path}: "hooks.{event}" is not a list; nothing was written')
    return hooks


def wire(settings: dict[str, Any], specs: list[HookSpec], host: str, path: str) -> dict[str, Any]:
    """A copy of ``settings`` with exactly ``specs`` as our handlers (others untouched)."""
    out = copy.deepcopy(settings)
    hooks = _table(out, path)
    wanted = {s.event for s in specs}
    for event in list(hooks):
        if event not in wanted:
            stripped = _strip(hooks[event], host)
            if stripped or not hooks[event]:
                hooks[event] = stripped
            else:
                del hooks[event]
    for spec in specs:
        hooks[spec.event] = [*_strip(hooks.get(spec.event, []), host), spec.group()]
    out["hooks"] = hooks
    return out


def unwire(settings: dict[str, Any], host: str, path: str) -> dict[str, Any]:
    """A copy of ``settings`` without our handlers; tables we emptied are removed."""
    out = copy.deepcopy(settings)
    if "hooks" not in out:
        return out
    hooks = _table(out, path)
    had = bool(hooks)
    for event in list(hooks):
        stripped = _strip(hooks[event], host)
        if stripped or not hooks[event]:
            hooks[event] = stripped
        else:
            del hooks[event]
    if had and not hooks:
        del out["hooks"]
    return out


def ours(settings: dict[str, Any], host: str) -> dict[str, list[str]]:
    """Our hook commands in ``settings``, by event (malformed parts are skipped)."""
    found: dict[str, list[str]] = {}
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            for handler in _handlers(group) or []:
                command = handler.get("command") if isinstance(handler, dict) else None
                if is_ours(command, host):
                    found.setdefault(str(event), []).append(str(command))
    return found
