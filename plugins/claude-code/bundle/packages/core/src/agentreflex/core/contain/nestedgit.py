"""The git settings of repositories inside the project: what a command added that runs a program, undone.

Why: the project's own ``.git/config`` and ``.git/hooks`` are read-only in
the boundary, because what they name (``core.fsmonitor``, ``core.pager``, a
``pre-commit`` hook) runs outside it the next time the user, an editor or a
shell prompt runs git there.  A repository *inside* the project (a folder of
several repositories opened as one project, a vendored checkout, a
``git init sub``) has the same settings, written freely.  Mounts cannot hold
them at a fair price: each repository needs four (the folder and its
``.git`` pinned, the settings and the hooks read-only), about 0.5 ms of
bubblewrap start-up per repository on every command, and a repository the
command creates has nothing to mount over yet.

So, like :mod:`.planted`, they are looked at before and after each shell
command, for every repository one folder below the project root:

* a settings entry the command added that git does not write itself in
  everyday work (anything beyond :data:`EVERYDAY`: remotes and branches'
  upstreams, the user's identity, the repository's format) is taken out with
  ``git config --unset-all --fixed-value``, so ``git push -u``, ``git remote
  add`` and ``git clone`` keep working;
* a hook (a file in ``.git/hooks`` not named ``*.sample``) that appeared or
  changed is moved into the state folder.

What is recorded between the two hook calls holds no value of the user's
settings: each entry is kept as an HMAC under the per-user key, so a
credential in ``http.extraHeader`` is never written anywhere.  git reads
the settings through :mod:`agentreflex.core.worktree.safegit` (no includes,
nothing the repository configures runs).  Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import os
import stat

from agentreflex.core.util import fastjson
from agentreflex.core.util.digest import HmacSha256, sha256_hex
from agentreflex.core.util.fsutil import atomic_write_json, move_under

__all__ = ["EVERYDAY", "Undone", "after", "before", "repos"]

# What git itself writes to a repository's settings in everyday work (init, clone, fetch,
# push -u, branch --track, remote add, submodule init, config user.*): none names a program.
# Keys as `git config --list` spells them (section and name lower-case).
# fmt: off
EVERYDAY = frozenset((
    "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
    "core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
    "core.safecrlf", "core.quotepath", "core.sparsecheckout", "core.sparsecheckoutcone",
    "core.longpaths", "core.untrackedcache", "core.commitgraph", "core.multipackindex",
    "core.compression", "core.abbrev", "core.checkstat", "core.trustctime", "core.splitindex",
    "core.preloadindex",
    "user.name", "user.email", "user.signingkey", "user.useconfigonly", "init.defaultbranch",
    "pull.rebase", "pull.ff", "push.default", "push.autosetupremote", "push.followtags",
    "fetch.prune", "fetch.prunetags", "fetch.writecommitgraph", "gc.auto", "gc.autodetach",
    "maintenance.auto", "maintenance.strategy", "extensions.objectformat",
    "extensions.worktreeconfig", "extensions.partialclone", "extensions.refstorage",
    "extensions.preciousobjects", "index.version", "feature.manyfiles", "commit.gpgsign",
    "tag.gpgsign", "lfs.repositoryformatversion",
))
# the same for a subsection's entries: remote.NAME.url, branch.NAME.merge...
EVERYDAY_NAMED = {
    "remote": frozenset((
        "url", "pushurl", "fetch", "push", "tagopt", "prune", "prunetags", "mirror",
        "skipdefaultupdate", "skipfetchall", "promisor", "partialclonefilter",
    )),
    "branch": frozenset(("remote", "pushremote", "merge", "rebase", "description")),
    "submodule": frozenset(("url", "active", "branch", "ignore", "shallow", "fetchrecursesubmodules")),
}
# fmt: on


def repos(project: str) -> list[str]:
    """The repositories one folder below ``project``: folders holding a ``.git`` folder."""
    found: list[str] = []
    try:
        entries = list(os.scandir(project))
    except OSError:
        return found
    for entry in entries:
        if entry.name == ".git" or not entry.is_dir(follow_symlinks=False):
            continue
        git = os.path.join(entry.path, ".git")
        try:
            if stat.S_ISDIR(os.lstat(git).st_mode):
                found.append(entry.path)
        except OSError:
            continue
    return sorted(found)


def before(projects: list[str], key: bytes, state_dir: str) -> dict[str, object]:
    """What each inside repository's settings and hooks are now, for :func:`after`.

    git reads a repository's settings only when they changed since the last
    command (a small record per project in ``state_dir``): most commands cost
    a ``stat`` and a folder listing per repository.
    """
    signer = HmacSha256(key)
    record: dict[str, object] = {}
    for project in projects:
        found = repos(project)
        if not found:
            continue
        cache_path = os.path.join(state_dir, "planted", f"nested-{sha256_hex(project, 16)}.json")
        cache = _read_json(cache_path)
        fresh: dict[str, object] = {}
        for repo in found:
            record[repo] = fresh[repo] = _look(repo, signer, cache.get(repo))
        if fresh != cache:
            _write_json(cache_path, fresh)
    return record


class Undone:
    """What :func:`after` took out: settings entries (by key) and hooks (moved where)."""

    def __init__(self) -> None:
        self.entries: list[str] = []  # "repo/.git/config: core.fsmonitor"
        # (a hook, or a link git would follow for its settings or hooks; where it went, or "")
        self.hooks: list[tuple[str, str]] = []

    def __bool__(self) -> bool:
        return bool(self.entries or self.hooks)


def after(
    record: dict[str, object], projects: list[str], key: bytes, folder: str, act: bool
) -> Undone:
    """Take out what the command added since :func:`before` (only say so when ``act`` is False)."""
    signer = HmacSha256(key)
    undone = Undone()
    for repo in sorted({r for project in projects for r in repos(project)}):
        was = record.get(repo)
        earlier = was if isinstance(was, dict) else {}
        _settings(repo, earlier, signer, undone, folder, act)
        _hooks(repo, earlier, undone, folder, act)
    return undone


def _look(repo: str, signer: HmacSha256, cached: object) -> dict[str, object]:
    config = os.path.join(repo, ".git", "config")
    stamp = _stamp(config)
    if isinstance(cached, dict) and cached.get("config") == stamp:
        flagged = cached.get("flagged")
    else:
        entries = _entries(config)
        flagged = sorted({_sign(signer, e) for e in entries if not everyday(e[0])})
    return {"config": stamp, "flagged": flagged, "hooks": _hook_stamps(repo)}


def everyday(key: str) -> bool:
    """Is ``key`` (as ``git config --list`` spells it) one git writes itself, naming no program?"""
    section, _, rest = key.partition(".")
    if key in EVERYDAY:
        return True
    named = EVERYDAY_NAMED.get(section)
    return named is not None and "." in rest and rest.rsplit(".", 1)[1] in named


def _settings(
    repo: str,
    earlier: dict[object, object],
    signer: HmacSha256,
    undone: Undone,
    folder: str,
    act: bool,
) -> None:
    config = os.path.join(repo, ".git", "config")
    if earlier and _stamp(config) == earlier.get("config"):
        return  # unchanged: nothing read
    if os.path.islink(config):
        # git reads what it leads to, and taking entries out would write there (a link to
        # the user's ~/.gitconfig): the link itself goes
        undone.hooks.append((config, move_under(config, folder) if act else ""))
        return
    known = earlier.get("flagged")
    had = set(known) if isinstance(known, list) else set()
    for name, value in _entries(config):
        if everyday(name) or _sign(signer, (name, value)) in had:
            continue
        kept = act and not _unset(config, name, value)
        undone.entries.append(f"{config}: {name}" + (" (could not be taken out)" if kept else ""))


def _hooks(
    repo: str, earlier: dict[object, object], undone: Undone, folder: str, act: bool
) -> None:
    known = earlier.get("hooks")
    had = known if isinstance(known, dict) else {}
    for name, mark in _hook_stamps(repo).items():
        if had.get(name) == mark:
            continue
        path = (
            os.path.join(repo, ".git", "hooks", name)
            if name
            else os.path.join(repo, ".git", "hooks")
        )
        undone.hooks.append((path, move_under(path, folder) if act else ""))


def _stamp(path: str) -> list[int] | None:
    """What changes when a file is written or replaced: inode, size, modification time."""
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return [found.st_ino, found.st_size, found.st_mtime_ns]


def _hook_stamps(repo: str) -> dict[str, list[int]]:
    """Each hook's stamp by name; a hooks folder that is a link is one entry, "" (the link)."""
    hooks = os.path.join(repo, ".git", "hooks")
    stamps: dict[str, list[int]] = {}
    if os.path.islink(hooks):
        # never listed through: what it leads to (~/.ssh) is no hook to move aside
        mark = _stamp(hooks)
        return {"": mark} if mark is not None else stamps
    try:
        entries = list(os.scandir(hooks))
    except OSError:
        return stamps
    for entry in entries:
        if entry.name.endswith(".sample"):
            continue
        mark = _stamp(entry.path)
        if mark is not None:
            stamps[entry.name] = mark
    return stamps


