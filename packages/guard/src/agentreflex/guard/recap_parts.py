"""The guard's parts of the session recap: what it holds open for this session.

Declared as ``recap`` in the guard's plugin: the context layer gathers every
package's parts through core (:func:`agentreflex.core.recap.declared_parts`)
and never reads agentreflex's own files.  This reads the guard's snapshot of the
most recently active session (``<state_dir>/local/reason_guard.json``, schema
3.0).  A recap is shown to the agent, never trusted for a decision: a
missing, oversized, malformed or foreign-session file contributes nothing.
"""

from __future__ import annotations

import os

from agentreflex.core.util import fastjson
from agentreflex.guard.files import SNAPSHOT, local_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


OBLIGATIONS = "Open Reasoning Guard obligations"
FINDINGS = "Guard findings"
MAX_BYTES = 4 * 1024 * 1024
_CLOSED = ("RESOLVED", "DEFERRED")


def read_report(state_dir: str, session_id: str) -> dict[str, Any] | None:
    """The guard's report for ``session_id``, or None (absent, unreadable, another session)."""
    if not state_dir:
        return None
    path = os.path.join(local_dir(state_dir), SNAPSHOT)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            return None
        report = fastjson.loads(data.decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(report, dict):
        return None
    session = report.get("session")
    if not isinstance(session, dict) or session.get("id") != session_id:
        return None
    return report


def open_obligations(report: dict[str, Any] | None) -> list[str]:
    """``name (STATE)`` of every obligation not resolved or deferred."""
    out: list[str] = []
    for ob in _items(report, "obligations"):
        state = ob.get("state")
        if isinstance(ob.get("name"), str) and state not in _CLOSED:
            out.append(f"{ob['name']} ({state})")
    return out


def active_findings(report: dict[str, Any] | None) -> list[str]:
    """``CODE: message`` of every active guard finding."""
    out: list[str] = []
    for f in _items(report, "findings"):
        if f.get("active") is True and isinstance(f.get("code"), str):
            out.append(f"{f['code']}: {f.get('message', '')}")
    return out


def _items(report: dict[str, Any] | None, key: str) -> list[dict[str, Any]]:
    items = report.get(key) if isinstance(report, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def recap_parts(state_dir: str, session_id: str) -> list[tuple[str, list[str], bool]]:
    """Entry point ``recap``: open obligations (kept to the last) and active findings."""
    report = read_report(state_dir, session_id)
    return [
        (OBLIGATIONS, open_obligations(report), True),
        (FINDINGS, active_findings(report), False),
    ]
