"""The recorded history of sessions: every genuine log record of a state dir, in order.

``agentreflex report`` and ``agentreflex export`` read what hooks recorded
(``state.store``): one sealed JSON record per hook call.  A line that fails
its seal (forged, or written under another key) is counted, never shown as a
decision; rotated logs (``.jsonl.3`` .. ``.jsonl.1``) come before the live one.
Every string is redacted again on the way out: the store redacts what it
writes, and a reader must not depend on every writer having done so.
"""

from __future__ import annotations

import contextlib
import json
import os

from agentreflex.core.record import field, record
from agentreflex.core.redact import redact_obj
from agentreflex.core.state.store import KEEP_ROTATED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


@record
class SessionHistory:
    """One session's genuine records, oldest first, with what could not be used."""

    session_id: str
    host: str = ""
    records: list[dict[str, Any]] = field(default_factory=list)
    unverified: int = 0  # lines whose seal did not check (forged, or another key)
    unreadable: int = 0  # lines that were not JSON objects
    key_missing: bool = False  # no key to check seals with: nothing could be verified

    @property
    def first_ts(self) -> float:
        return float(self.records[0].get("ts", 0.0)) if self.records else 0.0


def load_histories(
    state_dir: str,
    session: str = "",
    since: float = 0.0,
    env: Mapping[str, str] | None = None,
) -> list[SessionHistory]:
    """Every session of ``state_dir`` (or only ``session``), records at or after ``since``."""
    folder = os.path.join(state_dir, "sessions")
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".jsonl"))
    except OSError:
        return []
    out: list[SessionHistory] = []
    for name in names:
        base = os.path.join(folder, name[: -len(".jsonl")])
        session_id = _session_id(base) or name[: -len(".jsonl")]
        if session and session not in (session_id, name[: -len(".jsonl")]):
            continue
        history = _read_session(state_dir, base, session_id, env)
        history.records = [r for r in history.records if float(r.get("ts", 0.0)) >= since]
        if history.records or session:
            out.append(history)
    return sorted(out, key=lambda h: h.first_ts)


def _session_id(base: str) -> str:
    """The session's real id, from its snapshot (file names are made filesystem-safe)."""
    with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
        with open(base + ".state.json", "rb") as fh:
            data = json.loads(fh.read())
        return str(data.get("session_id", ""))
    return ""


def _read_session(
    state_dir: str, base: str, session_id: str, env: Mapping[str, str] | None
) -> SessionHistory:
    from agentreflex.core.state.auth import Forged, Sealer, load_key

    history = SessionHistory(session_id=session_id)
    sealer: Sealer | None = None
    try:
        sealer = Sealer(load_key(env, create=False), session_id, state_dir, env)
    except (OSError, ValueError):
        history.key_missing = True
    paths = [f"{base}.jsonl.{i}" for i in range(KEEP_ROTATED, 0, -1)] + [base + ".jsonl"]
    for path in paths:
        for raw in _lines(path):
            rec = _parse(raw)
            if rec is None:
                history.unreadable += 1
                continue
            if sealer is not None:
                try:
                    n = rec.get("n")
                    if type(n) is not int:
                        raise Forged("no sequence number")
                    sealer.check_line(raw, n)
                except Forged:
                    history.unverified += 1
                    continue
            if rec.get("kind") == "ack":
                continue
            clean = redact_obj(rec)
            assert isinstance(clean, dict)
            history.records.append(clean)
    history.host = next((str(r.get("host", "")) for r in history.records if r.get("host")), "")
    return history


def _lines(path: str) -> list[bytes]:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return []
    return [line.rstrip(b"\r") for line in data.split(b"\n") if line.strip()]


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        rec = json.loads(raw)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) and "kind" in rec else None


def decisions(history: SessionHistory) -> list[dict[str, Any]]:
    """The records of ``history`` that carry a decision."""
    return [r for r in history.records if isinstance(r.get("decision"), dict)]
