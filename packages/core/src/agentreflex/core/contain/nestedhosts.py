"""Claude Code's folders below the project root: what a command added there, moved aside.

Why: Claude Code loads the skills in a ``.claude/skills`` folder below the
one it started in once the agent works on files there (its monorepo
support), and a skill's frontmatter ``hooks:`` run outside any sandbox once
the skill is used; a session started in that folder later reads its
``.claude/settings.json`` hooks and the rest of what
:data:`.hostruns.RUN_PATHS` names.  The boundary holds only the project's own
``.claude``: a folder below has nothing to mount over until it exists, and a
mount per folder would cost every command start-up time.

So, like :mod:`.nestedgit`, the ``.claude`` folders the walk finds
(:mod:`.treewalk`: two folders down) are looked at before and after each shell
command: each file in their run parts (``settings.json``, ``skills``,
``hooks``...) that appeared or changed is moved into the state folder.  A
file the host's own file tool writes is the host's to ask about: the look
after such a tool takes what is there as the session's.  Stdlib only: it is
on the hook's path.
"""

from __future__ import annotations

import os

from agentreflex.core.contain import hostruns
from agentreflex.core.util.fsutil import move_under, stamp

__all__ = ["RUNS", "after", "before"]

_PREFIX = ".claude/"
# what Claude Code runs or reads as settings from a `.claude` folder: the same names as
# at the project root (one list: hostruns)
RUNS = tuple(
    dict.fromkeys(
        name[len(_PREFIX) :]
        for name in (*hostruns.SETTINGS, *hostruns.RUN_PATHS)
        if name.startswith(_PREFIX)
    )
)
_MAX_FILES = 2000  # per look: past this, files are not stamped (SECURITY.md)
_MAX_DEPTH = 4  # skills/NAME/scripts/x.sh


def before(folders: list[str]) -> dict[str, list[int]]:
    """Each file in the run parts of ``folders`` (``X/.claude``), with its stamp."""
    files: dict[str, list[int]] = {}
    for path in _files(folders):
        mark = stamp(path)
        if mark is not None:
            files[path] = mark
    return files


def after(record: dict[str, object], folders: list[str], folder: str, act: bool) -> list[str]:
    """The files in the run parts of ``folders`` that appeared or changed since ``record``
    (a :func:`before`), moved below ``folder`` (only named when ``act`` is False)."""
    changed = [p for p in _files(folders) if record.get(p) != stamp(p)]
    if act:
        for path in changed:
            move_under(path, folder)
    return changed


def _files(folders: list[str]) -> list[str]:
    """The files and links (not followed) in the run parts of each ``.claude`` folder; a
    link (a ``.claude`` that is one, or a folder leading to one) counts as one file."""
    found: list[str] = []
    for claude in folders:
        if os.path.islink(claude):
            found.append(claude)
            continue
        for name in RUNS:
            path = os.path.join(claude, name)
            if os.path.islink(path) or os.path.isfile(path):
                found.append(path)
            elif os.path.isdir(path):
                found += _below(path)
            if len(found) >= _MAX_FILES:
                return found[:_MAX_FILES]
    return found


def _below(top: str) -> list[str]:
    found: list[str] = []
    for where, dirs, names in os.walk(top):
        if where.count(os.sep) - top.count(os.sep) >= _MAX_DEPTH:
            dirs.clear()
        # a link to a folder is listed among the folders and not gone into: a file here too
        links = [d for d in dirs if os.path.islink(os.path.join(where, d))]
        found += [os.path.join(where, n) for n in (*names, *links)]
    return found
