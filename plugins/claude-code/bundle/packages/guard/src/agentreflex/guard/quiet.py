"""The check made before the engine: can this event change anything the guard decides on?

A hook is a new process per tool call. The engine costs it several
milliseconds: about 18 modules, a locked read of the ledger, and two fsynced
writes. Most events in a session with no open check find nothing and change
nothing that a later decision reads. This module spots them without
importing the engine.

After every engine run, still under the ledger lock, :func:`remember` leaves
a hint (``local/<provider>_guard_quiet.json``) if the session is quiet: no
open obligation and no pending recovery. The hint holds the state that the
engine reads to decide: the stat of the ledger and snapshot files as they
were just written, the known text digests, the seen tool ids and the
transcript cursor. If the session is not quiet, :func:`remember` deletes the
hint. :func:`nothing_to_do` skips the engine only if all of these hold:

* the hint is for this session, and no file has been written since;
* the event carries no directive: no payload key, and no ``Evidence-Check:``
  in the prompt or in any text;
* every description text, and the final message of a stop, is a text the
  session has already seen (a new one is classified, and may open a check);
* a pre-tool call's id has already been seen (the engine records new ids);
* for Claude and Codex, the trusted transcript has not changed since it was last
  read, and no wider backfill mode has been configured since.

When these hold, the engine would return no finding, and skipping it changes
nothing that a later decision reads. The new obligations, text digests, tool
ids and transcript cursor come only from the cases above. With no open
obligation, there is nothing to move forward, claim or block. A skipped event
does not update the parts of the report that are only shown: the timestamp,
latency, event digests, identity, coverage flags, the snapshot and the order
of the ledger. The one side effect: the session keeps its last-written time,
so among more than 20 sessions of one host it can be dropped from the ledger
sooner.
"""

from __future__ import annotations

import os

from agentreflex.core.events import EventKind
from agentreflex.core.util import fastjson
from agentreflex.guard import MARKER, PAYLOAD_KEY, SCHEMA_VERSION, description_texts
from agentreflex.guard.files import (
    IGNORE,
    SNAPSHOT,
    TRANSCRIPTS,
    hint_path,
    ledger_path,
    local_dir,
    provider_of,
)
from agentreflex.guard.sanitize import digest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from agentreflex.core.events import Event
    from agentreflex.guard.report import Report

HINT_VERSION = 1
_MAX_HINT_BYTES = 64 * 1024
_TRANSCRIPT_KEYS = (
    "initialized",
    "source_identity",
    "cursor",
    "anchor",
    "covered_mode",
    "covered_limit",
    "complete",
)


def nothing_to_do(
    state_dir: str,
    event: Event,
    env: Mapping[str, str],
    backfill: tuple[str, int] = ("live", 1),
) -> bool:
    """True when the engine would return nothing and change nothing a later decision reads.

    ``backfill`` is the configured (mode, limit): a mode wider than the one the
    session was read with means a backfill is due, so the engine must run.
    """
    provider = provider_of(event.host)
    hint = _read_hint(hint_path(state_dir, provider))
    if hint is None or hint["session"] != digest(event.session_id):
        return False
    if not _files_unchanged(state_dir, provider, hint["files"]):
        return False
    return _inert(event, hint, provider, env, backfill)


