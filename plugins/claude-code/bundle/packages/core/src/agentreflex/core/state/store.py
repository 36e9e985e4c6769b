"""The per-session state store: an append-only JSONL log folded into SessionState.

Layout, under the project's state dir (``.agentreflex/`` by default)::

    sessions/<session>.jsonl        one sealed record per hook call (event + decision)
    sessions/<session>.state.json   {"cursor": <bytes folded>, "n": <last record>, "state": {...}}

A hook call reads the snapshot, folds only the log bytes after its cursor
(so the cost does not grow with the session), evaluates, then appends its own
record and writes the new snapshot, each step under the session's lock.
A torn final line is left for later; a corrupt line is skipped with a
diagnostic; a corrupt snapshot is rebuilt from the log.  Nothing that was
complete is lost.

Every line and the snapshot carry a MAC under the per-user key, and an
anchor outside the project remembers the last record (``state.auth``): a
line that is not genuine, or not next in sequence, is never folded and is
reported; a history shorter than the anchor is *lost* until the user
acknowledges it (``state.integrity``).
"""

from __future__ import annotations

import contextlib
import os
import time

from agentreflex.core import testrun
from agentreflex.core.decision import Decision, Verdict
from agentreflex.core.events import (
    Event,
    EventKind,
    ToolCall,
    ToolKind,
    runs_in_background,
    typed_into_a_process,
)
from agentreflex.core.redaction.redact import redact, redact_head, redact_line, redact_obj
from agentreflex.core.reflex import Note
from agentreflex.core.state.auth import Forged, Sealer, load_key
from agentreflex.core.state.fingerprint import fingerprint
from agentreflex.core.state.integrity import LOST_NOTE, TAMPER_NOTE
from agentreflex.core.state.model import ActionRecord, Intervention, SessionState
from agentreflex.core.state.outcome import (
    error_signature,
    is_mutation,
    outcome_of,
    summarize,
    test_summary,
)
from agentreflex.core.state.usage import UsageDelta
from agentreflex.core.util import fastjson
from agentreflex.core.util.digest import sha256_hex
from agentreflex.core.util.fsutil import (
    append_line,
    atomic_write_bytes,
    ensure_private_dir,
    locked,
    tighten,
)
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

SNAPSHOT_VERSION = 2  # 2: sealed (MAC), with the last record's sequence number
ROTATE_BYTES = 16 * 1024 * 1024
KEEP_ROTATED = 3
MAX_RECORD_BYTES = 64 * 1024
PROMPT_LIMIT = 600
WINDOWS = {
    "prompts": 10,
    "failures": 20,
    "evidence": 30,
    "verifications": 20,
    "interventions": 50,
    "messages": 10,
    "notes": 50,
    "latency": 128,
    "diagnostics": 20,
    "usage_ids": 200,
    "tamper": 20,
}
_SAFE_ID = LazyPattern(r"[^A-Za-z0-9._-]")


def session_file_id(session_id: str) -> str:
    """A filesystem-safe name for a session id (hashed when it had to change)."""
    clean = _SAFE_ID.sub("_", session_id)[:96].lstrip(".")
    if clean == session_id and clean:
        return clean
    digest = sha256_hex(session_id, 12)
    return f"{clean or 'session'}-{digest}"


@record
class FoldReport:
    """What a catch-up read found, for diagnostics and tamper reports."""

    records: int = 0
    skipped: list[str] = field(default_factory=list)
    rebuilt: bool = False
    tamper: list[tuple[str, str]] = field(default_factory=list)  # (code, message), new ones
    lost: str = ""  # why the session's history is lost ("" when it is whole)


@record
class _Cursor:
    """Where the fold stands: bytes of the log folded, and the last genuine record."""

    offset: int = 0
    n: int = 0
    mac: str = ""


