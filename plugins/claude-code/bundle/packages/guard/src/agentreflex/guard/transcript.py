"""The one incremental reader every host transcript adapter shares.

A host hands hooks a path (or only a session id); what the agent said in
visible text lives in that file.  The host adapters (``claude_transcript``,
``codex_rollout``, ``gemini_chats``, ``copilot_events``; listed in ``files.TRANSCRIPTS``) decide which file is trusted and which records count; this
engine decides how much of it is read and remembers what was read:

* first event: ``live`` reads the newest 2 MiB / 512 lines and takes only the
  newest summary; ``recent`` scans once and keeps only the newest ``limit``;
  ``full`` scans once and streams every summary (memory stays bounded);
* every later event seeks to the saved byte cursor and reads only complete
  new records (at most ``MAX_READ_PER_EVENT``); a partial final record stays
  behind the cursor and is read once complete;
* a compact list of processed byte intervals remembers which summaries were
  taken, so widening the mode mid-session (``live`` -> ``recent`` -> ``full``)
  backfills only unseen summaries and never counts one twice;
* a replaced, moved or shrunk source, or bytes changed before the cursor,
  invalidates coverage instead of silently starting over.

Compressed rollouts (``.jsonl.zst``) are decompressed to a private temporary
file first (bounded), so the same byte cursor works on the decompressed text.
"""

from __future__ import annotations

import os
import re
from collections import deque

from agentreflex.core.util import fastjson
from agentreflex.core.util.deadline import check as check_time
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import field, record
from agentreflex.guard import bounds as B
from agentreflex.guard.sanitize import digest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from typing import Any


