"""``agentreflex undo``: list the snapshots, or restore one (all of it, or some paths)."""

from __future__ import annotations

import argparse
import os
import sys
import time

from agentreflex.core.worktree import restore, restored
from agentreflex.core.worktree.observe import Repo, find_repo
from agentreflex.core.worktree.snapshot import Snapshot, listing


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="agentreflex undo", description="list snapshots taken before discards, or restore one"
    )
    p.add_argument(
        "n",
        nargs="?",
        help="the snapshot to restore; a path instead: each path from the newest snapshot "
        "that holds it otherwise than it is now",
    )
    p.add_argument("paths", nargs="*", help="restore only these paths (default: every file)")
    p.add_argument("--dry-run", action="store_true", help="show the diff, change nothing")
    p.add_argument("--force", action="store_true", help="also overwrite newer work")
    p.add_argument("--cwd", default=os.getcwd())
    return p


def _shown(text: str, keep: str = "") -> str:
    """``text`` with what a terminal would act on escaped: control characters (ESC, BEL,
    a newline, except those in ``keep``), bidirectional and other format marks, and the
    bytes of a name that is not UTF-8 (``\\xff``).

    Why: names and commands here are the agent's to choose; printed as they were, a
    name holding ``\\x1b[2J`` cleared the user's screen, one not UTF-8 ended the
    listing in a traceback (red-team rt42)."""

    def one(c: str) -> str:
        if c.isprintable() or c in keep:
            return c
        code = ord(c)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            return f"\\x{code - 0xDC00:02x}"
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return "".join(map(one, text))


def _say(text: str, err: bool = False, keep: str = "") -> None:
    print(_shown(text, keep), file=sys.stderr if err else sys.stdout)


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def _show(repo: Repo, snaps: list[Snapshot]) -> int:
    if not snaps:
        _say("no snapshots for this repository")
        return 0
    for s in snaps:
        what = f"skipped: {s.skipped}" if s.skipped else f"{len(s.files)} changed file(s)"
        if s.skipped and s.tree:  # saved but for what was over the size bound
            what = f"{len(s.files)} changed file(s); {s.skipped}"
        if s.stash and s.tree:
            what += f", with stash {s.stash[:12]} saved before it was dropped"
        if not s.taken_in(repo):
            what += f"; taken in the work tree {s.top}: restore it from there"
        _say(f"{s.n:>4}  {_when(s.ts)}  {s.command[:80]}  ({what})")
        for f in s.files[:10]:
            _say(f"        {f}")
        for r in restored.read(repo, s.n):
            _say(f"        {restored.describe(r, _when)}")
    _say("restore with `agentreflex undo N [PATH...]` (--dry-run shows the diff)")
    return 0


def _relative(repo: Repo, cwd: str, paths: list[str]) -> list[str]:
    """``paths`` as the user named them from ``cwd``, relative to the work tree's top.

    From the folder's real path: a project reached through a link (``~/proj ->
    /data/proj``) had every path start with ``../`` and match nothing (red-team rt42).
    A link inside the work tree is git's to keep as a link: only an absolute path that
    does not lead into the top as written has its folder resolved."""
    top, base = os.path.realpath(repo.top), os.path.realpath(cwd)
    out: list[str] = []
    for p in paths:
        full = os.path.normpath(os.path.join(base, p))
        rel = os.path.relpath(full, top)
        if rel == ".." or rel.startswith(".." + os.sep):
            folder, name = os.path.split(full)
            rel = os.path.relpath(os.path.join(os.path.realpath(folder), name), top)
        out.append(rel)
    return out


def _outside(rel: str) -> bool:
    return rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel)


def main(argv: list[str]) -> int:
    ns = _parser().parse_args(argv)
    repo = find_repo(os.path.abspath(ns.cwd))
    if repo is None:
        _say("agentreflex undo: not inside a git work tree (no snapshots)", err=True)
        return 2
    snaps = listing(repo)
    if ns.n is None:
        return _show(repo, snaps)
    by_path = not ns.n.isdigit()
    named = [ns.n, *ns.paths] if by_path else ns.paths
    rels = _relative(repo, ns.cwd, named)
    away = [n for n, r in zip(named, rels, strict=True) if _outside(r)]
    for name in away:
        _say(f"outside the work tree {repo.top}, never written: {name}", err=True)
    rels = [r for r in rels if not _outside(r)]
    if named and not rels:
        return 2  # never an empty list, which would mean every file
    if by_path:
        return _by_path(repo, snaps, rels, ns) or (1 if away else 0)
    snap = next((s for s in snaps if s.n == int(ns.n)), None)
    if snap is None or not snap.tree:
        why = snap.skipped if snap else "no such snapshot"
        _say(f"agentreflex undo: snapshot {ns.n}: {why}", err=True)
        return 2
    return _restore(repo, snap, rels, ns) or (1 if away else 0)


