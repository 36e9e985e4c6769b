"""What a command changes: the paths it writes, deletes, moves, links or re-permissions.

One handler per program (coreutils, archivers, ``dd``, ``rsync``, downloads,
``git``, ``patch``...) plus the shell's own redirections; each returns the
paths as the command spells them, with the effect on each (the constants of
:mod:`protected`).  Where a copy, a sync or an unpacked archive lands inside a
folder above one of agentreflex's own files, the landing places are worked out from
what exists on disk.
"""

from __future__ import annotations

import os
import posixpath
import re

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import DESCENDANT, Cmd, has_marker
from agentreflex.gate.rules.protected import (
    DELETE,
    EXTRACT,
    LINK_TARGET,
    MOVE,
    PERMS,
    PERMS_TREE,
    REPLACE,
    WRITE,
    full_path,
    protected,
    under,
    walk_files,
)
from agentreflex.gate.shell.argv import operands, option_values
from agentreflex.gate.shell.envinstall import environment_writes
from agentreflex.gate.shell.paths import Where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    _Handler = Callable[[list[str], str, Where], list[tuple[str, str]]]

_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})


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


# The gate's self-guard and the instructions reflex both ask for the effects of
# the same commands (one shell analysis per event is shared): answered once.
# Entries hold their command, so an id is never reused while it is cached.
_SEEN: dict[int, tuple[Cmd, Where, list[tuple[str, str, str]]]] = {}
_SEEN_MAX = 64


def effects(cmd: Cmd, where: Where) -> list[tuple[str, str, str]]:
    """``(path, effect, cwd)`` for every path ``cmd`` changes (paths as written)."""
    seen = _SEEN.get(id(cmd))
    if seen is not None and seen[0] is cmd and seen[1] == where:
        return list(seen[2])
    out = _effects(cmd, where)
    if len(_SEEN) >= _SEEN_MAX:
        _SEEN.clear()
    _SEEN[id(cmd)] = (cmd, where, out)
    return list(out)


def _effects(cmd: Cmd, where: Where) -> list[tuple[str, str, str]]:
    cwd = cmd.cwd
    out: list[tuple[str, str, str]] = []
    for op, target in cmd.redirects:
        if op in _WRITE_OPS and target and not (op == ">&" and (target.isdigit() or target == "-")):
            out.append((target, WRITE, cwd))
    name, args = cmd.name, cmd.args
    handler = _HANDLERS.get(name)
    if handler is not None and not _inert(name, args):
        out.extend((p, e, cwd) for p, e in handler(args, cwd, where))
    if name == "patch" or (name == "git" and {"apply", "am"} & set(args[:3])):
        root = _patch_root(name, args)
        for op, source in cmd.redirects:
            if op == "<" and source and not has_marker(source):
                out.extend(
                    (posixpath.join(root, t), WRITE, cwd) for t in patch_targets(source, cwd)
                )
    out.extend((p, e, cwd) for p, e in environment_writes(cmd, where))
    feeder = cmd.stdin_from
    if name == "xargs" and feeder is not None and feeder.name == "find":
        # ``find ... | xargs CMD``: judged as ``find ... -exec CMD {} +``
        template = _xargs_template(args)
        if template:
            found = _find([*feeder.args, "-exec", *template, ";"], feeder.cwd, where)
            out.extend((p, e, feeder.cwd) for p, e in found)
    return out


def _xargs_template(args: list[str]) -> list[str]:
    """The command xargs runs, with ``{}`` where each item goes."""
    from agentreflex.gate.shell.fanout import split_xargs

    replace, rest = split_xargs(args)
    if not rest:
        return []
    if replace:
        return [w.replace(replace, "{}") for w in rest]
    return [*rest, "{}"]


def _inert(name: str, args: list[str]) -> bool:
    """A dry run or help changes nothing (what it redirects still counts)."""
    from agentreflex.gate.shell.inert import inert

    return bool(inert(name, args))