UUID = LazyPattern(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_HEX = frozenset("0123456789abcdefABCDEF")
_UUID_GROUPS = [8, 4, 4, 4, 12]
_ANCHOR = 256
_CHUNK = 1024 * 1024
_MAX_INTERVALS = 16
ZST = ".zst"


@record
class Batch:
    """What one read produced: new summaries (visible text) and metadata."""

    texts: list[str] = field(default_factory=list)
    model: str = ""
    effort: str = ""
    entrypoint: str = ""
    error: str = ""
    invalidated: bool = False


@record(frozen=True)
class Adapter:
    """A host's transcript format: where its file is and how to read a record.

    ``needles``: bytes one of which a line must hold to be worth parsing (the
    engine skips the rest unparsed); ``text``: the visible reasoning of one
    record; ``metadata``: the model, effort and entry point it records.
    """

    name: str
    needles: tuple[bytes, ...]
    resolve: Callable[[str, str, Mapping[str, str]], tuple[str, str]]
    text: Callable[[dict[str, Any]], str]
    metadata: Callable[[dict[str, Any], Batch], None]


def uuid_shaped(text: str) -> bool:
    """``UUID.match(text)``, with str methods: every event asks, and a pattern compiles.

    ``$`` also matches before a final newline; no letter but a-f folds to a-f.
    """
    if text.endswith("\n"):
        text = text[:-1]
    groups = text.split("-")
    return [len(g) for g in groups] == _UUID_GROUPS and all(c in _HEX for g in groups for c in g)


def inside(real: str, root: str) -> bool:
    """``real`` is strictly below ``root`` (both already resolved with realpath)."""
    try:
        return os.path.commonpath([real, root]) == root and real != root
    except ValueError:
        return False


def read_new(
    ingestion: dict[str, Any],
    session_id: str,
    hook_path: str,
    env: Mapping[str, str],
    adapter: Adapter | None = None,
    sink: Callable[[str], None] | None = None,
) -> Batch:
    """Read what is new since the saved cursor; updates ``ingestion`` in place.

    With a ``sink`` each summary is handed over as it is found instead of being
    collected in ``Batch.texts`` (so a ``full`` scan keeps memory bounded).
    """
    adapter = adapter or _claude()
    batch = Batch()
    path, reason = adapter.resolve(session_id, hook_path, env)
    if not path:
        batch.error = reason
        return batch
    try:
        with _open(path) as (fh, identity, size):
            _Reader(fh, size, ingestion, batch, adapter, sink).run(identity)
    except _TooLarge as exc:
        batch.error = str(exc)
    except OSError as exc:
        batch.error = f"cannot read transcript: {exc.strerror or exc}"
    return batch


def _claude() -> Adapter:
    from agentreflex.guard import claude_transcript

    return claude_transcript.ADAPTER


def adapter_for(provider: str) -> Adapter:
    """The transcript adapter of a provider listed in :data:`files.TRANSCRIPTS` (else Claude's)."""
    import importlib

    from agentreflex.guard.files import TRANSCRIPTS

    if provider not in TRANSCRIPTS:
        return _claude()
    adapter: Adapter = importlib.import_module(TRANSCRIPTS[provider]).ADAPTER
    return adapter


def nothing_new(
    ingestion: dict[str, Any],
    session_id: str,
    hook_path: str,
    env: Mapping[str, str],
    adapter: Adapter | None = None,
) -> bool:
    """Would :func:`read_new` leave ``ingestion`` as it is and return no text?

    True when no transcript is trusted (the read only records why) or when
    the file is the one already read, unchanged before the cursor and not
    longer than it.  A compressed source always answers False (it is rewritten
    as a whole, so only a full read can tell).
    """
    adapter = adapter or _claude()
    path, _reason = adapter.resolve(session_id, hook_path, env)
    if not path:
        return True
    if not ingestion.get("initialized") or path.endswith(ZST) or _wants_backfill(ingestion):
        return False
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_size != ingestion.get("cursor"):
                return False
            return not _changed(fh, ingestion, _identity(path, st), st.st_size)
    except OSError:
        return False


class _TooLarge(Exception):
    pass


class _open:
    """Context manager: (binary file, source identity, logical size) of a trusted path."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.fh: Any = None

    def __enter__(self) -> tuple[Any, str, int]:
        raw = open(self.path, "rb")
        st = os.fstat(raw.fileno())
        identity = _identity(self.path, st)
        if not self.path.endswith(ZST):
            self.fh = raw
            return raw, identity, st.st_size
        try:
            self.fh = _decompress(raw)
        finally:
            raw.close()
        return self.fh, identity, self.fh.tell()

    def __exit__(self, *exc: object) -> None:
        if self.fh is not None:
            self.fh.close()


def _decompress(raw: Any) -> Any:
    """A private temporary file holding the decompressed rollout (bounded)."""
    import tempfile

    try:
        import zstandard  # lazy: only a compressed rollout needs it
    except ImportError as exc:  # a broken install: say so, read nothing
        raise OSError(0, "zstandard is not installed; cannot read a compressed rollout") from exc

    out = tempfile.TemporaryFile()  # noqa: SIM115 - returned open; the caller closes it
    try:
        with zstandard.ZstdDecompressor().stream_reader(raw) as reader:
            while True:
                chunk = reader.read(_CHUNK)
                if not chunk:
                    break
                out.write(chunk)
                if out.tell() > B.MAX_DECOMPRESSED_BYTES:
                    raise _TooLarge("compressed rollout expands beyond the bound")
    except zstandard.ZstdError as exc:
        out.close()
        raise OSError(0, f"corrupt compressed rollout ({exc})") from exc
    except BaseException:
        out.close()
        raise
    return out


def _identity(path: str, st: os.stat_result) -> str:
    return digest(f"{path}:{st.st_dev}:{st.st_ino}")


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


def window(mode: str, limit: int) -> float:
    """How many of the newest summaries a mode promises (``full``: all of them)."""
    return 1 if mode == "live" else float(limit) if mode == "recent" else float("inf")


def _wants_backfill(ing: dict[str, Any]) -> bool:
    if not isinstance(ing.get("covered_mode"), str) or not ing["covered_mode"]:
        return False  # a report from before the ledger: read with its own mode
    limit = ing.get("covered_limit")
    covered = window(ing["covered_mode"], limit if isinstance(limit, int) else 1)
    wanted = window(ing["backfill_mode"], ing["backfill_limit"])
    return wanted > covered and not ing.get("complete")


def intervals(ing: dict[str, Any]) -> list[list[int]]:
    """The processed byte intervals (older reports hold only one, ``processed_interval``)."""
    found = ing.get("processed_intervals")
    if isinstance(found, list):
        return [list(x) for x in found if _span(x)]
    one: Any = ing.get("processed_interval")
    return [list(one)] if _span(one) and one[1] > one[0] else []


def _span(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    )


def add_interval(ing: dict[str, Any], start: int, end: int) -> None:
    """Merge ``[start, end)`` into the sorted, compact interval list (bounded)."""
    spans = intervals(ing)
    if end > start:
        spans.append([start, end])
    spans.sort()
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    while len(merged) > _MAX_INTERVALS:
        # join the two closest: the gap is then treated as seen (never counted twice)
        gaps = [merged[i + 1][0] - merged[i][1] for i in range(len(merged) - 1)]
        i = gaps.index(min(gaps))
        merged[i : i + 2] = [[merged[i][0], merged[i + 1][1]]]
    ing["processed_intervals"] = merged
    ing["processed_interval"] = [merged[0][0], merged[-1][1]] if merged else [0, 0]


def _covered(spans: list[list[int]], offset: int) -> bool:
    return any(a <= offset < b for a, b in spans)


class _Reader:
    """One read of one source; the state lives in the ingestion dict."""

    def __init__(
        self,
        fh: Any,
        size: int,
        ing: dict[str, Any],
        batch: Batch,
        adapter: Adapter,
        sink: Callable[[str], None] | None,
    ) -> None:
        self.fh, self.size, self.ing, self.batch = fh, size, ing, batch
        self.adapter, self.sink = adapter, sink
        self.count = 0

    def emit(self, text: str) -> None:
        self.count += 1
        if self.sink is not None:
            self.sink(text)
        else:
            self.batch.texts.append(text)

    def run(self, identity: str) -> None:
        ing = self.ing
        if ing["initialized"]:
            why = _changed(self.fh, ing, identity, self.size)
            if why:
                self.batch.invalidated = True
                self.batch.error = why
                ing.update(initialized=False, complete=False, processed_intervals=[])
                ing["processed_interval"] = [0, 0]
        ing["source_identity"] = identity
        if not ing["initialized"]:
            self.initial()
        else:
            if _wants_backfill(ing):
                self.backfill()
            self.follow()
        ing["processed"] += self.count
        cursor = ing["cursor"]
        ing["anchor"] = {"head": _head(self.fh, cursor), "cursor": _cursor_anchor(self.fh, cursor)}

    # -- first event ----------------------------------------------------------------

    def initial(self) -> None:
        ing = self.ing
        mode, limit = ing["backfill_mode"], ing["backfill_limit"]
        if mode == "live":
            self.live()
        else:
            self.scan(0, self.size, window(mode, limit), [])
        ing.update(initialized=True, covered_mode=mode, covered_limit=limit)
        ing["complete"] = mode == "full" and not self.batch.error
        ing["selected"] = self.count

    def live(self) -> None:
        """The newest summary in the last 2 MiB / 512 lines; metadata from 4,096 records."""
        ing = self.ing
        start = max(0, self.size - B.TAIL_BYTES)
        if start > 0:
            self.adapter_head_metadata()
        tail: deque[tuple[int, bytes]] = deque(maxlen=B.METADATA_MAX_RECORDS)
        for offset, line in _lines(self.fh, start, self.size, start > 0, ing, self.batch):
            tail.append((offset, line))
        newest: tuple[int, str] | None = None
        first = tail[-B.LIVE_MAX_LINES][0] if len(tail) >= B.LIVE_MAX_LINES else None
        for offset, line in tail:
            rec = self._record(line)
            if rec is None:
                continue
            self.adapter.metadata(rec, self.batch)
            text = self.adapter.text(rec) if (first is None or offset >= first) else ""
            if text:
                newest = (offset, text)
        if newest is not None:
            self.emit(newest[1])
            add_interval(ing, newest[0], ing["cursor"])
        else:
            add_interval(ing, tail[0][0] if tail else ing["cursor"], ing["cursor"])

    def adapter_head_metadata(self) -> None:
        """The first record (Codex keeps its ``session_meta`` there), bounded."""
        self.fh.seek(0)
        line = self.fh.readline(B.MAX_RECORD_BYTES + 1)
        rec = self._record(line.rstrip(b"\n")) if line.endswith(b"\n") else None
        if rec is not None:
            self.adapter.metadata(rec, self.batch)

    def scan(self, start: int, end: int, keep: float, seen: list[list[int]]) -> None:
        """One sequential pass; emits the newest ``keep`` summaries not in ``seen``.

        ``full`` (keep = inf) emits as it goes, ``recent`` keeps only the newest
        ``keep`` while scanning.  The interval that is now fully processed is
        recorded.
        """
        ing = self.ing
        stream = keep == float("inf")
        newest: deque[tuple[int, str, bool]] = deque(maxlen=None if stream else int(keep))
        for offset, line in _lines(self.fh, start, end, False, ing, self.batch):
            rec = self._record(line)
            if rec is None:
                continue
            self.adapter.metadata(rec, self.batch)
            text = self.adapter.text(rec)
            if not text:
                continue
            old = _covered(seen, offset)
            if stream:
                if not old:
                    self.emit(text)
            else:
                newest.append((offset, text, old))
        for _offset, text, old in newest:
            if not old:
                self.emit(text)
        full_window = stream or len(newest) < (newest.maxlen or 0)
        add_interval(ing, start if full_window else newest[0][0], ing["cursor"])

    # -- later events ---------------------------------------------------------------

    def backfill(self) -> None:
        """The mode was widened: one pass over what lies before the cursor."""
        ing = self.ing
        mode, limit = ing["backfill_mode"], ing["backfill_limit"]
        cursor = ing["cursor"]
        try:
            self.scan(0, cursor, window(mode, limit), intervals(ing))
        finally:
            ing["cursor"] = cursor  # the scan moves it; a failed scan must not leave it behind
        ing.update(covered_mode=mode, covered_limit=limit)
        if mode == "full" and not self.batch.error:
            ing["complete"] = True

    def follow(self) -> None:
        ing = self.ing
        start = ing["cursor"]
        end = min(self.size, start + B.MAX_READ_PER_EVENT)
        for _offset, line in _lines(self.fh, start, end, False, ing, self.batch):
            rec = self._record(line)
            if rec is None:
                continue
            self.adapter.metadata(rec, self.batch)
            text = self.adapter.text(rec)
            if text:
                self.emit(text)
        add_interval(ing, start, ing["cursor"])

    def _record(self, line: bytes) -> dict[str, Any] | None:
        if not any(n in line for n in self.adapter.needles):
            return None  # cheap: most records are tool output, never parsed
        return _parse_line(line)


def _lines(
    fh: Any, start: int, end: int, skip_partial_head: bool, ing: dict[str, Any], batch: Batch
) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of the complete JSONL lines in [start, end), streamed in chunks.

    ``ing['cursor']`` moves past each complete line; a partial final record
    stays behind the cursor and is retried once it is complete.  A line longer
    than ``MAX_RECORD_BYTES`` is skipped (and said so in the batch error).
    """
    fh.seek(start)
    pos, buf, skipping = start, b"", skip_partial_head
    ing["cursor"] = start
    while pos < end:
        check_time()  # the reflexes' deadline (rt74's): a full scan reads all of a transcript
        chunk = fh.read(min(_CHUNK, end - pos))
        if not chunk:
            break
        pos += len(chunk)
        buf += chunk
        lines = buf.split(b"\n")
        buf = lines.pop()
        for n, line in enumerate(lines):
            if n and not n % 1024:
                check_time()  # and between the records of a chunk, each parsed
            offset = ing["cursor"]
            ing["cursor"] += len(line) + 1
            if skipping:
                skipping = False
                continue
            if len(line) > B.MAX_RECORD_BYTES:
                batch.error = "a record larger than the bound was skipped"
                continue
            yield offset, line
        if len(buf) > B.MAX_RECORD_BYTES:
            ing["cursor"] += len(buf)  # an oversized record is skipped, not retried
            buf, skipping = b"", True
            batch.error = "a record larger than the bound was skipped"


def _parse_line(line: bytes) -> dict[str, Any] | None:
    if not line.strip():
        return None
    try:
        rec = fastjson.loads(line)
    except (ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None
