"""The hosts' settings in folders below the project root: what a command wrote there, moved aside.

Why: Claude Code loads the skills in a ``.claude/skills`` folder below the
one it started in once the agent works on files there (its monorepo
support), and a skill's frontmatter ``hooks:`` run outside any sandbox once
the skill is used.  And every host started in such a folder later (``cd
packages/web && gemini``: a trusted folder's subfolders are trusted too) reads
that folder's settings, hooks and plugins (``.gemini/settings.json``,
``.codex``, ``opencode.json``, ``.mcp.json``...).  The boundary holds only
the project's own: a folder below has nothing to mount over until it exists,
and a mount per folder would cost every command start-up time.

So, like :mod:`.nestedgit`, the folders the walk finds holding any of them
(:mod:`.treewalk`: two folders down) are looked at before and after each shell
command: each file of those settings that appeared or changed is moved into
the state folder.  A link on the way (``ln -s /tmp/x web/.gemini``) is what
moves, never what it leads to.  Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import os

from agentreflex.core.contain import hostruns
from agentreflex.core.state.userdirs import HOST_PROJECT_FILES
from agentreflex.core.util.fsutil import move_under, stamp, through_link

__all__ = ["MARKS", "NAMES", "after", "before"]

# what a host reads from the folder it starts in, or (Claude Code's skills) below it:
# the hosts' project settings, and what Claude Code and Gemini CLI run from their project
# folder (one list each: userdirs, hostruns); not agentreflex's own (its trust rule holds
# there), nor Copilot CLI's .github, read from the repository's root, nor the editors'
NAMES = tuple(
    dict.fromkeys(
        name
        for name in (*HOST_PROJECT_FILES, *hostruns.SETTINGS, *hostruns.RUN_PATHS)
        if name.startswith((".claude/", ".gemini/", ".mcp.json"))
        or (name in HOST_PROJECT_FILES and not name.startswith(".github/"))
    )
)
# the entries whose presence in a folder makes it one to look at
MARKS = frozenset(name.split("/", 1)[0] for name in NAMES)
_MAX_FILES = 2000  # per look: past this, files are not stamped (SECURITY.md)
_MAX_DEPTH = 4  # skills/NAME/scripts/x.sh


def before(folders: list[str]) -> dict[str, list[int]]:
    """Each file of the hosts' settings in ``folders``, with its stamp."""
    files: dict[str, list[int]] = {}
    for path in _files(folders):
        mark = stamp(path)
        if mark is not None:
            files[path] = mark
    return files


def after(
    record: dict[str, object], folders: list[str], folder: str, act: bool
) -> list[tuple[str, str]]:
    """The files of the hosts' settings in ``folders`` that appeared or changed since
    ``record`` (a :func:`before`), each with where it was moved below ``folder`` ("" when it
    could not be, or ``act`` is False: only named)."""
    changed = [p for p in _files(folders) if record.get(p) != stamp(p)]
    return [(path, move_under(path, folder) if act else "") for path in changed]


def _files(folders: list[str]) -> list[str]:
    """The files and links (not followed) of the hosts' settings in each folder; a link
    (the folder itself, or one on the way to a setting) counts as one file."""
    found: dict[str, None] = {}
    for where in folders:
        if os.path.islink(where):
            found[where] = None
            continue
        for name in NAMES:
            path = os.path.join(where, name)
            unit = through_link(path, [where])
            if unit != path or os.path.islink(path) or os.path.isfile(path):
                found[unit] = None
            elif os.path.isdir(path):
                found.update(dict.fromkeys(_below(path)))
            if len(found) >= _MAX_FILES:
                return list(found)[:_MAX_FILES]
    return list(found)


def _below(top: str) -> list[str]:
    found: list[str] = []
    for where, dirs, names in os.walk(top):
        if where.count(os.sep) - top.count(os.sep) >= _MAX_DEPTH:
            dirs.clear()
        # a link to a folder is listed among the folders and not gone into: a file here too
        links = [d for d in dirs if os.path.islink(os.path.join(where, d))]
        found += [os.path.join(where, n) for n in (*names, *links)]
    return found
