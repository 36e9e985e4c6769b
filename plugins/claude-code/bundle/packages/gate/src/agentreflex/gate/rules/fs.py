"""Filesystem rules: deletes, overwrites, permissions, disks.

Every rule judges resolved paths (see :mod:`paths`), so ``rm -r ./foo`` in
the project is ordinary work while the same words after ``cd ~`` are not,
and ``rm -r`` without ``-f`` counts exactly like ``rm -rf``.
"""

from __future__ import annotations

import re

from agentreflex.core.util.deadline import check as check_time
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import DESCENDANT, P_BLOCK, P_WARN, Cmd, Hit, has_marker
from agentreflex.gate.rules.programs import DISK_PREFIXES, DISK_TOOLS
from agentreflex.gate.shell.paths import (
    Place,
    Where,
    classify,
    glob_base,
    is_history_file,
    is_secret_file,
    resolve,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_FATAL = (Place.ROOT, Place.HOME, Place.ANCESTOR)
_FINE = (Place.INSIDE, Place.TEMP, Place.CACHE)
_EMPTY_SOURCES = frozenset({"/dev/null", "/dev/zero"})


def rm(cmd: Cmd, where: Where) -> list[Hit]:
    """``rm``/``unlink``/``rmdir``: recursive deletes outside the project and of the project."""
    recursive = False
    targets: list[str] = []
    options = True
    for a in cmd.args:
        if options and a == "--":
            options = False
        elif options and a.startswith("--"):
            recursive = recursive or a in ("--recursive", "--dir")
        elif options and a.startswith("-") and len(a) > 1:
            recursive = recursive or "r" in a or "R" in a
        else:
            targets.append(a)
    if cmd.name == "rmdir":
        return []
    hits: list[Hit] = []
    for t in targets:
        if not t:
            continue  # rm '' fails without deleting anything
        hit = _rm_target(t, recursive, cmd, where)
        if hit is not None:
            hits.append(hit)
    if not hits:
        hits.extend(_uncommitted(targets, recursive, cmd, where))
    return hits


def _uncommitted(targets: list[str], recursive: bool, cmd: Cmd, where: Where) -> list[Hit]:
    """Deleting project files git holds no copy of loses them (issue 30).

    Tracked files with uncommitted changes count, and, for a recursive delete,
    untracked files that are not ignored (a folder of the user's own files:
    anthropics/claude-code#49129, #46058).  The real work tree is asked
    (:mod:`worktree`, bounded, no repository program runs), and only in a git
    work tree; what is clean, ignored (``build/``, ``node_modules``) or only
    known at run time is ordinary work.  A single untracked file is left
    alone: agents delete the scratch files they made all the time (issue 29's
    work-tree facts can tell them from the user's).
    """
    import os

    inside = [t for t in targets if t and classify(t, where, cmd.cwd)[0] is Place.INSIDE]
    if recursive:
        checkout, commits = _dirty_checkout(inside, cmd, where)
        if checkout and commits:
            return [
                Hit(
                    "GATE-RM-UNCOMMITTED",
                    "ask",
                    1.0,
                    cmd.text,
                    f"This deletes {checkout}, with commits no remote holds ("
                    + "; ".join(commits)
                    + "): they go with its .git, which no snapshot of the guard's holds "
                    "(`agentreflex undo` cannot bring them back), nor does a fresh clone. "
                    "`git -C DIR log HEAD --branches --not --remotes` shows them; push "
                    "them first, or ask the user.",
                )
            ]
        if checkout:
            return [
                Hit(
                    "GATE-RM-UNCOMMITTED",
                    "ask",
                    1.0,
                    cmd.text,
                    f"This deletes {checkout}, with uncommitted changes or files never "
                    "added: they exist nowhere else, and a fresh clone does not bring them "
                    "back. `git -C DIR status --short` shows them; commit and push, or "
                    "`git stash -u`, first, or ask the user.",
                )
            ]
    # a .git folder, a .git file (a linked worktree's) or link: git is asked; one leading
    # nowhere is asked about below
    dot_git = os.path.join(where.project, ".git") if where.project else ""
    if not inside or not dot_git or not os.path.lexists(dot_git):
        return []
    # only what exists can hold work (a cheap stat first: most deletes name build output
    # that is not there, and git is not asked for those)
    inside = [t for t in inside if os.path.lexists(glob_base(resolve(t, where, cmd.cwd))[0])]
    if not inside:
        return []
    from agentreflex.gate.rules import worktree  # only in-project deletes in a git work tree

    unknown = False
    for folder, paths in worktree.by_repository(cmd.cwd, inside).items():
        answer = worktree.uncommitted(folder, paths, untracked=recursive)
        if answer is True:
            break
        unknown = unknown or answer is None
    else:
        if unknown and _git_not_a_folder(where.project):  # a .git folder: a snapshot holds it
            older = _older_reached(inside, recursive, cmd, where)
            if (older if older is not None else recursive) and worktree.leads_nowhere(
                where.project
            ):
                return [_nothing_kept("deletes", older, cmd, where)]
        return []
    return [
        Hit(
            "GATE-RM-UNCOMMITTED",
            "ask",
            1.0,
            cmd.text,
            "This deletes project files git holds no copy of (uncommitted changes"
            + (", or files never added" if recursive else "")
            + "); nothing can bring them back. `git stash -u` or commit them first, or "
            "`git status --short PATH` to see what would go.",
        )
    ]


def _nothing_kept(verb: str, older: str | None, cmd: Cmd, where: Where) -> Hit:
    """The question before a discard in a project whose ``.git`` leads nowhere: what is
    discarded can't be told from git, and no snapshot can hold it (``older``: a file it
    reaches that was there before the session, named; None: the session's start unknown)."""
    import os

    named = ""
    if older:
        rel = os.path.relpath(older, where.project) if where.project else older
        named = (
            f" (not saved: {older if rel.startswith('..') else rel}, and any other file it {verb})"
        )
    return Hit(
        "GATE-RM-UNCOMMITTED",
        "ask",
        1.0,
        cmd.text,
        f"This {verb} project files"
        + ("" if older is None else " that were here before this session")
        + ", and git cannot read this project's "
        "repository (its .git is a file or link leading to no git folder): "
        "what is uncommitted can't be told, and no snapshot can be kept of it, "
        f"so nothing of what it {verb} is saved{named}. Repair .git (`git worktree "
        "repair`, or put back the folder it names) or copy the files elsewhere "
        "first, or ask the user.",
    )


_REACH_MAX = 2000  # entries looked at under the folders one command discards
_GLOB_MAX = 500  # matches of one glob looked at


def _older_reached(
    targets: list[str], recursive: bool, cmd: Cmd, where: Where, follow: bool = False
) -> str | None:
    """A file the discard of ``targets`` reaches that is unchanged since before the session
    began (its path), "" when none is; None when the session's start is unknown.

    Why: where git cannot read the project's repository (its ``.git`` leads nowhere),
    ``rm src/b.py`` can't be told from the deletion of a scratch file, and no snapshot
    holds it; a file the agent made or rewrote in this session has its inode changed
    (ctime, which no tool sets back) since the session began and is discarded unasked, as
    an untracked file is in a readable repository.  What the command reaches is worked
    out the way it will run: a glob expanded against the real work tree from the
    command's folder as the shell would (``rm src/*.py`` had been looked up as a file
    named ``*.py``: never older, never asked), several operands each, a folder deleted
    whole (or the folder a find walk yields from) walked, bounded: past the bound, asked.
    ``follow``: the command opens the path (``> f``), a link's target is what it loses."""
    if where.since_ns is None:
        return None
    budget = [_REACH_MAX]
    for t in targets:
        tree = DESCENDANT in t
        full = resolve(t, where, cmd.cwd)
        if has_marker(full):
            continue
        select = None
        if tree:
            paths = [glob_base(full)[0]]
            select = _found_by(cmd, paths[0], where, recursive)
        elif any(ch in full for ch in "*?["):
            import glob

            paths = sorted(glob.glob(full))[:_GLOB_MAX]
            if cmd.via == "xargs" and full.endswith("/*"):
                # ``ls X | xargs rm`` is modelled as the entries of X; ls lists a file
                # operand itself (``ls src/*.py``: the files)
                paths += [p for p in sorted(glob.glob(full[:-2]))[:_GLOB_MAX] if _no_dir(p)]
        else:
            paths = [full]
        for path in paths:
            found = _older_in(path, recursive or tree, where.since_ns, budget, follow, select)
            if found:
                return found
    return ""


def _found_by(cmd: Cmd, base: str, where: Where, recursive: bool) -> Callable[[str], bool] | None:
    """Which files under ``base`` the ``find`` that feeds this command (``find -delete``,
    ``find -exec rm {}``) yields, by its name and path tests and ``-maxdepth``: ``find src
    -name '*.tmp' -delete`` reaches the .tmp files, not every file in src; ``recursive``
    (``-exec rm -rf {}``), every file in a folder it yields too.  None (every file under
    ``base``) when it can't be told: fed through a pipe (``| xargs rm``: the find is
    another command), words known only at run time, another root."""
    if not cmd.via.startswith("find") or any(m in cmd.text for m in ("$", "`")):
        return None
    from shlex import split

    try:
        words = split(cmd.text)
    except ValueError:
        return None
    if "find" not in words:
        return None
    from agentreflex.gate.shell.changes import find_selection, find_test

    roots, tests, depth, either = find_selection(words[words.index("find") + 1 :])
    shown_root = next((r for r in roots if resolve(r, where, cmd.cwd) == base), None)
    if shown_root is None:
        return None
    import os

    def yields(rel: str) -> bool:
        if rel.count("/") + 1 > depth:
            return False
        shown = shown_root.rstrip("/") + "/" + rel
        passed = [find_test(flag, pattern, shown) for flag, pattern in tests]
        return not passed or (any(passed) if either else all(passed))

    def select(path: str) -> bool:
        rel = os.path.relpath(path, base)
        if yields(rel):
            return True
        parts = rel.split("/")[:-1] if recursive else []
        return any(yields("/".join(parts[: k + 1])) for k in range(len(parts)))

    return select


def _no_dir(path: str) -> bool:
    import os

    return not os.path.isdir(path) or os.path.islink(path)


def _older_in(
    path: str,
    walk: bool,
    since_ns: int,
    budget: list[int],
    follow: bool,
    select: Callable[[str], bool] | None = None,
) -> str:
    """``path`` itself when it is no folder and older than ``since_ns``; with ``walk``, the
    first such file under the folder ``path`` that ``select`` takes (past the budget: the
    folder itself)."""
    import os

    try:
        st = os.stat(path) if follow else os.lstat(path)
    except OSError:
        return ""
    import stat

    if not stat.S_ISDIR(st.st_mode):
        return path if st.st_ctime_ns < since_ns else ""
    if not walk:
        return ""  # a folder no delete without -r removes, nor any write opens
    for folder, dirs, files in os.walk(path):
        check_time()  # a folder at a time: each may be slow to list
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            budget[0] -= 1
            if budget[0] < 0:
                return path  # too many to look at: taken as holding older work
            found = os.path.join(folder, name)
            if select is not None and not select(found):
                continue
            try:
                if os.lstat(found).st_ctime_ns < since_ns:
                    return found
            except OSError:
                continue
    return ""


def _git_not_a_folder(project: str) -> bool:
    """The project's ``.git`` is there but no folder (a file, a link): one stat or two, so
    an ordinary repository pays nothing more (git is asked only past this)."""
    import os

    if not project:
        return False
    dot_git = os.path.join(project, ".git")
    return os.path.lexists(dot_git) and (os.path.islink(dot_git) or not os.path.isdir(dot_git))


def _git_names_no_repository(project: str) -> bool:
    """:func:`_git_not_a_folder`, and the folder its ``.git`` file or link names holds no
    ``HEAD``: a linked work tree (``git worktree add``, which agents' hosts make for every
    task) is told apart without running git, which is asked only past this."""
    import os
    import stat

    if not _git_not_a_folder(project):
        return False
    dot_git = os.path.join(project, ".git")
    try:
        st = os.lstat(dot_git)
        if stat.S_ISLNK(st.st_mode):
            named = os.path.realpath(dot_git)
        elif stat.S_ISREG(st.st_mode):
            with open(dot_git, "rb") as fh:
                first = fh.read(4096).split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
            if not first.startswith("gitdir:"):
                return True
            named = os.path.join(project, first[len("gitdir:") :].strip())
        else:
            return True  # a FIFO, a socket: no repository git reads
    except (OSError, ValueError):
        return True
    return not os.path.isfile(os.path.join(named, "HEAD"))


def unsaved_overwrite(
    targets: list[str],
    cmd: Cmd,
    where: Where,
    follow: bool,
    verb: str = "overwrites",
    walk: bool = False,
) -> list[Hit]:
    """Overwriting project files wholesale (``mv``/``cp`` over a file, ``truncate``, ``>
    file``, ``tee file``, ``dd of=``; with ``walk``, what ``rsync --delete`` removes from a
    folder) where no snapshot can hold them: the project's ``.git`` leads nowhere.  Asked
    when a file reached was there before the session, as a delete of it is (a readable
    repository's snapshot holds them: nothing is asked there)."""
    if not targets or where.since_ns is None or not _git_names_no_repository(where.project):
        return []
    inside = [
        t
        for t in targets
        if t and not has_marker(t) and classify(t, where, cmd.cwd, follow)[0] is Place.INSIDE
    ]
    older = _older_reached(inside, walk, cmd, where, follow) if inside else ""
    if not older:
        return []
    from agentreflex.gate.rules import worktree  # only for a project whose .git is no folder

    if not worktree.leads_nowhere(where.project):
        return []
    return [_nothing_kept(verb, older, cmd, where)]


_MAX_CHECKOUTS = 16  # nested checkouts asked about per delete (each a bounded git status)


def _dirty_checkout(targets: list[str], cmd: Cmd, where: Where) -> tuple[str, list[str]]:
    """A folder the recursive delete removes that is a git checkout of its own (it holds
    ``.git``), or holds one directly, with uncommitted work: ``rm -rf app && gh repo
    clone o/app`` lost the uncommitted work of the checkout it replaced
    (anthropics/claude-code#80830).  The project's own repository is judged by git
    status of the project; this is for checkouts git status there does not enter.

    The commits are those no remote holds (a branch never pushed, or ahead of its
    upstream), when the checkout is otherwise clean: they go with its ``.git`` too;
    empty when the work is uncommitted."""
    import os

    asked = 0
    ahead: tuple[str, list[str]] = ("", [])
    for t in targets:
        top = resolve(t, where, cmd.cwd)
        if has_marker(top) or not os.path.isdir(top) or os.path.islink(top):
            continue
        found = [top] if os.path.exists(os.path.join(top, ".git")) else []
        if not found:
            try:
                with os.scandir(top) as entries:
                    for e in entries:
                        if e.is_dir(follow_symlinks=False) and os.path.exists(
                            os.path.join(e.path, ".git")
                        ):
                            found.append(e.path)
            except OSError:
                continue
        for repo in found:
            if os.path.normpath(repo) == os.path.normpath(where.project):
                continue  # the project itself: judged as the project
            asked += 1
            if asked > _MAX_CHECKOUTS:
                return ahead
            from agentreflex.gate.rules import worktree  # only deletes of a checkout

            what = (
                f"{t}, a git checkout of its own"
                if repo == top
                else f"{t}, which holds the git checkout {os.path.basename(repo)}"
            )
            if worktree.uncommitted(repo, None, untracked=True) is True:
                return what, []
            if not ahead[0]:
                commits = worktree.unpushed(repo)
                if commits:
                    ahead = (what, commits)  # uncommitted work elsewhere is said first
    return ahead


# SDKs preinstalled on CI runner images, which workflows delete to free disk space
# (the "free disk space" step of many GitHub Actions workflows,
# jlumbroso/free-disk-space): software a package manager reinstalls, not data.
_TOOLCHAINS = (
    "/usr/share/dotnet",
    "/usr/local/lib/android",
    "/opt/ghc",
    "/usr/local/.ghcup",
    "/opt/hostedtoolcache",
    "/usr/local/share/boost",
    "/usr/share/swift",
    "/usr/local/share/powershell",
    "/usr/local/share/chromium",
    "/usr/local/lib/node_modules",
    "/opt/az",
    "/opt/microsoft",
    "/opt/google",
    "/usr/lib/jvm",
    "/opt/pipx",
    "/usr/local/graalvm",
    "/usr/local/share/vcpkg",
    # replaced by their install guides' own first step: `sudo rm -rf /usr/local/go &&
    # sudo tar -C /usr/local -xzf go*.tar.gz` (go.dev/doc/install), neovim's /opt/nvim
    "/usr/local/go",
    "/opt/nvim",
    "/opt/nvim-linux64",
    "/opt/nvim-linux-x86_64",
)
# Folders of links that switch a web server's sites and modules on: removing one
# disables it (`sudo rm /etc/nginx/sites-enabled/default`), the target stays.
_ENABLED_LINKS = (
    "/etc/nginx/sites-enabled/",
    "/etc/apache2/sites-enabled/",
    "/etc/apache2/mods-enabled/",
    "/etc/apache2/conf-enabled/",
)


def is_terraform_state(path: str) -> bool:
    """Whether ``path`` is a local Terraform state: ``terraform.tfstate`` or any
    ``*.tfstate`` (``-state=prod.tfstate``), the workspaces' ``terraform.tfstate.d``, or a
    glob over them (``terraform.tfstate*``).  Not the backup alone, which is the state
    before the last apply, and not ``.terraform/terraform.tfstate``, the backend's settings
    that ``terraform init`` writes again."""
    if "/.terraform/" in "/" + path:
        return False
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return (
        name.endswith(".tfstate")
        or name == "terraform.tfstate.d"
        or (name.startswith("terraform.tfstate") and any(c in name for c in "*?["))
    )


def _rm_target(target: str, recursive: bool, cmd: Cmd, where: Where) -> Hit | None:
    place, full = classify(target, where, cmd.cwd)
    # "dir/*" removes everything in dir even without -r; so does deleting what a
    # find walk over dir yields (find -exec rm {}, find | xargs rm, find -delete):
    # whatever the filters, it reaches every level of the tree
    tree = DESCENDANT in target
    recursive = recursive or tree or glob_base(target)[1]
    if is_history_file(full):
        return Hit.destructive(
            "GATE-HISTORY-WIPE",
            P_BLOCK,
            cmd,
            f"Deleting {full} wipes the user's shell history. Leave it alone.",
        )
    # the word as written too: a glob's base (``rm *.tfstate``) is only its folder
    terraform_state = is_terraform_state(target) or is_terraform_state(full)
    if terraform_state:
        return Hit.destructive(
            "GATE-CLOUD-DESTROY",
            P_BLOCK,
            cmd,
            f"This deletes the Terraform state {full}: Terraform forgets every resource "
            "it manages (they keep running, and the next apply creates them again), as "
            "`terraform state rm` does for one. Keep it, or move it aside and ask the user.",
        )
    if place in _FINE:
        return None
    if place is Place.UNKNOWN:
        if not recursive:
            return None
        return Hit(
            "GATE-RM-UNRESOLVED",
            "ask",
            1.0,
            cmd.text,
            "The directory to delete is only known at run time. Spell out a path "
            "inside the project.",
        )
    if place in _FATAL:
        return (
            Hit.destructive(
                "GATE-RM-ROOT",
                P_BLOCK,
                cmd,
                f"This deletes {full}, which contains the project or the whole home/system. "
                "Delete only the specific build outputs inside the project.",
            )
            if recursive
            else None
        )
    if place is Place.PROJECT_ROOT:
        return (
            Hit.destructive(
                "GATE-RM-PROJECT",
                P_BLOCK,
                cmd,
                "This deletes the whole project (or everything in it). Delete only the "
                "specific files or build directories you mean.",
            )
            if recursive
            else None
        )
    if place is Place.PROJECT_GIT:
        if not recursive or full.endswith(".lock"):
            return None
        return Hit.destructive(
            "GATE-RM-GIT-DIR",
            P_BLOCK,
            cmd,
            "This deletes the repository's .git history. Use git commands "
            "(git gc, git worktree prune) instead.",
        )
    if place is Place.SYSTEM and any(full == t or full.startswith(t + "/") for t in _TOOLCHAINS):
        return Hit.destructive(
            "GATE-RM-OUTSIDE",
            P_WARN,
            cmd,
            f"This deletes the installed toolchain {full} (CI runners free disk space this "
            "way); it can be reinstalled, but check nothing here still needs it.",
        )
    if place is Place.SYSTEM and not recursive and full.startswith(_ENABLED_LINKS):
        return Hit.destructive(
            "GATE-RM-OUTSIDE",
            P_WARN,
            cmd,
            f"This disables {full} (a link to the site's configuration, which stays). "
            "Check the server should stop serving it.",
        )
    if place is Place.SYSTEM and not recursive and full.startswith(_DROP_INS):
        # the mirror of installing one there (_overwrite): the image's default site
        # removed before the app's own goes in (rm /etc/nginx/conf.d/default.conf)
        return Hit.destructive(
            "GATE-RM-OUTSIDE",
            P_WARN,
            cmd,
            f"This removes {full}, one service's configuration file in a drop-in folder. "
            "Check it is the one the user means to replace or switch off.",
        )
    if (
        place is Place.SYSTEM
        and not recursive
        and _app_dir(full)
        and not full.startswith(_PACKAGE_PREFIXES)
    ):
        # a Rails entrypoint's rm -f /usr/src/app/tmp/pids/server.pid, the web root's
        # default index.html: an application's file, judged as /app/... is
        return Hit.destructive(
            "GATE-RM-OUTSIDE",
            P_WARN,
            cmd,
            f"This deletes {full}, a file of an application outside the project. "
            "Make sure the user wants that.",
        )
    if place in (Place.SYSTEM, Place.DEVICE):
        return Hit.destructive(
            "GATE-RM-SYSTEM",
            P_BLOCK,
            cmd,
            f"This deletes system files ({full}). Work inside the project or /tmp.",
        )
    if place is Place.HOME_DOT:
        return Hit.destructive(
            "GATE-RM-DOTFILE",
            P_BLOCK,
            cmd,
            f"This deletes {full}, the user's configuration or credentials. "
            "Ask the user to do it if it is really needed.",
        )
    if tree:
        return Hit.destructive(
            "GATE-RM-RECURSIVE-OUTSIDE",
            P_BLOCK,
            cmd,
            f"This deletes the files a search finds anywhere under {full}, outside the "
            "project. Search only inside the project or /tmp (or a narrow directory "
            "the user named), list the matches first, or ask the user.",
        )
    if recursive:
        return Hit.destructive(
            "GATE-RM-RECURSIVE-OUTSIDE",
            P_BLOCK,
            cmd,
            f"This recursively deletes {full}, outside the project. Delete only inside "
            "the project or /tmp, or ask the user.",
        )
    return Hit.destructive(
        "GATE-RM-OUTSIDE",
        P_WARN,
        cmd,
        f"This deletes {full}, outside the project. Make sure the user wants that.",
    )


def shred(cmd: Cmd, where: Where) -> list[Hit]:
    """``shred``/``wipe``/``srm`` destroy data beyond recovery, wherever it is."""
    hits = []
    for a in cmd.args:
        if a.startswith("-"):
            continue
        place, full = classify(a, where, cmd.cwd)
        if place not in (Place.TEMP,):
            hits.append(
                Hit.destructive(
                    "GATE-SHRED",
                    P_BLOCK,
                    cmd,
                    f"shred destroys {full} beyond recovery. Use rm for ordinary cleanup.",
                )
            )
    return hits


def truncate(cmd: Cmd, where: Where) -> list[Hit]:
    args = cmd.args
    files = [
        a
        for i, a in enumerate(args)
        if not a.startswith("-")
        and not (i > 0 and args[i - 1] in ("-s", "--size", "-r", "--reference"))
    ]
    hits = [h for f in files if (h := _overwrite(f, cmd, where, append=False)) is not None]
    from agentreflex.gate.shell.argv import option_values

    sizes = option_values(args, ("-s", "--size"))
    if not hits and not any(s.startswith(("+", ">")) for s in sizes):  # growing loses nothing
        hits.extend(unsaved_overwrite(files, cmd, where, follow=True))
    return hits


def redirects(cmd: Cmd, where: Where) -> list[Hit]:
    """``>``/``>>``/``tee`` to dotfiles, system files and devices."""
    hits = []
    emptied: list[str] = []  # project files the command truncates (judged below)
    for op, target in cmd.redirects:
        if op in (">", ">|", "&>", ">>", "&>>") and target and not target.isdigit():
            hit = _overwrite(target, cmd, where, append=">>" in op)
            if hit is not None:
                hits.append(hit)
            elif ">>" not in op:
                emptied.append(target)
    if cmd.name == "tee":
        append = any(a in ("-a", "--append") for a in cmd.args)
        for a in cmd.args:
            if not a.startswith("-"):
                hit = _overwrite(a, cmd, where, append)
                if hit is not None:
                    hits.append(hit)
                elif not append:
                    emptied.append(a)
    if not hits:
        hits.extend(unsaved_overwrite(emptied, cmd, where, follow=True))
    return hits


# Drop-in folders and files that add a package source or its key: how every
# vendor's install guide adds its apt/yum/apk repository (``echo "deb ..." >
# /etc/apt/sources.list.d/pgdg.list``), in Dockerfiles and CI set-up steps.
_PACKAGE_SOURCES = (
    "/etc/apt/sources.list.d/",
    "/etc/apt/keyrings/",
    "/etc/apt/trusted.gpg.d/",
    "/usr/share/keyrings/",
    "/etc/yum.repos.d/",
    "/etc/zypp/repos.d/",
    "/etc/apk/repositories",
    "/etc/apt/preferences.d/",
    "/etc/apt/sources.list",
)
# Drop-in folders where a service's own configuration is installed, one file per site
# or program (nginx and apache sites, supervisor programs, systemd units): the
# deployment guides' `sudo cp app.conf /etc/nginx/sites-available/`. Security
# configuration (sudoers.d, pam.d, ssh) is not among them.
_DROP_INS = (
    "/etc/nginx/conf.d/",
    "/etc/nginx/sites-available/",
    "/etc/nginx/sites-enabled/",
    "/etc/apache2/sites-available/",
    "/etc/apache2/sites-enabled/",
    "/etc/apache2/conf-available/",
    "/etc/httpd/conf.d/",
    "/etc/supervisor/conf.d/",
    "/etc/systemd/system/",
    "/etc/ld.so.conf.d/",
)
# The time zone a container build sets (``ln -sf /usr/share/zoneinfo/$TZ /etc/localtime &&
# echo $TZ > /etc/timezone``): a setting, not data.
_SETTING_FILES = frozenset(
    {"/etc/localtime", "/etc/timezone", "/etc/locale.gen", "/etc/default/locale"}
)


def _overwrite(target: str, cmd: Cmd, where: Where, append: bool) -> Hit | None:
    place, full = classify(target, where, cmd.cwd, follow=True)
    if is_history_file(full) and not append:
        return Hit.destructive(
            "GATE-HISTORY-WIPE",
            P_BLOCK,
            cmd,
            f"Overwriting {full} wipes the user's shell history. Leave it alone.",
        )
    if place is Place.DEVICE and not full.startswith(("/dev/tcp/", "/dev/udp/")):
        # bash's /dev/tcp/HOST/PORT is a connection, not a disk (rules.exfil.to_socket)
        return Hit.destructive(
            "GATE-DISK-WRITE",
            P_BLOCK,
            cmd,
            f"Writing to the device {full} destroys the filesystem on it.",
        )
    if place is Place.SYSTEM and full.startswith(_DROP_INS):
        return Hit.destructive(
            "GATE-OVERWRITE-SYSTEM",
            P_WARN,
            cmd,
            f"This installs a service's configuration ({full}). Check it is the service the "
            "user set up, and reload it with a config test first (nginx -t).",
        )
    if place is Place.SYSTEM and full in _SETTING_FILES:
        return Hit.destructive(
            "GATE-OVERWRITE-SYSTEM",
            P_WARN,
            cmd,
            f"This sets the machine's time zone or locale ({full}), as container builds "
            "do. Check it is wanted.",
        )
    if place is Place.SYSTEM and append and full == "/etc/hosts":
        return Hit.destructive(
            "GATE-OVERWRITE-SYSTEM",
            P_WARN,
            cmd,
            "This adds a name to /etc/hosts (a local development domain, as READMEs do); "
            "the existing entries stay. Check the name and address.",
        )
    if place is Place.SYSTEM and full.startswith(_PACKAGE_SOURCES):
        return Hit.destructive(
            "GATE-OVERWRITE-SYSTEM",
            P_WARN,
            cmd,
            f"This adds a package source or its signing key ({full}): packages from it "
            "will install with root rights. Check the source is the vendor's own.",
        )
    if place is Place.SYSTEM:
        return Hit.destructive(
            "GATE-OVERWRITE-SYSTEM",
            P_BLOCK,
            cmd,
            f"This {'appends to' if append else 'overwrites'} the system file {full}. "
            "Ask the user to change system configuration.",
        )
    if place is Place.HOME_DOT:
        if append:
            return Hit.destructive(
                "GATE-APPEND-DOTFILE",
                P_WARN,
                cmd,
                f"This changes {full}, the user's own configuration. Check they want it.",
            )
        return Hit.destructive(
            "GATE-OVERWRITE-DOTFILE",
            P_BLOCK,
            cmd,
            f"This overwrites {full}, the user's configuration. Edit it only with the "
            "user's consent, or append instead of truncating.",
        )
    if place in (Place.HOME_OTHER, Place.OUTSIDE) and not append:
        return Hit.destructive(
            "GATE-OVERWRITE-OUTSIDE", P_WARN, cmd, f"This overwrites {full}, outside the project."
        )
    return None


def perms(cmd: Cmd, where: Where) -> list[Hit]:
    """``chmod``/``chown``/``chgrp``: recursive on system or home trees, or on / itself."""
    args = [a for a in cmd.args]
    recursive = any(
        a in ("-R", "--recursive") or (a.startswith("-") and "R" in a[1:])
        for a in args
        if a.startswith("-") and not a[1:2].isdigit()
    )
    positional = [
        a for a in args if not a.startswith("-") or a[1:2].isdigit() or a[:2] in ("-r", "-w", "-x")
    ]
    if len(positional) < 2:
        return []
    mode, targets = positional[0], positional[1:]
    hits = []
    to_self = (
        cmd.name in ("chown", "chgrp") and _names_the_user(cmd, where) and not _user_renamed(cmd)
    )
    for t in targets:
        place, full = classify(t, where, cmd.cwd)
        if to_self and place in (Place.HOME, Place.HOME_DOT, Place.HOME_OTHER, Place.CACHE):
            continue  # sudo chown -R $(whoami) ~/.npm: the user's files given back to them
        if (
            place is Place.HOME_DOT
            and cmd.name == "chmod"
            and (
                (not recursive and _restricting_mode(mode) and not is_secret_file(full))
                or (_ordinary_mode(mode) and _in_user_bin(full, where))
            )
        ):
            continue  # chmod 600 ~/.ssh/id_rsa, chmod +x ~/.local/bin/tool
        if (
            place is Place.SYSTEM
            and _app_dir(full)
            and (cmd.name != "chmod" or _ordinary_mode(mode))
        ):
            continue
        if (
            place in (Place.ROOT, Place.HOME, Place.ANCESTOR)
            or (
                recursive
                and place in (Place.SYSTEM, Place.HOME_DOT, Place.HOME_OTHER, Place.DEVICE)
            )
            or (place is Place.SYSTEM and full.count("/") <= 2)
        ):
            hits.append(
                Hit.destructive(
                    "GATE-PERMS-SYSTEM",
                    P_BLOCK,
                    cmd,
                    f"This changes permissions or ownership of {full} and everything "
                    "below it, which can break the system or lock the user out. Change "
                    "only the project files that need it.",
                )
            )
        elif place is Place.HOME_DOT or (
            place is Place.SYSTEM
            and not (cmd.name == "chmod" and _ordinary_mode(mode) and not is_secret_file(full))
        ):
            hits.append(
                Hit.destructive(
                    "GATE-PERMS-SENSITIVE",
                    P_WARN,
                    cmd,
                    f"This changes permissions of {full}, outside the project.",
                )
            )
        elif cmd.name == "chmod" and (
            (mode.startswith(("4", "2", "6")) and len(mode) == 4)
            or "+s" in mode
            or "s" in mode.split("+")[-1:][0]
        ):
            hits.append(
                Hit.destructive(
                    "GATE-PERMS-SETUID",
                    P_WARN,
                    cmd,
                    "This makes a file setuid/setgid. Check that is intended.",
                )
            )
    return hits


_SELF_OWNERS = ("$USER", "${USER}", "$(whoami)", "`whoami`", "$(id -u)", "$(id -un)", "$LOGNAME")


def _names_the_user(cmd: Cmd, where: Where) -> bool:
    """Whether a chown's owner is the user running it (``$USER``, ``$(whoami)``, ``$(id -u)``,
    or the home folder's own name): handing the user's files back to them, as npm's
    EACCES guide does (``sudo chown -R $(whoami) ~/.npm``).  Not in a shell started for
    it (``sudo sh -c 'chown $USER ...'``), where USER and whoami are the target user's,
    nor when ``whoami`` or ``id`` is a function the line defined (``whoami() { echo root; }``)."""
    owner = _owner_group(cmd.text)[0]
    ran = re.findall(r"[\w-]+", owner) if "$(" in owner or "`" in owner else []
    shadowed = bool(cmd.shell_functions.intersection(ran))
    return not cmd.via and not shadowed and _is_the_user(owner, where)


def _is_the_user(word: str, where: Where) -> bool:
    """Whether an owner or group word, as written, is the user running the command: the
    whole word, so ``${USER}2`` (another account) is not."""
    name = where.home.rstrip("/").rsplit("/", 1)[-1]
    return word in _SELF_GROUPS or (bool(name) and word == name)


def _owner_group(text: str) -> tuple[str, str]:
    """A chown's owner and group as written (``OWNER:GROUP``, or the older ``OWNER.GROUP``)."""
    spec = _chown_spec(text)
    owner, _, group = spec.partition(":") if ":" in spec else spec.partition(".")
    return owner.strip("'\""), group.strip("'\"")  # "$USER":"$USER"


def _user_renamed(cmd: Cmd) -> bool:
    """Whether the line set ``$USER`` or ``$LOGNAME`` before the chown (``USER=root;``,
    ``read USER``, ``export``): then it no longer names the user running it."""
    return any(n in cmd.shell_vars or n in cmd.assigns for n in ("USER", "LOGNAME"))


def _chown_spec(text: str) -> str:
    """A chown's ``OWNER[:GROUP]`` as written (its words keep ``$USER``, which the
    command's arguments hold only as unknown)."""
    words = text.split()
    if "chown" not in words:
        return ""
    rest = words[words.index("chown") + 1 :]
    while rest and rest[0].startswith("-"):
        rest.pop(0)
    spec = rest.pop(0) if rest else ""
    while rest and spec.count("(") > spec.count(")"):  # $(id -u):$(id -g)
        spec += " " + rest.pop(0)
    return spec.strip("'\"")


_SELF_GROUPS = (*_SELF_OWNERS, "$(id -g)", "$(id -gn)")


def gives_to_user(cmd: Cmd, where: Where) -> bool:
    """Whether a chown gives its files to the user running it, and its group, if one is
    named, is the user's too (``$USER:$USER``, ``$(id -u):$(id -g)``)."""
    if any(a.startswith("--reference") for a in cmd.args) or _user_renamed(cmd):
        return False  # the owner is the reference file's, or $USER is no longer the user
    group = _owner_group(cmd.text)[1]
    return _names_the_user(cmd, where) and (not group or _is_the_user(group, where))


# Folders that hold an application's files, not the system's: a web root or an
# app checked out under /srv or /opt.  Handing them to the service user
# (``chown -R www-data:www-data /var/www/html``, ``chmod -R 755 /var/www``) is
# how images and servers are set up (php and nginx Dockerfiles).
_APP_DIRS = ("/var/www", "/usr/share/nginx/html")
# Folders whose subfolders are applications (``/srv/app``, ``/opt/tool``), not themselves.
_APP_PARENTS = ("/srv", "/opt", "/usr/src", "/usr/local/src")
# Package managers' prefixes under /opt (Homebrew on Apple silicon, MacPorts): the
# system's programs, not an application's files.
_PACKAGE_PREFIXES = ("/opt/homebrew/", "/opt/local/")


def _app_dir(full: str) -> bool:
    """An application's folder (see ``_APP_DIRS``) or something inside it."""
    return any(full == d or full.startswith(d + "/") for d in _APP_DIRS) or any(
        full.startswith(d + "/") for d in _APP_PARENTS
    )


def _ordinary_mode(mode: str) -> bool:
    """Modes that install a file the usual way (755, 644, +x, a+rx): readable by
    its owner, writable by nobody else, no setuid/setgid."""
    if re.fullmatch(r"0?[0-7]{3}", mode):
        owner, group, other = (int(d) for d in mode[-3:])
        return owner & 4 == 4 and group & 2 == 0 and other & 2 == 0
    clauses = mode.split(",")
    return all(re.fullmatch(r"[ugoa]*\+[rxX]+", c) for c in clauses)


def _restricting_mode(mode: str) -> bool:
    """Modes that only take access away from others (600, 0700, go-rwx, o-r): what
    ssh and gpg ask of their files, and what ``chmod 700 ~/.gnupg`` does."""
    if re.fullmatch(r"0?[4-7]00", mode):
        return True
    return all(re.fullmatch(r"[go]+-[rwxX]+", c) for c in mode.split(","))


# The user's own command folders, where tools are installed without root (``cargo
# install``, ``pipx``, ``install target/release/dist ~/.cargo/bin/``): the home's
# /usr/local/bin.
_USER_BIN_DIRS = (".local/bin", ".cargo/bin", ".bun/bin", ".deno/bin")


def _in_user_bin(full: str, where: Where) -> bool:
    home = where.home.rstrip("/")
    return bool(home) and any(
        full == f"{home}/{d}" or full.startswith(f"{home}/{d}/") for d in _USER_BIN_DIRS
    )


def move(cmd: Cmd, where: Where) -> list[Hit]:
    """``mv`` of the project/home/system away, or into ``/dev/null``; ``cp``/``ln`` onto system files."""
    paths = [a for a in cmd.args if not a.startswith("-")]
    if len(paths) < 2:
        return []
    *sources, dest = paths
    hits = []
    dplace, dfull = classify(dest, where, cmd.cwd)
    if cmd.name == "mv":
        for s in sources:
            place, full = classify(s, where, cmd.cwd)
            if place is Place.HOME_DOT and len(sources) == 1 and _backup_name(full, dfull):
                continue  # mv ~/.config/nvim ~/.config/nvim.bak: a backup beside it
            if dfull == "/dev/null" or place in (
                Place.ROOT,
                Place.HOME,
                Place.ANCESTOR,
                Place.PROJECT_ROOT,
                Place.SYSTEM,
                Place.PROJECT_GIT,
                Place.HOME_DOT,
            ):
                hits.append(
                    Hit.destructive(
                        "GATE-MOVE-AWAY",
                        P_BLOCK,
                        cmd,
                        f"This moves {full} away (to {dfull}); it can destroy it or "
                        "break the system. Move only project files within the project.",
                    )
                )
    if cmd.name in ("cp", "ln", "install") and any(
        resolve(s, where, cmd.cwd) in _EMPTY_SOURCES for s in sources
    ):
        # copying or linking /dev/null over a file empties it, exactly like `> file`
        hit = _overwrite(dest, cmd, where, append=False)
        if hit is None and not hits:
            return unsaved_overwrite(_landings(cmd, sources, dest, where), cmd, where, False)
        return hits + ([hit] if hit is not None else [])
    if not hits and dplace is Place.INSIDE:
        hits.extend(unsaved_overwrite(_landings(cmd, sources, dest, where), cmd, where, False))
    if dplace is Place.SYSTEM and cmd.name in ("cp", "ln", "install", "mv"):
        installed = _into_tool_dir(cmd, dfull)
        if installed is not False:
            return hits + ([installed] if isinstance(installed, Hit) else [])
    if dplace is Place.SYSTEM or dplace is Place.DEVICE:
        hits.append(
            Hit.destructive(
                "GATE-OVERWRITE-SYSTEM",
                P_BLOCK,
                cmd,
                f"This writes into {dfull}, a system location. Ask the user.",
            )
        )
    elif (
        dplace is Place.HOME_DOT
        and cmd.name in ("cp", "mv", "ln", "install", "rsync")
        and not _in_user_bin(dfull, where)
    ):
        hits.append(
            Hit.destructive(
                "GATE-OVERWRITE-DOTFILE",
                P_WARN,
                cmd,
                f"This replaces {dfull}, the user's configuration.",
            )
        )
    return hits


# Where tools are installed by hand (``install -m 755 kubectl /usr/local/bin/``,
# ``ln -s /opt/node/bin/node /usr/local/bin/node`` in Dockerfiles and CI set-up
# steps): the admin's own folders, which no package manages.
_TOOL_DIRS = ("/usr/local/bin", "/usr/local/sbin", "/opt")
# The system's command folders: a new link there fails when the name exists.
_BIN_DIRS = ("/usr/bin", "/usr/sbin", "/bin", "/sbin")


def _into_tool_dir(cmd: Cmd, dest: str) -> Hit | bool | None:
    """Installing a tool: ``None`` (ordinary), a warning, or ``False`` (not this case).

    A copy, move or link into ``/usr/local/bin`` or ``/opt`` installs a tool;
    a new link in ``/usr/bin`` (``ln -s``, which refuses to replace an existing
    name) adds a command; ``ln -sf`` there replaces one, which is only warned
    about (``ln -sf /usr/bin/python3 /usr/bin/python`` in container builds).
    """
    if any(dest == d or dest.startswith(d + "/") for d in _TOOL_DIRS):
        return None
    if (dest + "/").startswith(_DROP_INS):
        return Hit.destructive(
            "GATE-OVERWRITE-SYSTEM",
            P_WARN,
            cmd,
            f"This installs a service's configuration ({dest}). Check it is the service the "
            "user set up, and test it before a reload (nginx -t).",
        )
    if cmd.name == "ln" and dest in _SETTING_FILES:
        return Hit.destructive(
            "GATE-OVERWRITE-SYSTEM",
            P_WARN,
            cmd,
            f"This sets the machine's time zone ({dest}). Check it is wanted.",
        )
    if cmd.name != "ln" or not any(dest == d or dest.startswith(d + "/") for d in _BIN_DIRS):
        return False
    force = any(
        a in ("--force", "--remove-destination")
        or (a.startswith("-") and not a.startswith("--") and "f" in a)
        for a in cmd.args
    )
    if not force:
        return None
    return Hit.destructive(
        "GATE-OVERWRITE-SYSTEM",
        P_WARN,
        cmd,
        f"This replaces the command {dest} with a link. Check no system tool relies on "
        "the old one; `ln -s` without -f only adds a name that is free.",
    )


def _exists(path: str) -> bool:
    import os

    return os.path.lexists(path)


def _landings(cmd: Cmd, sources: list[str], dest: str, where: Where) -> list[str]:
    """The existing files ``mv``/``cp``/``install``/``ln -f`` SOURCES DEST replaces: DEST
    itself, or each source's name in the folder DEST; none when it keeps them (``-n``,
    a backup made, ``ln`` without ``-f``, which fails on an existing file)."""
    import os

    flags = "".join(a[1:] for a in cmd.args if a.startswith("-") and not a.startswith("--"))
    longs = [a for a in cmd.args if a.startswith("--")]
    if (
        (cmd.name != "ln" and "n" in flags)
        or "b" in flags
        or any(a.startswith(("--no-clobber", "--backup", "--update=none")) for a in longs)
    ):
        return []
    if cmd.name == "ln" and "f" not in flags and "--force" not in longs:
        return []
    if "t" in flags or any(a.startswith("--target-directory") for a in longs):
        return []  # ``-t DIR``: the last word is a source (not judged here)
    full = resolve(dest, where, cmd.cwd)
    if has_marker(full) or any(ch in dest for ch in "*?["):
        return []
    if os.path.isdir(full) and "T" not in flags and "--no-target-directory" not in longs:
        names: list[str] = []
        for s in sources:
            if not s or has_marker(s):
                continue
            if any(ch in s for ch in "*?["):  # what the shell expands it to, from cmd's folder
                import glob

                names += sorted(glob.glob(resolve(s, where, cmd.cwd)))[:_GLOB_MAX]
            else:
                names.append(s)
        return [os.path.join(dest, os.path.basename(n.rstrip("/"))) for n in names]
    return [dest]


def _backup_name(source: str, dest: str) -> bool:
    """``dest`` is ``source`` renamed in the same folder with a suffix (``x`` -> ``x.bak``):
    the install guides' backup step (LazyVim: ``mv ~/.config/nvim{,.bak}``), which keeps
    every byte where the user will find it."""
    head, _, name = source.rstrip("/").rpartition("/")
    dhead, _, dname = dest.rstrip("/").rpartition("/")
    return bool(name) and head == dhead and dname.startswith(name) and len(dname) > len(name)


_TAR_VALUED = frozenset(
    {"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from"}
)


def removes_sources(cmd: Cmd, where: Where) -> list[Hit]:
    """Archivers and syncs that delete what they read: judged as ``rm -r`` of it.

    ``tar -cf /tmp/a.tar --remove-files ~/.ssh``, ``rsync --remove-source-files
    ~/ /tmp/dump/`` and ``zip -m`` empty their sources as surely as ``rm`` (issue
    #28's list of routes that got through).
    """
    args = cmd.args
    if cmd.name == "rsync":
        if "--remove-source-files" not in args and "--remove-sent-files" not in args:
            return []
        paths = [a for a in args if not a.startswith("-")]
        sources = [p for p in paths[:-1] if ":" not in p]
    elif cmd.name == "zip":
        if not any(a == "-m" or (a[:1] == "-" and a[1:2] != "-" and "m" in a) for a in args):
            return []
        sources = [a for a in args if not a.startswith("-")][1:]  # the archive first
    else:
        if "--remove-files" not in args:
            return []
        sources = _tar_operands(args)
    hits = []
    for source in sources:
        hit = _rm_target(source, True, cmd, where)
        if hit is not None:
            hits.append(hit)
    return hits


def _tar_operands(args: list[str]) -> list[str]:
    """The files ``tar`` reads: its words but the values of -f, -C and the like."""
    out: list[str] = []
    skip = False
    for i, a in enumerate(args):
        if skip:
            skip = False
        elif a in _TAR_VALUED:
            skip = True
        elif a.startswith("-") and not a.startswith("--") and a.endswith("f"):
            skip = True  # -cf FILE, -czf FILE
        elif i == 0 and not a.startswith("-") and "f" in a and a.isalpha():
            skip = True  # old style: tar cf FILE ...
        elif not a.startswith("-"):
            out.append(a)
    return out


def rsync(cmd: Cmd, where: Where) -> list[Hit]:
    """``rsync --delete`` into a directory outside the project mirrors deletions there."""
    if not any(a.startswith("--delete") or a == "--del" for a in cmd.args):
        return []
    paths = [a for a in cmd.args if not a.startswith("-")]
    if not paths:
        return []
    place, full = classify(paths[-1], where, cmd.cwd)
    if place is Place.INSIDE and ":" not in paths[-1]:
        # what the destination holds beyond the source goes (a superset: every file there)
        return unsaved_overwrite(paths[-1:], cmd, where, False, verb="deletes", walk=True)
    if place in _FINE or ":" in paths[-1]:
        return []
    return [
        Hit.destructive(
            "GATE-RSYNC-DELETE",
            P_BLOCK,
            cmd,
            f"rsync --delete would delete files in {full} that are not in the source. "
            "Sync into a new directory, or drop --delete.",
        )
    ]


# sed scripts that delete every line: d, 1,$d, /.*/d, /^/d (with optional spaces / ;)
_SED_DELETE_ALL = LazyPattern(r"\s*(?:1\s*,\s*\$|/\^?\.\*\$?/|/\^/|/\$/)?\s*d\s*;?\s*")
_SED_VALUED = frozenset({"-e", "--expression", "-f", "--file", "-l", "--line-length"})


def sed_inplace(cmd: Cmd, where: Where) -> list[Hit]:
    """``sed -i`` on files outside the project: system files, and the user's dotfiles."""
    args = cmd.args
    if not any(a == "-i" or a.startswith(("-i", "--in-place")) for a in args):
        return []
    scripts: list[str] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in _SED_VALUED and i + 1 < len(args):
            if a in ("-e", "--expression"):
                scripts.append(args[i + 1])
            elif a in ("-f", "--file"):
                scripts.append("?")  # a script file: contents unknown
            i += 2
            continue
        if a.startswith("--expression="):
            scripts.append(a.partition("=")[2])
        elif not a.startswith("-") or a == "-":
            operands.append(a)
        i += 1
    files = operands if scripts else operands[1:]
    script = "\n".join(scripts) if scripts else (operands[0] if operands else "")
    empties = bool(script) and all(
        _SED_DELETE_ALL.fullmatch(part) for part in re.split(r"[;\n]", script) if part.strip()
    )
    hits = []
    for f in files:
        place, full = classify(f, where, cmd.cwd)
        if empties and (place in (Place.SYSTEM, Place.HOME_DOT) or is_history_file(full)):
            hit = _overwrite(f, cmd, where, append=False)
            if hit is not None:
                hits.append(hit)
        elif place is Place.SYSTEM:
            ordinary = full.startswith(_PACKAGE_SOURCES) or full in _SETTING_FILES
            hits.append(
                Hit.destructive(
                    "GATE-OVERWRITE-SYSTEM",
                    P_WARN if ordinary else P_BLOCK,
                    cmd,
                    f"This edits the system file {full} in place. "
                    + (
                        "It sets up a package source or the time zone; check it is wanted."
                        if ordinary
                        else "Ask the user."
                    ),
                )
            )
        elif place is Place.HOME_DOT:
            hits.append(
                Hit.destructive(
                    "GATE-WRITE-DOTFILE",
                    P_WARN,
                    cmd,
                    f"This edits {full}, the user's own configuration, in place. Check they "
                    "want it, and keep a backup (sed -i.bak).",
                )
            )
    return hits


def dd(cmd: Cmd, where: Where) -> list[Hit]:
    for a in cmd.args:
        if a.startswith("of="):
            place, full = classify(a[3:], where, cmd.cwd)
            if place is Place.SYSTEM and not full.startswith("/dev/"):
                # a regular file (curl ... | dd of=/usr/share/keyrings/x.gpg): a write
                hit = _overwrite(a[3:], cmd, where, append=False)
                return [hit] if hit is not None else []
            if place is Place.INSIDE:
                return unsaved_overwrite([a[3:]], cmd, where, follow=True)
            if place in (Place.DEVICE, Place.SYSTEM, Place.ROOT):
                return [
                    Hit.destructive(
                        "GATE-DISK-DD",
                        P_BLOCK,
                        cmd,
                        f"dd onto {full} destroys what is stored there. Write to a file "
                        "inside the project or /tmp instead.",
                    )
                ]
    return []


_READ_ONLY_DISK = frozenset(
    {
        "-l",
        "--list",
        "print",
        "list",
        "status",
        "info",
        "-p",
        "--print",
        "-d",
        "--dump",
        "-I",
        "-V",
        "--version",
        "-h",
        "--help",
        "-n",
        "verifyDisk",
        "verifyVolume",
        "luksDump",
        "isLuks",
        "iostat",
        "get",
        "--detail",
        "-D",
        "-E",
        "--examine",
        "-i",
    }
)


def disk(cmd: Cmd, where: Where) -> list[Hit]:
    """mkfs, wipefs, partitioners and volume destroyers; argument words never disarm them."""
    name = cmd.name
    if name.startswith(DISK_PREFIXES) or name == "mkswap":
        targets = [a for a in cmd.args if not a.startswith("-")]
        if targets:
            place, full = classify(targets[-1], where, cmd.cwd)
            if place in (Place.INSIDE, Place.TEMP) and not targets[-1].startswith("/dev/"):
                return []
            if (
                place not in (Place.DEVICE, Place.UNKNOWN, Place.ROOT)
                and not full.startswith("/dev/")
                and ("swap" in full.rsplit("/", 1)[-1].lower() or not _exists(full))
            ):
                # a regular file (`fallocate -l 4G /swapfile && mkswap /swapfile`): only it
                return [
                    Hit.destructive(
                        "GATE-DISK-FORMAT",
                        P_WARN,
                        cmd,
                        f"This formats the file {full} (a swap file or disk image); what it "
                        "held is lost. Check it is the file just made for this.",
                    )
                ]
        return [
            Hit.destructive(
                "GATE-DISK-FORMAT",
                P_BLOCK,
                cmd,
                "This formats a filesystem and destroys everything on it. Use a disk image "
                "file inside the project or /tmp for experiments.",
            )
        ]
    if name in DISK_TOOLS:
        if name == "cryptsetup" and not any(
            a in ("luksFormat", "erase", "luksErase", "reencrypt") for a in cmd.args
        ):
            return []
        if name == "zpool" and not any(a in ("destroy", "labelclear") for a in cmd.args):
            return []
        if name == "diskutil" and not any(
            a.lower().startswith(("erase", "partition", "zero", "secureerase", "reformat"))
            for a in cmd.args
        ):
            return []
        if name == "hdparm" and not any("erase" in a or "security" in a for a in cmd.args):
            return []
        if name == "mdadm" and not any(
            a in ("--zero-superblock", "--create", "-C") for a in cmd.args
        ):
            return []
        if name == "e2fsck":
            return []
        if not cmd.args or any(a in _READ_ONLY_DISK for a in cmd.args):
            return []
        return [
            Hit.destructive(
                "GATE-DISK-FORMAT",
                P_BLOCK,
                cmd,
                f"{name} rewrites disks or volumes and can destroy everything on them.",
            )
        ]
    return []
