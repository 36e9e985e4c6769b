"""``doctor`` and ``status``: is each host's shell contained, and what an agent could still do.

Why a module apart from :mod:`agentreflex.core.contain`: that one is on the
hook's path; this one reads hosts' settings files, which only the
diagnostics need.

Per host:

* Claude Code: its own sandbox, as ``agentreflex install claude-code
  --sandbox`` writes it (``sandbox.enabled`` and
  ``allowUnsandboxedCommands = false`` in a settings file it reads);
* Codex: its own sandbox (``sandbox_mode`` not ``danger-full-access`` in a
  ``config.toml`` it reads);
* OpenCode, pi, Gemini CLI and Copilot CLI: the guard's bubblewrap boundary
  (:func:`contain.status`; the hook replaces each shell command, see
  :mod:`agentreflex.core.hosts.contained`);
* Hermes: not contained yet (its plugin does not rewrite commands).
"""

from __future__ import annotations

import json
import os
import sys
import sysconfig
import tomllib
from collections.abc import Mapping
from typing import Any

from agentreflex.core import contain, userdirs

__all__ = ["host_containment", "interpreter_writable"]


def _json(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _claude(project: str, env: Mapping[str, str]) -> tuple[bool, str]:
    home = env.get("CLAUDE_CONFIG_DIR") or os.path.join(userdirs.home_dir(env), ".claude")
    files = [
        os.path.join(project, ".claude", "settings.local.json"),
        os.path.join(project, ".claude", "settings.json"),
        os.path.join(home, "settings.json"),
    ]
    for path in files:
        sandbox = _json(path).get("sandbox")
        if isinstance(sandbox, dict) and sandbox.get("enabled") is True:
            if sandbox.get("allowUnsandboxedCommands") is False:
                return True, f"contained: Claude Code's sandbox ({path})"
            return False, f"not contained: {path} lets a refused command retry unsandboxed"
    return (
        False,
        "not contained: Claude Code's sandbox is off (`agentreflex install claude-code --sandbox`)",
    )


def _codex(project: str, env: Mapping[str, str]) -> tuple[bool, str]:
    home = env.get("CODEX_HOME") or os.path.join(userdirs.home_dir(env), ".codex")
    for path in (os.path.join(project, ".codex", "config.toml"), os.path.join(home, "config.toml")):
        try:
            with open(path, "rb") as handle:
                mode = tomllib.load(handle).get("sandbox_mode")
        except (OSError, tomllib.TOMLDecodeError):
            continue
        if mode in ("workspace-write", "read-only"):
            return True, f"contained: Codex's sandbox, {mode} ({path})"
        if mode is not None:
            return False, f"not contained: sandbox_mode = {mode!r} in {path}"
    return False, "not contained: no Codex sandbox_mode set (`agentreflex install codex --sandbox`)"


def host_containment(
    project: str, enforced: bool, env: Mapping[str, str] | None = None
) -> list[tuple[str, bool, str]]:
    """(host, contained, detail) for every host; detail says what is still open when not.

    The guard's own boundary is on in enforced mode only: in shadow mode the
    agent's commands run as written.
    """
    values = os.environ if env is None else env
    own, why = contain.status(values)
    if own and not enforced:
        own, why = (
            False,
            "not contained: shadow mode (in enforced mode shell commands run in bubblewrap)",
        )
    rows = [("claude-code", *_claude(project, values)), ("codex", *_codex(project, values))]
    for host in ("opencode", "pi", "gemini", "copilot"):
        rows.append((host, own, why.replace("shell commands run", f"{host}'s shell commands run")))
    rows.append(("hermes", False, "not contained: Hermes' plugin does not rewrite commands yet"))
    return [
        (host, ok, detail if ok else f"{detail}; {contain.UNCONTAINED_RISKS}")
        for host, ok, detail in rows
    ]


def interpreter_writable() -> list[str]:
    """The hook interpreter's folders this user could write without containment."""
    folders = {sys.prefix, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    return sorted(f for f in folders if os.path.isdir(f) and os.access(f, os.W_OK))
