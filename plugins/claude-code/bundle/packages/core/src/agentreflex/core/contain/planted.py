"""Settings a shell command created where no mount could stop it, moved aside after it.

Why: bubblewrap mounts only over what exists, and the project root must stay
writable.  So a contained command could create, in a project that has none,
another host's project settings (``.gemini/settings.json``, ``.claude/``,
``opencode.json``...), whose hooks or plugins that host runs outside any
boundary the next time the user opens it here; or git's ``.git/commondir``,
which makes every later ``git`` read its settings (``core.fsmonitor``, a
pager) from a folder the command chose.  The running host's own folder is
made an empty read-only one (:func:`agentreflex.core.contain.mounts.plan`);
doing so for every host would leave seven empty folders in every project.

So these paths are looked at before and after each shell command, and one
that appeared is moved into the state folder with a warning that says where
it went and how to put it back.  Not when the user approved that very command
(``ASK_USER``), and in shadow mode it is only said.  The running host's own
paths are never moved: the host writes them itself (Claude Code's
"don't ask again" goes to ``.claude/settings.local.json``).

The same two looks cover the repositories inside the project
(:mod:`.nestedgit`): a git setting that runs a program, or a hook, that the
command added there is undone (``CORE-NESTED-GIT-SETTINGS``); and the
project's ``.env``, which Gemini CLI reads into the environment of what it
starts outside any boundary (:mod:`.dotenv`): an entry the command added
that changes what a program runs is taken out (``CORE-ENV-FILE-SETTINGS``); and
the hosts' settings in folders below the root, where a session may start, and
Claude Code's skills there, which it loads (:mod:`.nestedhosts`).  One walk of
the tree per look finds them all (:mod:`.treewalk`).

The looks' records are kept in the user's state folder, so they hold in a
plain folder (no repository, no state of the session's own there) and across
the command that makes it a repository.

A process a command leaves running may write after the look after it: before
each shell command the tree is also compared with the look after the
session's last one (:func:`_since_last`).  What such a process writes after
the session's last hook call is not seen.  Stdlib only: it is on the hook's
path.
"""

from __future__ import annotations

import contextlib
import os

from agentreflex.core.config.settings import Config
from agentreflex.core.contain import (
    dotenv,
    gitruns,
    homelinks,
    hostruns,
    linkedgit,
    nestedgit,
    nestedhosts,
    pathprograms,
    shellruns,
    treewalk,
)
from agentreflex.core.decision import Decision, Finding, Mode, Verdict
from agentreflex.core.events import Event, EventKind, ToolKind
from agentreflex.core.state import userdirs
from agentreflex.core.util import fastjson
from agentreflex.core.util.digest import sha256_hex
from agentreflex.core.util.fsutil import (
    call_record_path,
    file_mark,
    move_under,
    remove_if_unchanged,
    replace_in_place,
    stamp,
    through_link,
)

__all__ = ["CODE", "ENV_CODE", "NESTED_CODE", "around_tool", "watched"]

CODE = "CORE-PLANTED-SETTINGS"
NESTED_CODE = "CORE-NESTED-GIT-SETTINGS"
ENV_CODE = "CORE-ENV-FILE-SETTINGS"
# agentreflex's own project files: their trust rule already decides what they may do
_OWN = (".agentreflex", "policies")
MAX_PENDING = 200  # pre-tool records whose post-tool never came (denied, host crash)