def remember(state_dir: str, host: str, session_id: str, report: Report) -> None:
    """Leave the hint for a quiet session, or remove it; call under the ledger lock.

    ``session_id`` is the event's own id, before the ledger sanitises it; only
    its digest is kept. The hint is an optimisation, so it is written without
    fsync and failing to write it is not an error.

    The old hint is removed before the new one is renamed into its place: a
    rename over an existing file makes ext4 start writing the new file out
    (about 0.1 ms here), and a hint needs no such care. A reader in between,
    or one after a crash that left the hint empty or torn, finds no valid
    hint and runs the engine.
    """
    import contextlib  # lazy, like the report: only the engine path writes hints

    from agentreflex.guard.report import open_obligations

    provider = provider_of(host)
    path = hint_path(state_dir, provider)
    with contextlib.suppress(OSError):
        if open_obligations(report) or report.get("recovery_pending"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            return
        ing = report["reasoning_summary_ingestion"]
        hint = {
            "version": HINT_VERSION,
            "schema": SCHEMA_VERSION,
            "session": digest(session_id),
            "files": {name: _stat(p) for name, p in _watched(state_dir, provider).items()},
            "texts": list(report["text_digests"]),
            "tools": list(report["seen_tool_ids"]),
            "transcript": {key: ing.get(key) for key in _TRANSCRIPT_KEYS},
        }
        tmp = f"{path}.tmp-{os.getpid()}"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(fastjson.dumps(hint, separators=(",", ":")))
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            os.rename(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            with contextlib.suppress(OSError):
                os.unlink(path)  # never leave an older hint behind a newer ledger


def _watched(state_dir: str, provider: str) -> dict[str, str]:
    """The files the engine reads: unchanged since the hint means the state it holds is current."""
    return {
        "ledger": ledger_path(state_dir, provider),
        "snapshot": os.path.join(local_dir(state_dir), SNAPSHOT),
    }


def _stat(path: str) -> list[int]:
    st = os.stat(path)
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def _files_unchanged(state_dir: str, provider: str, files: dict[str, Any]) -> bool:
    try:
        current = {name: _stat(p) for name, p in _watched(state_dir, provider).items()}
    except OSError:
        return False
    # the engine rewrites a missing ignore file, so it must still be there
    return current == files and os.path.exists(os.path.join(local_dir(state_dir), IGNORE))


def _read_hint(path: str) -> dict[str, Any] | None:
    """The hint if it is present and well formed (anything else means: run the engine)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(_MAX_HINT_BYTES + 1)
        hint = fastjson.loads(data) if len(data) <= _MAX_HINT_BYTES else None
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(hint, dict) or hint.get("version") != HINT_VERSION:
        return None
    transcript = hint.get("transcript")
    well_formed = (
        hint.get("schema") == SCHEMA_VERSION
        and isinstance(hint.get("session"), str)
        and isinstance(hint.get("files"), dict)
        and _strings(hint.get("texts"))
        and _strings(hint.get("tools"))
        and isinstance(transcript, dict)
        and isinstance(transcript.get("initialized"), bool)
        and isinstance(transcript.get("cursor"), int)
        and isinstance(transcript.get("source_identity"), str)
        and isinstance(transcript.get("anchor"), dict)
    )
    return hint if well_formed else None


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _inert(
    event: Event,
    hint: dict[str, Any],
    provider: str,
    env: Mapping[str, str],
    backfill: tuple[str, int],
) -> bool:
    """No directive, no new text, no new tool id, no new transcript content (see the module doc)."""
    if isinstance(event.raw, dict) and event.raw.get(PAYLOAD_KEY) is not None:
        return False
    if event.kind is EventKind.USER_PROMPT and MARKER in event.prompt:
        return False
    texts: list[str] = []
    call = event.tool
    if call is not None:
        tool_id = call.tool_use_id
        if event.kind is EventKind.PRE_TOOL and tool_id and tool_id[:64] not in hint["tools"]:
            return False
        texts += description_texts(call)
    if event.is_stop and event.last_message:
        texts.append(event.last_message)
    if texts:
        known = set(hint["texts"])
        if any(MARKER in text or digest(text) not in known for text in texts):
            return False
    if provider in TRANSCRIPTS:
        from agentreflex.guard.transcript import adapter_for, nothing_new

        ing = {**hint["transcript"], "backfill_mode": backfill[0], "backfill_limit": backfill[1]}
        return nothing_new(ing, event.session_id, event.transcript_path, env, adapter_for(provider))
    return True
