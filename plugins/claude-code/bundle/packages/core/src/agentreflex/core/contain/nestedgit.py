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
command, for every repository up to two folders below the project root (a bare
one too, the root itself included: git takes a folder with ``HEAD``, ``objects/`` and
``refs/`` for one when the ``.git`` above it is broken) and every
submodule's folder in ``.git/modules`` (read-only in the boundary once they
exist, but ``git submodule add`` makes one and can set it in one command),
their ``config`` and ``config.worktree``:

* a settings entry the command added that git does not write itself in
  everyday work (anything beyond :data:`EVERYDAY`: remotes and branches'
  upstreams, the user's identity, the repository's format) is taken out with
  ``git config --unset-all --fixed-value``, so ``git push -u``, ``git remote
  add`` and ``git clone`` keep working;
* a hook (a file in ``.git/hooks`` not named ``*.sample``) that appeared or
  changed is moved into the state folder.

git also reaches settings through a pointer: a ``.git`` *file* (``gitdir:
/tmp/x``, as submodules and linked worktrees have) and a linked worktree's
folder in ``.git/worktrees`` (its ``commondir`` names where the settings
are, and without one the folder is a repository of its own).  A command can
point either at settings it wrote anywhere writable.  Those settings are
never edited (they may be the user's, in another repository): the pointer
that leads to a setting or hook the command added is moved aside, so git no
longer takes the folder for a repository.  Settings the boundary holds
read-only (the project's own, and the repositories' above) are not looked at
through pointers: ``git worktree add`` and submodules keep working.

What is recorded between the two hook calls holds no value of the user's
settings: each entry is kept as an HMAC under the per-user key, so a
credential in ``http.extraHeader`` is never written anywhere.  git reads
the settings through :mod:`agentreflex.core.worktree.safegit` (no includes,
nothing the repository configures runs).  Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

import contextlib
import os
import stat

from agentreflex.core.contain import treewalk
from agentreflex.core.util.digest import HmacSha256, sha256_hex
from agentreflex.core.util.fsutil import (
    atomic_write_json,
    move_under,
    read_in_place,
    read_json,
    read_regular,
    replace_in_place,
    stamp,
)

__all__ = ["EVERYDAY", "Undone", "after", "before", "gitdirs", "pointers"]

# What git itself writes to a repository's settings in everyday work (init, clone, fetch,
# push -u, branch --track, remote add, submodule add and init, config user.*): none names
# a program.
# Keys as `git config --list` spells them (section and name lower-case).
# fmt: off
EVERYDAY = frozenset((
    "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
    "core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
    "core.safecrlf", "core.quotepath", "core.sparsecheckout", "core.sparsecheckoutcone",
    "core.longpaths", "core.untrackedcache", "core.commitgraph", "core.multipackindex",
    "core.compression", "core.abbrev", "core.checkstat", "core.trustctime", "core.splitindex",
    "core.preloadindex", "core.worktree",
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


def gitdirs(project: str, below: list[tuple[str, int]] | None = None) -> list[str]:
    """The git folders inside ``project`` whose settings a command may write: each repository's
    below it (``sub/.git``, ``a/b/.git``; a bare one, ``HEAD`` beside ``objects/`` and
    ``refs/``, the project root included), and the submodules' (``.git/modules/NAME``, a
    ``NAME`` with a slash in it and theirs too)."""
    below = treewalk.walk(project).gits if below is None else below
    found = [dot for dot, mode in below if stat.S_ISDIR(mode)]
    # a submodule's settings exist read-only in the boundary once made; the command that
    # makes one (git submodule add) can write them
    # a linked work tree's are in its own folder in the common one (and the other linked
    # work trees' in theirs), the main checkout's in the common folder: all writable
    # there, as an ordinary .git/modules is (rt87)
    for git in [os.path.join(project, ".git"), *_linked_folders(project), *found]:
        found += _modules(os.path.join(git, "modules"))
    return sorted(found)


def pointers(project: str, below: list[tuple[str, int]] | None = None) -> list[str]:
    """What leads git to settings elsewhere: ``.git`` files and links below ``project``, a
    ``.git`` folder or a submodule's (:func:`gitdirs`) with a ``commondir``, and the linked
    worktrees' folders in its ``.git/worktrees`` and its repositories'."""
    below = treewalk.walk(project).gits if below is None else below
    found = [dot for dot, mode in below if not stat.S_ISDIR(mode)]
    # git writes a commondir only in a linked worktree's folder: one in a submodule's makes
    # it read settings elsewhere (red-team rt87)
    found += [g for g in gitdirs(project, below) if _has(g, "commondir")]
    repositories = [os.path.join(project, ".git"), *_linked_common(project)]
    repositories += [dot for dot, mode in below if stat.S_ISDIR(mode)]
    for gitdir in repositories:
        found += _folders(os.path.join(gitdir, "worktrees"))
    return sorted(found)


def _linked_common(project: str) -> list[str]:
    """A linked work tree's common folder, writable in the boundary: the other work trees'
    folders in it are pointers as an ordinary ``.git``'s are (:mod:`.linkedgit`)."""
    return _linked_folders(project)[:1]


def _linked_folders(project: str) -> list[str]:
    """A linked work tree's git folders, writable in the boundary: the common one first, then
    every work tree's own in it, the project's included (:mod:`.linkedgit`); none for an
    ordinary project."""
    from agentreflex.core.contain import linkedgit
    from agentreflex.core.state import userdirs

    found = linkedgit.linked(project, userdirs.home_dir())
    return [found.common, *linkedgit.work_trees(found.common)] if found else []


def _has(folder: str, name: str) -> bool:
    return os.path.lexists(os.path.join(folder, name))


def _modules(folder: str, depth: int = 16) -> list[str]:
    """The submodules' git folders under ``folder`` (a name may hold slashes: vendor/lib, or
    a Go-style third_party/github.com/org/lib, whose settings git reads at the user's next
    ``git status`` in the project: red-team rt25).  Only folders that are no repository are
    gone through, so the walk follows the names, not the repositories' own files."""
    found: list[str] = []
    for sub in _folders(folder):
        if _has(sub, "HEAD") or _has(sub, "config"):
            found.append(sub)
            found += _modules(os.path.join(sub, "modules"), depth)
        elif depth > 1:
            found += _modules(sub, depth - 1)
    return found


def _folders(path: str) -> list[str]:
    """The folders (not links) in ``path``; none when it can't be listed or is a link.

    Never through a link (``ln -s ~ sub/.git/modules``): every folder of the user's
    home with a ``config`` in it would be taken for a submodule's, and its settings
    for ones a command added."""
    if os.path.islink(path):
        return []
    try:
        return [e.path for e in os.scandir(path) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def before(
    projects: list[str], key: bytes, records: str, walks: dict[str, treewalk.Walk] | None = None
) -> dict[str, object]:
    """What each inside repository's settings and hooks are now, for :func:`after`.

    git reads a repository's settings only when they changed since the last
    command (a small record per project in the folder ``records``): most commands cost
    a ``stat`` and a folder listing per repository.
    """
    signer = HmacSha256(key)
    record: dict[str, object] = {}
    # a project that is no repository yet: the one a command makes is looked at as one inside
    absent = [os.path.join(p, ".git") for p in projects if not os.path.lexists(f"{p}/.git")]
    if absent:
        record[ABSENT] = absent
    listed = _listed(projects, walks)
    found_gits = {project: gitdirs(project, listing) for project, listing in listed}
    found_pointers = [p for project, listing in listed for p in pointers(project, listing)]
    if found_pointers:
        held = _held(found_gits)
        record[POINTERS] = {p: _through(p, held, signer) for p in found_pointers}
    for project in projects:
        found = found_gits[project]
        if not found:
            continue
        cache_path = os.path.join(records, f"nested-{sha256_hex(project, 16)}.json")
        cache = _read_json(cache_path)
        fresh: dict[str, object] = {}
        for gitdir in found:
            record[gitdir] = fresh[gitdir] = _look(gitdir, signer, cache.get(gitdir))
        if fresh != cache:
            _write_json(cache_path, fresh)
    return record


class Undone:
    """What :func:`after` took out: settings entries (by key), hooks and pointers (moved where)."""

    def __init__(self) -> None:
        self.entries: list[str] = []  # "repo/.git/config: core.fsmonitor"
        # (a hook, or a link git would follow for its settings or hooks; where it went, or "")
        self.hooks: list[tuple[str, str]] = []
        # (a .git file or linked worktree's folder leading to what the command added; where)
        self.pointers: list[tuple[str, str]] = []
        # a settings file was read: its stamp had moved since the record (the record is stale)
        self.read = False

    def __bool__(self) -> bool:
        return bool(self.entries or self.hooks or self.pointers)


def after(
    record: dict[str, object],
    projects: list[str],
    key: bytes,
    folder: str,
    act: bool,
    walks: dict[str, treewalk.Walk] | None = None,
) -> Undone:
    """Take out what the command added since :func:`before` (only say so when ``act`` is False)."""
    signer = HmacSha256(key)
    undone = Undone()
    made = _made(record, projects)
    templates = Templates(projects)
    listed = _listed(projects, walks)
    found_gits = {project: gitdirs(project, listing) for project, listing in listed}
    found = {g for gits in found_gits.values() for g in gits}
    for gitdir in sorted(found | {g for g in made if stat.S_ISDIR(made[g])}):
        was = record.get(gitdir)
        earlier = was if isinstance(was, dict) else {}
        for config in _settings_files(gitdir):
            _settings(config, earlier, signer, undone, folder, act)
        _hooks(gitdir, earlier, undone, folder, act, templates)
    led = record.get(POINTERS)
    found_pointers = sorted({p for project, listing in listed for p in pointers(project, listing)})
    found_pointers += sorted(g for g in made if stat.S_ISREG(made[g]))  # `.git` files it wrote
    held = _held(found_gits) if found_pointers else set()
    for pointer in found_pointers:
        was = led.get(pointer) if isinstance(led, dict) else None
        now = _through(pointer, held, signer)
        earlier = was if isinstance(was, dict) else {}
        if _added(earlier, now):
            where = _aside(pointer, earlier, held, signer, folder) if act else ""
            undone.pointers.append((pointer, where))
    return undone


def _aside(
    pointer: str, was: dict[object, object], held: set[str], signer: HmacSha256, folder: str
) -> str:
    """``pointer`` made to lead where it led before, moved under ``folder``; where it went.

    Why: a git folder that existed (another linked work tree's in the common folder, a
    repository's ``.git``) is someone's work: moved whole, its work tree is no repository
    until the user puts it back (red-team rt91).  So only the files that redirect git
    (:data:`_PARTS`) that changed are moved, the ``commondir`` it had written back; the
    whole pointer only when it still leads to what the command added.
    """
    parts = was.get(PARTS)
    if not isinstance(parts, dict) or os.path.islink(pointer) or not os.path.isdir(pointer):
        return move_under(pointer, folder)
    moved = ""
    for name in _PARTS:
        path = os.path.join(pointer, name)
        if os.path.lexists(path) and stamp(path) != parts.get(name):
            moved = move_under(path, folder) or moved
    text = was.get(COMMONDIR)
    path = os.path.join(pointer, "commondir")
    if isinstance(text, str) and not os.path.lexists(path):
        with contextlib.suppress(OSError):
            replace_in_place(path, text.encode("utf-8", "surrogateescape"), 0o644)
    if moved and not _added(was, _through(pointer, held, signer)):
        return moved
    return move_under(pointer, folder)


POINTERS = "pointers"  # the record's entry for what pointers led to (repositories are paths)
# in a pointer's entry: the stamps of the files in a git folder that send git elsewhere
# (gitrepository-layout(5)), and the commondir's text, to put back (:func:`_aside`)
PARTS, COMMONDIR = "parts", "commondir"
_PARTS = ("commondir", "config.worktree")
ABSENT = "absent"  # the record's entry for the projects' own .git that did not exist


def _made(record: dict[str, object], projects: list[str]) -> dict[str, int]:
    """The projects' own ``.git`` (folder or file, not a link) made since the record, by mode.

    Why: a project's own ``.git/config`` is read-only in the boundary once it
    exists; in a folder that is no repository yet, ``git init && git config
    core.fsmonitor ...`` made one whose setting runs at the user's next
    ``git status`` (a shell prompt runs one in every folder)."""
    listed = record.get(ABSENT)
    made: dict[str, int] = {}
    # only those of the projects still looked at (one whose folder became a link is not)
    ours = {os.path.join(p, ".git") for p in projects}
    for path in listed if isinstance(listed, list) else []:
        if path not in ours:
            continue
        try:
            mode = os.lstat(path).st_mode if isinstance(path, str) else 0
        except OSError:
            continue
        if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
            made[path] = mode
    return made


def _settings_files(gitdir: str) -> list[str]:
    """The settings git reads in ``gitdir`` itself: ``config`` and, with
    ``extensions.worktreeConfig`` (an everyday setting), ``config.worktree``."""
    return [os.path.join(gitdir, "config"), os.path.join(gitdir, "config.worktree")]


def _through(pointer: str, held: set[str], signer: HmacSha256) -> dict[str, object]:
    """The settings entries (signed) and hooks git reaches through ``pointer`` that nothing else
    holds (``held``: see :func:`_held`)."""
    reach = _reach(pointer)
    if reach is None:
        return {}
    files, hooks = reach
    flagged: set[str] = set()
    for real in {os.path.realpath(f) for f in files} - held:
        entries = _readable_entries(real)  # git reads through a link: so is it read here
        if entries is None:
            flagged.add(UNREADABLE)  # git would read it all the same: it can't be vouched for
            continue
        flagged.update(_sign(signer, e) for e in entries if not everyday(e[0]))
    marks = {} if os.path.realpath(hooks) in held else _hook_stamps(hooks)
    found: dict[str, object] = {"flagged": sorted(flagged), "hooks": marks}
    if os.path.isdir(pointer) and not os.path.islink(pointer):
        found[PARTS] = {n: stamp(os.path.join(pointer, n)) for n in _PARTS}
        found[COMMONDIR] = _read_small(os.path.join(pointer, "commondir"), follow=True)
    return found


# what a pointer leads to that can't be read in time (past _MAX_CONFIG, git gave up)
UNREADABLE = "unreadable"


def _reach(pointer: str) -> tuple[list[str], str] | None:
    """The settings files and hooks folder git reads for the repository ``pointer`` leads to."""
    if os.path.basename(pointer) == ".git" and not os.path.isdir(pointer):
        # gitrepository-layout(5): "gitdir: PATH", read as git reads it (setup.c: exactly
        # one space, only line ends stripped), through a link as git follows one
        text = _read_small(pointer, follow=True)
        if text is None or not text.startswith("gitdir: "):
            return None
        gitdir = os.path.join(os.path.dirname(pointer), text[len("gitdir: ") :].rstrip("\r\n"))
    else:
        # a linked worktree's folder in .git/worktrees, a .git with a commondir, or a link
        # to a git folder (git follows it)
        gitdir = pointer
    # git reads a commondir through a link (setup.c, strbuf_read_file): so is it read here
    common = _read_small(os.path.join(gitdir, "commondir"), follow=True)
    shared = os.path.join(gitdir, common.rstrip("\r\n")) if common is not None else gitdir
    files = [os.path.join(shared, "config"), os.path.join(gitdir, "config.worktree")]
    return [os.path.normpath(f) for f in files], os.path.normpath(os.path.join(shared, "hooks"))


def _held(found_gits: dict[str, list[str]]) -> set[str]:
    """Settings and hooks looked at elsewhere: each project's own, held read-only by the
    boundary, and those of :func:`gitdirs` (``found_gits``, by project), whose added entries
    :func:`after` takes out."""
    held: set[str] = set()
    for project, found in found_gits.items():
        for gitdir in [os.path.join(project, ".git"), *_linked_common(project), *found]:
            held.update(os.path.realpath(os.path.join(gitdir, n)) for n in ("config", "hooks"))
    return held


def _listed(
    projects: list[str], walks: dict[str, treewalk.Walk] | None
) -> list[tuple[str, list[tuple[str, int]]]]:
    """Each project with the repositories below it (``walks``, or walked now: once per look)."""
    return [
        (project, (walks[project] if walks and project in walks else treewalk.walk(project)).gits)
        for project in projects
    ]


def _added(was: dict[object, object], now: dict[str, object]) -> bool:
    """Did a setting or hook appear (or a hook change) since ``was``?"""
    had, flagged = was.get("flagged"), now.get("flagged")
    known = set(had) if isinstance(had, list) else set()
    if isinstance(flagged, list) and not set(flagged) <= known:
        return True
    old_hooks, hooks = was.get("hooks"), now.get("hooks")
    old = old_hooks if isinstance(old_hooks, dict) else {}
    return isinstance(hooks, dict) and any(old.get(n) != m for n, m in hooks.items())


def _read_small(path: str, follow: bool = False) -> str | None:
    """A small regular file's text, never from a pipe, through a link only when ``follow``;
    None if there is none."""
    data = read_regular(path, 4096, follow=follow)
    if data is None or b"\0" in data:
        return None  # no path holds a NUL (git stops reading there)
    return data[:4096].decode("utf-8", "surrogateescape")


def _look(gitdir: str, signer: HmacSha256, cached: object) -> dict[str, object]:
    files = _settings_files(gitdir)
    stamps = {f: stamp(f) for f in files}
    if isinstance(cached, dict) and cached.get("config") == stamps:
        flagged = cached.get("flagged")
    else:
        entries = [e for f in files if stamps[f] is not None for e in _entries(f)]
        flagged = sorted({_sign(signer, e) for e in entries if not everyday(e[0])})
    hooks = _hook_stamps(os.path.join(gitdir, "hooks"))
    return {"config": stamps, "flagged": flagged, "hooks": hooks}


def everyday(key: str) -> bool:
    """Is ``key`` (as ``git config --list`` spells it) one git writes itself, naming no program?"""
    section, _, rest = key.partition(".")
    if key in EVERYDAY:
        return True
    named = EVERYDAY_NAMED.get(section)
    return named is not None and "." in rest and rest.rsplit(".", 1)[1] in named


def _settings(
    config: str,
    earlier: dict[object, object],
    signer: HmacSha256,
    undone: Undone,
    folder: str,
    act: bool,
) -> None:
    stamps = earlier.get("config")
    if earlier and isinstance(stamps, dict) and stamp(config) == stamps.get(config):
        return  # unchanged: nothing read
    undone.read = True
    if os.path.islink(config):
        # git reads what it leads to, and taking entries out would write there (a link to
        # the user's ~/.gitconfig): the link itself goes
        undone.hooks.append((config, move_under(config, folder) if act else ""))
        return
    entries = _readable_entries(config)
    if entries is None:
        # changed and can't be read in time (padded past what is read): git would still
        # read it, so it goes whole, kept in the state folder like a hook
        undone.hooks.append((config, move_under(config, folder) if act else ""))
        return
    known = earlier.get("flagged")
    had = set(known) if isinstance(known, list) else set()
    for name, value in entries:
        if everyday(name) or _sign(signer, (name, value)) in had:
            continue
        kept = act and not _unset(config, name, value)
        undone.entries.append(f"{config}: {name}" + (" (could not be taken out)" if kept else ""))


def _hooks(
    gitdir: str,
    earlier: dict[object, object],
    undone: Undone,
    folder: str,
    act: bool,
    templates: Templates,
) -> None:
    known = earlier.get("hooks")
    had = known if isinstance(known, dict) else {}
    hooks = os.path.join(gitdir, "hooks")
    for name, mark in _hook_stamps(hooks).items():
        if had.get(name) == mark:
            continue
        path = os.path.join(hooks, name) if name else hooks
        if name and templates.copied(path, name):
            undone.read = True  # the user's own hook stays; the record no longer says so
            continue
        undone.hooks.append((path, move_under(path, folder) if act else ""))


class Templates:
    """The hooks the user's git template copies into every repository ``git init`` and
    ``git clone`` make (``init.templateDir``, ``GIT_TEMPLATE_DIR``), read when first asked.

    Why: a user who keeps ``git secrets --install ~/.git-templates/git-secrets``
    or ``pre-commit init-templatedir ~/.git-template`` there gets those hooks in
    the repository an agent's ``git clone`` makes; moving them aside would take
    a secret scan away.  Only a template the boundary holds read-only is taken
    at its word: one in a folder the agent writes (the temp folders, the
    project) could hold anything.  The folder comes from the hook's own
    environment and the user's global git settings, never from the command's.
    """

    def __init__(self, projects: list[str]) -> None:
        self._projects = projects
        self._folder: str | None = None
        self._read = False

    def copied(self, path: str, name: str) -> bool:
        """Is the hook at ``path`` the template's hook ``name``, byte for byte?"""
        folder = self.folder()
        if not folder:
            return False
        mine = read_regular(path, _HOOK_LIMIT, follow=False)
        theirs = read_regular(os.path.join(folder, name), _HOOK_LIMIT, follow=False)
        return mine is not None and mine == theirs and len(mine) <= _HOOK_LIMIT

    def folder(self) -> str:
        """The template's hooks folder, or "" when there is none the boundary holds."""
        if not self._read:
            self._read = True
            found = _template_dir()
            if found and not _writable_in_boundary(found, self._projects):
                self._folder = os.path.join(found, "hooks")
        return self._folder or ""


_HOOK_LIMIT = 1 << 20


def _template_dir() -> str:
    """The user's git template folder, resolved, as git finds it (no ``--template`` given)."""
    chosen = os.environ.get("GIT_TEMPLATE_DIR", "")
    if not chosen:
        from agentreflex.core.worktree.safegit import git

        done = git("/", ["config", "--global", "--type=path", "--get", "init.templateDir"])
        if done is None or done.returncode != 0:
            return ""
        chosen = done.stdout.decode("utf-8", "surrogateescape").strip()
    path = os.path.expanduser(chosen)
    return os.path.realpath(path) if os.path.isabs(path) else ""


def _writable_in_boundary(path: str, projects: list[str]) -> bool:
    """Could a contained command write ``path`` (for any of ``projects``)?"""
    from agentreflex.core.contain import mounts
    from agentreflex.core.contain.policy import PolicyError, load_policy

    try:
        policy = load_policy()
    except PolicyError:
        return True  # nothing to go by: the template is not taken at its word
    return any(mounts.writable(mounts.plan(p, policy), path) for p in projects)


def _hook_stamps(hooks: str) -> dict[str, list[int]]:
    """Each hook's stamp by name; a hooks folder that is a link is one entry, "" (the link)."""
    stamps: dict[str, list[int]] = {}
    if os.path.islink(hooks):
        # never listed through: what it leads to (~/.ssh) is no hook to move aside
        mark = stamp(hooks)
        return {"": mark} if mark is not None else stamps
    try:
        entries = list(os.scandir(hooks))
    except OSError:
        return stamps
    for entry in entries:
        if entry.name.endswith(".sample"):
            continue
        mark = stamp(entry.path)
        if mark is not None:
            stamps[entry.name] = mark
    return stamps


def _sign(signer: HmacSha256, entry: tuple[str, str]) -> str:
    return signer.hexdigest(f"{entry[0]}\0{entry[1]}".encode("utf-8", "surrogateescape"))[:32]


_MAX_CONFIG = 1 << 20  # no settings file git writes comes near; larger is not read


def _entries(config: str) -> list[tuple[str, str]]:
    """``config``'s entries as git reads them (no includes); none if there is no file."""
    return _readable_entries(config) or []


def _readable_entries(config: str) -> list[tuple[str, str]] | None:
    """:func:`_entries`, or None when the file is there but can't be read in time (past
    :data:`_MAX_CONFIG`, or git gave up on it): what git itself would still read."""
    try:
        found = os.lstat(config)
    except OSError:
        return []
    if not stat.S_ISREG(found.st_mode):
        return []  # a link is never read through (see _settings)
    if found.st_size > _MAX_CONFIG:
        return None
    from agentreflex.core.worktree.safegit import git

    done = git("/", ["config", "--file", config, "--no-includes", "--list", "-z"])
    if done is None or done.returncode != 0:
        return None
    out: list[tuple[str, str]] = []
    for item in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if item:
            name, _, value = item.partition("\n")
            out.append((name, value))
    return out


def _unset(config: str, name: str, value: str) -> bool:
    """Take ``name = value`` out of ``config``: git edits a private copy, read from and
    written back to the file's folder opened with no link on the way (a process a command
    left running may swap a folder on the way for a link to the user's home)."""
    import tempfile

    from agentreflex.core.worktree.safegit import git

    data = read_in_place(config, _MAX_CONFIG)
    if data is None or len(data) > _MAX_CONFIG:
        return False
    from agentreflex.core.state import userdirs

    state = userdirs.user_state_dir()  # read-only in the boundary: no command edits the copy
    os.makedirs(state, mode=0o700, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="config-", dir=state) as private:
        copy = os.path.join(private, "config")
        with open(copy, "wb") as fh:
            fh.write(data)
        args = ["config", "--file", copy, "--fixed-value", "--unset-all", name, value]
        done = git("/", args)
        if done is None or done.returncode != 0:
            return False
        with open(copy, "rb") as fh:
            edited = fh.read()
    try:
        replace_in_place(config, edited, os.stat(config).st_mode & 0o7777)
    except OSError:
        return False
    return True


def _read_json(path: str) -> dict[str, object]:
    value = read_json(path)
    return value if isinstance(value, dict) else {}


def _write_json(path: str, value: dict[str, object]) -> None:
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        atomic_write_json(path, value, durable=False)
    except OSError:
        pass  # read again next time: slower, no less safe
