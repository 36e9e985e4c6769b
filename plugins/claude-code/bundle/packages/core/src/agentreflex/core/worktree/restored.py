"""What ``agentreflex undo N`` put back, kept beside the snapshot it came from.

Each restore appends one entry (when, which files, which could not be
written) to ``restored.json`` in the snapshot's own folder, so the listing
and the HTML report can say a snapshot was undone.  The file is rewritten
atomically (temporary file, fsync, rename); one that cannot be read is moved
aside, never overwritten, and nothing else in the snapshot's folder is touched.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from agentreflex.core.util import fastjson
from agentreflex.core.util.fsutil import atomic_write_bytes
from agentreflex.core.worktree.observe import Repo
from agentreflex.core.worktree.snapshot import store_dir

FILE = "restored.json"
MAX_PATHS = 200  # per entry: the listing and the report show a few


def _path(repo: Repo, n: int) -> str:
    return os.path.join(store_dir(repo), str(n), FILE)


def read(repo: Repo, n: int) -> list[dict[str, Any]]:
    """Every restore of snapshot ``n``, oldest first (empty when never undone or unreadable)."""
    from agentreflex.core.util.fsutil import read_json

    data = read_json(_path(repo, n), 64 << 20)  # no FIFO's open (red-team rt31)
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []


def record(repo: Repo, n: int, paths: list[str], failed: list[str]) -> None:
    """Append this restore to snapshot ``n``'s record; a missing snapshot folder is left alone."""
    path = _path(repo, n)
    if not os.path.isdir(os.path.dirname(path)):
        return
    entries = read(repo, n)
    if not entries and os.path.exists(path):
        os.replace(path, f"{path}.unreadable-{int(time.time())}")  # keep what we cannot parse
    entries.append(
        {
            "ts": round(time.time(), 3),
            "paths": sorted(p for p in paths if p not in failed)[:MAX_PATHS],
            "failed": sorted(failed)[:MAX_PATHS],
        }
    )
    atomic_write_bytes(path, fastjson.dumps(entries).encode("utf-8"))


def describe(entry: dict[str, Any], when: Callable[[float], str]) -> str:
    """``undone <time>: N file(s)`` for one entry, whatever a forged file holds."""
    paths, ts = entry.get("paths"), entry.get("ts")
    count = len(paths) if isinstance(paths, list) else 0
    stamp = when(float(ts)) if isinstance(ts, int | float) and not isinstance(ts, bool) else "?"
    return f"undone {stamp}: {count} file(s)"