def _by_path(repo: Repo, snaps: list[Snapshot], rels: list[str], ns: argparse.Namespace) -> int:
    """Each of ``rels`` from the newest snapshot taken here that holds it otherwise than
    the work tree now does (a snapshot holding it as it is now is passed over: the
    version before the change is the one wanted)."""
    left, code = list(rels), 0
    for snap in reversed(snaps):
        if not left:
            break
        if not snap.tree or not snap.taken_in(repo):
            continue
        plan = restore.plan(repo, snap, left, ns.force)
        if plan.unreadable:
            continue
        other = plan.write + plan.newer + plan.lone + plan.held + plan.linked + plan.outside
        take = [o for o in left if any(restore.wanted(p, [o]) for p in other)]
        if not take:
            continue
        _say(f"from snapshot {snap.n} ({_when(snap.ts)}, before {snap.command[:60]}):")
        code = max(code, _restore(repo, snap, take, ns))
        left = [o for o in left if o not in take]
    for path in left:
        _say(f"no snapshot holds {path} otherwise than it is now: nothing restored", err=True)
    return 1 if left else code


def _restore(repo: Repo, snap: Snapshot, rels: list[str], ns: argparse.Namespace) -> int:
    if not snap.taken_in(repo):
        # a repository's linked work trees share the store: another's snapshot written
        # here would turn this work tree's files into that one's (red-team rt42)
        _say(
            f"agentreflex undo: snapshot {snap.n} was taken in another work tree of this "
            f"repository, {snap.top}: run `agentreflex undo {snap.n}` there; nothing restored",
            err=True,
        )
        return 2
    plan = restore.plan(repo, snap, rels, ns.force)
    if plan.unreadable:
        _say(
            f"agentreflex undo: snapshot {snap.n} cannot be read (its objects are missing or "
            f"damaged): nothing restored",
            err=True,
        )
        return 2
    for path in plan.missing:
        _say(f"not in snapshot {snap.n}, nothing to restore: {path}", err=True)
    for path in plan.newer:
        _say(f"newer work, not overwritten (use --force): {path}", err=True)
    for path in plan.lone:
        _say(
            f"not overwritten (use --force): {path}: HEAD or the index names its bytes, "
            f"but no git object holds them, so they would be lost",
            err=True,
        )
    for path in plan.outside:
        _say(f"not a work-tree file, never written: {path}", err=True)
    for path in plan.linked:
        link = restore._link_on_the_way(repo.top, path)
        _say(
            f"never written: {path}: its folder {link} is a link now; remove the link "
            f"(it is not your work: check it first) and run the undo again",
            err=True,
        )
    for path in plan.held:
        _say(
            f"held by the boundary (agentreflex's or a host's settings, or what they run), "
            f"never written by undo: {path}; compare it with `git diff` and restore it yourself",
            err=True,
        )
    if ns.dry_run:
        sys.stdout.write(_shown(restore.show_diff(repo, snap, plan.write), keep="\n\t"))
        _say(f"would restore {len(plan.write)} file(s); {len(plan.same)} already match")
        return 1 if plan.missing else 0
    failed = restore.apply(repo, snap, plan.write)
    if plan.write:
        try:
            restored.record(repo, snap.n, plan.write, failed)
        except OSError as exc:  # the files are back; only the record of it is missing
            _say(f"agentreflex undo: could not record the restore ({exc})", err=True)
    for path in failed:
        blocker = restore.file_on_the_way(repo.top, path)
        why = f": {blocker} is a file now; move it away and run the undo again" if blocker else ""
        _say(f"could not restore: {path}{why}", err=True)
    _say(f"restored {len(plan.write) - len(failed)} file(s) from snapshot {snap.n}")
    refused = plan.newer or plan.lone or plan.outside or plan.held or plan.missing or plan.linked
    return 1 if failed or refused else 0