def watched(project: str, host: str) -> list[str]:
    """The paths in ``project`` that no command may create: other hosts' settings, what the
    hosts run from the project (:data:`.hostruns.RUN_PATHS`), git's redirect."""
    from agentreflex.core.hosts import get_adapter

    try:
        mine = tuple(getattr(get_adapter(host), "project_settings", ()))
    except ValueError:
        mine = ()
    skip = [os.path.join(project, name) for name in (*mine, *_OWN)]
    # the hook's own interpreter and code in the project (a .venv): made by the user's tools
    skip += [
        os.path.normpath(p) for p in (*userdirs.interpreter_paths(), *userdirs.installed_paths())
    ]
    paths = [
        p
        for p in userdirs.protected_paths(project)
        if p.startswith(project + "/") and not any(p == s or p.startswith(s + "/") for s in skip)
    ]
    # what the hosts run from the project (an MCP server, a hook script, a command's `!`
    # lines), whichever host runs the command: Claude Code's own sandbox denies its own too
    paths += hostruns.run_paths(project)
    # what home's links lead to in the project (read-only where it exists; one a command
    # made where it did not is moved aside)
    paths += homelinks.targets(userdirs.home_dir(), (os.path.realpath(project),))
    # and what git's settings run from the work tree (a hooks folder), held where it exists
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    paths += gitruns.named_paths(project, userdirs.home_dir(), xdg, existing=False)
    if os.path.isdir(os.path.join(project, ".git")):
        paths += _main_redirects(os.path.join(project, ".git"))
    else:
        # a linked work tree's own settings, in the common folder the boundary opens, and
        # that folder's as the main checkout's git reads them (red-team rt87)
        found = linkedgit.linked(project, userdirs.home_dir())
        paths += [os.path.join(found.own, "config.worktree")] if found else []
        paths += _main_redirects(found.common) if found else []
        # and a rebase laid out there for another work tree (its exec lines run); not their
        # HEAD and index, which a `git worktree add` the command ran makes
        paths += linkedgit.others_state(found, linkedgit.LAID_OUT) if found else []
    return paths


def _main_redirects(gitdir: str) -> list[str]:
    """What in a main work tree's git folder makes its git read settings a command chose:
    git writes no ``commondir`` there (it reads one in any git folder), and
    ``config.worktree`` only on the user's word (``git config --worktree``)."""
    return [os.path.join(gitdir, n) for n in ("commondir", "config.worktree")]


def around_tool(
    event: Event, decision: Decision, config: Config, homeless: bool = False
) -> list[Finding]:
    """Before a shell command: what exists.  After it: what appeared, moved aside (a warning).

    And what appeared between two commands, seen before the second: a command
    may leave a process running (``(sleep 1; mkdir .gemini; ...) &``) that
    writes after the hook's look after it.
    """
    tool = event.tool
    if tool is None:
        return []
    # what is moved aside goes to the project's state folder, or to the user's where the
    # project has none (a plain folder: the session's history is not kept there either)
    keep = config.state_dir if config.state_dir and not homeless else userdirs.user_state_dir()
    after = event.kind in (EventKind.POST_TOOL, EventKind.POST_TOOL_FAILURE)
    if tool.kind is not ToolKind.SHELL:
        if after and tool.kind in _FILE_TOOLS:
            _accept(event)
        return []
    projects = _projects(event, config)
    pending = _pending_path(event)
    if event.kind is EventKind.PRE_TOOL:
        found, record = _since_last(event, decision, keep, projects)
        if decision.verdict is not Verdict.BLOCK and projects:
            asked = decision.verdict is Verdict.ASK_USER
            record = record or _look(projects, event.host, nested=not asked)
            record["asked"] = asked
            _write(pending, record)
            if not asked:
                # the session's last look until the one after this command replaces it: a
                # host that stops waiting for that hook (a command that made its look slow)
                # leaves the next command this to compare with, not nothing
                _write(_last_path(event), record)
        return found
    if not after:
        return []
    # read, and removed only once what it says is done: a daemon stopped inside this look
    # (a signal from a process a command left running) leaves the record to the hook
    # process that answers in its place, not a tree with no look before it (red-team rt33)
    mark = file_mark(pending)
    before = _take(pending, remove=False)
    try:
        if before is None or before.get("asked"):
            findings: list[Finding] = []
        else:
            findings, current = _undo(before, event, decision, keep)
            if (findings or current) and decision.mode is not Mode.SHADOW:
                # what the command added is undone: the tree is as the look before it found
                # it (what could not be undone is tried again before the next command)
                _write(_last_path(event), before)
                return findings
        # what the user approved, what shadow mode only named, what the command changed that
        # stays (a remote added, the user's own template hooks): the next command is compared
        # with the tree as it is now, so nothing is said twice
        _write(_last_path(event), _look(projects, event.host))
        return findings
    finally:
        remove_if_unchanged(pending, mark)


