"""Observation and snapshots around one tool call, as the hook pipeline sees it.

Before a tool that may write (a shell command, a file tool, an MCP or unknown
tool) the work tree's fingerprint is kept in the state folder; after it, the
difference is recorded as a ``worktree_changes`` note in the session's
authenticated log, so reflexes read what really changed.  Before a shell,
MCP or unknown tool that the gate flags or that may mutate, a snapshot of the
uncommitted work is taken (deduplicated against the last one) and every
finding says how to undo.  A project that is not a git work tree is not
observed (``doctor`` says so).  Nothing here ever fails a hook: any error
leaves the call unobserved.
"""

from __future__ import annotations

import os
import re

from agentreflex.core.config.settings import Config
from agentreflex.core.decision import Decision, Verdict
from agentreflex.core.events import Event, EventKind, ToolKind
from agentreflex.core.reflex import Note
from agentreflex.core.util import fastjson
from agentreflex.core.util.digest import sha256_hex
from agentreflex.core.util.fsutil import (
    call_record_path,
    file_mark,
    keep_newest,
    remove_if_unchanged,
)
from agentreflex.core.worktree import observe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CHANGES_NOTE = "worktree_changes"
SNAPSHOT_NOTE = "worktree_snapshot"
_QUIET_KINDS = (ToolKind.READ, ToolKind.SEARCH, ToolKind.WEB, ToolKind.SUBAGENT)
_SNAPSHOT_KINDS = (ToolKind.SHELL, ToolKind.MCP, ToolKind.OTHER)


def undo_hint(n: int, left_out: str = "") -> str:
    """What the user is told a snapshot holds; ``left_out``: what it says it does not
    (past the size bound), said in the question itself, never only in the hook's log:
    "saved the uncommitted work" had a user allow a discard of the file left out
    (red-team rt42)."""
    if left_out:
        return (
            f"snapshot {n} holds only part of the uncommitted work ({left_out}): "
            f"undo what it holds with `agentreflex undo {n}`"
        )
    return f"snapshot {n} saved the uncommitted work: undo with `agentreflex undo {n}`"


def _repo_of(event: Event) -> observe.Repo | None:
    """The work tree the call runs in; the session's project's where git can't read one there.

    ``touch w/.git; cd w`` leaves a folder git refuses (an empty ``.git``
    file): the project's uncommitted work around it is what a command from
    there can discard.
    """
    repo = observe.find_repo(event.cwd)
    if repo is not None and event.project and not _related(repo.top, event.project):
        # a work tree outside the session's project, one the agent made (`git init /tmp/x`,
        # or a .git file there naming a linked worktree of the project's own repository)
        repo = None
    if repo is None and event.project and event.project != event.cwd:
        repo = observe.find_repo(event.project)
    return repo


def _related(top: str, project: str) -> bool:
    """Is the work tree ``top`` the session's project, inside it, or around it (a monorepo's
    package opened as the project)?

    Why: the snapshot reads what git lists there, outside the boundary, into the
    repository's own store; a repository the agent made at a folder whose children the
    boundary hides (``/tmp/gemini``, above the IDE's token files) had them read into a
    store it reads back (red-team rt31)."""
    from agentreflex.core.util.fsutil import inside

    top, project = os.path.realpath(top), os.path.realpath(project)
    return inside(top, project) or inside(project, top)


def _pending_path(config: Config, event: Event) -> str:
    tool = event.tool
    folder = os.path.join(config.state_dir, "worktree")
    return call_record_path(folder, event.session_id, tool.tool_use_id if tool else "")


def _skip_dir(repo: observe.Repo, config: Config) -> str:
    rel = os.path.relpath(os.path.realpath(config.state_dir), os.path.realpath(repo.top))
    return "" if rel.startswith("..") else rel


def around_tool(event: Event, decision: Decision, notes: list[Note], config: Config) -> None:
    """The pre- or post-tool half; never raises."""
    if event.tool is None or event.tool.kind in _QUIET_KINDS or not config.state_dir:
        return
    try:
        if event.kind is EventKind.PRE_TOOL and _runs_or_may_run(decision, config):
            _before(event, decision, notes, config)
        elif event.kind in (EventKind.POST_TOOL, EventKind.POST_TOOL_FAILURE):
            _after(event, notes, config)
    except (OSError, ValueError, TypeError) as exc:
        decision.errors.append(f"work tree not observed ({exc})")


