"""The large tool output saver: keep what matters, save the whole (redacted), say where.

One streaming pass does both jobs: every line goes, redacted, into the
saved copy and through the :class:`~agentreflex.context_layer.lines.Selector`.
Memory stays bounded whatever the size (measured in
``tools/context_benchmark.py``: a 1 GB log).  Anything that makes the result
unsafe to substitute raises :class:`PassThrough` and the caller leaves the
output untouched: binary data (NUL bytes), invalid UTF-8, a copy that
cannot be written (read-only, full disk, a refused directory), or more
error lines than the selection holds (it never drops one).
"""

from __future__ import annotations

import contextlib
import os

from agentreflex.context_layer import outputs
from agentreflex.context_layer.lines import Selector
from agentreflex.core.redaction.redact import redact
from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import BinaryIO

READ_LIMIT = 64 * 1024  # longest piece of a line read at once from a stream
BATCH = 256 * 1024  # characters redacted and written together


class PassThrough(Exception):
    """Leave the output as it is; the message is the one-line warning."""


@record
class Shortened:
    text: str
    path: str
    lines: int
    kept: int
    errors: int
    chars: int


@record
class Limits:
    keep_chars: int = 6000
    max_files: int = 50
    max_bytes: int = 200 * 1024 * 1024


def shorten_text(
    text: str, state_dir: str, tool: str, limits: Limits, goal_terms: Iterable[str] = ()
) -> Shortened:
    """Shorten one in-memory output (a hook payload's); raises PassThrough."""
    return _run(iter(text.splitlines(keepends=True)), state_dir, tool, limits, goal_terms)


def shorten_stream(
    stream: BinaryIO, state_dir: str, tool: str, limits: Limits, goal_terms: Iterable[str] = ()
) -> Shortened:
    """Shorten an output read from a binary stream, in bounded memory; raises PassThrough."""
    return _run(_decoded(stream), state_dir, tool, limits, goal_terms)


def _decoded(stream: BinaryIO) -> Iterator[str]:
    while True:
        piece = stream.readline(READ_LIMIT)
        if not piece:
            return
        try:
            yield piece.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PassThrough(f"output is not valid UTF-8 (byte {exc.start} of a line)") from None


def _run(
    lines: Iterator[str], state_dir: str, tool: str, limits: Limits, goal_terms: Iterable[str]
) -> Shortened:
    if not state_dir:
        raise PassThrough("no state directory to save the output in")
    selector = Selector(limits.keep_chars, goal_terms)
    try:
        path, fd = outputs.create(state_dir, tool)
    except outputs.SaveError as exc:
        raise PassThrough(str(exc)) from None
    try:
        chars = _copy(lines, fd, selector)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(path)
        if isinstance(exc, OSError):
            raise PassThrough(f"cannot save the output: {exc.strerror or exc}") from None
        if isinstance(exc, UnicodeError):
            raise PassThrough("output is not valid UTF-8 (unpaired surrogates)") from None
        raise
    if selector.incomplete:
        raise PassThrough(
            f"more error lines than the saver keeps ({selector.errors:,}); output left whole, "
            f"a copy is at {path}"
        )
    outputs.prune(state_dir, limits.max_files, limits.max_bytes, keep=path)
    body, kept = selector.render()
    header = (
        f"[agentreflex: {tool} output shortened from {selector.count:,} lines "
        f"({chars:,} characters) to {kept:,}: every error/failure line with its context, "
        f"tracebacks and summaries are kept. The whole output (redacted) is saved at {path}]"
    )
    lead = selector.first_errors()
    if lead:
        header += (
            f"\nError and failure lines first ({selector.errors:,}; all of them are also "
            f"below, in order, with their context):\n{lead}\n[agentreflex: the kept lines, in order:]"
        )
    text = redact(header + "\n" + body)
    return Shortened(text, path, selector.count, kept, selector.errors, chars)


def _copy(lines: Iterator[str], fd: int, selector: Selector) -> int:
    """Write every line (redacted, in batches) and feed it to the selector; returns the size."""
    chars = 0
    batch: list[str] = []
    size = 0
    with os.fdopen(fd, "w", encoding="utf-8", errors="strict", newline="") as fh:
        for line in lines:
            if "\x00" in line:
                raise PassThrough("output looks binary (NUL bytes)")
            selector.add(line)
            batch.append(line)
            size += len(line)
            chars += len(line)
            if size >= BATCH:
                fh.write(_redacted(batch))
                batch, size = [], 0
        fh.write(_redacted(batch))
    return chars


def _redacted(batch: list[str]) -> str:
    try:
        return redact("".join(batch))
    except UnicodeError:
        raise PassThrough("output is not valid UTF-8 (unpaired surrogates)") from None
