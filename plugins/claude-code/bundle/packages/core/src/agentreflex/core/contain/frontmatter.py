"""The programs an agent's or skill's Markdown file starts: the words of its frontmatter's
``hooks:`` and MCP server blocks.

Why: hosts start these outside any boundary.  Copilot CLI 1.0.102 (traced) starts an
agent file's ``mcp-servers:`` command with no sandbox, trusted folder or not, when the
model hands a task to that agent; Claude Code runs a skill's or agent's ``hooks:``
once it is used.  The folders themselves are held read-only
(:data:`.hostruns.RUN_PATHS`); the scripts they name (``command: python3
tools/server.py``) are held through :func:`.hostruns.named_files`, as the scripts a
settings file names are.

No YAML parser: the hook's path loads none.  A file whose frontmatter names such a
block gives all its words (:func:`run_words`); only those that are existing files
inside the project count, so a word too many holds little.
"""

from __future__ import annotations

import os
import re

from agentreflex.core.util.fsutil import read_regular
from agentreflex.core.util.lazyre import LazyPattern

__all__ = ["FOLDERS", "files", "run_words", "yaml_words"]

# where the hosts read agents and skills whose frontmatter may start programs (Claude
# Code's agents and skills, Copilot CLI's agents in any subfolder, Gemini CLI's agents)
FOLDERS = (
    ".claude/agents",
    ".claude/skills",
    ".claude/commands",  # read with the skills' reader, hooks included (Claude Code 2.1.328)
    ".github/agents",
    ".gemini/agents",
)
# the frontmatter keys whose block starts programs (hooks, mcp-servers, mcp_servers,
# mcpServers), however cased
_RUNS = LazyPattern(r"hooks|mcp[-_]?servers", re.IGNORECASE, hints="hooks mcp")
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
    """Every word of ``path``'s frontmatter, when it names a block that starts programs.

    Why every word: the hosts read frontmatter with a whole YAML parser (Claude Code's
    ``Bun.YAML.parse``, Copilot CLI's ``serde_yaml``), so the block may be JSON, flow
    style, indented, behind an anchor or an escaped key (``"ho\\x6fks"``).  No reader
    short of theirs finds the block's words in every spelling; all of them, escapes
    undone, are a superset, and only existing files inside the project count.
    """
    data = read_regular(path, _MAX_BYTES)
    if data is None or len(data) > _MAX_BYTES:
        return []
    # a BOM is no text; YAML's line breaks only (U+2028 is none since YAML 1.2)
    lines = re.split(r"\r\n|\r|\n", data.decode("utf-8-sig", "replace"))
    if not lines or lines[0].strip() != "---":
        return []
    front: list[str] = []
    for line in lines[1:]:
        # the end as serde_yaml takes it, at the start of a line (a Markdown rule inside a
        # block scalar is indented); Claude Code's ends at the first "---": less, not more
        if line.startswith("---") and line[3:4] in ("", " ", "\t"):
            break
        front.append(line)
    text = _unescaped("\n".join(front))
    if not _RUNS.search(text):
        return []
    return text.translate(_PUNCTUATION).split()


def yaml_words(path: str) -> list[str]:
    """Every word of a whole YAML settings file that names a block starting programs
    (Continue's ``.continue/mcpServers/*.yaml``): read as :func:`run_words` reads a
    frontmatter, for the same reason (red-team rt65)."""
    data = read_regular(path, _MAX_BYTES)
    if data is None or len(data) > _MAX_BYTES:
        return []
    text = _unescaped(re.sub(r"\r\n|\r", "\n", data.decode("utf-8-sig", "replace")))
    if not _RUNS.search(text):
        return []
    return text.translate(_PUNCTUATION).split()


def _unescaped(text: str) -> str:
    """``text`` with YAML's double-quoted escapes undone: a line continued with a
    backslash, ``\\xNN``, ``\\uNNNN``, ``\\UNNNNNNNN`` and ``\\/``."""
    text = re.sub(r"\\\n[ \t]*", "", text)
    return re.sub(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(/))", _char, text)


def _char(found: re.Match[str]) -> str:
    if found.group(4):
        return "/"
    code = int(found.group(1) or found.group(2) or found.group(3), 16)
    return chr(code) if code < 0x110000 else ""