def _runs_or_may_run(decision: Decision, config: Config) -> bool:
    """Not blocked, or a block ``[worktree] allow_undoable = "discards"`` may lift."""
    if decision.verdict is not Verdict.BLOCK:
        return True
    if config.worktree_allow_undoable != "discards":
        return False
    from agentreflex.core.worktree import relax

    return relax.may_relax(decision, config.worktree_allow_undoable)


def _before(event: Event, decision: Decision, notes: list[Note], config: Config) -> None:
    repo = _repo_of(event)
    if repo is None:
        if _wants_snapshot(event, decision) and _git_leads_nowhere(event):
            say_nothing_saved(decision, "the project's .git leads to no git folder to keep it in")
        return
    fp = observe.fingerprint(repo, _skip_dir(repo, config))
    n = None
    around: dict[str, Any] = {}
    if _wants_snapshot(event, decision):
        entries = {p: e[0] for p, e in fp.items()} if fp is not None else None
        held = _held(repo) if fp is not None else None
        digest = _digest(repo, fp, held) if fp is not None else ""
        stash = _stash_target(repo, event)
        n = _snapshot(repo, event, decision, notes, config, digest, entries, stash, around, held)
    if fp is None:
        return  # git cannot read the index: no change facts for this call
    path = _pending_path(config, event)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    keep_newest(os.path.dirname(path), MAX_PENDING)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(fastjson.dumps({"top": repo.top, "fp": fp, "snap": n, "outer": around}))


def _git_leads_nowhere(event: Event) -> bool:
    """The project's (or working folder's) ``.git`` is a file or link git reads no
    repository through (``gitdir: /nowhere``, a link leading nowhere): no snapshot can be
    kept, and a question before a discard must say so, never stay silent."""
    for folder in (event.project, event.cwd):
        dot_git = os.path.join(folder, ".git") if folder else ""
        if (
            dot_git
            and os.path.lexists(dot_git)
            and (os.path.islink(dot_git) or not os.path.isdir(dot_git))
        ):
            return True
    return False


MAX_PENDING = 200  # pre-tool fingerprints whose post-tool never came (denied, host crash)


def _wants_snapshot(event: Event, decision: Decision) -> bool:
    """Every shell, MCP or unknown tool: words cannot show a command is read-only.

    ``find -delete``, ``xargs rm`` and a script that deletes files read as
    harmless; a snapshot of an unchanged work tree is the previous one, so
    the cost after the first is the fingerprint already taken.
    """
    call = event.tool
    return call is not None and call.kind in _SNAPSHOT_KINDS


_STASH_DROP = re.compile(r"\bgit\s+stash\s+drop\b((?:\s+[^\s;&|<>()`$]+)*)")


def _stash_target(repo: observe.Repo, event: Event) -> str:
    """The stash commit a ``git stash drop`` in this shell command is about to drop, or "".

    ``git stash drop``, ``-q``/``--quiet``, then ``N`` or ``stash@{N}`` (the
    newest when none is named).  Only the stash's own reflog is read.
    """
    call = event.tool
    if call is None or call.kind is not ToolKind.SHELL or "stash" not in call.command:
        return ""
    m = _STASH_DROP.search(call.command)
    if m is None:
        return ""
    words = [w for w in m.group(1).split() if w not in ("-q", "--quiet")]
    ref = words[0] if words else "stash@{0}"
    if ref.isdigit():
        ref = f"stash@{{{ref}}}"
    if not re.fullmatch(r"stash@\{\d+\}", ref):
        return ""
    res = observe.in_repo(repo, ["rev-parse", "--verify", "-q", "--end-of-options", ref])
    if res is None or res.returncode != 0:
        return ""
    return res.stdout.decode().strip()