def _look(projects: list[str], host: str, nested: bool = True) -> dict[str, object]:
    """What the watched paths, the inside repositories and the hosts' settings below the
    root are now, to compare with later (the projects' git folders read once for it)."""
    with linkedgit.remembered():
        return _looked(projects, host, nested)


def _looked(projects: list[str], host: str, nested: bool) -> dict[str, object]:
    paths = [p for project in projects for p in watched(project, host)]
    walks = {project: treewalk.walk(project) for project in projects}
    record: dict[str, object] = {
        "projects": projects,
        "roots": _roots(projects),
        "present": [p for p in paths if os.path.lexists(p)],
        "hosts": nestedhosts.before(_host_folders(walks)),
        "programs": pathprograms.before(_path_folders(projects)),
        "links": _named_links(projects),
    }
    key = _key() if nested else None
    if key is not None:
        record["nested"] = nestedgit.before(projects, key, _records(), walks)
        record["dotenv"] = dotenv.before(_env_files(projects, walks), key)
    return record


def _named_links(projects: list[str]) -> dict[str, list[object]]:
    """The links among the files the hosts' settings run (an MCP server's
    ``.venv/bin/python``): each one's stamp and where it leads.

    Why: a mount can't hold a link (it would hold what the link leads to), so
    ``rm .venv/bin/python`` and a script in its place ran outside the boundary at the
    host's next start (red-team rt65).  One a command replaced is put back.
    """
    found: dict[str, list[object]] = {}
    for project in projects:
        for path in hostruns.named_files(project):
            with contextlib.suppress(OSError):
                if os.path.islink(path):
                    found[path] = [stamp(path), os.readlink(path)]
    return found


def _relink(
    record: dict[str, object], keep: str, act: bool, projects: list[str]
) -> list[tuple[str, str]]:
    """The links of :func:`_named_links` a command replaced or removed: what is there now
    moved under ``keep`` and the link put back, each with where it went ("" when not
    moved).  A new link to the program its name promises, all outside what a command can
    write (``uv venv`` made again), is left alone."""
    changed: list[tuple[str, str]] = []
    for path, had in record.items():
        if not isinstance(had, list) or len(had) != 2 or stamp(path) == had[0]:
            continue
        if pathprograms.system_link(path, _writable(projects)):
            continue
        moved = move_under(path, keep) if act and os.path.lexists(path) else ""
        if act and isinstance(had[1], str):
            with contextlib.suppress(OSError):
                replace_in_place(path, had[1].encode(), 0o777, link=True)
        changed.append((path, moved))
    return changed


def _host_folders(walks: dict[str, treewalk.Walk]) -> list[str]:
    return [folder for found in walks.values() for folder in found.hosts]


def _env_files(projects: list[str], walks: dict[str, treewalk.Walk]) -> list[str]:
    """The ``.env`` files Gemini CLI would read into its environment, started in one of
    ``projects`` (the first it finds upwards, ``.gemini/.env`` before ``.env`` in each
    folder; the ones above the project are read-only) or in a folder below one (a
    monorepo's package: ``web/.env``)."""
    own = [os.path.join(p, n) for p in projects for n in (f".gemini/{dotenv.NAME}", dotenv.NAME)]
    own += [env for p in projects for env in shellruns.env_files(p)]  # what direnv loads
    return list(dict.fromkeys(own + [env for found in walks.values() for env in found.env]))


