"""Per-host ledgers under ``<state_dir>/local/`` and the compatibility snapshot.

Each host has a schema-1 envelope (``claude_reasoning_guard.json``,
``codex_reasoning_guard.json``, ``opencode_reasoning_guard.json``...) holding
at most 20 schema 3.0 session reports; a new session gets its own record and
the oldest is dropped only past the bound.  ``reason_guard.json`` is the
report of the most recently active session, kept for older status readers;
a legacy 1.0/2.0 snapshot found there is migrated into its host's ledger.

Every read-modify-write runs under one repository-local lock and each file
is replaced atomically.  A malformed, future or unsafe file is moved aside
(``*.corrupt``) and replaced by a fresh ledger: the caller learns the reason
so it can record a diagnostic and, in ``on`` mode, fail closed.

An event changes one session, so a write serialises that session only: the
others are written back as the bytes they were read as (this module writes
compact JSON with sorted keys, so those bytes are what serialising them
again would give; a compact file written otherwise keeps its own spelling of
the same values), and the changed report is serialised once for the ledger
and the snapshot. With 20 sessions of a host in the ledger this saves a hook
call milliseconds.
"""

from __future__ import annotations

import contextlib
import os

from agentreflex.core.state.auth import FileSeal, load_key
from agentreflex.core.util import fastjson
from agentreflex.core.util.fsutil import atomic_write_bytes, locked
from agentreflex.core.util.record import field, record
from agentreflex.guard import bounds as B
from agentreflex.guard.files import IGNORE, SNAPSHOT, ledger_path, local_dir, provider_of
from agentreflex.guard.report import diagnose, finalize, new_report
from agentreflex.guard.schema import LEGACY, check_report, migrate, version_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from agentreflex.guard.report import Report

    T = TypeVar("T")

__all__ = [  # the file names and provider_of live in files.py; re-exported for callers
    "LEDGER_SCHEMA",
    "SNAPSHOT",
    "Ledger",
    "ledger_path",
    "load_ledger",
    "local_dir",
    "parse_ledger",
    "provider_of",
    "read_json",
    "read_ledgers",
    "set_aside",
    "update",
]
LEDGER_SCHEMA = 1


@record
class Ledger:
    host: str
    active_session: str = ""
    updated_at: float = 0.0
    sessions: list[Report] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # The file as read, and for each session read unchanged, its id() -> (the
    # session, where its JSON starts and ends in the file): _store copies those
    # bytes rather than serialising it again. Holding the session keeps its id.
    read: bytes = field(default=b"", repr=False)
    spans: dict[int, tuple[Report, int, int]] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": LEDGER_SCHEMA,
            "host": self.host,
            "active_session": self.active_session,
            "updated_at": self.updated_at,
            "sessions": self.sessions,
        }

    def session(self, session_id: str) -> Report | None:
        return next((r for r in self.sessions if r["session"]["id"] == session_id), None)


def read_json(path: str) -> tuple[Any, str | None]:
    """Parse a bounded JSON file: (value, None), (None, None) if absent, or (None, reason)."""
    data, problem = _read_bytes(path)
    return (None, problem) if data is None else _parse(path, data)


def _read_bytes(path: str) -> tuple[bytes | None, str | None]:
    """A bounded file's bytes: (bytes, None), (None, None) if absent, or (None, reason)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(B.MAX_REPORT_BYTES + 1)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot read {os.path.basename(path)}: {exc.strerror}"
    if len(data) > B.MAX_REPORT_BYTES:
        return None, f"{os.path.basename(path)} exceeds {B.MAX_REPORT_BYTES} bytes"
    return data, None


def _parse(path: str, data: bytes) -> tuple[Any, str | None]:
    try:
        return fastjson.loads(data.decode("utf-8")), None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, f"{os.path.basename(path)} is not valid JSON ({type(exc).__name__})"


# json.loads's own scanner: (value, end) of the JSON value that starts at an index
_SCAN = fastjson.scan


def _walk_compact(data: bytes) -> tuple[dict[str, Any], list[tuple[int, int]]] | None:
    """``json.loads`` of a compact envelope, and where each of its sessions starts and ends.

    Only the layout :func:`_store` writes is walked: ASCII (so a character is
    a byte), an object without whitespace between its members, keys unique,
    ``sessions`` a list. Each value is parsed by json's own scanner, so the
    object is the one ``json.loads`` returns; on anything else this returns
    None and the caller parses the whole file with ``json.loads`` (which also
    words any error).
    """
    if not data.startswith(b"{") or not data.isascii():
        return None
    text = data.decode("ascii")
    obj: dict[str, Any] = {}
    spans: list[tuple[int, int]] = []
    i = 1
    try:
        while text[i] == '"':
            key, i = _SCAN(text, i)
            if key in obj or text[i] != ":":
                return None
            i += 1
            if key == "sessions" and text[i] == "[":
                obj[key], spans, i = _walk_list(text, i + 1)
            else:
                obj[key], i = _SCAN(text, i)
            if text[i] == ",":
                i += 1
            elif text[i] == "}" and i + 1 == len(text):
                return obj, spans
            else:
                return None
    except (StopIteration, IndexError, ValueError, RecursionError):
        return None
    return None


def _walk_list(text: str, i: int) -> tuple[list[Any], list[tuple[int, int]], int]:
    """The compact JSON list whose first item starts at ``i``, its items' spans, its end."""
    items: list[Any] = []
    spans: list[tuple[int, int]] = []
    if text[i] == "]":
        return items, spans, i + 1
    while True:
        start = i
        item, i = _SCAN(text, i)
        items.append(item)
        spans.append((start, i))
        if text[i] == "]":
            return items, spans, i + 1
        if text[i] != ",":
            raise ValueError("not a compact list")
        i += 1