def _held(repo: observe.Repo) -> list[str] | None:
    """The submodules and linked work trees inside ``repo`` holding uncommitted work (see
    :func:`.submodules.with_work`); None, without asking any git, in a work tree with
    neither (no ``.gitmodules``, no linked work tree inside): the ordinary one."""
    from agentreflex.core.worktree.submodules import linked_inside, with_work

    if os.path.lexists(os.path.join(repo.top, ".gitmodules")) or linked_inside(repo.top):
        return with_work(repo.top)
    return None


def _digest(repo: observe.Repo, fp: dict[str, observe.Entry], held: list[str] | None = None) -> str:
    """The fingerprint with where HEAD points and the index's stat: same digest, same state.

    ``held``: which submodules or linked work trees inside hold work of their own
    (:func:`_held`).  Their work is in no fingerprint, so a snapshot taken while one was
    clean said "saved" of it later (red-team rt49); with which of them hold work in the
    digest, a snapshot is reused only while that is unchanged, one saying "not saved" of
    each that holds work.  (No snapshot was reused at all there before: every call in a
    repository with a submodule took one, about a quarter more hook time.)"""
    parts: list[object] = [sorted(fp.items()), held]
    for name in ("HEAD", "packed-refs"):
        parts.append(_read(os.path.join(repo.git_dir if name == "HEAD" else repo.common_dir, name)))
    head = str(parts[1])
    if head.startswith("ref: "):
        # git's whitespace, not str.strip()'s (a no-break space is part of a branch's name)
        parts.append(_read(os.path.join(repo.common_dir, head[5:].strip(" \t\r\n"))))
    try:
        st = os.stat(repo.index)
        parts.append([st.st_size, st.st_mtime_ns, st.st_ino])
    except OSError:
        parts.append(None)
    # each listed file's ctime, which no program can set: a same-size edit whose mtime a
    # process put back (``touch -d``) is a new state, not the last snapshot's (red-team rt34)
    parts.append([_ctime(os.path.join(repo.top, p)) for p in observe.checked(sorted(fp))])
    return sha256_hex(fastjson.dumps(parts), 32)


def _ctime(path: str) -> int | None:
    try:
        return os.lstat(path).st_ctime_ns
    except OSError:
        return None


def _read(path: str) -> str:
    """Up to 4 KiB of a regular file, never waiting on a FIFO a command put there (red-team
    rt31: HEAD on a branch whose name Python's strip() shortens to a FIFO's git never reads)."""
    from agentreflex.core.util.fsutil import read_regular

    data = read_regular(path, 4096)
    return data[:4096].decode("utf-8", "replace") if data is not None else ""