def _undo(
    before: dict[str, object], event: Event, decision: Decision, keep: str, since: str = ""
) -> tuple[list[Finding], bool]:
    """What appeared since ``before`` (a :func:`_look`), moved aside or undone, as findings;
    and whether ``before`` still says what the tree is (nothing appeared, nothing was read).

    The projects' git folders are read once for it: what it moves aside is never one
    :func:`.linkedgit.linked` reads (a work tree's ``.git``, ``commondir`` and ``gitdir``),
    and the inside repositories' pointers are all found before one is moved."""
    with linkedgit.remembered():
        return _undone(before, event, decision, keep, since)


def _undone(
    before: dict[str, object], event: Event, decision: Decision, keep: str, since: str
) -> tuple[list[Finding], bool]:
    # the folders looked at then (a `cd` in the command may change the host's cwd), those
    # that are still those folders
    had, projects = _strings(before.get("present")), _unmoved(before)
    appeared = list(
        dict.fromkeys(
            through_link(p, [project])
            for project in projects
            for p in watched(project, event.host)
            if p not in had and os.path.lexists(p)
        )
    )
    shadow = decision.mode is Mode.SHADOW
    name = _pending_path(event) + since
    folder = os.path.join(keep, "planted", sha256_hex(name, 16))
    findings = []
    if appeared and shadow:
        findings.append(_finding(appeared, "", shadow=True, since=since))
    elif appeared:
        moved = [move_under(p, folder) for p in appeared]
        findings.append(_finding(appeared, folder, moved=moved, since=since))
    walks = {project: treewalk.walk(project) for project in projects}
    hosts = before.get("hosts")
    if isinstance(hosts, dict):
        changed = nestedhosts.after(hosts, _host_folders(walks), folder, act=not shadow)
        if changed:
            findings.append(_hosts_finding(changed, folder, shadow, since=since))
    programs = before.get("programs")
    if isinstance(programs, dict):
        writable: list[list[str]] = []  # asked once, and only when a program changed

        def roots() -> list[str]:
            if not writable:
                writable.append(_writable(projects))
            return writable[0]

        changed = pathprograms.after(
            programs, _path_folders(projects), folder, not shadow, roots, projects
        )
        if changed:
            findings.append(_programs_finding(changed, folder, shadow, since=since))
    links = before.get("links")
    if isinstance(links, dict):
        relinked = _relink(links, folder, not shadow, projects)
        if relinked:
            findings.append(_links_finding(relinked, folder, shadow, since=since))
    nested, key = before.get("nested"), _key()
    current = not findings
    if isinstance(nested, dict) and key is not None:
        undone = nestedgit.after(nested, projects, key, folder, act=not shadow, walks=walks)
        if undone:
            findings.append(_nested_finding(undone, folder, shadow, since=since))
        current = current and not undone and not undone.read
    env, key = before.get("dotenv"), _key()
    if isinstance(env, dict) and key is not None:
        files = _env_files(projects, walks)
        taken = dotenv.after(env, files, key, folder, act=not shadow, roots=projects)
        if taken:
            findings.append(_env_finding(taken, folder, shadow, since=since))
        current = current and not taken and not taken.read
    return findings, current


def _since_last(
    event: Event, decision: Decision, keep: str, projects: list[str]
) -> tuple[list[Finding], dict[str, object] | None]:
    """What appeared since the session's last shell command ended (a process it left running),
    undone; and that command's record when the tree is now as it says, to serve as this one's.

    Looked at once: the record is taken (a later command's look after it makes
    the next).  Not while this command is refused: it is looked at again
    before the next one.
    """
    if decision.verdict is Verdict.BLOCK:
        return [], None
    path = _last_path(event)
    mark = file_mark(path)
    last = _take(path, remove=False)  # removed once undone: see the look after a command
    if last is None:
        return [], None
    try:
        found, current = _undo(last, event, decision, keep, since=SINCE)
    finally:
        remove_if_unchanged(path, mark)
    # nothing changed, for the same folders: the tree is as that look found it (one look saved)
    same = current and _strings(last.get("projects")) == projects
    return found, (last if same else None)


