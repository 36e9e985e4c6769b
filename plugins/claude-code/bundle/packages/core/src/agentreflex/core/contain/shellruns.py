"""What the user's own shell runs from the project when it enters the folder: mise, direnv.

Why: a shell with ``mise activate`` or direnv's hook runs the project's
settings at the next prompt in the folder, outside any boundary, as the user.
Each tool asks first, but not for everything a contained command can change:

* mise ties its trust to the file's path, not its content (outside paranoid
  mode: mise.jdx.dev/cli/trust.html), so a line added to a trusted
  ``mise.toml`` (an ``{{ exec(...) }}`` template, ``_.source``, an ``enter``
  hook) runs with no new question;
* direnv asks again when ``.envrc`` changes (its allow is the file's hash), but
  not for what ``.envrc`` sources: ``source_env_if_exists .envrc.local`` runs
  a file "not checked by the security framework" (direnv-stdlib(1); direnv
  issues #249, #1050), and ``dotenv_if_exists`` loads a file's variables.

So mise's settings files and the files an ``.envrc`` sources are held like
what a host runs from the project (read-only where they exist, moved aside
where a command made them: :func:`paths`), and the files it loads variables
from are looked at like Gemini CLI's ``.env`` (:func:`env_files`).  Stdlib
only: it is on the hook's path.
"""

from __future__ import annotations

import os
import re

from agentreflex.core.contain.projectpath import in_project
from agentreflex.core.util import fsutil
from agentreflex.core.util.lazyre import LazyPattern

__all__ = ["ENVRC", "MISE", "TOOL_VERSIONS", "env_files", "paths"]

# mise's project settings, every name it reads (mise.jdx.dev/configuration: the local
# and .config/ forms included); its tasks run only when asked, and .tool-versions only
# names versions
MISE = (
    "mise.toml",
    ".mise.toml",
    "mise.local.toml",
    ".mise.local.toml",
    "mise/config.toml",
    "mise/config.local.toml",
    ".mise/config.toml",
    ".mise/config.local.toml",
    ".config/mise.toml",
    ".config/mise.local.toml",
    ".config/mise/config.toml",
    ".config/mise/config.local.toml",
    ".config/mise/conf.d",
)
# the versions file mise and asdf read (mise puts a `path:` version's bin on the PATH)
TOOL_VERSIONS = ".tool-versions"
ENVRC = ".envrc"
_MAX_BYTES = 1 << 20
# direnv's stdlib and bash: what runs a file (source_env, source, `.`, `use nix`'s
# shell.nix and `use flake`'s flake.nix, whose shellHook runs), what .envrc watches (a
# change there reloads it with no new allow), and what loads a file's variables
# (a command starts a line, or follows `;`, `&&`, `||`, `|`, `then`, `do`, `else`:
# `[ -f .envrc.local ] && source_env .envrc.local`; red-team rt29)
_START = r"(?:^|[;&|(]|\bthen\b|\bdo\b|\belse\b)[ \t]*"
_SOURCES = LazyPattern(
    _START + r"(?:source_env(?:_if_exists)?|source|\.|watch_file)[ \t]+([^;&|#)\n]+)",
    re.M,
    hints="source . watch_file",
)
_USES = {"nix": ("shell.nix", "default.nix"), "flake": ("flake.nix", "flake.lock")}
_USE = LazyPattern(_START + r"use[ \t]+(nix|flake)\b", re.M, hints="use")
_DOTENVS = LazyPattern(
    _START + r"dotenv(?:_if_exists)?(?:[ \t]+([^\s;&|#)]+))?", re.M, hints="dotenv"
)
# mise's env directives: a file it sources as bash, and one it loads variables from
_MISE_SOURCES = LazyPattern(r"_\.source\s*=\s*(\[[^\]]*\]|\{[^}]*\}|\S+)", hints="_.source")
# and the commands mise runs itself: a template's exec(command=...) in any value, and its
# [hooks] (enter, leave, cd...): the project files their words name (red-team rt29)
_MISE_COMMANDS = LazyPattern(
    r"exec\(\s*command\s*=\s*[\"']([^\"']+)[\"']"
    r"|^[ \t]*(?:enter|leave|cd|preinstall|postinstall)\s*=\s*[\"']([^\"']+)[\"']",
    re.M,
    hints="exec enter leave cd preinstall postinstall",
)
_MISE_FILES = LazyPattern(r"_\.file\s*=\s*(\[[^\]]*\]|\{[^}]*\}|\S+)", hints="_.file")
_QUOTED = LazyPattern(r"[\"']([^\"']+)[\"']", hints="\" '")


def paths(project: str) -> list[str]:
    """What ``.envrc`` sources or watches, mise's settings and what they run, in ``project``,
    existing or not.

    ``.envrc`` itself is no such file (direnv asks again when it changes), but the
    boundary holds it read-only all the same (``contain.toml``): a command that took a
    ``source_env`` line out, wrote the file it named (no longer held) and put the line
    back had direnv run it with no new allow (its allow is the content's hash).
    """
    found = [os.path.join(project, name) for name in (TOOL_VERSIONS, *MISE)]
    envrc = _read(project, ENVRC)
    for words in _SOURCES.findall(envrc):
        for word in words.split():
            path = in_project(word, project, lambda _: True)
            if path is not None:  # source_env DIR runs DIR/.envrc
                found.append(os.path.join(path, ENVRC) if os.path.isdir(path) else path)
    for use in _USE.findall(envrc):
        found += [os.path.join(project, name) for name in _USES[use]]
    found += _mise_named(project, _MISE_SOURCES)
    for name in MISE:
        for command in _MISE_COMMANDS.findall(_read(project, name)):
            for word in " ".join(command).split():
                path = in_project(word, project)  # an existing file the command names
                if path is not None:
                    found.append(path)
    return found


def env_files(project: str) -> list[str]:
    """The files ``project``'s ``.envrc`` (``dotenv``: ``.env`` by default) and mise's
    settings (``_.file``) load variables from."""
    found = []
    for word in _DOTENVS.findall(_read(project, ENVRC)):
        path = in_project(word or ".env", project, lambda _: True)
        if path is not None:
            found.append(path)
    return found + _mise_named(project, _MISE_FILES)


def _mise_named(project: str, directive: LazyPattern) -> list[str]:
    """The project files mise's settings name in ``directive`` (one, a list, or a table's
    ``path``)."""
    found = []
    for name in MISE:
        for value in directive.findall(_read(project, name)):
            for word in _QUOTED.findall(value) or [value]:
                path = in_project(word, project, lambda _: True)
                if path is not None:
                    found.append(path)
    return found


def _read(project: str, name: str) -> str:
    data = fsutil.read_regular(os.path.join(project, name), _MAX_BYTES)
    return data.decode("utf-8", "replace") if data and len(data) <= _MAX_BYTES else ""