def _snapshot(
    repo: observe.Repo,
    event: Event,
    decision: Decision,
    notes: list[Note],
    config: Config,
    digest: str,
    entries: dict[str, str] | None,
    stash: str = "",
    around: dict[str, Any] | None = None,
    held: list[str] | None = None,
) -> int | None:
    """Take (or reuse) the snapshot; its number, or None when none was kept.

    ``around`` is filled with the project's own snapshot, when one is taken from a
    repository nested in it (its top, number and fingerprint before the command)."""
    from agentreflex.core.state.outcome import summarize
    from agentreflex.core.worktree import snapshot  # shutil, only when a snapshot is taken

    assert event.tool is not None
    why = "git could not read the work tree"
    try:
        snap = snapshot.take(
            repo,
            summarize(event.tool),
            event.session_id,
            config.worktree_snapshot_max_bytes,
            fingerprint=digest,
            entries=entries,
            stash=stash,
            since_ns=event.session_started,
            held=held,
        )
        if snap is None and not repo.scratch:
            # git reads the repository but can't list or hash its work (HEAD naming no
            # object, objects gone): the work tree saved through the scratch stand-in
            stand_in = observe.scratch_repo(repo.top)
            if stand_in is not None:
                repo = stand_in
                snap = snapshot.take(
                    repo,
                    summarize(event.tool),
                    event.session_id,
                    config.worktree_snapshot_max_bytes,
                    since_ns=event.session_started,
                )
    except (OSError, ValueError) as exc:  # the store a link, a folder that can't be made
        snap, why = None, f"the snapshot store could not be written: {exc}"
    if snap is None:
        decision.errors.append(f"no snapshot: {why}")
        say_nothing_saved(decision, why)
        return None
    if snap.skipped and not snap.tree:
        decision.errors.append(f"no snapshot: {snap.skipped}")
        say_nothing_saved(decision, snap.skipped)
        return None
    if snap.skipped:  # saved, but not whole: never relied on to allow a discard
        decision.errors.append(f"snapshot {snap.n} is not whole: {snap.skipped}")
    notes.append(Note("core", SNAPSHOT_NOTE, {"n": snap.n, "files": snap.files[:50]}))
    hint = undo_hint(snap.n, snap.skipped)
    outer = _outer_repo(repo, event)
    if outer is not None:
        hint = _both_hints(snap, repo, outer, event, config, around)
    missing = _not_held(repo, event, decision, _skip_dir(repo, config))
    if missing:
        # the snapshot holds the repository's uncommitted work alone: said so, and what the
        # command deletes beside it named, never "the uncommitted work" unqualified
        own = " saved the uncommitted work git lists in the project's own repository:"
        hint = f"{hint.replace(' saved the uncommitted work:', own)}; {missing}"
    if (
        not missing
        and outer is None
        and not snap.skipped
        and not repo.scratch
        and _undoable(repo, event, decision, config, entries, bool(snap.stash))
    ):
        from agentreflex.core.worktree import relax

        relax.relax(decision, hint)
        return snap.n
    for f in decision.findings:
        if f.verdict is not Verdict.ALLOW and hint not in f.message:
            f.message = f"{f.message} ({hint})"
    return snap.n


_WALK_MAX = 2000  # entries looked at under a command's paths for nested checkouts


def _operand_dirs(repo: observe.Repo, event: Event) -> list[str]:
    """The existing paths inside ``repo`` (not its top) the shell command's words name.

    Linear in the command (rt78: a 250 kB command took 2.4 s): each distinct word once,
    the folders on the way resolved once for all (:class:`Realpaths`: a link check and an
    existence check a word), the paths found kept in a dict (in order), and the look's
    deadline checked between words (:func:`observe.checked`), the command read a word at a
    time so that its reading is within the deadline too."""
    call = event.tool
    if call is None or call.kind is not ToolKind.SHELL:
        return []
    from shlex import shlex

    from agentreflex.core.util.fsutil import Realpaths

    words = shlex(call.command, posix=True)  # shlex.split's reading, a word at a time:
    words.whitespace_split, words.commenters = True, ""  # a 10 MB command takes seconds
    resolve = Realpaths()
    top = os.path.realpath(repo.top)
    seen: set[str] = set()
    found: dict[str, None] = {}
    try:
        for word in observe.checked(words):
            if not word or word.startswith("-") or word in seen:
                continue
            seen.add(word)
            path = resolve(os.path.join(event.cwd, word))  # as os.path.realpath resolves it
            inside = path != top and path.startswith(top + os.sep)
            if inside and path not in found and os.path.lexists(path):
                found[path] = None
    except ValueError:  # an unclosed quote: no words, as shlex.split has none
        return []
    return list(found)