def _accept(event: Event) -> None:
    """After a host's own file tool: what it wrote is the session's (the gate asked about
    the settings it protects), so a file tool's work is not taken for a process's.

    Only the paths the tool names: what a process a command left running made meanwhile
    stays for the look before the next command to find.
    """
    path, tool = _last_path(event), event.tool
    last = _take(path)
    if not last or tool is None:
        return
    # as the looks spell paths: through the links above them resolved (the project's is)
    written = {_resolved(os.path.join(event.cwd or "/", p)) for p in (*tool.paths, tool.path) if p}
    now = _look(_strings(last.get("projects")), event.host, nested=False)
    had = set(_strings(last.get("present")))
    last["present"] = [
        p for p in _strings(now["present"]) if p in had or any(_holds(p, w) for w in written)
    ]
    hosts, current = last.get("hosts"), now["hosts"]
    if isinstance(hosts, dict) and isinstance(current, dict):
        for file in written:
            if file in current:
                hosts[file] = current[file]
    _write(path, last)


def _resolved(path: str) -> str:
    path = os.path.normpath(path)
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def _holds(path: str, written: str) -> bool:
    """Is ``written`` the file ``path``, or inside the folder ``path``?"""
    return written == path or written.startswith(path.rstrip("/") + "/")


SINCE = "since the last command ended"
# the hosts' own file tools, whose writes to what the guard protects the gate asks about
_FILE_TOOLS = (ToolKind.WRITE, ToolKind.EDIT, ToolKind.PATCH)


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _projects(event: Event, config: Config) -> list[str]:
    """The project agentreflex's config was read for, and the folder the host reported when
    it is inside that project (or there is none: a plain folder).

    Not a folder elsewhere the agent ``cd``-ed into: the looks act there, outside any
    boundary, and its home is no project of the session's."""
    project = os.path.realpath(config.project_dir) if os.path.isabs(config.project_dir) else ""
    cwd = os.path.realpath(event.cwd) if event.cwd and os.path.isabs(event.cwd) else ""
    found = [project] if project else []
    if cwd and (not project or cwd == project or cwd.startswith(project.rstrip("/") + "/")):
        found.append(cwd)
    return [p for p in dict.fromkeys(found) if p != "/"]


def _roots(projects: list[str]) -> dict[str, list[int]]:
    """Each project folder's device and inode, to know it again after the command."""
    found: dict[str, list[int]] = {}
    for project in projects:
        try:
            info = os.stat(project)
        except OSError:
            continue
        found[project] = [info.st_dev, info.st_ino]
    return found


def _unmoved(before: dict[str, object]) -> list[str]:
    """The projects of ``before`` (a look) that are still the folders it looked at: no link
    anywhere on their path now, the same folder.  A command may replace the folder it ran
    in by a link to the user's home; the looks after it act outside any boundary."""
    roots = before.get("roots")
    kept = []
    for project in _strings(before.get("projects")):
        mark = roots.get(project) if isinstance(roots, dict) else None
        if os.path.realpath(project) != project or not isinstance(mark, list):
            continue
        try:
            info = os.stat(project)
        except OSError:
            continue
        if [info.st_dev, info.st_ino] == mark:
            kept.append(project)
    return kept


def _finding(
    appeared: list[str],
    folder: str,
    moved: list[str] | None = None,
    shadow: bool = False,
    since: str = "",
) -> Finding:
    names = ", ".join(appeared)
    what = (
        f"{names} appeared {since} (a process a command left running, or someone outside "
        "the agent's commands, made it)"
        if since
        else f"This command created {names}"
    )
    if shadow:
        tail = "In enforced mode it would have been moved aside."
    elif moved is not None and all(moved):
        tail = (
            f"agentreflex moved it to {folder}. If the user asked for it, or it came from the "
            "repository, they can move it back (or `git checkout -- PATH`) themselves."
        )
    else:
        tail = "agentreflex could not move it aside: ask the user to remove it."
    return Finding(
        reflex="core",
        code=CODE,
        verdict=Verdict.WARN,
        title="SETTINGS CREATED BY A COMMAND",
        message=(
            f"{what}: another agent's project settings, what Claude Code runs from the "
            "project (.mcp.json, .claude/hooks, commands, agents, skills...), Copilot "
            "CLI's servers (.github/mcp.json, lsp.json), or git's commondir, which "
            "run what they name outside any sandbox the next time they are read. Only the "
            f"user may create them. {tail}"
        ),
        detail={"paths": appeared},
    )


