"""The project's files a host's own settings run: its hook scripts, status line, MCP servers.

Why: hosts run these outside any boundary, with the user's full rights.
Claude Code's documentation shows hooks as ``"$CLAUDE_PROJECT_DIR"/.claude/
hooks/check.sh``; a project's ``.mcp.json`` (or Copilot CLI's ``.github/
mcp.json`` and ``.github/lsp.json``) starts ``python tools/server.py``; OpenCode loads the plugin files ``opencode.json`` names.  The settings files
themselves are read-only in the boundary, but a contained command could
rewrite the script they name, and the host would run it at its next event.
So every existing file in the project that a host's project settings name
where a program goes is read-only too (the policy's ``{host_runs}``).

Only the keys that hold a program or its arguments are read (``command``,
``args``, ``bash``, ``plugin``, and Claude Code's credential helpers), never
permission rules or other text, so a data file is not made read-only because
a setting mentions it.  Stdlib only, and small: it runs on each contained
command's plan.
"""

from __future__ import annotations

import os

from agentreflex.core.util import jsonc
from agentreflex.core.util.fsutil import read_json

__all__ = [
    "COPILOT_SERVERS",
    "RUN_PATHS",
    "SETTINGS",
    "named_files",
    "run_paths",
    "settings_files",
    "stamp",
]

# The hosts' project settings that name programs (their protocols: Claude Code's
# settings and .mcp.json, Gemini CLI's settings.json, OpenCode's opencode.json, Copilot
# CLI's MCP and language servers, which Copilot CLI 1.0.102 reads at start in a trusted
# folder: .github/mcp.json and .github/lsp.json beside .mcp.json), and the folder of
# Copilot CLI's hooks files (each *.json in it)
COPILOT_SERVERS = (".github/mcp.json", ".github/lsp.json")
SETTINGS = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".mcp.json",
    ".gemini/settings.json",
    "opencode.json",
    "opencode.jsonc",
    *COPILOT_SERVERS,
)
HOOK_FILES = ".github/hooks"
# What the hosts run, or read as instructions, from the project's own folders outside any
# boundary: read-only where they exist (the policy's {run_paths}), moved aside where a
# command made them (planted).  Claude Code's are those its own sandbox denies its
# commands (2.1.328's list, found by tracing it: a skill's frontmatter `hooks:` runs its
# command outside any sandbox once the skill is used; `!` lines of commands and skills
# run before the prompt; launch.json names the preview's server); Copilot CLI's servers.
_CLAUDE_RUNS = (
    ".mcp.json",
    ".claude/hooks",
    ".claude/commands",
    ".claude/agents",
    ".claude/skills",
    ".claude/workflows",
    ".claude/routines",
    ".claude/output-styles",
    ".claude/scheduled_tasks.json",
    ".claude/loop.md",
    ".claude/launch.json",
)
RUN_PATHS = (*_CLAUDE_RUNS, *COPILOT_SERVERS)
# the keys whose strings are a program and its arguments
_RUN_KEYS = frozenset(
    {
        "command",
        "args",
        "bash",
        "plugin",
        "apiKeyHelper",
        "awsAuthRefresh",
        "awsCredentialExport",
        "otelHeadersHelper",
    }
)
# how the settings spell the project folder in a command
_PROJECT_VARS = (
    "${CLAUDE_PROJECT_DIR}",
    "$CLAUDE_PROJECT_DIR",
    "${GEMINI_PROJECT_DIR}",
    "$GEMINI_PROJECT_DIR",
    "${PWD}",
    "$PWD",
)
_MAX_BYTES = 1 << 20  # a settings file larger than this is not read


def named_files(project: str) -> list[str]:
    """The existing files inside ``project`` that its hosts' settings run."""
    found: list[str] = []
    for settings in settings_files(project):
        try:
            words = _run_words(_read_settings(settings))
        except RecursionError:
            continue  # nested deeper than any host's settings are: no host reads it either
        for word in words:
            target = _in_project(word, project)
            if target and target not in found:
                found.append(target)
    return found


def run_paths(project: str) -> list[str]:
    """The paths in ``project`` a host runs from itself (:data:`RUN_PATHS`), existing or not.

    Why one function: the boundary holds those that exist, the look after a command
    moves aside those a command made, and the gate asks before a file tool writes any.
    """
    return [os.path.join(project, name) for name in RUN_PATHS]


def _read_settings(path: str) -> object:
    """A settings file's value as its host reads it (OpenCode's ``.jsonc`` has comments)."""
    if path.endswith(".jsonc"):
        return read_json(path, _MAX_BYTES, _jsonc)
    return read_json(path, _MAX_BYTES)


def _jsonc(data: bytes) -> object:
    return jsonc.loads(data.decode("utf-8", "replace"))


def settings_files(project: str) -> list[str]:
    """The hosts' project settings files that may name programs (existing or not)."""
    paths = [os.path.join(project, name) for name in SETTINGS]
    try:
        hooks = os.scandir(os.path.join(project, HOOK_FILES))
    except OSError:
        return paths
    with hooks:
        return paths + sorted(e.path for e in hooks if e.name.endswith(".json"))


def stamp(project: str) -> tuple[tuple[int, int], ...]:
    """What changes when a settings file is written: for a cache of :func:`named_files`."""
    marks = []
    for path in settings_files(project):
        try:
            found = os.stat(path)
        except OSError:
            marks.append((0, 0))
            continue
        marks.append((found.st_mtime_ns, found.st_size))
    return tuple(marks)


def _run_words(value: object, running: bool = False) -> list[str]:
    """The words of every string under a key that holds a program or its arguments."""
    if isinstance(value, dict):
        return [w for k, v in value.items() for w in _run_words(v, running or k in _RUN_KEYS)]
    if isinstance(value, list):
        return [w for v in value for w in _run_words(v, running)]
    if isinstance(value, str) and running:
        return value.split()
    return []


def _in_project(word: str, project: str) -> str | None:
    """``word`` as a file inside ``project`` that exists, or None."""
    # the shell's quotes go ("$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh), and the operators
    word = word.replace('"', "").replace("'", "").strip("`;&|()")
    if word.startswith("file://"):
        word = word[len("file://") :]
    for name in _PROJECT_VARS:
        word = word.replace(name, project)
    if not word or word.startswith("-") or "$" in word or "\0" in word:
        return None
    path = os.path.normpath(os.path.join(project, word))
    if not path.startswith(project.rstrip("/") + "/") or not os.path.isfile(path):
        return None
    return path
