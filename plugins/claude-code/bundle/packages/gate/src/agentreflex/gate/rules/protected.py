"""Where agentreflex's own files are, and whether a change to a path reaches one.

:func:`agentreflex.core.state.userdirs.protected_paths` is the one definition of the
guard's own files; this module answers, for one path as a command spells it,
which of them a change would reach: after resolving it the way the command
will (its working directory, ``..``, ``~`` and ``~user``, the symlinks that
exist), by inode for hard links, and by expanding or matching a glob.  What
each command changes is in :mod:`changes`; the findings in :mod:`selfguard`.
"""

from __future__ import annotations

import os
import posixpath

from agentreflex.core.state import userdirs
from agentreflex.core.util.deadline import check as check_time
from agentreflex.gate.model import DESCENDANT, REMOTE, UNKNOWN, has_marker
from agentreflex.gate.shell.paths import Where, resolve

# What a command does to a path.  The effects in ``_BELOW`` on a folder reach
# everything under it (deleting ``~/.claude`` deletes its settings.json).
WRITE = "writes"
DELETE = "deletes"
MOVE = "moves"
LINK_TARGET = "links to"
PERMS = "changes the permissions of"
PERMS_TREE = "changes the permissions of everything in"
EXTRACT = "unpacks files into"
REPLACE = "replaces"
_BELOW = frozenset({DELETE, MOVE, PERMS_TREE, REPLACE})

GLOB_CHARS = "*?["
_MAX_GLOB = 500
_MAX_INODES = 5000