def parse_ledger(obj: Any, host: str, now: float) -> Ledger:
    """Validate an envelope; sessions in 1.0/2.0 are migrated, bad ones raise ValueError."""
    if not isinstance(obj, dict) or obj.get("schema") != LEDGER_SCHEMA:
        schema = obj.get("schema") if isinstance(obj, dict) else None
        raise ValueError(f"ledger schema {schema!r} is not {LEDGER_SCHEMA}")
    sessions = obj.get("sessions")
    if not isinstance(sessions, list) or len(sessions) > B.MAX_SESSIONS_PER_HOST:
        raise ValueError("ledger sessions are not a bounded list")
    ledger = Ledger(host=host)
    active = obj.get("active_session")
    ledger.active_session = active if isinstance(active, str) else ""
    for item in sessions:
        if version_of(item) in LEGACY:
            item = migrate(item, host, now)
        problem = check_report(item)
        if problem:
            raise ValueError(problem)
        ledger.sessions.append(item)
    return ledger


def _seal(path: str) -> FileSeal | None:
    """The ledger's seal outside the project, or None when the per-user key is unusable.

    Without a key nothing can be checked here; core's session store reports
    that (CORE-STATE-KEY) and fails the stop closed.
    """
    try:
        return FileSeal(load_key(), "guard-ledger", path)
    except OSError:
        return None


def load_ledger(path: str, host: str, now: float) -> Ledger:
    """Load a ledger; on any problem set the file aside and start fresh (reason kept).

    A ledger that does not match the seal agentreflex keeps outside the
    project (edited, replaced or deleted by something else: an obligation
    cleared by hand) is a problem too: set aside, and the caller fails
    closed once in ``on`` mode.
    """
    data, problem = _read_bytes(path)
    seal = _seal(path)
    tampered = seal.problem(data) if seal is not None and problem is None else ""
    if tampered:
        problem = f"{os.path.basename(path)}: {tampered} (GUARD-LEDGER-TAMPERED)"
        if data is None:
            return Ledger(host=host, problems=[problem])
        data = None
    if data is not None:
        walked = _walk_compact(data)
        obj, problem = (walked[0], None) if walked is not None else _parse(path, data)
        if problem is None:
            try:
                ledger = parse_ledger(obj, host, now)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                problem = f"{os.path.basename(path)}: {exc}"
            else:
                if walked is not None:  # where each session was read, unless it was migrated
                    kept = {id(item) for item in ledger.sessions}
                    read = zip(obj["sessions"], walked[1], strict=True)
                    ledger.spans = {id(s): (s, a, b) for s, (a, b) in read if id(s) in kept}
                    ledger.read = data
                return ledger
    elif problem is None:
        return Ledger(host=host)
    set_aside(path)
    return Ledger(host=host, problems=[problem])


def set_aside(path: str) -> None:
    """Keep the unreadable file for review instead of deleting it."""
    with contextlib.suppress(OSError):
        os.replace(path, path + ".corrupt")


def update(
    state_dir: str,
    host: str,
    session_id: str,
    now: float,
    work: Callable[[Report, list[str]], T],
    stored: Callable[[Report], None] | None = None,
) -> T:
    """Locked read-modify-write of one session report.

    ``work`` receives the report and the recovery reasons (empty normally)
    and mutates the report in place; the ledger and snapshot are then written.
    ``stored`` is then called with the report, still under the lock (the
    reflex leaves its quiet-session hint there, see :mod:`quiet`).
    """
    provider = provider_of(host)
    folder = local_dir(state_dir)
    with locked(os.path.join(folder, "reasoning_guard")):
        _ensure_ignore(folder)
        path = ledger_path(state_dir, provider)
        ledger = load_ledger(path, provider, now)
        problems = list(ledger.problems)
        problems += _migrate_snapshot(state_dir, ledger, provider, now)
        report = ledger.session(session_id)
        if report is None:
            report = new_report(session_id, provider, now)
            ledger.sessions.append(report)
        for problem in problems:
            diagnose(report, f"recovered: {problem}", now)
        result = work(report, problems)
        finalize(report)
        _store(state_dir, path, ledger, report, now)
        if stored is not None:
            stored(report)
    return result


