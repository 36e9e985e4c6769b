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

__all__ = ["MISE", "env_files", "paths"]

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
ENVRC = ".envrc"
_MAX_BYTES = 1 << 20
# direnv's stdlib: what runs a file as bash, and what loads a file's variables
_SOURCES = re.compile(r"^[ \t]*source_env(?:_if_exists)?[ \t]+(\S+)", re.M)
_DOTENVS = re.compile(r"^[ \t]*dotenv(?:_if_exists)?(?:[ \t]+([^\s;&|#]+))?", re.M)


def paths(project: str) -> list[str]:
    """mise's settings in ``project`` and the files its ``.envrc`` sources, existing or not."""
    found = [os.path.join(project, name) for name in MISE]
    for word in _SOURCES.findall(_envrc(project)):
        path = in_project(word, project, lambda _: True)
        if path is not None:  # source_env DIR runs DIR/.envrc
            found.append(os.path.join(path, ENVRC) if os.path.isdir(path) else path)
    return found


def env_files(project: str) -> list[str]:
    """The files ``project``'s ``.envrc`` loads variables from (``dotenv``: ``.env`` by default)."""
    found = []
    for word in _DOTENVS.findall(_envrc(project)):
        path = in_project(word or ".env", project, lambda _: True)
        if path is not None:
            found.append(path)
    return found


def _envrc(project: str) -> str:
    data = fsutil.read_regular(os.path.join(project, ENVRC), _MAX_BYTES)
    return data.decode("utf-8", "replace") if data and len(data) <= _MAX_BYTES else ""