def _writable(projects: list[str]) -> list[str]:
    """The folders a contained command can write (the policy's, for these projects)."""
    from agentreflex.core.contain.policy import writable_roots

    return writable_roots(projects)


def _path_folders(projects: list[str]) -> list[tuple[str, str]]:
    """The host's PATH folders a contained command may write (:mod:`.pathprograms`): in the
    projects, home or a temp folder (the policy is read only if something there changed)."""
    roots = [userdirs.home_dir(), *userdirs.temp_dirs()]
    return pathprograms.folders(projects, roots) if projects else []


def _moved_tail(
    changed: list[tuple[str, str]], folder: str, shadow: bool, put_back: str = "", how: str = ""
) -> str:
    """What became of the paths ``changed`` names (each with where it went, "" if it stayed)."""
    stayed = [path for path, where in changed if not where]
    if shadow:
        return "In enforced mode they would have been moved aside."
    if stayed:
        return f"agentreflex could not move {', '.join(stayed)} aside: ask the user to remove it."
    moved = f"agentreflex moved them to {folder}{' ' + put_back if put_back else ''}."
    return f"{moved} If the user asked for them, they can move them back {how + ' ' if how else ''}themselves."


def _programs_finding(
    changed: list[tuple[str, str]], folder: str, shadow: bool, since: str = ""
) -> Finding:
    happened = f"appeared or changed {since}" if since else "were written by this command"
    tail = _moved_tail(changed, folder, shadow, "(a link they replaced is back)")
    return Finding(
        reflex="core",
        code=CODE,
        verdict=Verdict.WARN,
        title="PROGRAM PUT ON THE HOST'S PATH",
        message=(
            f"These programs, in a folder of the host's PATH inside the project, {happened}: "
            f"{', '.join(p for p, _ in changed)}. The host runs them by name outside any "
            "sandbox (git at each session start, the shell, the interpreters of its servers "
            "and hooks). Only the user may put them there. " + tail
        ),
    )


def _links_finding(
    changed: list[tuple[str, str]], folder: str, shadow: bool, since: str = ""
) -> Finding:
    happened = f"were replaced {since}" if since else "were replaced by this command"
    tail = _moved_tail(changed, folder, shadow, "(the links are back)")
    return Finding(
        reflex="core",
        code=CODE,
        verdict=Verdict.WARN,
        title="PROGRAM A HOST RUNS REPLACED",
        message=(
            f"These links, which the hosts' project settings run, {happened}: "
            f"{', '.join(p for p, _ in changed)}. The host runs them outside any sandbox. " + tail
        ),
    )


def _hosts_finding(
    changed: list[tuple[str, str]], folder: str, shadow: bool, since: str = ""
) -> Finding:
    happened = (
        f"appeared or changed {since} (a process a command left running, or someone outside "
        "the agent's commands, wrote them)"
        if since
        else "were written by this command"
    )
    tail = _moved_tail(changed, folder, shadow, how="(or `git checkout -- PATH`)")
    return Finding(
        reflex="core",
        code=CODE,
        verdict=Verdict.WARN,
        title="SETTINGS CREATED BY A COMMAND",
        message=(
            f"These hosts' settings in a folder below the project root {happened}: "
            f"{', '.join(p for p, _ in changed)}. A session started in that folder runs the hooks, "
            "plugins and servers they name outside any sandbox, and Claude Code loads the "
            "skills there once the agent works on files in it (a skill's hooks run the "
            "same way). Only the user may write them. " + tail
        ),
        detail={"paths": [path for path, _ in changed]},
    )