def _not_held(repo: observe.Repo, event: Event, decision: Decision, skip: str = "") -> str:
    """What the asked shell command deletes that no snapshot holds, said for the question
    ("" when nothing): git checkouts nested at or under the paths it names (their work
    and unpushed commits), and ignored files there.

    Why: ``rm -rf vendor/lib`` of a repository kept in an ignored folder, with uncommitted
    work, and ``rm -rf src`` of a folder holding an ignored file were asked with "snapshot
    N saved the uncommitted work": true of what git lists in the project's repository,
    not of the nested checkout's work or the ignored file, which no snapshot holds.
    Looked for only when a question is asked (a bounded walk, one git ls-files)."""
    if not any(f.verdict is not Verdict.ALLOW for f in decision.findings):
        return ""
    paths = _operand_dirs(repo, event)
    if not paths:
        return ""
    top = os.path.realpath(repo.top)
    checkouts: list[str] = []
    seen = 0
    for path in paths:
        if not os.path.isdir(path) or os.path.islink(path):
            continue
        for folder, dirs, files in os.walk(path):
            seen += 1 + len(dirs) + len(files)
            if ".git" in dirs or ".git" in files:
                rel = os.path.relpath(folder, top)
                if rel not in checkouts:
                    checkouts.append(rel)
                dirs[:] = []  # its files are its own checkout's
            if seen > _WALK_MAX:
                break
    said: list[str] = []
    if checkouts:
        said.append(
            f"not saved: the nested git checkout {_named(checkouts)}: its uncommitted work "
            "and its unpushed commits are in no snapshot (`agentreflex undo` cannot bring "
            "them back)"
        )
    listed = observe.ignored_under(repo, [os.path.relpath(p, top) for p in paths]) or []
    ignored = [
        p for p in listed if p.rstrip("/") not in checkouts and not (skip and p.rstrip("/") == skip)
    ]
    if ignored:
        said.append(
            f"not saved: ignored files it deletes ({_named(ignored)}): no snapshot holds "
            "ignored files"
        )
    return "; ".join(said)


def _named(paths: list[str]) -> str:
    return ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def _outer_repo(repo: observe.Repo, event: Event) -> observe.Repo | None:
    """The project's own repository when ``repo`` (the working folder's) is one nested in it.

    Why: a command run in a repository nested in the project (``vendor/lib``, cloned or
    made there) reaches the project's files as easily (``rm -rf ../../src``); the snapshot
    of the nested repository alone held none of the project's work, and the question
    said "saved the uncommitted work" (red-team rt49)."""
    if not event.project:
        return None
    from agentreflex.core.util.fsutil import inside

    top = os.path.realpath(repo.top)
    if inside(os.path.realpath(event.project), top):
        # the project at or below this work tree (the ordinary call: the command runs in
        # the project's own repository): the repository git finds for the project is this
        # one or one inside it, never one around it; asking git again cost every snapshot
        # two more git processes
        return None
    outer = observe.find_repo(event.project)
    if outer is None:
        return None
    around = os.path.realpath(outer.top)
    return outer if top != around and inside(top, around) else None


def _both_hints(
    snap: Any,
    repo: observe.Repo,
    outer: observe.Repo,
    event: Event,
    config: Config,
    around: dict[str, Any] | None = None,
) -> str:
    """The undo hints of the nested repository's snapshot and of the project's, each with
    the folder it is undone from (each repository keeps its own numbers).

    ``around``: the project's snapshot and fingerprint, so the post-tool hook records
    what the command left in the project's files (without it, undo of a file the command
    rewrote took it for newer work and wanted --force)."""
    from shlex import quote

    from agentreflex.core.state.outcome import summarize
    from agentreflex.core.worktree import snapshot

    assert event.tool is not None
    try:
        whole = snapshot.take(
            outer,
            summarize(event.tool),
            event.session_id,
            config.worktree_snapshot_max_bytes,
            since_ns=event.session_started,
        )
    except (OSError, ValueError):
        whole = None
    inner = undo_hint(snap.n, snap.skipped).replace(
        f"undo {snap.n}`", f"undo {snap.n} --cwd {quote(repo.top)}`"
    )
    if whole is None or not whole.tree:
        return (
            f"{inner}; no snapshot of the project's own work at {outer.top} was taken: "
            f"nothing of it is saved"
        )
    if around is not None:
        fp = observe.fingerprint(outer, _skip_dir(outer, config))
        if fp is not None:
            around.update(top=outer.top, snap=whole.n, fp=fp)
    outer_hint = undo_hint(whole.n, whole.skipped).replace(
        f"undo {whole.n}`", f"undo {whole.n} --cwd {quote(outer.top)}`"
    )
    return f"{inner}; the project's own work: {outer_hint}"


