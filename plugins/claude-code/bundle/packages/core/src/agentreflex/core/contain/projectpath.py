"""A word of a host's setting read as a path inside the project, as the host would run it.

Why one function: the scripts a settings file names (:mod:`.hostruns`) and the plugin
folders a marketplace setting installs from (:mod:`.marketplace`) are both held in the
boundary, and both must find the same file the host's shell would.
"""

from __future__ import annotations

import os
from collections.abc import Callable

__all__ = ["PROJECT_VARS", "in_project"]

# how the settings spell the project folder in a command
PROJECT_VARS = (
    "${CLAUDE_PROJECT_DIR}",
    "$CLAUDE_PROJECT_DIR",
    "${GEMINI_PROJECT_DIR}",
    "$GEMINI_PROJECT_DIR",
    "${PWD}",
    "$PWD",
    "${workspaceFolder}",  # VS Code's and Cursor's (tasks.json, mcp.json, hooks.json)
    "${workspaceRoot}",
)


def in_project(
    word: str, project: str, exists: Callable[[str], bool] = os.path.isfile
) -> str | None:
    """``word`` as a file (or what ``exists`` asks for) inside ``project``, or None."""
    # the shell's quotes go ("$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh), and the operators
    word = word.replace('"', "").replace("'", "").strip("`;&|()")
    if word.startswith("file://"):
        word = word[len("file://") :]
    for name in PROJECT_VARS:
        word = word.replace(name, project)
    if not word or word.startswith("-") or "$" in word or "\0" in word:
        return None
    path = os.path.normpath(os.path.join(project, word))
    if not path.startswith(project.rstrip("/") + "/") or not exists(path):
        return None
    return path
