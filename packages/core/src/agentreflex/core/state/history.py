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

from agentreflex.core.redaction.redact import redact_obj
from agentreflex.core.state.store import KEEP_ROTATED
from agentreflex.core.util.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from agentreflex.core.state.auth import Sealer


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


def _sealer(state_dir: str, session_id: str, env: Mapping[str, str] | None) -> Sealer | None:
    """The session's seal checker; None when the per-user key cannot be read."""
    from agentreflex.core.state.auth import Sealer, load_key

    try:
        return Sealer(load_key(env, create=False), session_id, state_dir, env)
    except (OSError, ValueError):
        return None


def _genuine(raw: bytes, rec: dict[str, Any], sealer: Sealer | None) -> bool:
    """Does the line carry a sequence number and a seal that checks (any line, without a key)?"""
    from agentreflex.core.state.auth import Forged

    if sealer is None:
        return True
    n = rec.get("n")
    try:
        if type(n) is not int:
            raise Forged("no sequence number")
        sealer.check_line(raw, n)
    except Forged:
        return False
    return True


def _read_session(
    state_dir: str, base: str, session_id: str, env: Mapping[str, str] | None
) -> SessionHistory:
    history = SessionHistory(session_id=session_id)
    sealer = _sealer(state_dir, session_id, env)
    history.key_missing = sealer is None
    paths = [f"{base}.jsonl.{i}" for i in range(KEEP_ROTATED, 0, -1)] + [base + ".jsonl"]
    for path in paths:
        for raw in _lines(path):
            rec = _parse(raw)
            if rec is None:
                history.unreadable += 1
                continue
            if not _genuine(raw, rec, sealer):
                history.unverified += 1
                continue
            if rec.get("kind") == "ack":
                continue
            clean = redact_obj(rec)
            assert isinstance(clean, dict)
            history.records.append(clean)
    history.host = next((str(r.get("host", "")) for r in history.records if r.get("host")), "")
    return history


@record
class Tail:
    """Where a reader of one live session log stands: bytes read and the last record number."""

    offset: int = -1  # -1: not started (begin with the log's last record)
    last_n: int = 0


TAIL_WINDOW = 128 * 1024  # more than one record (the store bounds a record to 64 KiB)


def read_new(
    state_dir: str, session_id: str, tail: Tail, env: Mapping[str, str] | None = None
) -> list[dict[str, Any]] | None:
    """The genuine records appended to a session's log since ``tail`` (which it advances);
    None when the log cannot be read.

    A new ``tail`` starts at the log's last complete record.  A log shorter
    than the offset was rotated: it is read again from its start, and record
    numbers keep anything from being sent twice.  A torn last line waits.
    """
    from agentreflex.core.state.store import SessionStore

    path = SessionStore(state_dir, session_id).log_path
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            start = tail.offset if 0 <= tail.offset <= size else 0
            if tail.offset < 0:
                start = max(0, size - TAIL_WINDOW)
            fh.seek(start)
            chunk = fh.read(size - start)
    except OSError:
        return None
    end = chunk.rfind(b"\n")
    if end < 0:
        return []
    lines = chunk[: end + 1].splitlines()
    if tail.offset < 0:
        lines = lines[-1:]
    tail.offset = start + end + 1
    sealer = _sealer(state_dir, session_id, env)
    out: list[dict[str, Any]] = []
    for raw in lines:
        rec = _parse(raw.rstrip(b"\r"))
        if rec is None or not _genuine(raw.rstrip(b"\r"), rec, sealer):
            continue
        n = rec.get("n")
        if isinstance(n, int):
            if n <= tail.last_n:
                continue
            tail.last_n = n
        if rec.get("kind") != "ack":
            clean = redact_obj(rec)
            assert isinstance(clean, dict)
            out.append(clean)
    return out


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