def _record_outer(
    repo: observe.Repo, event: Event, config: Config, pending: dict[str, Any]
) -> None:
    """What the command run in ``repo``, nested in the project, left in the project's own
    files, recorded with the project's snapshot taken before it, as for the nested one's."""
    outer = _outer_repo(repo, event)
    n, fp = pending.get("snap"), pending.get("fp")
    if outer is None or outer.top != pending.get("top") or not isinstance(n, int):
        return
    if not isinstance(fp, dict):
        return
    after = observe.fingerprint(outer, _skip_dir(outer, config), full=True)
    if after is None:
        return
    changes = observe.diff(_entries(fp), after)
    if changes.created or changes.modified:
        from agentreflex.core.worktree import snapshot

        snapshot.record_after(outer, n, changes.created + changes.modified)


def _entries(fp: dict[str, Any]) -> dict[str, observe.Entry]:
    """A fingerprint as the pending record holds it (JSON lists) back as entries."""
    return {
        p: (e[0], (e[1][0], e[1][1], e[1][2], e[1][3]) if e[1] else None) for p, e in fp.items()
    }


def say_nothing_saved(decision: Decision, why: str) -> None:
    """The question before a discard says no snapshot holds the work: never silence, which
    a user who saw "saved" before takes for the same (red-team rt49)."""
    said = f"no snapshot was taken ({why}): nothing of the uncommitted work is saved"
    for f in decision.findings:
        if f.verdict is not Verdict.ALLOW and said not in f.message:
            f.message = f"{f.message} ({said})"


def _undoable(
    repo: observe.Repo,
    event: Event,
    decision: Decision,
    config: Config,
    entries: dict[str, str] | None,
    stash_saved: bool = False,
) -> bool:
    """May this asked (or blocked) discard run, the snapshot just taken holding all it destroys?

    ``stash_saved``: the snapshot holds the stash a ``git stash drop`` drops
    (the work tree itself is not touched by it).
    """
    level = config.worktree_allow_undoable
    if level == "off" or decision.proposed.rank < Verdict.ASK_USER.rank:
        return False
    from agentreflex.core.worktree import relax

    call = event.tool
    return (
        call is not None
        and call.kind is ToolKind.SHELL
        and relax.may_relax(decision, level)
        and (
            stash_saved  # a stash drop: the stash is what it destroys
            if relax.is_stash_drop(call.command)
            else relax.snapshot_complete(entries, repo, relax.is_merge_abort(call.command))
        )
        and relax.command_confined(call.command, event.cwd, repo)
    )


def _after(event: Event, notes: list[Note], config: Config) -> None:
    path = _pending_path(config, event)
    # read, and removed only once the look is done: a daemon stopped inside it leaves the
    # record to the hook process that answers in its place (red-team rt33)
    mark = file_mark(path)
    try:
        with open(path, encoding="utf-8") as fh:
            pending = fastjson.loads(fh.read())
    except (OSError, ValueError):
        return  # no pre-tool fingerprint: nothing to compare with
    if not isinstance(pending, dict):
        remove_if_unchanged(path, mark)
        return
    try:
        _compare(event, notes, config, pending)
    finally:
        remove_if_unchanged(path, mark)


def _compare(event: Event, notes: list[Note], config: Config, pending: dict[str, Any]) -> None:
    """The changes since the look before the tool, noted and recorded for undo."""
    repo = _repo_of(event)
    if repo is None or repo.top != pending.get("top"):
        return
    # after code the agent ran, git's whole status: a write through a hard link or a
    # shared mmap is reported by no watch the daemon keeps (red-team rt33)
    ran_code = event.tool is not None and event.tool.kind in _SNAPSHOT_KINDS
    after = observe.fingerprint(repo, _skip_dir(repo, config), full=ran_code)
    if after is None:
        return
    changes = observe.diff(_entries(pending["fp"]), after)
    n = pending.get("snap")
    if isinstance(n, int) and (changes.created or changes.modified):
        from agentreflex.core.worktree import snapshot

        snapshot.record_after(repo, n, changes.created + changes.modified)
    outer = pending.get("outer")
    if isinstance(outer, dict) and outer:
        _record_outer(repo, event, config, outer)
    tool = event.tool
    value = {"tool": tool.tool_use_id if tool else "", **changes.to_json()}
    notes.append(Note("core", CHANGES_NOTE, value))