def _store(state_dir: str, path: str, ledger: Ledger, report: Report, now: float) -> None:
    """Write the ledger (fsynced) and the snapshot; the bytes of ``_dumps(ledger.to_json())``.

    Only ``report`` changed since the ledger was read (``update`` hands the
    work that one report), so every other session is written as the text it
    was read as, which is its serialisation (see :func:`_walk_compact`).
    """
    ledger.active_session = report["session"]["id"]
    ledger.updated_at = now
    ledger.sessions.sort(
        key=lambda r: (r["session"]["id"] == ledger.active_session, r["updated_at"])
    )
    del ledger.sessions[: -B.MAX_SESSIONS_PER_HOST]
    text = _dumps(report).encode()
    # keys in sorted order, as json.dumps(..., sort_keys=True) writes them
    head = (
        f'{{"active_session":{_dumps(ledger.active_session)},"host":{_dumps(ledger.host)},'
        f'"schema":{_dumps(LEDGER_SCHEMA)},"sessions":['
    )
    parts: list[bytes | memoryview] = [head.encode()]
    read = memoryview(ledger.read)
    for n, item in enumerate(ledger.sessions):
        if n:
            parts.append(b",")
        span = ledger.spans.get(id(item))
        if item is report:
            parts.append(text)
        elif span is not None and span[0] is item:
            parts.append(read[span[1] : span[2]])  # its bytes as read: no copy until the join
        else:
            parts.append(_dumps(item).encode())
    parts.append(f'],"updated_at":{_dumps(ledger.updated_at)}}}'.encode())
    data = b"".join(parts)
    atomic_write_bytes(path, data)
    seal = _seal(path)
    if seal is not None:
        seal.write(data)
    # the snapshot is a copy of the report the (fsynced) ledger holds: no fsync
    atomic_write_bytes(os.path.join(local_dir(state_dir), SNAPSHOT), text, durable=False)


# JSON exactly as core's ``atomic_write_json`` writes it (compact, keys sorted)
_dumps = fastjson.dump_state


def _migrate_snapshot(state_dir: str, ledger: Ledger, provider: str, now: float) -> list[str]:
    """Move a legacy ``reason_guard.json`` into its host ledger (once)."""
    path = os.path.join(local_dir(state_dir), SNAPSHOT)
    data, problem = _read_bytes(path)
    if data is not None and _copy_of_session(ledger, data):
        return []
    obj, problem = (None, problem) if data is None else _parse(path, data)
    if problem:
        set_aside(path)
        return [problem]
    if obj is None:
        return []
    if version_of(obj) not in LEGACY:
        unsafe = check_report(obj)
        if unsafe:
            set_aside(path)
            return [f"{SNAPSHOT}: {unsafe}"]
        return []
    owner = obj.get("provider")
    if isinstance(owner, str) and provider_of(owner) != provider:
        return []  # it belongs to another host's ledger; that host migrates it
    try:
        report = migrate(obj, provider, now)
    except ValueError as exc:
        set_aside(path)
        return [f"{SNAPSHOT}: {exc}"]
    if ledger.session(report["session"]["id"]) is None:
        finalize(report)
        ledger.sessions.append(report)
    return []


def _copy_of_session(ledger: Ledger, data: bytes) -> bool:
    """Are these the bytes of a session the ledger holds as read? (Usually the snapshot is.)

    Such a session parsed and passed :func:`check_report` as the ledger was
    read, so it is a 3.0 report and the snapshot needs no migration or check.
    """
    size = len(data)
    return any(
        end - start == size and ledger.read.startswith(data, start)
        for _item, start, end in ledger.spans.values()
    )


def _ensure_ignore(folder: str) -> None:
    """The managed ignore file keeps reports out of source control."""
    path = os.path.join(folder, IGNORE)
    if not os.path.exists(path):
        with contextlib.suppress(OSError), open(path, "w", encoding="utf-8") as fh:
            fh.write("# managed by agentreflex: local guard state, never committed\n*\n")


def read_ledgers(state_dir: str) -> dict[str, Ledger]:
    """Every readable ledger, read-only (for status; nothing is moved or written)."""
    out: dict[str, Ledger] = {}
    folder = local_dir(state_dir)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return out
    for name in names:
        if not name.endswith("_reasoning_guard.json"):
            continue
        host = name[: -len("_reasoning_guard.json")]
        obj, problem = read_json(os.path.join(folder, name))
        if problem or obj is None:
            out[host] = Ledger(host=host, problems=[problem or "empty"])
            continue
        try:
            out[host] = parse_ledger(obj, host, 0.0)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            out[host] = Ledger(host=host, problems=[str(exc)])
    return out