class Protected:
    """agentreflex's own files for one project and home, with their real paths."""

    def __init__(self, where: Where) -> None:
        env = dict(os.environ)
        env["HOME"] = where.home
        # and what the hosts run from the project outside any sandbox: the scripts their
        # project settings name (a hook's .claude/hooks/check.sh, an .mcp.json server),
        # and the files and folders they run from themselves (.mcp.json, .claude/skills,
        # whose frontmatter hooks run; contain/hostruns.py): a host's file tool writes
        # them outside any boundary, so only the user may
        from agentreflex.core.contain import hostruns

        runs = (
            [*hostruns.named_files(where.project), *hostruns.run_paths(where.project)]
            if where.project
            else []
        )
        self.entries = (*userdirs.protected_paths(where.project, env), *runs)
        # large folders, and ones deleting a parent of is everyday work (``rm -rf .venv``)
        self.installed = frozenset((*userdirs.installed_paths(), *userdirs.interpreter_paths()))
        self.key = userdirs.key_path(env)
        # what no command may read: the key and the trust record (the boundary's too)
        self.secrets = userdirs.secret_paths(env)
        self.state_dir = userdirs.user_state_dir(env)
        rebuilt = userdirs.rebuilt_paths(env)
        self.rebuilt = frozenset((*rebuilt, *map(os.path.realpath, rebuilt)))
        self._real: tuple[str, ...] | None = None
        self._inodes: dict[tuple[int, int], str] | None = None

    def all_entries(self) -> tuple[str, ...]:
        """The entries, and where they really are when a symlink moved them."""
        if self._real is None:
            real = [real_path(e) for e in self.entries]
            self._real = tuple(dict.fromkeys([*self.entries, *real]))
        return self._real

    def reaches(self, full: str, below: bool) -> str:
        """The protected file ``full`` is (or, when ``below``, holds); ``""`` when none.

        ``full`` is absolute and ``..``-free.  Checked as spelled, then through
        the symlinks that exist, then by inode (a hard link shares it).
        """
        real = real_path(full)
        for cand in (full, real) if real != full else (full,):
            for entry in self.all_entries():
                if below and entry in self.rebuilt:
                    continue  # deleting derived data only makes it be rebuilt
                if under(cand, entry):
                    return cand
                if below and under(entry, cand) and entry not in self.installed:
                    return entry
            if userdirs.protected_name(cand):
                return cand
        return self._hard_link(real)

    def _hard_link(self, real: str) -> str:
        try:
            st = os.stat(real)
        except (OSError, ValueError):
            return ""
        if st.st_nlink < 2 or not os.path.isfile(real):
            return ""
        return self.inodes().get((st.st_dev, st.st_ino), "")

    def inodes(self) -> dict[tuple[int, int], str]:
        """(device, inode) of agentreflex's own files, for finding hard-link aliases.

        Only the small folders (config, state, settings, the project's own);
        plugin and installed-code folders are too large to walk on every call.
        """
        if self._inodes is None:
            found: dict[tuple[int, int], str] = {}
            for entry in self.entries:
                if entry in self.installed or entry.endswith("/plugins"):
                    continue
                for path in walk_files(entry, _MAX_INODES - len(found)):
                    try:
                        st = os.stat(path)
                    except OSError:
                        continue
                    found.setdefault((st.st_dev, st.st_ino), path)
            self._inodes = found
        return self._inodes

    def suffix_reaches(self, tail: str) -> bool:
        """Whether ``tail`` (``/x/y`` after an unknown folder) ends in a protected name.

        Compared with each entry's hidden last name (``.codex``) or last two
        names (``.claude/settings.json``, ``state/agentreflex``), so an unknown
        folder holding them still asks.
        """
        for entry in self.entries:
            if entry in self.installed:
                continue
            last = entry.rpartition("/")[2]
            short = "/" + (last if last.startswith(".") else "/".join(entry.rsplit("/", 2)[-2:]))
            if short + "/" in tail + "/":
                return True
        return False

    def related(self, folder: str) -> bool:
        """Whether a protected entry is in ``folder``, or ``folder`` is in one."""
        real = real_path(folder)
        return any(under(e, f) or under(f, e) for e in self.all_entries() for f in (folder, real))

    def pattern_reaches(self, pattern: str, below: bool) -> str:
        """A protected entry the glob ``pattern`` names, judged by name.

        Only hidden names count (a wildcard must match ``.agentreflex`` from a
        pattern that itself starts with a dot, as in bash), so ``*.json`` in a
        project does not ask about an ``opencode.json`` that is not there;
        files that exist are found by expanding the glob.
        """
        from fnmatch import fnmatchcase

        pc = pattern.strip("/").split("/")
        for entry in self.entries:
            ec = entry.strip("/").split("/")
            n = min(len(pc), len(ec))
            if len(pc) < len(ec) and not below:
                continue
            ok = True
            for p, e in zip(pc[:n], ec[:n], strict=True):
                if p == e:
                    continue
                wild = any(ch in p for ch in GLOB_CHARS)
                if not (wild and p.startswith(".") and e.startswith(".") and fnmatchcase(e, p)):
                    ok = False
                    break
            if ok:
                return entry if len(pc) <= len(ec) else entry + "/" + "/".join(pc[len(ec) :])
        return ""


_PROTECTED: dict[tuple[object, ...], Protected] = {}
# The variables protected_paths reads (a daemon serves clients with different ones).
_ENV_KEYS = (
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "CLAUDE_PLUGIN_DATA",
)


def protected(where: Where) -> Protected:
    """The guard's files for ``where``, built once per project, home and environment."""
    from agentreflex.core.contain import hostruns

    key: tuple[object, ...] = (
        where.project,
        where.home,
        *(os.environ.get(k, "") for k in _ENV_KEYS),
        hostruns.stamp(where.project) if where.project else "",
    )
    if key not in _PROTECTED:
        if len(_PROTECTED) > 64:
            _PROTECTED.clear()
        _PROTECTED[key] = Protected(where)
    return _PROTECTED[key]


def real_path(path: str) -> str:
    """Where ``path`` really is, through the symlinks that exist (itself if that fails)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):  # a NUL byte, an unreadable folder
        return path


def _static_dir(pattern: str) -> str:
    """The folder a glob expands in: everything before the first wildcard's folder."""
    cut = min(i for i in (pattern.find(c) for c in GLOB_CHARS) if i >= 0)
    return pattern[:cut].rpartition("/")[0] or "/"