def _plain(effect: str, takes: frozenset[str] = frozenset()) -> _Handler:
    def handler(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
        return [(p, effect) for p in operands(args, takes)]

    return handler


def _copy(
    args: list[str], cwd: str, where: Where, move: bool = False, link: bool = False
) -> list[tuple[str, str]]:
    """cp / mv / install / ln: the destination, where each source lands, and link targets."""
    ops = operands(
        args, frozenset({"-t", "-S", "--suffix", "-m", "--mode", "-o", "-g", "--owner", "--group"})
    )
    target_dir = option_values(args, ("-t", "--target-directory"))
    out: list[tuple[str, str]] = []
    if target_dir:
        dest, sources, into = target_dir[0], ops, True
    elif link and len(ops) == 1:
        dest, sources, into = ".", ops, True
    elif len(ops) >= 2:
        dest, sources = ops[-1], ops[:-1]
        full = full_path(dest, where, cwd)
        into = len(sources) > 1 or dest.endswith("/") or (bool(full) and os.path.isdir(full))
        if "-T" in args or "--no-target-directory" in args:
            into = False  # DEST itself, even when it is a folder
    else:
        return out
    flags = _short_flags(args)
    symbolic = "s" in flags or "--symbolic" in args or "--symbolic-link" in args
    linking = link or "l" in flags or "--link" in args or symbolic
    if "r" in flags or "R" in flags or "a" in flags or "--recursive" in args or move:
        landing_effect = REPLACE  # a tree lands over whatever is there: reaches below
    else:
        landing_effect = WRITE
    # ``ln -s /tmp/x .claude``, ``cp -r /tmp/x .claude``, ``mv /tmp/x .claude``: the tree (or
    # a link standing for one) becomes ``dest`` itself, and whatever was to be found below it
    tree_at_dest = not into and (landing_effect == REPLACE or symbolic)
    out.append((dest, REPLACE if tree_at_dest else WRITE))
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
    """``rsync -a src/ ~/`` and ``cp -a src/. ~/``: the protected files the source would replace."""
    src_full, dest_full = full_path(src, where, cwd), full_path(dest, where, cwd)
    out: list[tuple[str, str]] = []
    if not src_full or not dest_full:
        return out
    if not os.path.isdir(src_full):
        return _unknown_landing(dest_full, where)
    for entry in protected(where).entries:
        if under(entry, dest_full) and entry != dest_full:
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
        return [(p, WRITE) for p in operands(args, frozenset({"-m", "-o", "-g", "--mode"}))]
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


_SED_VALUES = frozenset({"-e", "-f", "--expression", "--file", "-l", "--line-length"})
# A sed script's own writes (GNU sed manual, "Commands"; GTFOBins' sed file-write):
# the ``w``/``W`` commands after an address, and the ``w`` flag that ends an ``s``
# command, take the rest of the line as a file name.  Read loosely, before a
# letter, digit, ``$``, ``/``, ``!``, ``;`` or ``}`` (a command or flag may follow
# any of them): a name read too many is judged only where it is a protected file,
# and each ``w`` is read apart, so a name read too far still leaves the next one.
_SED_WRITE = LazyPattern(r"(?:^|(?<=[\s;}!$/\w]))[wW][ \t]*(?=(\S[^\n]*))", hints="w W")


def _sed(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    ops = operands(args, _SED_VALUES)
    scripted = any(a in ("-e", "-f") or a.startswith(("--expression", "--file")) for a in args)
    scripts = option_values(args, ("-e", "--expression"), flags="nrsEuz") if scripted else ops[:1]
    out = [(m.group(1).rstrip(), WRITE) for s in scripts for m in _SED_WRITE.finditer(s)]
    if "i" in _short_flags(args) or any(a.startswith("--in-place") for a in args):
        out += [(p, WRITE) for p in (ops if scripted else ops[1:])]
    return out


def _perl(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    flags = _short_flags([a for a in args if not a.startswith("-e")])
    if "i" not in flags:
        return []
    from agentreflex.gate.code.interp import code_argument

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


# rsync's own files (its log, its batch) and the folders it fills beside the destination
# (relative ones are the destination's: rsync(1))
_RSYNC_FILES = ("--log-file", "--write-batch", "--only-write-batch")
_RSYNC_FOLDERS = ("--backup-dir", "--partial-dir", "--temp-dir", "-T")


def _rsync(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    ops = operands(args, _RSYNC_VALUES)
    own: list[tuple[str, str]] = [(f, WRITE) for f in option_values(args, _RSYNC_FILES)]
    if len(ops) < 2 or _remote(ops[-1]):
        return own
    dest, sources = ops[-1], ops[:-1]
    folders = option_values(args, _RSYNC_FOLDERS)
    own += [(posixpath.join(dest, d, DESCENDANT), WRITE) for d in folders]
    out: list[tuple[str, str]] = [(dest, WRITE), *own]
    for src in sources:
        if _remote(src):
            continue
        if src.endswith("/"):
            out.extend(_contents_landing(src, dest, cwd, where))
        else:
            out.append((posixpath.join(dest, posixpath.basename(src)), REPLACE))
    if "--delete" in args or any(a.startswith("--delete") for a in args):
        out.append((dest, DELETE))
    if "--remove-source-files" in args:  # each file sent is then deleted where it was
        out.extend((src, DELETE) for src in sources if not _remote(src))
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


# the files curl writes: its download, headers, cookies, traces, errors, and (the last four)
# the ETag, the C code of the transfer and its HSTS and Alt-Svc caches (curl(1))
_CURL_WRITES = ("--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr")


def _curl(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    named = (*_CURL_WRITES, "--etag-save", "--libcurl", "--hsts", "--alt-svc")
    out = [(p, WRITE) for p in option_values(args, named) + _short_values(args, "oDc")]
    short = "".join(_cluster_flags(a, "oDc") for a in args)
    if "O" in short or "--remote-name" in args or "--remote-name-all" in args:
        folder = (option_values(args, ("--output-dir",)) or ["."])[0]
        for a in args:
            name = _url_name(a)
            if name:
                out.append((posixpath.join(folder, name), WRITE))
    return [(p, e) for p, e in out if p not in ("-", "")]


def _wget(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    out = [
        (p, WRITE)
        for p in option_values(
            args, ("-O", "--output-document", "-o", "--output-file", "-a", "--append-output")
        )
        + option_values(args, ("--save-cookies", "--rejected-log"))
    ]
    if option_values(args, ("-O", "--output-document")):
        return [(p, e) for p, e in out if p != "-"]
    folder = (option_values(args, ("-P", "--directory-prefix")) or ["."])[0]
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
    out: list[tuple[str, str]] = [(p, WRITE) for p in _tar_own_files(args)]
    if create:
        out.extend((p, WRITE) for p in archive if p != "-")
        if any(a == "--remove-files" for a in args):  # what it packs is then deleted
            out.extend((p, DELETE) for p in _tar_members(args, bundle, archive))
    if extract:
        for dest in dests or ["."]:
            out.append((dest, EXTRACT))
            for src in archive[:1]:
                out.extend(_archive_landing(src, dest, cwd, where))
            if archive[:1] in ([], ["-"]):  # from stdin (``git archive HEAD | tar -x -C ~``)
                out.extend(_unknown_landing(full_path(dest, where, cwd), where))
    return out


def _tar_own_files(args: list[str]) -> list[str]:
    """Files tar writes beside the archive: its snapshot (``-g F``), index and volume files."""
    named = ("--listed-incremental", "--index-file", "--volno-file")
    return option_values(args, named, prefixes=True) + _short_values(args, "g")


def _tar_members(args: list[str], bundle: str, archive: list[str]) -> list[str]:
    """The files ``tar -c`` packs: its operands, less the archive (``-cf A`` clusters too)."""
    ops = operands(args[1:] if bundle else args, frozenset({"-C", "--directory", "-T", "-X"}))
    return [p for p in ops if p != "-" and p not in archive]


def _unzip(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    if "-l" in args or "-t" in args or "-p" in args or "-Z" in args:
        return []
    dest = (option_values(args, ("-d",)) or ["."])[0]
    ops = operands(args, frozenset({"-d", "-x"}))
    out = [(dest, EXTRACT)]
    if ops:
        out.extend(_archive_landing(ops[0], dest, cwd, where))
    return out


def _cpio(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    flags = _short_flags(args)
    dest = (option_values(args, ("-D", "--directory")) or ["."])[0]
    if "p" in flags or "--pass-through" in args:
        ops = operands(args, frozenset({"-D", "--directory", "-F", "-I", "-O", "-H", "-R"}))
        return [(ops[-1] if ops else dest, EXTRACT)]
    if "o" in flags or "--create" in args:  # the archive it writes: -O F, or -F F
        return [(f, WRITE) for f in option_values(args, ("-O", "-F", "--file"))]
    if "i" in flags or "--extract" in args:
        # the archive comes on stdin, never there to list (``cd ~ && cpio -id < a.cpio``)
        return [(dest, EXTRACT), *_unknown_landing(full_path(dest, where, cwd), where)]
    return []


def _sevenzip(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    """``7z x|e ARCHIVE [-oDIR]``: unpacks like ``unzip -d DIR`` (``-o`` joined to its value);
    ``7z a|u ARCHIVE FILES -sdel`` deletes the files it packs."""
    if args[:1] in (["a"], ["u"]) and "-sdel" in args:
        return [(p, DELETE) for p in [a for a in args[1:] if not a.startswith("-")][1:]]
    if not args or args[0] not in ("x", "e"):
        return []
    dest = next((a[2:] for a in args[1:] if a.startswith("-o") and len(a) > 2), ".")
    ops = [a for a in args[1:] if not a.startswith("-")]
    out = [(dest, EXTRACT)]
    if ops:
        out.extend(_archive_landing(ops[0], dest, cwd, where))
    return out


_MAX_ARCHIVE = 20_000_000


def _archive_landing(archive: str, dest: str, cwd: str, where: Where) -> list[tuple[str, str]]:
    """The protected files an archive that exists would overwrite when unpacked into ``dest``."""
    src, dest_full = full_path(archive, where, cwd), full_path(dest, where, cwd)
    if not src or not dest_full or has_marker(dest_full):
        return []
    entries = [e for e in protected(where).entries if under(e, dest_full) and e != dest_full]
    if not entries:
        return []
    try:
        if os.path.getsize(src) > _MAX_ARCHIVE:
            return [(entries[0], WRITE)]  # too big to list: it may hold anything
        names = _members(src)
    except OSError:
        return _unknown_landing(dest_full, where)
    out: list[tuple[str, str]] = []
    for name in names:
        landing = posixpath.normpath(posixpath.join(dest_full, name.lstrip("/")))
        for entry in entries:
            if under(landing, entry) or under(entry, landing):
                # a member inside a protected folder, or a folder holding one
                out.append((landing if under(landing, entry) else entry, WRITE))
                break
    return out


def _unknown_landing(dest_full: str, where: Where) -> list[tuple[str, str]]:
    """Contents not there to read (an archive or folder a download makes in the same command).

    Unpacked over a folder that holds agentreflex's own files (the home,
    ``~/.claude``, the project's ``.claude/``), it may replace any of them.
    Into the project's root it is left alone: unknown archives unpacked there
    are everyday work, and the boundary, where there is one, holds the
    project's own files.
    """
    if not where.project or dest_full.rstrip("/") == where.project.rstrip("/"):
        return []
    entries = [e for e in protected(where).entries if under(e, dest_full) and e != dest_full]
    return [(entries[0], WRITE)] if entries else []


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


_CLONE_VALUES = frozenset(
    {"-b", "--branch", "-o", "--origin", "-c", "--config", "--depth", "--reference", "-u"}
    | {"--upload-pack", "--template", "--separate-git-dir", "--filter", "-j", "--jobs"}
)
# Subcommands that bring another revision's files into the work tree.
_MOVES = frozenset(
    {"checkout", "switch", "merge", "rebase", "cherry-pick", "revert", "read-tree", "pull", "reset"}
)
_STASH_SAVES = frozenset({"push", "save"})


def _moved_protected(sub: str, tail: list[str], cwd: str, where: Where) -> list[str]:
    """agentreflex's files in this project that ``git SUB`` would rewrite (``git merge evil``
    with ``evil`` carrying another ``.agentreflex/config.toml``; ``git stash`` of an
    uncommitted change to it).  Git is asked, bounded and safely; only for these rare
    subcommands, and only when one of the files is in the project at all."""
    project = where.project
    if not project:
        return []
    entries = [e for e in protected(where).entries if under(e, project) and os.path.lexists(e)]
    if not entries:
        return []
    from agentreflex.gate.rules import worktree

    if sub == "stash":
        action = tail[0] if tail and not tail[0].startswith("-") else "push"
        if action in _STASH_SAVES:
            untracked = any(a in ("-u", "--include-untracked", "-a", "--all") for a in tail)
            return entries[:1] if worktree.uncommitted(cwd, entries, untracked) else []
        if action not in ("pop", "apply"):
            return []
        revs = [a for a in tail[1:] if not a.startswith("-")][:1] or ["stash@{0}"]
    else:
        if sub == "reset" and not {"--hard", "--merge", "--keep"} & set(tail):
            return []  # the index only
        words = tail[: tail.index("--")] if "--" in tail else tail
        if sub == "pull":  # only from this repository (``git pull . evil``): a remote is unknown
            words = words[words.index(".") + 1 :] if "." in words else []
        revs = [a for a in words if not a.startswith("-") and a != "."][:3]
    changed: list[str] = []
    for rev in revs:
        names = worktree.differs_from(cwd, rev, entries) or []
        found = [p for n in names for e in entries for p in [_as_entry(n, e, project)] if p]
        if names:
            changed += found or entries[:1]  # names that don't map back: still asked
    return list(dict.fromkeys(changed))


def _as_entry(name: str, entry: str, project: str) -> str:
    """The file ``git diff --name-only``'s ``name`` is (named from the work tree's top, which
    may be above the project), when it is ``entry`` or inside it; else ""."""
    rel = posixpath.relpath(entry, project)
    shown = "/" + name
    if shown.endswith("/" + rel):
        return entry
    inside = shown.split("/" + rel + "/", 1)
    return posixpath.join(entry, inside[1]) if len(inside) == 2 else ""


def _git(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    git_cwd = option_values(args[:i], ("-C",))
    work_tree = option_values(args[:i], ("--work-tree",))
    rest = args[i:]
    if not rest:
        return []
    sub, tail = rest[0], rest[1:]
    # ``git --work-tree=$HOME checkout HEAD -- .claude``: paths are the given tree's
    prefix = work_tree[0] if work_tree else git_cwd[0] if git_cwd else ""
    paths: list[tuple[str, str]] = []
    if sub in ("checkout", "restore"):
        if "--" in tail:
            files = tail[tail.index("--") + 1 :]
        else:
            files = operands(tail, frozenset({"-s", "--source", "-b", "-B", "--orphan"}))
            files = files if sub == "restore" else files[1:]
        # into another tree (``--work-tree=$HOME``), whole folders are taken as rewritten
        paths = [(f, REPLACE if work_tree else WRITE) for f in files]
        if sub == "checkout":
            git_dir = posixpath.join(cwd, prefix) if prefix else cwd
            paths += [(p, WRITE) for p in _moved_protected(sub, tail, git_dir, where)]
    elif sub == "rm" and "--cached" not in tail:
        paths = [(f, DELETE) for f in operands(tail)]
    elif sub == "mv":
        ops = operands(tail)
        paths = [(f, MOVE) for f in ops[:-1]] + [(f, WRITE) for f in ops[-1:]]
    elif sub in ("apply", "am"):
        files = operands(tail, frozenset({"-p", "-C", "--directory", "--exclude", "--include"}))
        # ``--directory=D`` puts D before every path the patch names
        root = _patch_root("git", tail)
        paths = [(posixpath.join(root, t), WRITE) for f in files for t in patch_targets(f, cwd)]
    elif sub == "update-index":
        # --cacheinfo MODE,SHA,PATH (or three words): the index entry a later
        # checkout-index writes to the file
        for k, a in enumerate(tail):
            if a == "--cacheinfo" and k + 1 < len(tail):
                spec = tail[k + 1].split(",")
                if len(spec) == 3:
                    paths.append((spec[2], WRITE))
                elif k + 3 < len(tail):
                    paths.append((tail[k + 3], WRITE))
    elif sub == "clone":
        # the new tree is DEST (or the repository's name): whatever is below it is replaced
        ops = operands(tail, _CLONE_VALUES)
        if len(ops) >= 2:
            paths = [(ops[1], REPLACE)]
    elif sub == "worktree" and tail[:1] == ["add"]:
        ops = operands(tail[1:], frozenset({"-b", "-B", "--reason"}))
        paths = [(ops[0], REPLACE)] if ops else []
    elif sub in _MOVES or sub == "stash":
        git_dir = posixpath.join(cwd, prefix) if prefix else cwd
        paths = [(p, WRITE) for p in _moved_protected(sub, tail, git_dir, where)]
    elif sub == "checkout-index":
        files = operands(tail, frozenset({"--prefix", "--stage"}))
        everything = "-a" in tail or "--all" in tail
        # ``--prefix=P``: each file is written as P followed by its name (P a folder when it
        # ends in ``/``)
        lead = (option_values(tail, ("--prefix",)) or ["./"])[-1]
        files += [DESCENDANT] if everything else []
        paths = [((lead if lead.endswith("/") else lead + "/") + f, WRITE) for f in files]
    elif sub == "config" and not _CONFIG_READS.intersection(tail):
        # ``git config --file ~/.claude/settings.json x.y z`` rewrites any file as git's INI
        paths = [(f, WRITE) for f in option_values(tail, ("-f", "--file"))]
    # files git itself writes: ``git diff --output=F``, ``format-patch -o DIR``, ``bundle create F``
    paths += [(f, WRITE) for f in option_values(tail, ("--output",))]
    if sub == "archive":
        paths += [(f, WRITE) for f in option_values(tail, ("-o",))]
    if sub == "format-patch":
        paths += [(d, EXTRACT) for d in option_values(tail, ("-o", "--output-directory"))]
    elif sub == "bundle" and tail[:1] == ["create"]:
        paths += [(f, WRITE) for f in operands(tail[1:])[:1]]
    if work_tree and (sub in _MOVES or sub in ("stash", "restore", "checkout-index", "am")):
        # another repository's revision written into another tree (``git
        # --git-dir=/tmp/g.git --work-tree=$HOME checkout -f HEAD``): its files are not
        # there to read, so a tree outside the project holding agentreflex's own may lose any
        paths += _unknown_landing(full_path(work_tree[0], where, cwd), where)
    return [
        (posixpath.join(prefix, p) if prefix and not p.startswith("/") else p, e) for p, e in paths
    ]


# ``git config`` options that only read the file
_CONFIG_READS = frozenset(
    {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool"}
    | {"-l", "--list", "get", "list", "--show-origin", "--show-scope", "-e", "--edit"}
)


def _patch(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    ops = operands(
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
    patches = [t for f in option_values(args, ("-i", "--input")) for t in patch_targets(f, cwd)]
    root = _patch_root("patch", args)  # ``-d DIR``: patch works in DIR
    named = [posixpath.join(root, p) for p in option_values(args, ("-o", "--output")) + ops[:1]]
    return [(p, WRITE) for p in named + [posixpath.join(root, t) for t in patches]]


def _patch_root(name: str, args: list[str]) -> str:
    """The folder a patch's paths are below: ``patch -d DIR``, ``git apply --directory=DIR``."""
    names = ("--directory",) if name == "git" else ("-d", "--directory")
    return (option_values(args, names) or [""])[-1]


_PATCH_PATH = LazyPattern(r"^(?:\+\+\+|---|rename to|copy to) (\S+)", re.M, hints="+++ --- to")
MAX_PATCH_BYTES = 20 << 20


def patch_targets(patch: str, cwd: str) -> list[str]:
    """The files a patch file changes, spelled both with and without its first folder.

    ``git apply`` strips one folder (``a/``, ``b/``), ``patch -pN`` as many as
    it is told: both spellings are judged, which can only ask more.  A patch
    that can't be read (missing, too big, fed from a pipe, named only at run
    time: ``git apply "$RUNNER_TEMP/x.patch"``) may change anything below the
    working directory.
    """
    if has_marker(patch) or has_marker(cwd):
        return ["./" + DESCENDANT]
    full = patch if patch.startswith("/") else posixpath.join(cwd, patch)
    try:
        if os.path.getsize(full) > MAX_PATCH_BYTES:
            raise OSError
        with open(full, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return ["./" + DESCENDANT]
    out: list[str] = []
    for m in _PATCH_PATH.finditer(text):
        name = m.group(1)
        if name == "/dev/null":
            continue
        out.append(name)
        if "/" in name:
            out.append(name.split("/", 1)[1])
    return list(dict.fromkeys(out))


_FIND_NAMES = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"})
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _find(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
    """``find ROOT [filters] -delete|-exec CMD {} ;``: agentreflex's own files it would yield.

    The walk's results are unknown to the shell walk (a marker); here the
    guard's own files that exist under each root are matched against the
    name and path filters (negated ones are ignored: asking is the safe side)
    and what ``-delete`` or the ``-exec`` command would do to them is listed.
    """
    exprs = _find_roots(args)[1]
    deleting = "-delete" in exprs
    templates = _find_templates(exprs)
    # the actions that print into a file: -fprint F, -fprint0 F, -fprintf F FORMAT, -fls F
    out: list[tuple[str, str]] = [
        (exprs[k + 1], WRITE) for k, e in enumerate(exprs[:-1]) if e in _FIND_FILE_ACTIONS
    ]
    if not deleting and not templates:
        return out
    for found in find_yields(args, cwd, where):
        if deleting:
            out.append((found, DELETE))
        for template in templates:
            argv = [w.replace("{}", found) for w in template]
            handler = _HANDLERS.get(posixpath.basename(argv[0])) if argv else None
            if handler is not None:
                out.extend(handler(argv[1:], cwd, where))
    return out


_FIND_FILE_ACTIONS = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})


def _find_roots(args: list[str]) -> tuple[list[str], list[str]]:
    """(the folders ``find`` walks, its expression)."""
    k = 0
    while k < len(args) and args[k] in ("-H", "-L", "-P"):
        k += 1
    roots: list[str] = []
    while k < len(args) and not (args[k].startswith("-") or args[k] in ("(", "!", r"\(")):
        roots.append(args[k])
        k += 1
    return roots or ["."], args[k:]


def find_yields(args: list[str], cwd: str, where: Where, named: bool = False) -> list[str]:
    """agentreflex's own files that ``find ARGS`` would yield (as they exist on disk).

    ``named``: only when the expression has a name or path test that lets them
    through (``find ~ -name key``), not merely because they are in the walk.
    """
    roots, exprs = _find_roots(args)
    filters = _find_filters(exprs)
    if named and not filters:
        return []
    depth = _find_depth(exprs)
    either = "-o" in exprs or "-or" in exprs  # otherwise find's tests all must hold
    return [f for root in roots for f in _find_yields(root, cwd, where, filters, depth, either)]


def find_selection(args: list[str]) -> tuple[list[str], list[tuple[str, str]], int, bool]:
    """``find ARGS``: its roots as written, its name and path tests (negated ones left out:
    what they would keep out is counted in), its ``-maxdepth`` and whether its tests are
    or-ed (``-o``) rather than all required."""
    roots, exprs = _find_roots(args)
    return roots, _find_filters(exprs), _find_depth(exprs), "-o" in exprs or "-or" in exprs


def find_test(flag: str, pattern: str, shown: str) -> bool:
    """One ``-name``/``-iname``/``-path``/``-wholename`` test on a path as find shows it."""
    return _find_test(flag, pattern, shown)


def _find_templates(exprs: list[str]) -> list[list[str]]:
    templates: list[list[str]] = []
    j = 0
    while j < len(exprs):
        if exprs[j] in _FIND_RUNS:
            end = j + 1
            while end < len(exprs) and exprs[end] not in (";", "+", "\\;"):
                end += 1
            templates.append(exprs[j + 1 : end])
            j = end
        j += 1
    return templates


def _find_filters(exprs: list[str]) -> list[tuple[str, str]]:
    filters: list[tuple[str, str]] = []
    for j, e in enumerate(exprs[:-1]):
        negated = j > 0 and exprs[j - 1] in ("!", "-not")
        if e in _FIND_NAMES and not negated:
            filters.append((e, exprs[j + 1]))
    return filters


def _find_depth(exprs: list[str]) -> int:
    if "-maxdepth" in exprs:
        value = exprs[exprs.index("-maxdepth") + 1 :][:1]
        if value and value[0].isdigit():
            return int(value[0])
    return 1 << 30


def _find_yields(
    root: str, cwd: str, where: Where, filters: list[tuple[str, str]], depth: int, either: bool
) -> list[str]:
    """The guard's files under ``root`` that the filters may let through."""

    top = full_path(root, where, cwd)
    if not top or has_marker(top):
        return []
    g = protected(where)
    found: list[str] = []
    for entry in g.entries:
        if entry in g.installed or not under(entry, top) or entry == top:
            continue
        for path in [entry, *walk_files(entry, 500)]:
            rel = path[len(top.rstrip("/")) + 1 :]
            if not os.path.lexists(path) or rel.count("/") + 1 > depth:
                continue
            shown = root.rstrip("/") + "/" + rel
            tests = [_find_test(flag, pat, shown) for flag, pat in filters]
            if not tests or (any(tests) if either else all(tests)):
                found.append(path)
    return found


def _find_test(flag: str, pattern: str, shown: str) -> bool:
    """One ``-name``/``-iname``/``-path``/``-wholename`` test on a path as find shows it."""
    from fnmatch import fnmatchcase

    subject = posixpath.basename(shown) if flag in ("-name", "-iname") else shown
    if flag.startswith("-i"):
        return fnmatchcase(subject.lower(), pattern.lower())
    return fnmatchcase(subject, pattern)


def _second_operand(takes: frozenset[str]) -> _Handler:
    """``uniq IN OUT`` / ``xxd IN OUT``: a reader whose second operand is written."""

    def handler(args: list[str], cwd: str, where: Where) -> list[tuple[str, str]]:
        return [(p, WRITE) for p in operands(args, takes)[1:2]]

    return handler


def _output_option(*names: str) -> _Handler:
    """``sort -o``, ``tree -o``, ``less -o``: a reader whose option names a file it writes."""
    return lambda args, cwd, where: [(p, WRITE) for p in option_values(args, names)]


_HANDLERS: dict[str, _Handler] = {
    "find": _find,
    "tee": _plain(WRITE, frozenset({"-p", "--output-error"})),
    "touch": _plain(WRITE, frozenset({"-d", "-t", "-r", "--date", "--reference"})),
    "truncate": _plain(WRITE, frozenset({"-s", "-r", "--size", "--reference"})),
    "mkdir": _plain(WRITE, frozenset({"-m", "--mode"})),
    "mkfifo": _plain(WRITE, frozenset({"-m", "--mode"})),
    "sponge": _plain(WRITE),
    "rm": _plain(DELETE),
    "unlink": _plain(DELETE),
    "rmdir": _plain(DELETE),
    # to the desktop's trash: gone from where the hooks look for it
    "trash": _plain(DELETE),
    "trash-put": _plain(DELETE),
    "gio": lambda args, cwd, where: (
        [(p, DELETE) for p in operands(args[1:])] if args[:1] in (["trash"], ["remove"]) else []
    ),
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
    "7z": _sevenzip,
    "7za": _sevenzip,
    "7zz": _sevenzip,
    "git": _git,
    "patch": _patch,
    "sort": lambda args, cwd, where: [
        (p, WRITE) for p in option_values(args, ("-o", "--output")) + _short_values(args, "o")
    ],
    "tree": _output_option("-o"),
    "less": _output_option("-o", "-O", "--log-file", "--LOG-FILE"),
    "uniq": _second_operand(frozenset({"-f", "-s", "-w"})),
    "xxd": _second_operand(frozenset({"-c", "-g", "-l", "-o", "-s", "-n"})),
}

# Programs that never change the files they name (their redirections still
# count, and are read above): with :data:`_HANDLERS`, the programs whose
# effects the gate knows.  Any other program that names one of agentreflex's
# own files may change it in a way no handler describes (``vim``,
# ``openssl -out``, sqlite's ``writefile()``): the self-guard asks.
READS_ONLY = frozenset(
    {
        *("cat", "tac", "head", "tail", "more", "bat", "nl", "od", "hexdump"),
        *("grep", "egrep", "fgrep", "rg", "ag", "ack", "wc", "diff", "cmp", "comm", "file"),
        *("stat", "ls", "du", "realpath", "readlink", "basename", "dirname", "test"),
        *("md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "strings", "jq"),
        *("echo", "printf", "true", "false", "which", "type", "command", "cd", "pwd"),
        *("cut", "column", "fold", "fmt", "[", "[["),
    }
)


def modelled(name: str) -> bool:
    """Whether the gate knows what ``name`` changes (a handler) or that it changes nothing."""
    return name in _HANDLERS or name in READS_ONLY
