"""A minimal trusted reader of Claude Code transcripts (visible assistant text only).

An ``Evidence-Check`` marker or a ``Resolved:`` line the assistant wrote in
visible text must reach the guard on the next hook event, and Claude only
hands hooks a path.  The path is trusted only when it resolves below
``$CLAUDE_CONFIG_DIR/projects`` (or ``~/.claude/projects``), is a ``.jsonl``
file and its stem is the UUID-shaped session id; without a hook path exactly
one matching file below that tree may be used.  Only top-level ``assistant``
records whose message role is ``assistant`` count, and of those only exact
``{type: "text", text}`` blocks: thinking, signatures, tool blocks and user
text are never read.  Reading is incremental: after the first event the
reader seeks to the saved byte cursor and takes only complete new records; a
replaced, moved or shrunk file invalidates coverage instead of resetting it.
"""

from __future__ import annotations

import os
import re
from collections import deque

from agentreflex.core import fastjson
from agentreflex.core.lazyre import LazyPattern
from agentreflex.core.record import field, record
from agentreflex.guard import bounds as B
from agentreflex.guard.sanitize import digest, excerpt, normalize_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any

UUID = LazyPattern(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_HEX = frozenset("0123456789abcdefABCDEF")
_UUID_GROUPS = [8, 4, 4, 4, 12]
_ANCHOR = 256
_CHUNK = 1024 * 1024


@record
class Batch:
    """What one read produced: new summaries (visible text) and metadata."""

    texts: list[str] = field(default_factory=list)
    model: str = ""
    entrypoint: str = ""
    error: str = ""
    invalidated: bool = False


def claude_root(env: Mapping[str, str]) -> str:
    base = env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME") or "~", ".claude")
    return os.path.realpath(os.path.join(os.path.expanduser(base), "projects"))


def resolve(session_id: str, hook_path: str, env: Mapping[str, str]) -> tuple[str, str]:
    """(trusted real path, "") or ("", reason it was rejected)."""
    if not uuid_shaped(session_id or ""):
        return "", "session id is not UUID-shaped"
    root = claude_root(env)
    if hook_path:
        return _trusted(hook_path, root, session_id)
    import glob  # lazy: Claude Code always passes the path, so this is the rare case

    matches = glob.glob(os.path.join(glob.escape(root), "*", glob.escape(session_id) + ".jsonl"))
    if len(matches) != 1:
        return "", "no transcript found" if not matches else "ambiguous transcript candidates"
    return _trusted(matches[0], root, session_id)


def uuid_shaped(text: str) -> bool:
    """``UUID.match(text)``, with str methods: every event asks, and a pattern compiles.

    ``$`` also matches before a final newline; no letter but a-f folds to a-f.
    """
    if text.endswith("\n"):
        text = text[:-1]
    groups = text.split("-")
    return [len(g) for g in groups] == _UUID_GROUPS and all(c in _HEX for g in groups for c in g)


def _trusted(path: str, root: str, session_id: str) -> tuple[str, str]:
    real = os.path.realpath(path)
    try:
        inside = os.path.commonpath([real, root]) == root and real != root
    except ValueError:
        inside = False
    if not inside:
        return "", "transcript path is outside the trusted projects tree"
    name = os.path.basename(real)
    if not name.endswith(".jsonl") or name[: -len(".jsonl")] != session_id:
        return "", "transcript name does not match the session id"
    if not os.path.isfile(real):
        return "", "transcript is not a regular file"
    return real, ""


def read_new(
    ingestion: dict[str, Any],
    session_id: str,
    hook_path: str,
    env: Mapping[str, str],
) -> Batch:
    """Read what is new since the saved cursor; updates ``ingestion`` in place."""
    batch = Batch()
    path, reason = resolve(session_id, hook_path, env)
    if not path:
        batch.error = reason
        return batch
    try:
        with open(path, "rb") as fh:
            _read(fh, path, ingestion, batch)
    except OSError as exc:
        batch.error = f"cannot read transcript: {exc.strerror}"
    return batch


def nothing_new(
    ingestion: dict[str, Any], session_id: str, hook_path: str, env: Mapping[str, str]
) -> bool:
    """Would :func:`read_new` leave ``ingestion`` as it is and return no text?

    True when no transcript is trusted (the read only records why) or when
    the file is the one already read, unchanged before the cursor and not
    longer than it.  Uses the reader's own identity and change checks.
    """
    path, _reason = resolve(session_id, hook_path, env)
    if not path:
        return True
    if not ingestion.get("initialized"):
        return False  # the first read takes the backfill
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_size != ingestion.get("cursor"):
                return False
            return not _changed(fh, ingestion, _identity(path, st), st.st_size)
    except OSError:
        return False


def _identity(path: str, st: os.stat_result) -> str:
    return digest(f"{path}:{st.st_dev}:{st.st_ino}")


def _read(fh: Any, path: str, ing: dict[str, Any], batch: Batch) -> None:
    st = os.fstat(fh.fileno())
    identity = _identity(path, st)
    if ing["initialized"]:
        why = _changed(fh, ing, identity, st.st_size)
        if why:
            batch.invalidated = True
            batch.error = why
            ing["initialized"] = False
    ing["source_identity"] = identity
    if not ing["initialized"]:
        _initial(fh, st.st_size, ing, batch)
    else:
        _follow(fh, st.st_size, ing, batch)
    ing["anchor"] = {"head": _head(fh, ing["cursor"]), "cursor": _cursor_anchor(fh, ing["cursor"])}


def _changed(fh: Any, ing: dict[str, Any], identity: str, size: int) -> str:
    if ing["source_identity"] != identity:
        return "transcript source was replaced or its path changed"
    if size < ing["cursor"]:
        return "transcript shrank below the saved cursor"
    cursor = ing["cursor"]
    anchor = ing["anchor"]
    if anchor.get("head") != _head(fh, cursor) or anchor.get("cursor") != _cursor_anchor(
        fh, cursor
    ):
        return "transcript content before the cursor changed"
    return ""


def _head(fh: Any, cursor: int) -> str:
    fh.seek(0)
    return digest(fh.read(min(_ANCHOR, cursor)))


def _cursor_anchor(fh: Any, cursor: int) -> str:
    start = max(0, cursor - _ANCHOR)
    fh.seek(start)
    return digest(fh.read(cursor - start))


def _initial(fh: Any, size: int, ing: dict[str, Any], batch: Batch) -> None:
    mode, limit = ing["backfill_mode"], ing["backfill_limit"]
    start = max(0, size - B.TAIL_BYTES) if mode == "live" else 0
    records: Iterator[dict[str, Any]] = _records(fh, start, size, start > 0, ing)
    if mode == "live":
        records = iter(deque(records, maxlen=B.LIVE_MAX_LINES))
    keep: deque[str] = deque(maxlen=1 if mode == "live" else (limit if mode == "recent" else None))
    for rec in records:
        _metadata(rec, batch)
        text = assistant_text(rec)
        if text:
            keep.append(text)
    batch.texts = list(keep)
    ing["initialized"] = True
    ing["complete"] = mode == "full" and not batch.error
    ing["selected"] = len(batch.texts)
    ing["processed"] += len(batch.texts)
    ing["processed_interval"] = [start, ing["cursor"]]


def _follow(fh: Any, size: int, ing: dict[str, Any], batch: Batch) -> None:
    start = ing["cursor"]
    end = min(size, start + B.MAX_READ_PER_EVENT)
    for rec in _records(fh, start, end, False, ing):
        _metadata(rec, batch)
        text = assistant_text(rec)
        if text:
            batch.texts.append(text)
    ing["processed"] += len(batch.texts)
    ing["processed_interval"][1] = ing["cursor"]


def _records(
    fh: Any, start: int, end: int, skip_partial_head: bool, ing: dict[str, Any]
) -> Iterator[dict[str, Any]]:
    """Complete JSONL records in [start, end), streamed in chunks.

    ``ing['cursor']`` moves past each complete line; a partial final record
    stays behind the cursor and is retried once it is complete.
    """
    fh.seek(start)
    pos, buf, skipping = start, b"", skip_partial_head
    ing["cursor"] = start
    while pos < end:
        chunk = fh.read(min(_CHUNK, end - pos))
        if not chunk:
            break
        pos += len(chunk)
        buf += chunk
        lines = buf.split(b"\n")
        buf = lines.pop()
        for line in lines:
            ing["cursor"] += len(line) + 1
            if skipping:
                skipping = False
                continue
            rec = _parse_line(line)
            if rec is not None:
                yield rec
        if len(buf) > B.MAX_RECORD_BYTES:
            ing["cursor"] += len(buf)  # an oversized record is skipped, not retried
            buf, skipping = b"", True


def _parse_line(line: bytes) -> dict[str, Any] | None:
    if not line.strip() or len(line) > B.MAX_RECORD_BYTES:
        return None
    try:
        rec = fastjson.loads(line)
    except (ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None


def assistant_text(rec: dict[str, Any]) -> str:
    """Visible text of an allowlisted assistant record ("" for anything else)."""
    if rec.get("type") != "assistant" or rec.get("isSidechain") is True:
        return ""
    message = rec.get("message")
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return ""
    content = message.get("content")
    if not isinstance(content, list):
        return ""
    parts = [
        normalize_text(block["text"])
        for block in content
        if isinstance(block, dict)
        and set(block) == {"type", "text"}
        and block["type"] == "text"
        and isinstance(block["text"], str)
    ]
    return "\n".join(p for p in parts if p.strip())


def _metadata(rec: dict[str, Any], batch: Batch) -> None:
    if rec.get("type") != "assistant":
        return
    message = rec.get("message")
    if isinstance(message, dict) and isinstance(message.get("model"), str):
        batch.model = message["model"]
    if isinstance(rec.get("entrypoint"), str):
        batch.entrypoint = excerpt(rec["entrypoint"], 32)