def under(path: str, parent: str) -> bool:
    if parent == "/":
        return True
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def walk_files(root: str, limit: int) -> list[str]:
    """The files under ``root`` (or ``root`` itself), at most ``limit``, skipping bulky folders."""
    out: list[str] = []
    if os.path.isfile(root):
        return [root]
    for folder, dirs, files in os.walk(root):
        check_time()  # a folder at a time: each may be slow to list
        dirs[:] = [d for d in dirs if d not in ("node_modules", ".git", "__pycache__")]
        for name in files:
            out.append(os.path.join(folder, name))
            if len(out) >= limit:
                return out
    return out


# --- resolving a path the way the command will --------------------------------


def _stem_glob(path: str) -> str:
    """``.agent$d`` as the glob ``.agent*``: a name whose known start is followed by a part
    known only at run time may be any name so begun (``d=$(cat n); rm -rf .agent$d``,
    red-team rt89).  ``""`` where the unknown part starts a name (``build/$d``, ``.$d``):
    that could be any file, as a wholly unknown path could."""
    cut = min(i for i in (path.find(UNKNOWN), path.find(REMOTE)) if i >= 0)
    head = path[:cut]
    name = head.rpartition("/")[2]
    if not name.lstrip(".") or any(ch in head for ch in GLOB_CHARS):
        return ""
    return head + "*"


def full_path(path: str, where: Where, cwd: str) -> str:
    """Absolute form of ``path`` as written in a command run in ``cwd``.

    ``~user/x`` is that user's home; markers (unknown parts) are cut at the
    folder before them, which is where the write lands for sure.
    """
    if path.startswith("~") and not path.startswith("~/") and path != "~":
        name, _, rest = path[1:].partition("/")
        if name and all(c.isalnum() or c in "._-" for c in name):
            try:
                import pwd

                path = pwd.getpwnam(name).pw_dir + ("/" + rest if rest else "")
            except (KeyError, ImportError):
                pass
    if cwd.startswith(UNKNOWN) and not path.startswith(("/", "~")):
        return ""
    full = resolve(path, where, cwd if cwd else None)
    if DESCENDANT in full or has_marker(full):
        if full[:1] in (UNKNOWN, REMOTE, DESCENDANT):
            return ""
        cut = min(
            i for i in (full.find(UNKNOWN), full.find(REMOTE), full.find(DESCENDANT)) if i >= 0
        )
        full = full[:cut].rpartition("/")[0] + "/" + DESCENDANT
    return full


def reached(path: str, effect: str, where: Where, cwd: str) -> str:
    """The protected file a change (``effect``) to ``path`` reaches, ``""`` if none."""
    if not path:
        return ""
    check_time()  # a call may name any number of paths (red-team rt36: 30 000, 40 s)
    g = protected(where)
    if has_marker(path):
        # ``"$DIR/.agentreflex/config.toml"``: the folder is unknown, the name is not
        tail = path.replace(REMOTE, UNKNOWN).rpartition(UNKNOWN)[2]
        if tail.startswith("/") and (userdirs.protected_name(tail) or g.suffix_reaches(tail)):
            return "<?>" + tail
        stem = _stem_glob(path)
        if stem:
            return reached(stem, effect, where, cwd)
    full = full_path(path, where, cwd)
    if not full:
        return ""
    below = effect in _BELOW
    if full.endswith("/" + DESCENDANT):
        # "something below this folder" (find's results, an unknown name): the
        # protected files in it, unless it is the project, the home or above them
        folder = full[:-2] or "/"
        wide = under(where.project, folder) or under(where.home, folder)
        return g.reaches(folder, below and not wide)
    if any(ch in full for ch in GLOB_CHARS):
        import glob

        if not g.related(_static_dir(full)):
            return ""  # no protected file in or above where the pattern expands
        for match in glob.glob(full)[:_MAX_GLOB]:
            hit = g.reaches(posixpath.normpath(match), below)
            if hit:
                return hit
        return g.pattern_reaches(full, below)
    return g.reaches(full, below)
