"""The programs an agent's or skill's Markdown file starts: the words of its frontmatter's
``hooks:`` and MCP server blocks.

Why: hosts start these outside any boundary.  Copilot CLI 1.0.102 (traced) starts an
agent file's ``mcp-servers:`` command with no sandbox, trusted folder or not, when the
model hands a task to that agent; Claude Code runs a skill's or agent's ``hooks:``
once it is used.  The folders themselves are held read-only
(:data:`.hostruns.RUN_PATHS`); the scripts they name (``command: python3
tools/server.py``) are held through :func:`.hostruns.named_files`, as the scripts a
settings file names are.

No YAML parser: the hook's path loads none.  A block is its top-level key's line and
every indented line after it; all its words are taken, and only those that are
existing files inside the project count, so a word too many holds nothing.
"""

from __future__ import annotations

import os

from agentreflex.core.util.fsutil import read_regular

__all__ = ["FOLDERS", "files", "run_words"]

# where the hosts read agents and skills whose frontmatter may start programs (Claude
# Code's agents and skills, Copilot CLI's agents in any subfolder, Gemini CLI's agents)
FOLDERS = (".claude/agents", ".claude/skills", ".github/agents", ".gemini/agents")
# the top-level frontmatter keys whose block starts programs
_RUNS = frozenset({"hooks", "mcp-servers", "mcp_servers", "mcpServers"})
_PUNCTUATION = str.maketrans({c: " " for c in "[]{},"})
_MAX_BYTES = 1 << 20  # a file larger than this is not read
_MAX_FILES = 500  # per project: a folder of thousands is no host's set of agents
_MAX_DEPTH = 4


def files(project: str) -> list[str]:
    """The Markdown files under the project's agent and skill folders (not through links)."""
    found: list[str] = []
    for folder in FOLDERS:
        top = os.path.join(project, folder)
        if not os.path.isdir(top) or os.path.islink(top):
            continue
        for where, dirs, names in os.walk(top):
            if where.count(os.sep) - top.count(os.sep) >= _MAX_DEPTH:
                dirs.clear()
            found += sorted(os.path.join(where, n) for n in names if n.endswith(".md"))
            if len(found) >= _MAX_FILES:
                return found[:_MAX_FILES]
    return found


def run_words(path: str) -> list[str]:
    """The words of ``path``'s frontmatter blocks that start programs."""
    data = read_regular(path, _MAX_BYTES)
    if data is None or len(data) > _MAX_BYTES:
        return []
    lines = data.decode("utf-8-sig", "replace").splitlines()  # a BOM is no text
    if not lines or lines[0].strip() != "---":
        return []
    words: list[str] = []
    inside = False
    for line in lines[1:]:
        if line.strip() == "---":
            break
        if line[:1] not in (" ", "\t", "-", "#", "") and ":" in line:  # a top-level key
            inside = line.split(":", 1)[0].strip().strip("\"'") in _RUNS  # "mcp-servers":
        if inside:
            words += line.translate(_PUNCTUATION).split()
    return words
