"""Per-project usage totals: one small JSON file under the state directory.

A session's own usage comes from core's store; a project budget needs the
sum over sessions, which no single session state holds.  Each hook call
publishes its session's latest totals into ``<state_dir>/runaway/project-usage.json``
and reads the sum back.  Entries only grow (values are merged by max), so a
replayed or out-of-order call cannot shrink a total, and the file, not
memory, is the source of truth: a restarted daemon sees the same numbers.

The project total counts sessions active within the window (default 24 h).
Writes are atomic (lock, temp file, fsync, replace) and the file is bounded
to the most recently active sessions.  A corrupt file is moved aside, never
silently overwritten.
"""

from __future__ import annotations

import contextlib
import json
import os

from agentreflex.core.util.fsutil import atomic_write_json, locked
from agentreflex.core.util.record import asdict, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LEDGER_DIR = "runaway"
LEDGER_FILE = "project-usage.json"
MAX_SESSIONS = 200
_VERSION = 1


@record
class Usage:
    """Usage of one session, or the sum over a project's recent sessions."""

    tool_calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    last_at: float = 0.0
    wall_minutes: float = 0.0

    def merged(self, other: Usage) -> Usage:
        """Field-wise max: the later report of the same session never lowers a count."""
        return Usage(
            max(self.tool_calls, other.tool_calls),
            max(self.tokens, other.tokens),
            max(self.cost_usd, other.cost_usd),
            max(self.last_at, other.last_at),
            max(self.wall_minutes, other.wall_minutes),
        )


def ledger_path(state_dir: str) -> str:
    return os.path.join(state_dir, LEDGER_DIR, LEDGER_FILE)


def record_session(
    state_dir: str, session_id: str, usage: Usage, now: float, window_seconds: float
) -> Usage:
    """Publish ``usage`` for ``session_id`` and return the project total within the window."""
    path = ledger_path(state_dir)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with locked(path):
        sessions = _load(path)
        previous = sessions.get(session_id, Usage())
        sessions[session_id] = previous.merged(usage)
        recent = _recent(sessions, now, window_seconds)
        _write(path, recent)
    return _total(recent.values())


def _recent(sessions: dict[str, Usage], now: float, window_seconds: float) -> dict[str, Usage]:
    kept = {
        sid: u
        for sid, u in sessions.items()
        if window_seconds <= 0 or u.last_at >= now - window_seconds
    }
    newest = sorted(kept.items(), key=lambda item: item[1].last_at, reverse=True)[:MAX_SESSIONS]
    return dict(newest)


def _total(usages: Any) -> Usage:
    total = Usage()
    for u in usages:
        total.tool_calls += u.tool_calls
        total.tokens += u.tokens
        total.cost_usd += u.cost_usd
        total.wall_minutes += u.wall_minutes
        total.last_at = max(total.last_at, u.last_at)
    return total


def _load(path: str) -> dict[str, Usage]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        raw = data["sessions"]
        return {str(sid): _usage(entry) for sid, entry in raw.items()}
    except FileNotFoundError:
        return {}
    except (ValueError, KeyError, TypeError, AttributeError):
        _move_aside(path)
        return {}


def _usage(entry: Any) -> Usage:
    return Usage(
        tool_calls=int(entry.get("tool_calls", 0)),
        tokens=int(entry.get("tokens", 0)),
        cost_usd=float(entry.get("cost_usd", 0.0)),
        last_at=float(entry.get("last_at", 0.0)),
        wall_minutes=float(entry.get("wall_minutes", 0.0)),
    )


def _move_aside(path: str) -> None:
    with contextlib.suppress(OSError):
        os.replace(path, path + ".corrupt")


def _write(path: str, sessions: dict[str, Usage]) -> None:
    payload = {"version": _VERSION, "sessions": {sid: asdict(u) for sid, u in sessions.items()}}
    atomic_write_json(path, payload)
