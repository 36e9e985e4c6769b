"""The guard's own files: any change that reaches them needs the user.

An agent that rewrites ``.agentreflex/config.toml``, removes the hook entry
from ``~/.claude/settings.json`` or deletes an installed reflex has switched
the guard off, whatever tool it used.  So this module judges *effects*, not
command names: for every executed command it works out which paths the
command would write, delete, move, link, truncate or change permissions of
(redirections, coreutils, archivers, ``dd``, ``rsync``, downloads, ``git
checkout``...), resolves each the way the command will (its working
directory, ``..``, ``~`` and ``~user``, symlinks that exist, hard links,
globs) and compares the result with :func:`agentreflex.core.userdirs.guarded_paths`
(the one definition of the guard's own files).  Interpreter code that writes
files and mentions one of them, and the file tools (Write, Edit, patches, MCP
file tools), are judged the same way.  Uninstalling or disabling agentreflex
and ``agentreflex trust`` (the user's approval) also need the user.

Every finding is ``ASK_USER`` and names the file:

- ``GATE-SELF-PROTECT``: a change that reaches one of the guard's own files;
- ``GATE-SELF-DISABLE``: uninstalling or disabling agentreflex, or approving
  its configuration (``agentreflex trust``);
- ``GATE-SELF-KEY``: reading the per-user key (a secret).

None of them can be allow-listed.
"""

from __future__ import annotations

import os
import posixpath

from agentreflex.core import userdirs
from agentreflex.core.lazyre import LazyPattern
from agentreflex.gate.model import ASK, DESCENDANT, REMOTE, UNKNOWN, Cmd, Hit, has_marker
from agentreflex.gate.paths import Where, resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    _Handler = Callable[[list[str], str, Where], list[tuple[str, str]]]

RULE = "GATE-SELF-PROTECT"
RULE_DISABLE = "GATE-SELF-DISABLE"
RULE_KEY = "GATE-SELF-KEY"
RULES = frozenset({RULE, RULE_DISABLE, RULE_KEY})

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

_GLOB_CHARS = "*?["
_MAX_GLOB = 500
_MAX_INODES = 5000


class Guarded:
    """The guard's own files for one project and home, with their real paths."""

    def __init__(self, where: Where) -> None:
        env = dict(os.environ)
        env["HOME"] = where.home
        self.entries = userdirs.guarded_paths(where.project, env)
        self.installed = frozenset(userdirs.installed_paths())
        self.key = userdirs.key_path(env)
        self.state_dir = userdirs.user_state_dir(env)
        cache = userdirs.user_cache_dir(env)
        self.rebuilt = frozenset({cache, os.path.realpath(cache)})
        self._real: tuple[str, ...] | None = None
        self._inodes: dict[tuple[int, int], str] | None = None

    def all_entries(self) -> tuple[str, ...]:
        """The entries, and where they really are when a symlink moved them."""
        if self._real is None:
            real = [_realpath(e) for e in self.entries]
            self._real = tuple(dict.fromkeys([*self.entries, *real]))
        return self._real

    def reaches(self, full: str, below: bool) -> str:
        """The guarded file ``full`` is (or, when ``below``, holds); ``""`` when none.

        ``full`` is absolute and ``..``-free.  Checked as spelled, then through
        the symlinks that exist, then by inode (a hard link shares it).
        """
        real = _realpath(full)
        for cand in (full, real) if real != full else (full,):
            for entry in self.all_entries():
                if below and entry in self.rebuilt:
                    continue  # deleting derived data only makes it be rebuilt
                if _under(cand, entry):
                    return cand
                if below and _under(entry, cand) and entry not in self.installed:
                    return entry
            if userdirs.guarded_name(cand):
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
        """(device, inode) of the guard's own files, for finding hard-link aliases.

        Only the small folders (config, state, settings, the project's own);
        plugin and installed-code folders are too large to walk on every call.
        """
        if self._inodes is None:
            found: dict[tuple[int, int], str] = {}
            for entry in self.entries:
                if entry in self.installed or entry.endswith("/plugins"):
                    continue
                for path in _walk(entry, _MAX_INODES - len(found)):
                    try:
                        st = os.stat(path)
                    except OSError:
                        continue
                    found.setdefault((st.st_dev, st.st_ino), path)
            self._inodes = found
        return self._inodes

    def related(self, folder: str) -> bool:
        """Whether a guarded entry is in ``folder``, or ``folder`` is in one."""
        real = _realpath(folder)
        return any(_under(e, f) or _under(f, e) for e in self.all_entries() for f in (folder, real))

    def pattern_reaches(self, pattern: str, below: bool) -> str:
        """A guarded entry the glob ``pattern`` names, judged by name.

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
                wild = any(ch in p for ch in _GLOB_CHARS)
                if not (wild and p.startswith(".") and e.startswith(".") and fnmatchcase(e, p)):
                    ok = False
                    break
            if ok:
                return entry if len(pc) <= len(ec) else entry + "/" + "/".join(pc[len(ec) :])
        return ""


_GUARDED: dict[tuple[str, ...], Guarded] = {}
# The variables guarded_paths reads (a daemon serves clients with different ones).
_ENV_KEYS = (
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "CLAUDE_PLUGIN_DATA",
)


def guarded(where: Where) -> Guarded:
    """The guard's files for ``where``, built once per project, home and environment."""
    key = (where.project, where.home, *(os.environ.get(k, "") for k in _ENV_KEYS))
    if key not in _GUARDED:
        if len(_GUARDED) > 64:
            _GUARDED.clear()
        _GUARDED[key] = Guarded(where)
    return _GUARDED[key]