def _key() -> bytes | None:
    """The per-user key the nested repositories' record is signed with (None: not looked at)."""
    from agentreflex.core.state.auth import load_key

    try:
        return load_key()
    except OSError:
        return None


def _env_finding(taken: dotenv.Taken, folder: str, shadow: bool, since: str = "") -> Finding:
    parts = [", ".join(taken.entries)] if taken.entries else []
    parts += [
        f"{link} (a link, or too large to read: moved to {where or 'nowhere: it stayed'})"
        for link, where in taken.moved
    ]
    happened = (
        f"changed {since} (a process a command left running, or someone outside the "
        "agent's commands, changed it)"
        if since
        else "was changed by this command"
    )
    tail = (
        "In enforced mode they would have been taken out."
        if shadow
        else "agentreflex took those entries out and kept the rest of the file. If the user "
        "asked for them, they can add them again themselves."
    )
    return Finding(
        reflex="core",
        code=ENV_CODE,
        verdict=Verdict.WARN,
        title="ENVIRONMENT FILE CHANGED BY A COMMAND",
        message=(
            f"The project's .env {happened}: {'; '.join(parts)}. Gemini CLI reads this file "
            "into its own environment, which the programs it starts outside any sandbox "
            "inherit (hooks, MCP servers), and these variables change what such a program "
            f"runs or where it reads its settings. Only the user may set them. {tail}"
        ),
        detail={"entries": taken.entries, "moved": [link for link, _ in taken.moved]},
    )


def _nested_finding(
    undone: nestedgit.Undone, folder: str, shadow: bool, since: str = ""
) -> Finding:
    parts = []
    if undone.entries:
        parts.append("git settings that can run a program: " + ", ".join(undone.entries))
    if undone.hooks:
        parts.append(
            "hooks (or links git follows, or settings too large to read): "
            + ", ".join(p for p, _ in undone.hooks)
        )
    if undone.pointers:
        parts.append(
            "a .git file or linked worktree leading git to settings or hooks it added: "
            + ", ".join(p for p, _ in undone.pointers)
        )
    if shadow:
        tail = "In enforced mode they would have been taken out."
    else:
        tail = (
            f"agentreflex took the settings out and moved the hooks and pointers to {folder}. "
            "If the user asked for them, they can set them again or move them back themselves."
        )
    return Finding(
        reflex="core",
        code=NESTED_CODE,
        verdict=Verdict.WARN,
        title="GIT SETTINGS CHANGED BY A COMMAND",
        message=(
            (
                f"A repository inside the project changed {since} (a process a command "
                "left running, or someone outside the agent's commands, changed it): "
                if since
                else "This command changed a repository inside the project: "
            )
            + "; ".join(parts)
            + ". What they name runs outside any sandbox the next time git runs there. "
            + tail
        ),
        detail={
            "entries": undone.entries,
            "hooks": [path for path, _ in undone.hooks],
            "pointers": [path for path, _ in undone.pointers],
        },
    )


def _records() -> str:
    """Where the looks are kept: the user's state folder (outside every project, read-only in
    the boundary), the same before and after a command that made a plain folder a project."""
    return os.path.join(userdirs.user_state_dir(), "planted")


def _last_path(event: Event) -> str:
    """The session's look after its last shell command (one per session)."""
    return call_record_path(os.path.join(_records(), "last"), event.session_id, "")


def _pending_path(event: Event) -> str:
    tool = event.tool
    folder = os.path.join(_records(), "pending")
    return call_record_path(folder, event.session_id, tool.tool_use_id if tool else "")


def _write(path: str, value: dict[str, object]) -> None:
    from agentreflex.core.util.fsutil import keep_newest

    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        keep_newest(os.path.dirname(path), MAX_PENDING)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(fastjson.dumps(value))
    except OSError:
        pass  # not looked at after this command: no worse than before


def _take(path: str, remove: bool = True) -> dict[str, object] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            value = fastjson.loads(fh.read())
        if remove:
            os.unlink(path)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None
