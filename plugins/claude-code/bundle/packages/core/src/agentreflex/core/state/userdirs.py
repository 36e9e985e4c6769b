"""Where agentreflex keeps what belongs to the user, and which files are agentreflex's own.

Why one module: the gate protects agentreflex's own files by what a command does
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
    "COMMON_PROTECTED_NAMES",
    "HOST_PROJECT_FILES",
    "PROTECTED_NAMES",
    "SYSTEM_TEMP_DIRS",
    "home_dir",
    "installed_paths",
    "interpreter_paths",
    "key_path",
    "loaded_user_site",
    "protected_name",
    "protected_paths",
    "rebuilt_paths",
    "secret_paths",
    "temp_dir",
    "temp_dirs",
    "trust_record_path",
    "user_cache_dir",
    "user_config_dir",
    "user_config_path",
    "user_state_dir",
]


# The one list of names that spell agentreflex's own files (:func:`protected_paths`)
# and the setting that switches every hook off, as a path or the code that
# builds one spells them.  The gate looks for them in file-writing code
# (``selfguard``) and in commands (its pre-filter): one list, so a host whose
# folder is protected here is looked for by both.  A test holds every protected
# path to containing one of these names.
PROTECTED_NAMES = (
    "agentreflex",
    ".claude",
    ".codex",
    "settings.json",
    "settings.local.json",
    ".hermes",
    "opencode",
    "tui.json",
    ".omp",
    ".gemini",
    ".copilot",
    ".github/hooks",
    "disableAllHooks",
    "dist-info",
    "site-packages",
    "dist-packages",
    "pyvenv.cfg",
)
# Protected names too common to look for in code (``.pi`` is in ``.pickle`` and
# ``.pid``; a project's ``policies`` folder is a word any program may use; code
# that runs ``.venv/bin/python`` is everyday work): a command naming one is
# still never fast-pathed.
COMMON_PROTECTED_NAMES = (".pi", "policies", "bin/python")


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


# the system's temp folders: writable in the boundary whatever TMPDIR says
SYSTEM_TEMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm")


def temp_dirs(env: Mapping[str, str] | None = None) -> list[str]:
    """The temp folders commands may write (containment's ``{tmp}``): the system's, and the
    one programs use, unless that is ``/`` (``TMPDIR=/`` would stand for the whole
    machine: red-team rt90).  Containment also holds ``TMPDIR`` to the cache variables'
    rule (``contain/policy.py`` ``temp_refused``)."""
    dirs = list(SYSTEM_TEMP_DIRS)
    return dirs if temp_dir(env) in [*dirs, "/"] else [*dirs, temp_dir(env)]


def temp_dir(env: Mapping[str, str] | None = None) -> str:
    """The temp folder programs use: ``TMPDIR`` when it is absolute, else /tmp.

    Spelled as the kernel reads it: POSIX's ``normpath`` keeps a leading ``//``, whose
    ``dirname`` is itself, so a walk up to ``/`` from it never ended (red-team rt90).
    """
    tmpdir = _env(env).get("TMPDIR", "")
    return "/" + os.path.normpath(tmpdir).lstrip("/") if os.path.isabs(tmpdir) else "/tmp"


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


def secret_paths(env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """The guard's files no command may read: the key (which seals records) and the trust
    record (which says which project settings the user approved).

    One list for the gate's fallback and the boundary, whose ``unreadable`` list
    names the same two (``{key}``, ``{trust}``): a command must not learn more where
    no boundary holds than where one does (red-team rt81).
    """
    return key_path(env), trust_record_path(env)


def installed_paths() -> tuple[str, ...]:
    """The folders our installed code lives in, and the ``agentreflex`` entry point.

    An agent that edits or removes these switches agentreflex off as surely as
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


def interpreter_paths() -> tuple[str, ...]:
    """Where the hook's interpreter takes code from at start-up, beside our installed code.

    A ``.pth`` file or ``sitecustomize.py`` in the ``site-packages`` folder our
    code is loaded from runs first in every hook (after which every hook can
    answer "allow"), and the environment's ``pyvenv.cfg`` and ``python`` links
    choose the interpreter itself.  Like :func:`installed_paths` these are
    protected from being written, not from a folder above them being deleted
    (``rm -rf .venv`` in a project is everyday work, and its hooks then fail
    closed).  Worked out from paths alone: no file is read or listed.
    """
    paths: list[str] = []
    site = sys.modules.get("site")  # imported at start-up (unless ``python -S``)
    if site is not None and hasattr(site, "getsitepackages"):
        paths.extend(site.getsitepackages())  # the environment's (an editable install's too)
    namespace = sys.modules.get("agentreflex")
    for folder in getattr(namespace, "__path__", ()) or ():
        parent = os.path.dirname(os.path.abspath(str(folder)))
        if os.path.basename(parent) in ("site-packages", "dist-packages"):
            paths.append(parent)  # a user site, or one put on the path by hand
    user_site = loaded_user_site()
    if user_site:
        paths.append(user_site)  # its .pth files run too (``pip install --user``)
    if sys.prefix != sys.base_prefix:  # a virtual environment: its own configuration
        paths.append(os.path.join(sys.prefix, "pyvenv.cfg"))
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for name in ("python", f"python{sys.version_info[0]}", version):
        paths.append(os.path.join(sys.prefix, "bin", name))
    return tuple(dict.fromkeys(paths))


def loaded_user_site() -> str:
    """The user site (``~/.local/lib/pythonX.Y/site-packages``) when the hook's
    interpreter loads it at start-up, else ``""``.

    Python adds it to the path unless it runs in a virtual environment without
    the system's packages, with ``-s``/``-I``, or ``PYTHONNOUSERSITE`` set: then
    ``site.ENABLE_USER_SITE`` is false.  Whether the folder exists yet does not
    matter: one created later is loaded by the next hook.
    """
    site = sys.modules.get("site")
    if site is None or not getattr(site, "ENABLE_USER_SITE", False):
        return ""
    return str(site.getusersitepackages())


def protected_name(path: str) -> bool:
    """Whether ``path`` is, or is inside, a protected folder known by its name.

    Any ``.agentreflex`` folder: another project's configuration becomes the
    one in force as soon as the host's working directory moves there.  And an
    installed ``agentreflex`` distribution's metadata:

    ``agentreflex_gate-0.1.0.dist-info`` holds the entry points the reflexes
    are found through, and ``_editable_impl_agentreflex_gate.pth`` (or
    ``__editable__.agentreflex_gate-...pth``) is how an editable install is
    found: wherever a site-packages folder is, removing or rewriting these
    switches a reflex off.  Matched by name because an installation may sit
    anywhere.  And an ``agentreflex`` command in any ``bin`` folder: the Claude
    Code plugin's launcher, with no environment of its own, runs the first one
    on the PATH (``~/.local/bin/agentreflex`` where ``uv tool`` puts it), so a
    script put in its place, or in a folder earlier on the PATH, is the hook.
    """
    if path.endswith("/bin/agentreflex"):
        return True
    for part in path.split("/"):
        if part == ".agentreflex":
            return True
        low = part.lower()
        if not low or "agentreflex" not in low:
            continue
        if low.endswith((".dist-info", ".egg-info", ".egg-link")) and low.startswith(
            ("agentreflex-", "agentreflex_", "agentreflex.")
        ):
            return True
        if low.endswith(".pth") and ("editable" in low or low.startswith("agentreflex")):
            return True
    return False


# The hosts' hook settings and plugin folders in a project (relative to it): Claude
# Code's, Codex's, Hermes', OpenCode's (it reads opencode.json or .jsonc: its findUp),
# pi's and oh-my-pi's, Gemini CLI's, Copilot CLI's hooks files
HOST_PROJECT_FILES = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex",
    ".hermes/plugins",
    ".hermes/config.yaml",
    ".opencode",
    "opencode.json",
    "opencode.jsonc",
    # OpenCode's TUI settings, found upward from where it starts like opencode.json: their
    # `plugin` list is loaded into OpenCode's own process at start (1.18.33's
    # ConfigPaths.projectFiles("tui"); red-team rt25)
    "tui.json",
    "tui.jsonc",
    ".pi",
    ".omp",
    ".gemini/settings.json",
    ".github/hooks",
)