def _realpath(path: str) -> str:
    """Where ``path`` really is, through the symlinks that exist (itself if that fails)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):  # a NUL byte, an unreadable folder
        return path


def _static_dir(pattern: str) -> str:
    """The folder a glob expands in: everything before the first wildcard's folder."""
    cut = min(i for i in (pattern.find(c) for c in _GLOB_CHARS) if i >= 0)
    return pattern[:cut].rpartition("/")[0] or "/"


def _under(path: str, parent: str) -> bool:
    if parent == "/":
        return True
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _walk(root: str, limit: int) -> list[str]:
    out: list[str] = []
    if os.path.isfile(root):
        return [root]
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("node_modules", ".git", "__pycache__")]
        for name in files:
            out.append(os.path.join(folder, name))
            if len(out) >= limit:
                return out
    return out


# --- resolving a path the way the command will --------------------------------


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
    """The guarded file a change (``effect``) to ``path`` reaches, ``""`` if none."""
    if not path:
        return ""
    full = full_path(path, where, cwd)
    if not full:
        return ""
    g = guarded(where)
    below = effect in _BELOW
    if full.endswith("/" + DESCENDANT):
        # "something below this folder" (find's results, an unknown name): the
        # guarded files in it, unless it is the project, the home or above them
        folder = full[:-2] or "/"
        wide = _under(where.project, folder) or _under(where.home, folder)
        return g.reaches(folder, below and not wide)
    if any(ch in full for ch in _GLOB_CHARS):
        import glob

        if not g.related(_static_dir(full)):
            return ""  # no guarded file in or above where the pattern expands
        for match in glob.glob(full)[:_MAX_GLOB]:
            hit = g.reaches(posixpath.normpath(match), below)
            if hit:
                return hit
        return g.pattern_reaches(full, below)
    return g.reaches(full, below)


# --- what each command does to which paths ------------------------------------

_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})


def _operands(args: list[str], takes_value: frozenset[str] = frozenset()) -> list[str]:
    """Non-option arguments, skipping the values of options in ``takes_value``."""
    out: list[str] = []
    i = 0
    ended = False
    while i < len(args):
        a = args[i]
        if ended or a == "-" or not a.startswith("-"):
            out.append(a)
        elif a == "--":
            ended = True
        elif a in takes_value:
            i += 1
        i += 1
    return out


def _option(args: list[str], names: tuple[str, ...]) -> list[str]:
    """Every value of the options ``names`` (``-o X``, ``-oX``, ``--output=X``)."""
    out: list[str] = []
    for i, a in enumerate(args):
        if a == "--":
            break
        for name in names:
            if a == name and i + 1 < len(args):
                out.append(args[i + 1])
            elif name.startswith("--") and a.startswith(name + "="):
                out.append(a[len(name) + 1 :])
            elif not name.startswith("--") and a.startswith(name) and len(a) > len(name):
                out.append(a[len(name) :])
    return out


def _short_flags(args: list[str]) -> str:
    return "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))


def _cluster_flags(arg: str, valued: str) -> str:
    """The flag letters of a short-option cluster, up to the first that takes a value."""
    if not arg.startswith("-") or arg.startswith("--"):
        return ""
    out = ""
    for ch in arg[1:]:
        if ch in valued:
            break
        out += ch
    return out


