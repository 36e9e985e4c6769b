"""Checks for file tools (Read/Write/Edit/patch on every host).

- reading a credential file into the transcript;
- writing a real secret into a file (content scanned with core's rules);
- writing system files or the user's dotfiles;
- changing agentreflex's own files or reading its key (only the user may:
  ASK_USER, see :mod:`selfguard`).
"""

from __future__ import annotations

from agentreflex.gate.model import ASK, DESTRUCTIVE, P_BLOCK, P_WARN, SECRET, Hit
from agentreflex.gate.shell.paths import (
    Place,
    Where,
    classify,
    filter_picks_secrets,
    is_secret_file,
    names_protected,
    real_file,
)


def read_hits(paths: list[str], where: Where) -> list[Hit]:
    hits: list[Hit] = []
    if any(names_protected(p) or p.endswith("key") for p in paths):  # the key's path says so
        from agentreflex.gate.rules import selfguard

        hits = selfguard.read_hits(paths, where)
    for p in paths:
        full = classify(p, where, follow=True)[1]
        if is_secret_file(full) or is_secret_file(real_file(p, where)):
            hits.append(
                Hit(
                    "GATE-SECRET-READ",
                    SECRET,
                    0.9,
                    p,
                    f"Reading {p} puts a credential into the transcript. Ask the user "
                    "for the value you need, or read the matching .example file.",
                )
            )
    return hits


# A search tool's file filter, as each host names it: Claude Code's ``Grep``, Copilot CLI's
# and pi's ``grep`` ``glob`` (pi 0.73.1 dist/core/tools/grep.js:16, passed to rg as
# ``--glob``, :142); OpenCode's ``grep`` ``include``; Gemini CLI's ``grep_search``
# ``include_pattern`` (0.61 bundle chunk-JDPZ4CE3.js:280380), its ``search_file_content``
# ``include`` before it; Hermes' ``search_files`` ``file_glob`` (hermes-agent 0.19
# tools/file_operations.py:2054).  Each searches only the files it picks and prints their
# matching lines; ripgrep's ``-g`` "always overrides any other ignore logic", so a hidden
# or gitignored ``.env`` is searched (issue #28).
_FILTER_KEYS = ("glob", "include", "include_pattern", "file_glob")


def filtered_reads(tool_input: dict[str, object], paths: list[str]) -> list[str]:
    """The credential files a search or multi-file read picks by a glob: its filter fields
    in each folder it searches (``path``, or the working folder), and a glob among its paths
    (Gemini's ``read_many_files`` ``include: [".e*"]``) in the folder it names.  Each is
    judged by :func:`read_hits` as a read of that file."""
    globs: list[tuple[str, str]] = []
    folders = [p for p in paths if not any(c in p for c in "*?[{")] or ["."]
    for key in _FILTER_KEYS:
        value = tool_input.get(key)  # a string: a list (``read_many_files``) is its paths
        if isinstance(value, str) and value:
            globs += [(folder, value) for folder in folders]
    for p in paths:
        if any(c in p for c in "*?[{"):
            head, _, tail = p.rpartition("/")
            if any(c in head for c in "*?[{"):
                globs.append((".", p))
            else:
                globs.append((head or ".", tail))
    found: list[str] = []
    for folder, pattern in globs:
        for name in filter_picks_secrets(pattern):
            full = folder.rstrip("/") + "/" + name
            if full not in found:
                found.append(full)
    return found


def runs_later(place: str, full: str) -> bool:
    """Whether a file tool's write lands where the boundary keeps commands from writing,
    because what is written there runs later outside any sandbox: the project's git
    settings and hooks (``core.fsmonitor``, a pre-commit hook; a submodule's too) and
    the user's dotfiles (``~/.bashrc``).  A host's file tools run in the host's own
    process, so only this check stands between them and those files (contain.toml).

    A repository inside the project (``git init sub``, a vendored checkout, one the
    write itself makes) has the same settings, run as soon as the user, their editor or
    a shell prompt runs git there; and a ``.git`` file points git at settings anywhere.
    Commands' changes to them are undone by the look before the next command
    (contain/nestedgit.py), a file tool's are not until then (red-team rt35)."""
    if place is Place.HOME_DOT:
        return True
    if place not in (Place.PROJECT_GIT, Place.INSIDE):
        return False
    parts = full.rstrip("/").split("/")
    if place is Place.INSIDE and parts[-1] == ".git":
        return True  # a pointer (``gitdir: ...``), or a folder git takes for a repository
    if ".git" not in parts[:-1]:
        return False
    parts = parts[len(parts) - 1 - parts[::-1].index(".git") :]  # from the innermost .git
    name = parts[-1]
    return name == "config" or name.startswith("config.worktree") or "hooks" in parts


def _runs_later_through_links(full: str, where: Where) -> bool:
    """:func:`runs_later` for where the links on ``full`` lead when that is inside the project
    too (``g -> sub/.git``), which :func:`classify` leaves spelled as it is."""
    import os

    real = os.path.realpath(full)
    if real == full:
        return False
    anchors = Where(
        where.cwd, os.path.realpath(where.project or "/"), os.path.realpath(where.home or "/")
    )
    return runs_later(*classify(real, anchors))


def write_hits(paths: list[str], content: str, where: Where, deleting: bool = False) -> list[Hit]:
    from agentreflex.gate.rules import selfguard

    hits: list[Hit] = []
    for p in paths:
        mine = selfguard.tool_hits([p], where, p, deleting)
        if mine:
            hits.extend(mine)
            continue
        place, full = classify(p, where, follow=True)
        if runs_later(place, full) or _runs_later_through_links(full, where):
            hits.append(
                Hit(
                    "GATE-SELF-PROTECT",
                    ASK,
                    1.0,
                    p,
                    f"This writes {full}, which agentreflex's boundary keeps read-only for "
                    "commands: what git's settings and hooks and the shell's start-up files "
                    "name runs later outside any sandbox, so only the user may. Ask the user "
                    "to make this change.",
                )
            )
            continue
        if place in (Place.SYSTEM, Place.DEVICE, Place.ROOT):
            hits.append(
                Hit(
                    "GATE-OVERWRITE-SYSTEM",
                    DESTRUCTIVE,
                    P_BLOCK,
                    p,
                    f"This writes the system file {full}. Ask the user to change system "
                    "configuration.",
                )
            )
        elif place is Place.HOME_DOT:
            hits.append(
                Hit(
                    "GATE-WRITE-DOTFILE",
                    DESTRUCTIVE,
                    P_WARN,
                    p,
                    f"This changes {full}, the user's own configuration.",
                )
            )
        elif place is Place.PROJECT_GIT and "/hooks/" in full:
            hits.append(
                Hit(
                    "GATE-WRITE-GIT-HOOK",
                    DESTRUCTIVE,
                    P_WARN,
                    p,
                    "This installs a git hook that will run on the user's commands.",
                )
            )
    found: list[str] = []
    if content:
        from agentreflex.gate.rules.literals import find_secrets  # not needed by reads

        found = find_secrets(content)
    if found and not all(is_secret_file(classify(p, where)[1]) for p in paths if p):
        hits.append(
            Hit(
                "GATE-SECRET-WRITE",
                SECRET,
                0.9,
                paths[0] if paths else "",
                f"The new content contains a real secret ({found[0]}). Reference an "
                "environment variable or a secrets file that is not tracked instead.",
            )
        )
    return hits


def added_lines(patch: str) -> str:
    """The text a patch adds (``+`` lines, not the ``+++`` headers)."""
    return "\n".join(
        line[1:]
        for line in patch.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    )