def _sign(signer: HmacSha256, entry: tuple[str, str]) -> str:
    return signer.hexdigest(f"{entry[0]}\0{entry[1]}".encode("utf-8", "surrogateescape"))[:32]


def _entries(config: str) -> list[tuple[str, str]]:
    """``config``'s entries as git reads them (no includes), or none if git can't read it."""
    try:
        if not stat.S_ISREG(os.lstat(config).st_mode):
            return []  # a link is never read through (see _settings)
    except OSError:
        return []
    from agentreflex.core.worktree.safegit import git

    done = git("/", ["config", "--file", config, "--no-includes", "--list", "-z"])
    if done is None or done.returncode != 0:
        return []
    out: list[tuple[str, str]] = []
    for item in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if item:
            name, _, value = item.partition("\n")
            out.append((name, value))
    return out


def _unset(config: str, name: str, value: str) -> bool:
    from agentreflex.core.worktree.safegit import git

    args = ["config", "--file", config, "--fixed-value", "--unset-all", name, value]
    done = git("/", args)
    return done is not None and done.returncode == 0


def _read_json(path: str) -> dict[str, object]:
    try:
        with open(path, encoding="utf-8") as handle:
            value = fastjson.loads(handle.read())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _write_json(path: str, value: dict[str, object]) -> None:
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        atomic_write_json(path, value, durable=False)
    except OSError:
        pass  # read again next time: slower, no less safe