def _short_values(args: list[str], valued: str) -> list[str]:
    """Values of short options in ``valued`` inside clusters: ``-sSLo FILE``, ``-oFILE``."""
    out: list[str] = []
    for i, a in enumerate(args):
        if a == "--":
            break
        if not a.startswith("-") or a.startswith("--"):
            continue
        flags = _cluster_flags(a, valued)
        rest = a[1 + len(flags) :]
        if not rest:
            continue
        if len(rest) == 1 and i + 1 < len(args):
            out.append(args[i + 1])
        elif len(rest) > 1:
            out.append(rest[1:])
    return out


def effects(cmd: Cmd, where: Where) -> list[tuple[str, str, str]]:
    """``(path, effect, cwd)`` for every path ``cmd`` changes (paths as written)."""
    cwd = cmd.cwd
    out: list[tuple[str, str, str]] = []
    for op, target in cmd.redirects:
        if op in _WRITE_OPS and target and not (op == ">&" and (target.isdigit() or target == "-")):
            out.append((target, WRITE, cwd))
    name, args = cmd.name, cmd.args
    handler = _HANDLERS.get(name)
    if handler is not None and not _inert(name, args):
        out.extend((p, e, cwd) for p, e in handler(args, cwd, where))
    return out


def _inert(name: str, args: list[str]) -> bool:
    """A dry run or help changes nothing (what it redirects still counts)."""
    from agentreflex.gate.inert import inert

    return bool(inert(name, args))


