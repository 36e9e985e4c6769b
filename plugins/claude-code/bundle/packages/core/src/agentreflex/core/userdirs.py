"""Where agentreflex keeps what belongs to the user, and which files are the guard's own.

Why one module: the gate protects the guard's own files by what a command does
to them, the trust record and the per-user key must live outside any project
the agent writes, and the daemon, the config loader and ``doctor`` all need
the same answers.  Each location is defined once here.

* ``user_config_dir``  ``$XDG_CONFIG_HOME/agentreflex`` (``~/.config/agentreflex``):
  the user's ``config.toml``; outranks any project.
* ``user_cache_dir``   ``$XDG_CACHE_HOME/agentreflex`` (``~/.cache/agentreflex``):
  derived data, stamped so that stale copies are rebuilt, never trusted.
* ``user_state_dir``   ``$XDG_STATE_HOME/agentreflex`` (``~/.local/state/agentreflex``):
  the trust record (``trust.json``) and the per-user key (``key``, 0600) that
  authenticates session records.

Stdlib only and cheap: the hot path imports it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

__all__ = [
    "guarded_paths",
    "home_dir",
    "installed_paths",
    "key_path",
    "trust_record_path",
    "user_cache_dir",
    "user_config_dir",
    "user_config_path",
    "user_state_dir",
]


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def home_dir(env: Mapping[str, str] | None = None) -> str:
    """``$HOME``, else the password database's home for this user."""
    return _env(env).get("HOME") or os.path.expanduser("~")


def _xdg(env: Mapping[str, str] | None, var: str, fallback: str) -> str:
    values = _env(env)
    base = values.get(var) or ""
    if not os.path.isabs(base):  # the XDG spec: relative values are ignored
        base = os.path.join(home_dir(values), fallback)
    return os.path.join(base, "agentreflex")


def user_config_dir(env: Mapping[str, str] | None = None) -> str:
    return _xdg(env, "XDG_CONFIG_HOME", ".config")


def user_config_path(env: Mapping[str, str] | None = None) -> str:
    return os.path.join(user_config_dir(env), "config.toml")


def user_cache_dir(env: Mapping[str, str] | None = None) -> str:
    """Derived data only: everything kept here can be rebuilt from its source."""
    return _xdg(env, "XDG_CACHE_HOME", ".cache")


def user_state_dir(env: Mapping[str, str] | None = None) -> str:
    """The user's own state: the trust record and the key, never inside a project."""
    return _xdg(env, "XDG_STATE_HOME", os.path.join(".local", "state"))


def trust_record_path(env: Mapping[str, str] | None = None) -> str:
    return os.path.join(user_state_dir(env), "trust.json")


def key_path(env: Mapping[str, str] | None = None) -> str:
    return os.path.join(user_state_dir(env), "key")


def installed_paths() -> tuple[str, ...]:
    """The folders our installed code lives in, and the ``agentreflex`` entry point.

    An agent that edits or removes these switches the guard off as surely as
    one that edits the config.  The namespace package's folders cover every
    installed ``agentreflex-*`` distribution; their ``.dist-info`` folders
    (which hold the entry points the reflexes are found through) sit beside
    them and are matched by the gate by name.
    """
    paths: list[str] = []
    namespace = sys.modules.get("agentreflex")
    for folder in getattr(namespace, "__path__", ()) or ():
        paths.append(os.path.abspath(str(folder)))
    paths.append(os.path.join(sys.prefix, "bin", "agentreflex"))
    return tuple(dict.fromkeys(paths))


def guarded_paths(project: str, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every file or folder whose change could switch the guard off or fool it.

    Folders cover everything below them.  Hosts' hook settings and plugin
    folders are here because removing a hook entry or disabling the plugin
    switches agentreflex off for that host.
    """
    values = _env(env)
    home = home_dir(values)
    project = project.rstrip("/") or "/"
    claude_home = values.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
    codex_home = values.get("CODEX_HOME") or os.path.join(home, ".codex")
    paths = [
        os.path.join(project, ".agentreflex"),
        os.path.join(project, "policies"),
        user_config_dir(values),
        user_cache_dir(values),
        user_state_dir(values),
        # hosts: hook settings and plugin folders, user and project level
        os.path.join(claude_home, "settings.json"),
        os.path.join(claude_home, "settings.local.json"),
        os.path.join(claude_home, "plugins"),
        os.path.join(project, ".claude", "settings.json"),
        os.path.join(project, ".claude", "settings.local.json"),
        codex_home,
        os.path.join(project, ".codex"),
        os.path.join(home, ".hermes"),
        os.path.join(home, ".config", "opencode"),
        os.path.join(project, ".opencode"),
        os.path.join(project, "opencode.json"),
        os.path.join(home, ".pi", "agent"),
        os.path.join(project, ".pi"),
        os.path.join(home, ".omp"),
    ]
    plugin_data = values.get("CLAUDE_PLUGIN_DATA")
    if plugin_data and os.path.isabs(plugin_data):
        paths.append(plugin_data)
    paths.extend(installed_paths())
    return tuple(dict.fromkeys(os.path.normpath(p) for p in paths))