def _opencode_caches(values: Mapping[str, str], home: str) -> list[str]:
    found = [os.path.join(home, ".cache", "opencode")]
    xdg_cache = values.get("XDG_CACHE_HOME")
    if xdg_cache and os.path.isabs(xdg_cache):
        found.append(os.path.join(xdg_cache, "opencode"))
    return found


def rebuilt_paths(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The protected folders that hold derived data only: ours and OpenCode's caches.

    Written, they are code that runs outside any boundary; deleted (``rm -rf ~/.cache``,
    ``find ~/.cache -delete``), they are only made again, so a delete is everyday work.
    """
    values = _env(env)
    return (user_cache_dir(values), *_opencode_caches(values, home_dir(values)))


def protected_paths(project: str, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every file or folder whose change could switch agentreflex off or fool it.

    Folders cover everything below them.  Hosts' hook settings and plugin
    folders are here because removing a hook entry or disabling the plugin
    switches agentreflex off for that host.  Installed distributions' metadata
    is matched by name (:func:`protected_name`).

    One exception: an installed code folder inside ``project`` that is not in a
    ``site-packages`` folder is an editable checkout of agentreflex's own
    source, which is the project's ordinary work (its history is in git); the
    entry point and the metadata stay protected even then.
    """
    values = _env(env)
    home = home_dir(values)
    project = project.rstrip("/") or "/"
    claude_home = values.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
    codex_home = values.get("CODEX_HOME") or os.path.join(home, ".codex")
    copilot_home = values.get("COPILOT_HOME") or os.path.join(home, ".copilot")
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
        codex_home,
        values.get("HERMES_HOME") or os.path.join(home, ".hermes"),
        os.path.join(home, ".config", "opencode"),
        os.path.join(home, ".pi", "agent"),
        os.path.join(home, ".omp"),
        # Gemini CLI: settings hooks and its trust records; Copilot CLI: hooks files
        os.path.join(home, ".gemini", "settings.json"),
        os.path.join(home, ".gemini", "trustedFolders.json"),
        os.path.join(home, ".gemini", "trusted_hooks.json"),
        os.path.join(copilot_home, "hooks"),
        os.path.join(copilot_home, "config.json"),
        os.path.join(copilot_home, "settings.json"),
        *(os.path.join(project, name) for name in HOST_PROJECT_FILES),
    ]
    # where `agentreflex install opencode|pi` writes when these move the host's folders
    xdg_config = values.get("XDG_CONFIG_HOME")
    if xdg_config and os.path.isabs(xdg_config):
        paths.append(os.path.join(xdg_config, "opencode"))
    # OpenCode's cache: bin/ holds the rg its grep and glob run (when none is on PATH) and the
    # language servers it starts, packages/ the npm plugins it loads at start, all in its own
    # process, outside any boundary (red-team rt38: its write tool could replace bin/rg)
    paths += _opencode_caches(values, home)
    pi_agent = values.get("PI_CODING_AGENT_DIR")
    if pi_agent and os.path.isabs(pi_agent):
        paths.append(pi_agent)
    plugin_data = values.get("CLAUDE_PLUGIN_DATA")
    if plugin_data and os.path.isabs(plugin_data):
        paths.append(plugin_data)
    paths.extend(interpreter_paths())
    inside = project.rstrip("/") + "/"
    for folder in installed_paths():
        editable = folder.startswith(inside) and "/site-packages/" not in folder + "/"
        if not editable or folder.endswith("/bin/agentreflex"):
            paths.append(folder)
    return tuple(dict.fromkeys(os.path.normpath(p) for p in paths))