def _plain(effect: str, takes: frozenset[str] = frozenset()) -> _Handler:
    def handler(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
        return [(p, effect) for p in _operands(args, takes)]

    return handler


def _copy(
    args: list[str], cwd: str, where: Where, move: bool = False, link: bool = False
) -> list[tuple[str, str]]:
    """cp / mv / install / ln: the destination, where each source lands, and link targets."""
    ops = _operands(
        args, frozenset({"-t", "-S", "--suffix", "-m", "--mode", "-o", "-g", "--owner", "--group"})
    )
    target_dir = _option(args, ("-t", "--target-directory"))
    out: list[tuple[str, str]] = []
    if target_dir:
        dest, sources, into = target_dir[0], ops, True
    elif link and len(ops) == 1:
        dest, sources, into = ".", ops, True
    elif len(ops) >= 2:
        dest, sources = ops[-1], ops[:-1]
        full = full_path(dest, where, cwd)
        into = len(sources) > 1 or dest.endswith("/") or (bool(full) and os.path.isdir(full))
    else:
        return out
    out.append((dest, WRITE))
    flags = _short_flags(args)
    symbolic = "s" in flags or "--symbolic" in args or "--symbolic-link" in args
    linking = link or "l" in flags or "--link" in args or symbolic
    if "r" in flags or "R" in flags or "a" in flags or "--recursive" in args or move:
        landing_effect = REPLACE  # a tree lands over whatever is there: reaches below
    else:
        landing_effect = WRITE
    for src in sources:
        if into:
            base = posixpath.basename(src.rstrip("/")) or src
            out.append((posixpath.join(dest, base), landing_effect))
        if move:
            out.append((src, MOVE))
        if linking:
            out.append((_link_target(src, dest, into, cwd, where, symbolic), LINK_TARGET))
        if (("r" in flags or "a" in flags) or move) and src.endswith(("/", "/.")):
            out.extend(_contents_landing(src, dest, cwd, where))
    return out


def _link_target(src: str, dest: str, into: bool, cwd: str, where: Where, symbolic: bool) -> str:
    """A symlink's relative target is relative to the link's folder, not the cwd."""
    if not symbolic or src.startswith(("/", "~")):
        return src
    link_dir = (
        full_path(dest, where, cwd) if into else posixpath.dirname(full_path(dest, where, cwd))
    )
    return posixpath.join(link_dir or cwd, src)


def _contents_landing(src: str, dest: str, cwd: str, where: Where) -> list[tuple[str, str]]:
    """``rsync -a src/ ~/`` and ``cp -a src/. ~/``: the guarded files the source would replace."""
    src_full, dest_full = full_path(src, where, cwd), full_path(dest, where, cwd)
    out: list[tuple[str, str]] = []
    if not src_full or not dest_full or not os.path.isdir(src_full):
        return out
    for entry in guarded(where).entries:
        if _under(entry, dest_full) and entry != dest_full:
            rel = entry[len(dest_full.rstrip("/")) + 1 :]
            if os.path.lexists(posixpath.join(src_full, rel)):
                out.append((entry, WRITE))
    return out


def _cp(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    return _copy(args, cwd, where)


def _mv(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    return _copy(args, cwd, where, move=True)


def _ln(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    return _copy(args, cwd, where, link=True)


def _install(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    if "-d" in args or "--directory" in args:
        return [(p, WRITE) for p in _operands(args, frozenset({"-m", "-o", "-g", "--mode"}))]
    return _copy(args, cwd, where)


_PERM_FLAGS = frozenset("RvfchHLP")


def _perm_option(arg: str) -> bool:
    return arg.startswith("--") or (len(arg) > 1 and arg[0] == "-" and set(arg[1:]) <= _PERM_FLAGS)


def _perms(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    """chmod/chown/chgrp MODE FILE...; ``-R`` reaches everything below (``-w`` is a mode)."""
    ops: list[str] = []
    ended = False
    for a in args:
        if not ended and a == "--":
            ended = True
        elif ended or not _perm_option(a):
            ops.append(a)
    if not any(a.startswith("--reference") for a in args):
        ops = ops[1:]
    tree = "R" in _short_flags(args) or "--recursive" in args
    return [(p, PERMS_TREE if tree else PERMS) for p in ops]


def _chattr(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    ops = [a for a in args if not (a[:1] in "+-=" and len(a) > 1)]
    return [(p, PERMS_TREE if "-R" in args else PERMS) for p in ops]


def _sed(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    if "i" not in _short_flags(args) and not any(a.startswith("--in-place") for a in args):
        return []
    takes = frozenset({"-e", "-f", "--expression", "--file", "-l", "--line-length"})
    ops = _operands(args, takes)
    scripted = any(a in ("-e", "-f") or a.startswith(("--expression", "--file")) for a in args)
    return [(p, WRITE) for p in (ops if scripted else ops[1:])]


def _perl(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    flags = _short_flags([a for a in args if not a.startswith("-e")])
    if "i" not in flags:
        return []
    from agentreflex.gate.interp import code_argument

    code, rest = code_argument("perl", args)
    files = rest if code is not None else rest[1:]
    return [(p, WRITE) for p in files if not p.startswith("-")]


def _dd(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    return [(a[3:], WRITE) for a in args if a.startswith("of=")]


_RSYNC_VALUES = frozenset(
    {
        "-e",
        "--rsh",
        "-f",
        "--filter",
        "--exclude",
        "--include",
        "--files-from",
        "-T",
        "--temp-dir",
        "--backup-dir",
        "--suffix",
        "--chmod",
        "--rsync-path",
        "-M",
        "--remote-option",
        "--partial-dir",
        "--compare-dest",
        "--copy-dest",
        "--link-dest",
        "--log-file",
        "--password-file",
        "-B",
        "--block-size",
    }
)


def _rsync(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    ops = _operands(args, _RSYNC_VALUES)
    if len(ops) < 2 or _remote(ops[-1]):
        return []
    dest, sources = ops[-1], ops[:-1]
    out: list[tuple[str, str]] = [(dest, WRITE)]
    for src in sources:
        if _remote(src):
            continue
        if src.endswith("/"):
            out.extend(_contents_landing(src, dest, cwd, where))
        else:
            out.append((posixpath.join(dest, posixpath.basename(src)), REPLACE))
    if "--delete" in args or any(a.startswith("--delete") for a in args):
        out.append((dest, DELETE))
    return out


def _remote(spec: str) -> bool:
    head = spec.split("/", 1)[0]
    return ":" in head or spec.startswith("rsync://")


def _url_name(url: str) -> str:
    """The file name ``curl -O`` / ``wget`` save a URL under."""
    if "://" not in url:
        return ""
    path = url.split("://", 1)[1].split("?", 1)[0].split("#", 1)[0]
    if "/" not in path.rstrip("/"):
        return "index.html"
    return path.rstrip("/").rsplit("/", 1)[-1]


def _curl(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    named = ("--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr")
    out = [(p, WRITE) for p in _option(args, named) + _short_values(args, "oDc")]
    short = "".join(_cluster_flags(a, "oDc") for a in args)
    if "O" in short or "--remote-name" in args or "--remote-name-all" in args:
        folder = (_option(args, ("--output-dir",)) or ["."])[0]
        for a in args:
            name = _url_name(a)
            if name:
                out.append((posixpath.join(folder, name), WRITE))
    return [(p, e) for p, e in out if p not in ("-", "")]


def _wget(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    out = [
        (p, WRITE)
        for p in _option(
            args, ("-O", "--output-document", "-o", "--output-file", "-a", "--append-output")
        )
    ]
    if _option(args, ("-O", "--output-document")):
        return [(p, e) for p, e in out if p != "-"]
    folder = (_option(args, ("-P", "--directory-prefix")) or ["."])[0]
    out.append((folder, WRITE))
    for a in args:
        name = _url_name(a)
        if name:
            out.append((posixpath.join(folder, name), WRITE))
    return [(p, e) for p, e in out if p != "-"]


def _tar(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    bundle = args[0] if args and not args[0].startswith("-") else ""
    flags = bundle + _short_flags(args)
    extract = "x" in flags or any(a in ("--extract", "--get") for a in args)
    create = any(c in flags for c in "cru") or any(
        a in ("--create", "--append", "--update") for a in args
    )
    archive: list[str] = []
    dests: list[str] = []
    for i, a in enumerate(args):
        after = args[i + 1] if i + 1 < len(args) else ""
        if a.startswith(("--file=", "--directory=")):
            (archive if a.startswith("--file") else dests).append(a.split("=", 1)[1])
        elif a in ("--file", "--directory"):
            (archive if a == "--file" else dests).append(after)
        elif a.startswith("-") and not a.startswith("--"):
            rest = a[1 + len(_cluster_flags(a, "fC")) :]
            if rest:
                (archive if rest[0] == "f" else dests).append(rest[1:] or after)
    if bundle and "f" in bundle and len(args) > 1:
        archive.append(args[1])
    out: list[tuple[str, str]] = []
    if create:
        out.extend((p, WRITE) for p in archive if p != "-")
    if extract:
        for dest in dests or ["."]:
            out.append((dest, EXTRACT))
            for src in archive[:1]:
                out.extend(_archive_landing(src, dest, cwd, where))
    return out


def _unzip(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    if "-l" in args or "-t" in args or "-p" in args or "-Z" in args:
        return []
    dest = (_option(args, ("-d",)) or ["."])[0]
    ops = _operands(args, frozenset({"-d", "-x"}))
    out = [(dest, EXTRACT)]
    if ops:
        out.extend(_archive_landing(ops[0], dest, cwd, where))
    return out


def _cpio(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    flags = _short_flags(args)
    dest = (_option(args, ("-D", "--directory")) or ["."])[0]
    if "p" in flags or "--pass-through" in args:
        ops = _operands(args, frozenset({"-D", "--directory", "-F", "-I", "-O", "-H", "-R"}))
        return [(ops[-1] if ops else dest, EXTRACT)]
    if "i" in flags or "--extract" in args:
        return [(dest, EXTRACT)]
    return []


_MAX_ARCHIVE = 20_000_000


def _archive_landing(archive: str, dest: str, cwd: str, where: Where) -> list[tuple[str, str]]:
    """The guarded files an archive that exists would overwrite when unpacked into ``dest``."""
    src, dest_full = full_path(archive, where, cwd), full_path(dest, where, cwd)
    if not src or not dest_full or has_marker(dest_full):
        return []
    entries = [e for e in guarded(where).entries if _under(e, dest_full) and e != dest_full]
    if not entries:
        return []
    try:
        if os.path.getsize(src) > _MAX_ARCHIVE:
            return [(entries[0], WRITE)]  # too big to list: it may hold anything
        names = _members(src)
    except OSError:
        return []
    out: list[tuple[str, str]] = []
    for name in names:
        landing = posixpath.normpath(posixpath.join(dest_full, name.lstrip("/")))
        for entry in entries:
            if _under(landing, entry) or _under(entry, landing):
                # a member inside a guarded folder, or a folder holding one
                out.append((landing if _under(landing, entry) else entry, WRITE))
                break
    return out


def _members(path: str) -> list[str]:
    import tarfile
    import zipfile

    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                return zf.namelist()[:10_000]
        with tarfile.open(path) as tf:
            return [m.name for m in tf.getmembers()[:10_000]]
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, ValueError):
        return ["."]  # unreadable: it may hold anything, so it lands on everything


def _git(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    git_cwd = _option(args[:i], ("-C",))
    rest = args[i:]
    if not rest:
        return []
    sub, tail = rest[0], rest[1:]
    prefix = git_cwd[0] if git_cwd else ""
    paths: list[tuple[str, str]] = []
    if sub in ("checkout", "restore"):
        if "--" in tail:
            files = tail[tail.index("--") + 1 :]
        else:
            files = _operands(tail, frozenset({"-s", "--source", "-b", "-B", "--orphan"}))
            files = files if sub == "restore" else files[1:]
        paths = [(f, WRITE) for f in files]
    elif sub == "rm" and "--cached" not in tail:
        paths = [(f, DELETE) for f in _operands(tail)]
    elif sub == "mv":
        ops = _operands(tail)
        paths = [(f, MOVE) for f in ops[:-1]] + [(f, WRITE) for f in ops[-1:]]
    return [
        (posixpath.join(prefix, p) if prefix and not p.startswith("/") else p, e) for p, e in paths
    ]


def _patch(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    ops = _operands(
        args,
        frozenset(
            {
                "-i",
                "--input",
                "-o",
                "--output",
                "-d",
                "--directory",
                "-B",
                "-D",
                "-F",
                "-V",
                "-z",
                "-r",
                "-Y",
                "-p",
            }
        ),
    )
    return [(p, WRITE) for p in _option(args, ("-o", "--output")) + ops[:1]]


_HANDLERS: dict[str, _Handler] = {
    "tee": _plain(WRITE, frozenset({"-p", "--output-error"})),
    "touch": _plain(WRITE, frozenset({"-d", "-t", "-r", "--date", "--reference"})),
    "truncate": _plain(WRITE, frozenset({"-s", "-r", "--size", "--reference"})),
    "mkdir": _plain(WRITE, frozenset({"-m", "--mode"})),
    "mkfifo": _plain(WRITE, frozenset({"-m", "--mode"})),
    "sponge": _plain(WRITE),
    "rm": _plain(DELETE),
    "unlink": _plain(DELETE),
    "rmdir": _plain(DELETE),
    "shred": _plain(DELETE, frozenset({"-n", "-s", "--iterations", "--size", "--random-source"})),
    "srm": _plain(DELETE),
    "wipe": _plain(DELETE),
    "cp": _cp,
    "mv": _mv,
    "ln": _ln,
    "link": _ln,
    "install": _install,
    "chmod": _perms,
    "chown": _perms,
    "chgrp": _perms,
    "chattr": _chattr,
    "setfacl": _plain(PERMS, frozenset({"-m", "-x", "-M", "-X", "--modify", "--remove"})),
    "sed": _sed,
    "gsed": _sed,
    "perl": _perl,
    "ruby": _perl,
    "dd": _dd,
    "rsync": _rsync,
    "curl": _curl,
    "wget": _wget,
    "tar": _tar,
    "gtar": _tar,
    "bsdtar": _tar,
    "unzip": _unzip,
    "cpio": _cpio,
    "git": _git,
    "patch": _patch,
}

# --- uninstalling or disabling agentreflex --------------------------------------

_PACKAGE_TOOLS = frozenset(
    {
        "pip",
        "pip3",
        "pipx",
        "uv",
        "poetry",
        "pdm",
        "conda",
        "mamba",
        "micromamba",
        "rye",
        "hatch",
        "brew",
    }
)
_REMOVE_WORDS = frozenset({"uninstall", "remove", "rm", "purge", "erase", "uninstall-all"})
_PLUGIN_OFF = frozenset({"disable", "uninstall", "remove", "rm"})


def _ours(word: str) -> bool:
    return "agentreflex" in word.lower().replace("_", "-")


def disable_reason(cmd: Cmd) -> str:
    """Why ``cmd`` uninstalls, disables or approves agentreflex; ``""`` when it does not."""
    name, args = cmd.name, cmd.args
    if name.startswith(("python", "pypy")) and args[:1] == ["-m"] and len(args) > 1:
        name, args = args[1].split(".", 1)[0], args[2:]
    if name.startswith("pip"):
        name = "pip"
    if any("disableAllHooks" in a for a in args):
        return "it sets disableAllHooks, which turns off every hook including agentreflex"
    if name in _PACKAGE_TOOLS:
        words = set(args)
        if "uninstall-all" in words or (
            not _REMOVE_WORDS.isdisjoint(words)
            and ("--all" in words or any(_ours(a) for a in args))
        ):
            return "it uninstalls agentreflex"
    plugin = name == "claude" and ("plugin" in args or "plugins" in args)
    ours = any(_ours(a) for a in args) or "--all" in args
    if plugin and ours and not _PLUGIN_OFF.isdisjoint(args):
        return "it disables or removes the agentreflex plugin"
    if name == "agentreflex":
        ops = _operands(args)
        if ops[:1] == ["trust"] and not ({"--show", "--help", "-h"} & set(args)):
            return "agentreflex trust records the user's approval, so only the user may run it"
        if ops[:1] in (["uninstall"], ["disable"]):
            return "it uninstalls or disables agentreflex"
    return ""


# --- interpreter code -------------------------------------------------------------

# Calls that change files, in python, node, perl, ruby and php one-liners.
_CODE_WRITES = LazyPattern(
    r"""\bopen\s*\([^()]*,\s*(?:mode\s*=\s*)?['"][rbt]*[wax+]"""
    r"""|\bopen\s*\(\s*\w*\s*,?\s*['"]\s*(?:>|\+<)"""
    r"""|\.write(?:_text|_bytes|lines)?\s*\("""
    r"""|\bos\.(?:remove|unlink|rename|renames|replace|rmdir|removedirs|symlink|link|chmod|"""
    r"""chown|lchown|truncate|makedirs|mkdir|utime|write|ftruncate)\s*\("""
    r"""|\bshutil\.(?:copy\w*|move|rmtree|chown|unpack_archive|make_archive)\s*\("""
    r"""|\.(?:unlink|rename|replace|touch|symlink_to|hardlink_to|chmod|rmdir|mkdir)\s*\("""
    r"""|\b(?:write|append)File(?:Sync)?\b|\b(?:rename|unlink|rm|rmdir|copyFile|cp|symlink|link|"""
    r"""chmod|chown|truncate|mkdir|writev?|open)Sync\b|\bcreateWriteStream\b"""
    r"""|\bFile\.(?:write|delete|unlink|rename|symlink|link|chmod|truncate)\b"""
    r"""|\bFile\.open\s*\([^()]*,\s*['"][rb]*[wa+]|\bFileUtils\.|\bIO\.write\b"""
    r"""|\b(?:unlink|rename|symlink|chmod|chown|truncate)\s*[(\s'"]"""
    r"""|\bfile_put_contents\b|\bfwrite\b""",
    hints="open write os. shutil. unlink rename replace touch symlink link chmod rmdir mkdir "
    "File Sync createWriteStream IO. truncate chown file_put fwrite",
)
_JOINS = LazyPattern(r"""['"`]\s*[+.,]?\s*['"`]""")
_STRINGS = LazyPattern(r"""'([^'\\\n]*)'|"([^"\\\n]*)"|`([^`\n]*)`""")
# Spellings of the guard's own files that code may build a path from.
_FRAGMENTS = (
    "agentreflex",
    ".claude",
    ".codex",
    "settings.json",
    "settings.local.json",
    ".hermes",
    "opencode",
    ".omp",
    "disableAllHooks",
    "dist-info",
    "site-packages",
)


def code_reason(code: str, where: Where, cwd: str) -> tuple[str, str]:
    """(the file, why) when interpreter ``code`` writes files and names a guarded one."""
    if not _CODE_WRITES.search(code):
        return "", ""
    for m in _STRINGS.finditer(code):
        text = next((grp for grp in m.groups() if grp is not None), "")
        if text and ("/" in text or text.startswith(".")) and len(text) < 4096:
            hit = reached(text, WRITE, where, cwd)
            if hit:
                return hit, "this code changes files and names it"
    g = guarded(where)
    names = [*_FRAGMENTS, *(e for e in g.entries if e not in g.installed)]
    joined = _JOINS.sub("", code)  # '.agent' + 'reflex' spells .agentreflex
    for frag in names:
        if frag in code or frag in joined:
            return frag, "this code changes files and builds a path from it"
    return "", ""


# --- hits -------------------------------------------------------------------------


def _message(shown: str, effect: str, alias: str) -> str:
    via = f" (through {alias})" if alias and alias != shown else ""
    return (
        f"This {effect} {shown}{via}, one of agentreflex's own files (its configuration, "
        "state, installed code or a host's hook settings): changing it can switch the "
        "guard off, so only the user may. Ask the user to make this change."
    )


def path_hit(path: str, effect: str, where: Where, cwd: str, segment: str) -> Hit | None:
    """``GATE-SELF-PROTECT`` when changing ``path`` reaches one of the guard's own files."""
    hit = reached(path, effect, where, cwd)
    if not hit:
        return None
    shown = hit.replace(DESCENDANT, "*")
    alias = full_path(path, where, cwd).replace(DESCENDANT, "*")
    return Hit(RULE, ASK, 1.0, segment, _message(shown, effect, alias))


def key_hit(path: str, where: Where, cwd: str, segment: str) -> Hit | None:
    """``GATE-SELF-KEY`` when ``path`` is the per-user key (or the folder that holds it)."""
    full = full_path(path, where, cwd)
    if not full or DESCENDANT in full:
        return None
    g = guarded(where)
    names = {full}
    if os.path.islink(full):  # an alias made earlier (making one asks: LINK_TARGET)
        names.add(_realpath(full))
    if any(ch in full for ch in _GLOB_CHARS):
        from fnmatch import fnmatchcase

        parts, key = full.split("/"), g.key.split("/")
        if len(parts) == len(key) and all(map(fnmatchcase, key, parts)):
            names.add(g.key)
    if g.key in names or g.state_dir in names or _realpath(g.key) in names:
        return Hit(
            RULE_KEY,
            ASK,
            1.0,
            segment,
            f"{g.key} is agentreflex's per-user key, a secret that authenticates its "
            "records; only the user may read or copy it.",
        )
    return None


def command_hits(cmds: list[Cmd], where: Where) -> list[Hit]:
    """Every executed command that changes the guard's files, reads its key, or switches it off."""
    hits: list[Hit] = []
    for cmd in cmds:
        reason = disable_reason(cmd)
        if reason:
            hits.append(
                Hit(
                    RULE_DISABLE,
                    ASK,
                    1.0,
                    cmd.text,
                    f"This switches agentreflex off or approves its settings ({reason}); "
                    "only the user may. Ask the user to run it.",
                )
            )
        for path, effect, cwd in effects(cmd, where):
            found = path_hit(path, effect, where, cwd, cmd.text)
            if found is not None:
                hits.append(found)
                break
        for path in [*cmd.args, *(t for op, t in cmd.redirects if op == "<")]:
            if not path.startswith("-") and ("/" in path or path.startswith("~") or path == "key"):
                found = key_hit(path, where, cmd.cwd, cmd.text)
                if found is not None:
                    hits.append(found)
                    break
    return hits


def code_hit(code: str, where: Where, cwd: str, segment: str) -> Hit | None:
    """``GATE-SELF-PROTECT`` for interpreter code that writes files and names a guarded one."""
    shown, why = code_reason(code, where, cwd)
    if not shown:
        return None
    return Hit(
        RULE,
        ASK,
        1.0,
        segment,
        f"{why[0].upper()}{why[1:]} ({shown}), one of agentreflex's own files or a "
        "fragment of their names: changing them can switch the guard off, so only the "
        "user may. Ask the user to make this change.",
    )


_MCP_PATH_KEYS = (
    "path",
    "file_path",
    "filePath",
    "filename",
    "file",
    "destination",
    "dest",
    "target",
    "source",
    "src",
    "new_path",
    "old_path",
    "newPath",
    "oldPath",
    "directory",
    "dir",
)
_MCP_READS = (
    "read",
    "get",
    "list",
    "search",
    "view",
    "stat",
    "info",
    "tree",
    "find",
    "glob",
    "grep",
)


def mcp_paths(tool_name: str, data: object) -> tuple[list[str], bool]:
    """The paths an MCP tool's input names, and whether the tool only reads them."""
    paths: list[str] = []
    if isinstance(data, dict):
        for key in _MCP_PATH_KEYS:
            value = data.get(key)
            if isinstance(value, str) and value:
                paths.append(value)
            elif isinstance(value, list):
                paths.extend(v for v in value if isinstance(v, str) and v)
        for key in ("paths", "files", "sources"):
            value = data.get(key)
            if isinstance(value, list):
                paths.extend(v for v in value if isinstance(v, str) and v)
    verb = tool_name.rsplit("__", 1)[-1].lower()
    return paths, verb.startswith(_MCP_READS)


def tool_hits(paths: list[str], where: Where, segment: str, effect: str = WRITE) -> list[Hit]:
    """File tools (Write, Edit, patches, MCP file tools) that change the guard's files."""
    hits = []
    for p in paths:
        found = path_hit(p, effect, where, where.cwd, segment or p)
        if found is not None:
            hits.append(found)
    return hits


def read_hits(paths: list[str], where: Where) -> list[Hit]:
    """File reads of the per-user key."""
    hits = []
    for p in paths:
        found = key_hit(p, where, where.cwd, p)
        if found is not None:
            hits.append(found)
    return hits
