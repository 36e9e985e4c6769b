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
from agentreflex.core.redaction.redact import redact, redact_chunks
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
    """Write every line (redacted, in batches) and feed it to the selector; returns the size.

    The batches are redacted as one text (``redact_chunks``): a secret that
    straddles two of them (a token in a line read in 64 KiB pieces, a private
    key whose BEGIN line ended a batch) is found whole.  The selector reads
    the redacted lines: the lines it keeps are no longer next to the ones
    that made them a secret (a private key's body lines kept as the context
    of the error after it, without their BEGIN line; the end of a token whose
    line was read in pieces).
    """
    chars = 0

    def batches() -> Iterator[str]:
        nonlocal chars
        batch: list[str] = []
        size = 0
        for line in lines:
            if "\x00" in line:
                raise PassThrough("output looks binary (NUL bytes)")
            batch.append(line)
            size += len(line)
            chars += len(line)
            if size >= BATCH:
                yield "".join(batch)
                batch, size = [], 0
        yield "".join(batch)

    with os.fdopen(fd, "w", encoding="utf-8", errors="strict", newline="") as fh:
        partial = ""
        for piece in redact_chunks(batches()):
            fh.write(piece)
            parts = (partial + piece).splitlines(keepends=True)
            partial = "" if piece.endswith(("\n", "\r")) or not parts else parts.pop()
            for line in parts:
                _add(selector, line)
            while len(partial) > READ_LIMIT:  # a long line goes on: its read pieces now
                selector.add(partial[:READ_LIMIT])
                partial = partial[READ_LIMIT:]
        if partial:
            _add(selector, partial)
    return chars


def _add(selector: Selector, line: str) -> None:
    """One line to the selector; a long one in pieces, as the stream reads it."""
    while len(line) > READ_LIMIT:
        selector.add(line[:READ_LIMIT])
        line = line[READ_LIMIT:]
    selector.add(line)