class SessionStore:
    """One session's log and snapshot, every record authenticated (see ``state.auth``)."""

    def __init__(
        self,
        state_dir: str,
        session_id: str,
        window: int = 20,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.state_dir = state_dir
        self.session_id = session_id or "unknown-session"
        self.window = window
        self.env = env
        base = os.path.join(state_dir, "sessions", session_file_id(self.session_id))
        self.log_path = base + ".jsonl"
        self.snapshot_path = base + ".state.json"
        self._sealer: Sealer | None = None
        self._anchor: int | None = None

    @property
    def sealer(self) -> Sealer:
        """The session's sealer (loads, or on first use creates, the per-user key)."""
        if self._sealer is None:
            self._sealer = Sealer(load_key(self.env), self.session_id, self.state_dir, self.env)
        return self._sealer

    def _dirs(self) -> None:
        ensure_private_dir(self.state_dir)
        ensure_private_dir(os.path.dirname(self.log_path))

    # ------------------------------------------------------------------ read

    def load(self) -> tuple[SessionState, FoldReport]:
        """The current state, caught up with the log and checked against the anchor.

        Raises ``OSError`` (``KeyUnavailable`` among them) when the log or the
        key cannot be read: the caller then evaluates without history and
        asks :meth:`anchored` whether there was any.
        """
        sealer = self.sealer
        self._dirs()
        with locked(self.log_path):
            state, cur, report = self._catch_up()
            self._check_anchor(sealer, state, cur, report)
            if report.records or report.rebuilt or report.tamper or report.lost:
                self._write_snapshot(state, cur)
        return state, report

    def anchored(self) -> int:
        """How many records the anchor outside the project vouches for (0: none)."""
        try:
            n, _ = self.sealer.read_anchor()
        except Forged:
            return 1  # a damaged anchor: something was there
        return n

    def _check_anchor(
        self, sealer: Sealer, state: SessionState, cur: _Cursor, report: FoldReport
    ) -> None:
        try:
            n, mac = sealer.read_anchor()
        except Forged as exc:
            n, mac = cur.n + 1, ""
            reason = f"the session's anchor outside the project is damaged ({exc})"
        else:
            reason = ""
            if n > cur.n:
                reason = (
                    f"the anchor outside the project vouches for {n} records, "
                    f"the session log in the project has {cur.n} (deleted or truncated)"
                )
            elif n == cur.n and n and mac != cur.mac:
                reason = "the session log's last record is not the one the anchor vouches for"
        self._anchor = max(n, cur.n)
        if reason:
            _lose(state, report, reason)

    def _read_snapshot(self, report: FoldReport) -> tuple[SessionState, _Cursor]:
        try:
            with open(self.snapshot_path, "rb") as fh:
                raw = fh.read()
        except FileNotFoundError:
            return self._fresh(), _Cursor()
        except OSError:
            raw = b""
        try:
            self.sealer.check_snapshot(raw.rstrip())
            data = fastjson.loads(raw)
            if data.get("v") != SNAPSHOT_VERSION or data.get("session_id") != self.session_id:
                raise ValueError("snapshot version or session mismatch")
            cur = _Cursor(int(data["cursor"]), int(data["n"]), str(data["last"]))
            return SessionState.from_json(data["state"]), cur
        except Forged as exc:
            _tamper(report, "CORE-STATE-SNAPSHOT", f"the session snapshot failed its check ({exc})")
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
        report.rebuilt = True
        state = self._fresh()
        _diagnose(state, "state snapshot was unreadable; rebuilt from the log")
        return state, _Cursor()

    def _fresh(self) -> SessionState:
        return SessionState(session_id=self.session_id)

    def _log_size(self) -> int:
        """The log's size; a log whose owner can no longer read it counts as unreadable."""
        try:
            st = os.stat(self.log_path)
        except FileNotFoundError:
            return 0
        if _permissions_removed(st):
            raise PermissionError(13, "session log permissions were removed", self.log_path)
        if st.st_mode & 0o077:
            tighten(self.log_path, 0o600)
        return st.st_size

    def _catch_up(self) -> tuple[SessionState, _Cursor, FoldReport]:
        """Snapshot plus the log lines after its cursor; what was detected is noted in the state."""
        report = FoldReport()
        state, cur = self._fold_new(report)
        for code, message in report.tamper:
            _push(state.notes.setdefault(TAMPER_NOTE, []), f"{code}: {message}", WINDOWS["tamper"])
        return state, cur, report

    def _fold_new(self, report: FoldReport) -> tuple[SessionState, _Cursor]:
        state, cur = self._read_snapshot(report)
        size = self._log_size()
        if size < cur.offset:  # the log was rotated, replaced or truncated: refold it
            state, cur = self._fresh(), _Cursor()
            report.rebuilt = True
            _diagnose(state, "log shorter than snapshot cursor; refolded")
        self._fold_bytes(state, cur, size, report)
        return state, cur

    def _fold_bytes(self, state: SessionState, cur: _Cursor, size: int, report: FoldReport) -> None:
        """Fold the complete lines between the cursor and ``size``; a torn tail waits."""
        if size <= cur.offset:
            return
        with open(self.log_path, "rb") as fh:
            fh.seek(cur.offset)
            chunk = fh.read(size - cur.offset)
        end = chunk.rfind(b"\n")
        if end < 0:  # only a torn line so far: leave it for later
            return
        offset = cur.offset
        for raw in chunk[: end + 1].splitlines(keepends=True):
            self._fold_line(state, cur, raw.rstrip(b"\r\n"), offset, report)
            offset += len(raw)
        cur.offset += end + 1

    def _fold_line(
        self, state: SessionState, cur: _Cursor, raw: bytes, at: int, report: FoldReport
    ) -> None:
        """Fold one line if it is genuine and next in sequence; report it if not."""
        if not raw.strip():
            return
        try:
            rec = fastjson.loads(raw)
            if not isinstance(rec, dict):
                raise ValueError("record is not an object")
        except (ValueError, TypeError) as exc:
            msg = f"skipped a corrupt log line at byte {at}: {type(exc).__name__}"
            report.skipped.append(msg)
            _diagnose(state, msg)
            return
        n = rec.get("n")
        try:
            if type(n) is not int:
                raise Forged("no sequence number")
            mac = self.sealer.check_line(raw, n)
        except Forged as exc:
            _tamper(report, "CORE-STATE-FORGED", f"log line at byte {at} ignored ({exc})")
            return
        if n <= cur.n:
            _tamper(report, "CORE-STATE-REPLAYED", f"record {n} at byte {at} seen before, ignored")
            return
        if n > cur.n + 1:
            _lose(state, report, f"records {cur.n + 1}..{n - 1} are missing from the session log")
        cur.n, cur.mac = n, mac
        if rec.get("kind") == "ack":  # the user accepted a loss of history
            state.notes.pop(LOST_NOTE, None)
            return
        try:
            fold(state, rec, self.window)
            report.records += 1
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            msg = f"skipped a malformed log record at byte {at}: {type(exc).__name__}"
            report.skipped.append(msg)
            _diagnose(state, msg)

    # ----------------------------------------------------------------- write

    def record(
        self,
        event: Event,
        decision: Decision | None,
        notes: list[Note] | None = None,
        latency_ms: float | None = None,
        usage: UsageDelta | None = None,
    ) -> SessionState:
        """Append this hook call's sealed record and return the state including it."""
        rec = make_record(event, decision, notes or [], latency_ms)
        if usage is not None:
            rec["usage"] = usage_record(usage)
        return self._append(rec)

    def acknowledge(self) -> SessionState:
        """The user accepts a lost history: stops are judged on what is left from now on.

        A log that cannot be read is set aside (``.jsonl.unreadable``), not deleted.
        """
        try:
            self._log_size()
        except PermissionError:
            os.replace(self.log_path, self.log_path + ".unreadable")
        return self._append({"ts": round(now(), 3), "kind": "ack"})

    def _append(self, rec: dict[str, Any]) -> SessionState:
        # Every string of the record is redacted here, whatever its field: a host
        # gives tool names, call ids and folders too (idempotent on the rest).
        clean = redact_obj(rec)
        if isinstance(clean, dict):
            rec.clear()
            rec.update(clean)
        sealer = self.sealer
        self._dirs()
        line = _bounded_line(rec)
        with locked(self.log_path):
            self._maybe_rotate()
            state, cur, _ = self._catch_up()
            if self._anchor is None:
                self._check_anchor(sealer, state, cur, FoldReport())
            n = max(cur.n, self._anchor or 0) + 1
            line, mac = sealer.seal_line(line[:-1] + f',"n":{n}}}', n)
            rec["n"] = n
            if self._ends_torn():  # a writer died mid-line: keep our record on its own line
                line = "\n" + line
            append_line(self.log_path, line, durable=True)  # the log is the record
            self._fold_bytes(state, cur, self._log_size(), FoldReport())
            self._write_snapshot(state, cur)
            sealer.write_anchor(n, mac)
            self._anchor = n
        return state

    def _ends_torn(self) -> bool:
        try:
            with open(self.log_path, "rb") as fh:
                fh.seek(-1, os.SEEK_END)
                return fh.read(1) != b"\n"
        except OSError:  # missing or empty
            return False

    def _write_snapshot(self, state: SessionState, cur: _Cursor, durable: bool = False) -> None:
        """Save the folded state, sealed and atomically.

        Without fsync as a rule: the fsynced log holds everything the snapshot
        does, so a snapshot lost to a power cut is rebuilt from the log. At a
        rotation (``durable``) it is fsynced, because it alone then carries
        the folded state of the logs set aside.
        """
        text = fastjson.dump_state(
            {
                "v": SNAPSHOT_VERSION,
                "session_id": self.session_id,
                "cursor": cur.offset,
                "n": cur.n,
                "last": cur.mac,
                "state": state.to_json(),
            }
        )
        atomic_write_bytes(self.snapshot_path, self.sealer.seal_snapshot(text).encode(), durable)

    def _maybe_rotate(self) -> None:
        """Keep logs bounded; the snapshot carries the folded state across rotation."""
        try:
            if os.path.getsize(self.log_path) < ROTATE_BYTES:
                return
        except OSError:
            return
        state, cur, _ = self._catch_up()
        for i in range(KEEP_ROTATED - 1, 0, -1):
            older = f"{self.log_path}.{i}"
            if os.path.exists(older):
                os.replace(older, f"{self.log_path}.{i + 1}")
        os.replace(self.log_path, self.log_path + ".1")
        cur.offset = 0
        self._write_snapshot(state, cur, durable=True)


def _permissions_removed(st: os.stat_result) -> bool:
    """Our file without owner read/write: root reads a chmod 000 file regardless, so decide
    by the bits, not by who happens to run the hook."""
    return st.st_uid == os.geteuid() and st.st_mode & 0o600 != 0o600


def log_problem(log_path: str) -> str:
    """Why a session log cannot be read ("" if it can, or does not exist): for ``doctor``."""
    try:
        st = os.stat(log_path)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        return f"the session log cannot be read ({exc.strerror or exc})"
    if _permissions_removed(st):
        return "the session log cannot be read (its permissions were removed)"
    return ""


def _tamper(report: FoldReport, code: str, message: str) -> None:
    report.tamper.append((code, message))


def _lose(state: SessionState, report: FoldReport, reason: str) -> None:
    """History the anchor vouches for is gone: remembered until the user acknowledges."""
    report.lost = reason
    state.notes[LOST_NOTE] = [reason]


def _bounded_line(record: dict[str, Any]) -> str:
    """One JSON line of at most MAX_RECORD_BYTES: oversized notes are dropped, said so."""
    line = fastjson.dump_line(record)
    if len(line.encode("utf-8", "replace")) <= MAX_RECORD_BYTES:
        return line
    dropped = [f"{n['reflex']}:{n['key']}" for n in record.pop("notes", [])]
    record["notes"] = [
        {
            "reflex": "core",
            "key": "diagnostics",
            "value": f"record too large: dropped notes {', '.join(dropped)[:300]}",
        }
    ]
    return fastjson.dump_line(record)


def _diagnose(state: SessionState, message: str) -> None:
    diags = state.notes.setdefault("diagnostics", [])
    diags.append(message)
    del diags[: -WINDOWS["diagnostics"]]


def _bounded(text: str, limit: int) -> str:
    """At most ``limit`` characters of ``text`` redacted (redact_head: no piece of a cut secret)."""
    head = redact_head(text, limit + 1)
    return head if len(head) <= limit else head[: limit - 1] + "…"


def make_record(
    event: Event, decision: Decision | None, notes: list[Note], latency_ms: float | None
) -> dict[str, Any]:
    """The compact, redacted log record for one hook call (never the raw payload)."""
    rec: dict[str, Any] = {
        "ts": round(event.timestamp, 3),
        "kind": event.kind.value,
        "host": event.host,
    }
    if event.cwd:
        rec["cwd"] = event.cwd
    if event.kind is EventKind.USER_PROMPT:
        rec["prompt"] = _bounded(event.prompt, PROMPT_LIMIT)
    if event.last_message:
        rec["message"] = _bounded(event.last_message, PROMPT_LIMIT)
    if event.stop_hook_active:
        rec["stop_hook_active"] = True
    if event.tool is not None:
        call = event.tool
        rec["tool"] = {
            "name": call.name,
            "kind": call.kind.value,
            "id": call.tool_use_id,
            "summary": summarize(call),
            "fp": fingerprint(call),
            "paths": [redact(p)[:300] for p in call.paths[:20]],
            "mutation": is_mutation(call),
            **_test_run_facts(call, event.cwd),
        }
    if event.result is not None:
        res = event.result
        text = res.error or res.output
        if res.interrupted:
            outcome = "unknown"  # the user stopped it: neither a failure nor a success
        elif event.kind is EventKind.POST_TOOL_FAILURE:
            outcome = "failure"
        else:
            outcome = outcome_of(res)
        rec["result"] = {
            "outcome": outcome,
            "exit": res.exit_code,
            "sig": error_signature(text) if outcome != "success" else "",
            "digest": sha256_hex(text, 16),
            "head": redact_line(text, 400),
            "interrupted": res.interrupted,
        }
        if rec.get("tool", {}).get("verification"):
            rec["result"]["tests"] = test_summary(f"{res.output or ''}\n{res.error or ''}")
    if decision is not None:
        rec["decision"] = {
            "verdict": decision.verdict.value,
            "proposed": decision.proposed.value,
            "label": decision.label,
            "findings": [
                {
                    "reflex": f.reflex,
                    "code": f.code,
                    "verdict": f.verdict.value,
                    "message": _bounded(f.message, 400),
                    "enforce": f.enforce,
                }
                for f in decision.findings
            ],
        }
        if decision.degraded:
            rec["decision"]["degraded"] = [_bounded(d, 200) for d in decision.degraded]
    if notes:
        rec["notes"] = [
            {"reflex": n.reflex, "key": n.key, "value": redact_obj(n.value)} for n in notes
        ]
    if latency_ms is not None:
        rec["ms"] = round(latency_ms, 3)
    return rec


# ---------------------------------------------------------------------- fold


def fold(state: SessionState, rec: dict[str, Any], window: int = 20) -> None:
    """Fold one log record into ``state`` (pure apart from mutating ``state``)."""
    state.seq += 1
    seq = state.seq
    ts = float(rec.get("ts", 0.0))
    kind = EventKind(rec["kind"])
    c = state.counters
    c.events += 1
    c.started_at = c.started_at or ts
    c.last_event_at = ts
    state.host = state.host or str(rec.get("host", ""))
    state.cwd = state.cwd or str(rec.get("cwd", ""))
    decision = rec.get("decision") or {}
    blocked = decision.get("verdict") == Verdict.BLOCK.value
    if kind in (EventKind.USER_PROMPT, EventKind.PRE_TOOL):
        c.stop_blocks_in_row = 0  # the agent did something after the last blocked stop
    if kind is EventKind.USER_PROMPT:
        _fold_prompt(state, str(rec.get("prompt", "")))
    elif kind is EventKind.PRE_TOOL and "tool" in rec:
        _fold_pre_tool(state, rec["tool"], seq, ts, blocked, window)
    elif kind in (EventKind.POST_TOOL, EventKind.POST_TOOL_FAILURE) and "tool" in rec:
        _fold_post_tool(state, rec, seq, ts, window)
    elif kind in (EventKind.STOP, EventKind.SUBAGENT_STOP):
        c.stops += 1
        c.stop_blocks_in_row = c.stop_blocks_in_row + 1 if blocked else 0
    if rec.get("message"):
        state.last_message = str(rec["message"])
        _push(state.messages, state.last_message, WINDOWS["messages"])
    _fold_decision(state, kind, decision, seq, ts)
    for note in rec.get("notes", []):
        _push(state.notes.setdefault(str(note["key"]), []), note["value"], WINDOWS["notes"])
    if kind in (EventKind.POST_TOOL, EventKind.POST_TOOL_FAILURE) and "tool" in rec:
        _fold_observed(state, rec, seq)
    if "ms" in rec:
        _push(state.notes.setdefault("latency_ms", []), float(rec["ms"]), WINDOWS["latency"])
    if "usage" in rec:
        apply_usage(state, rec["usage"])


def usage_record(usage: UsageDelta) -> dict[str, Any]:
    return {
        "in": usage.input_tokens,
        "out": usage.output_tokens,
        "cost": round(usage.cost_usd, 6),
        "cursor": usage.cursor,
        "ids": usage.message_ids[-WINDOWS["usage_ids"] :],
    }


def apply_usage(state: SessionState, usage: dict[str, Any]) -> None:
    """Add a transcript usage delta to the session totals (tokens, cost, cursor)."""
    c = state.counters
    c.add(int(usage.get("in", 0)), int(usage.get("out", 0)), float(usage.get("cost", 0.0)))
    c.transcript_cursor = int(usage.get("cursor", c.transcript_cursor))
    ids = state.notes.setdefault("usage_ids", [])
    ids.extend(str(i) for i in usage.get("ids", []))
    del ids[: -WINDOWS["usage_ids"]]


def _push(items: list[Any], value: Any, limit: int) -> None:
    items.append(value)
    del items[:-limit]


def _fold_prompt(state: SessionState, prompt: str) -> None:
    state.counters.prompts += 1
    if prompt:
        state.goal = state.goal or prompt
        _push(state.prompts, prompt, WINDOWS["prompts"])


def _fold_pre_tool(
    state: SessionState, tool: dict[str, Any], seq: int, ts: float, blocked: bool, window: int
) -> None:
    state.counters.tool_calls += 1
    action = ActionRecord(
        seq=seq,
        ts=ts,
        tool=str(tool["name"]),
        kind=str(tool["kind"]),
        summary=str(tool.get("summary", "")),
        fingerprint=str(tool["fp"]),
        tool_use_id=str(tool.get("id", "")),
        paths=list(tool.get("paths", [])),
        verification=bool(tool.get("verification")),
        mutation=bool(tool.get("mutation")),
        outcome="blocked" if blocked else "pending",
        not_a_test=str(tool.get("not_a_test_run", "")),
    )
    if blocked:
        state.counters.blocked += 1
    _push(state.actions, action, window)


def _find_action(state: SessionState, tool: dict[str, Any]) -> ActionRecord | None:
    tid = str(tool.get("id", ""))
    for action in reversed(state.actions):
        if tid and action.tool_use_id == tid:
            return action
    for action in reversed(state.actions):
        if action.outcome == "pending" and action.fingerprint == tool.get("fp"):
            return action
    return None


def _test_run_facts(call: ToolCall, cwd: str) -> dict[str, Any]:
    """Does the call run a real test framework, and is its exit status its own (core.testrun)?"""
    if call.kind is not ToolKind.SHELL:
        return {"verification": False}
    if typed_into_a_process(call):  # a REPL or ``cat`` may print "5 passed" itself
        return {"verification": False, "not_a_test_run": "typed into a running process"}
    if runs_in_background(call):  # its result is that it started; the tests may yet fail
        return {"verification": False, "not_a_test_run": "run in the background"}
    run = testrun.assess(call.command, cwd)
    facts: dict[str, Any] = {"verification": run.counts}
    if run.verdict == testrun.MASKED:
        facts["masked"] = True
    elif run.verdict == testrun.FAKE:
        facts["not_a_test_run"] = redact(run.reason)[:200]
    return facts


def _fold_post_tool(
    state: SessionState, rec: dict[str, Any], seq: int, ts: float, window: int
) -> None:
    tool = rec["tool"]
    result = rec.get("result") or {}
    action = _find_action(state, tool)
    if action is None:  # no pre-tool hook saw it (or it fell out of the window)
        _fold_pre_tool(state, tool, seq, ts, False, window)
        action = state.actions[-1]
    outcome = str(result.get("outcome", "unknown"))
    action.outcome = outcome
    action.error_signature = str(result.get("sig", ""))
    action.exit_code = result.get("exit")
    action.output_digest = str(result.get("digest", ""))
    c = state.counters
    if outcome == "failure":
        c.failures += 1
        c.consecutive_failures += 1
        c.last_failure_seq = seq
        _push(state.failures, action, WINDOWS["failures"])
    elif outcome == "success":
        c.consecutive_failures = 0
    tests = str(result.get("tests", ""))
    if tests == "none" or (tool.get("masked") and tests != "failed"):
        # no test ran; or a masked status is unknown, and unknown is not a pass
        action.not_a_test = (
            "its output says no test ran (none selected or found)"
            if tests == "none"
            else "something else decides its exit status (a pipe, || true, ; exit 0)"
        )
    elif action.verification and (outcome in ("success", "failure") or tests == "failed"):
        # a run whose host reports no exit status (Codex) still failed if its own summary says so
        # the runner's own summary outranks its exit status ("1 failed" piped to tail)
        c.last_verification_seq = seq
        c.last_verification_ok = outcome == "success" and tests != "failed"
        _push(state.verifications, action, WINDOWS["verifications"])
    elif action.mutation and outcome != "failure":
        c.last_mutation_seq = seq
    observing = action.kind in (ToolKind.READ.value, ToolKind.SEARCH.value, ToolKind.WEB.value)
    read_only_shell = action.kind == ToolKind.SHELL.value and not action.mutation
    if outcome == "success" and (observing or read_only_shell):
        c.last_evidence_seq = seq
        head = str(result.get("head", ""))
        _push(state.evidence, f"{action.summary} -> {head[:200]}", WINDOWS["evidence"])


def _fold_observed(state: SessionState, rec: dict[str, Any], seq: int) -> None:
    """The work tree says the call changed files: it is a mutation, whatever its words.

    ``sed -E -i``, ``perl -pi`` or a ``python3 -c`` write read as harmless;
    core's work-tree observation (``worktree_changes``) saw the files change,
    so the done reflex and friends count the edit.  A test run that leaves
    files behind is still a test run, not an edit.
    """
    observed = [
        n.get("value")
        for n in rec.get("notes", [])
        if isinstance(n, dict) and n.get("key") == "worktree_changes"
    ]
    value = observed[-1] if observed else None
    if not isinstance(value, dict):
        return
    changed = sum(len(value.get(k) or []) for k in ("created", "modified", "deleted"))
    action = _find_action(state, rec["tool"])
    if action is None or not changed:
        return
    action.changed = changed
    if not action.paths:  # the files it really touched, for reflexes that name them
        files = [*value.get("created", []), *value.get("modified", []), *value.get("deleted", [])]
        action.paths = [str(f) for f in files[:20]]
    if action.verification:
        return
    action.mutation = True
    state.counters.last_mutation_seq = seq


def _fold_decision(
    state: SessionState, kind: EventKind, decision: dict[str, Any], seq: int, ts: float
) -> None:
    if not decision or decision.get("proposed", "ALLOW") == Verdict.ALLOW.value:
        return
    for f in decision.get("findings", []):
        if f.get("verdict") == Verdict.ALLOW.value:
            continue
        item = Intervention(
            seq=seq,
            ts=ts,
            event=kind.value,
            reflex=str(f.get("reflex", "")),
            code=str(f.get("code", "")),
            verdict=str(f.get("verdict", "")),
            label=str(decision.get("label", "")),
            message=str(f.get("message", ""))[:400],
        )
        _push(state.interventions, item, WINDOWS["interventions"])


def list_sessions(state_dir: str) -> list[str]:
    """Snapshot paths of every session in a state dir, newest first."""
    folder = os.path.join(state_dir, "sessions")
    with contextlib.suppress(OSError):
        paths = [os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".state.json")]
        return sorted(paths, key=lambda p: os.path.getmtime(p), reverse=True)
    return []


def now() -> float:
    return time.time()
