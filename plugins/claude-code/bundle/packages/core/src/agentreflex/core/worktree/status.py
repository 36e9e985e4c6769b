"""One line for ``doctor``: is this project's work tree observed, and how."""

from __future__ import annotations

from agentreflex.core.worktree import observe, snapshot

_RELAXED = {
    "off": "discards ask or block as the reflexes decided",
    "asks": "an in-project discard that asks runs when a snapshot holds it all",
    "discards": "an in-project discard that asks or is blocked runs when a snapshot holds it all",
}


def worktree_line(cwd: str, enabled: bool, allow_undoable: str = "off") -> str:
    """What observation and undo do here: git-backed, off by config, or off (not git)."""
    if not enabled:
        return "not observed ([worktree] observe = false): no change facts, no snapshots"
    repo = observe.find_repo(cwd)
    if repo is None:
        return (
            "off: not a git work tree (or a bare repository); no change facts and no "
            "snapshots here (observation outside git is off, not a scan)"
        )
    kept = snapshot.listing(repo)
    if repo.scratch:
        return (
            f"git cannot read this repository ({repo.top}/.git: its HEAD, refs or objects "
            f"are damaged; `git status` says how): each snapshot saves the whole work tree "
            f"through a scratch git folder of agentreflex's own; {len(kept)} snapshot(s) "
            f"kept (`agentreflex undo` lists them)"
        )
    return (
        f"observed through git at {repo.top}; {len(kept)} snapshot(s) kept in "
        f"{snapshot.store_dir(repo)} (`agentreflex undo` lists them); allow_undoable = "
        f"{allow_undoable}: {_RELAXED.get(allow_undoable, _RELAXED['off'])}"
    )
