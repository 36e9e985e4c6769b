"""Token and cost usage, read from the host's own records.

Claude Code writes one transcript record per content block; assistant records
carry ``message.usage`` (input, output and cache tokens) and sometimes
``costUSD``.  Budgets need running totals, so each hook call reads only the
bytes appended since the cursor it stored last time, and at most
``MAX_READ`` of them: the cost of a hook never grows with the transcript.
A record is counted once per message id (Claude repeats usage on every block
of one message).

:class:`TokenUsage` is the one definition of what model calls spent (tokens
in, tokens out, US dollars): a transcript delta here, a session's totals
(:class:`agentreflex.core.state.model.Counters`) and a router lane's totals
are each a ``TokenUsage`` with their own fields besides.
"""

from __future__ import annotations

import os

from agentreflex.core.util import fastjson
from agentreflex.core.util.record import field, record

MAX_READ = 2 * 1024 * 1024


@record
class TokenUsage:
    """Tokens a model read and wrote, and what they cost in US dollars."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def tokens(self) -> int:
        """Tokens in and out together: what a token budget counts."""
        return self.input_tokens + self.output_tokens

    @property
    def empty(self) -> bool:
        return not (self.input_tokens or self.output_tokens or self.cost_usd)

    def add(self, input_tokens: int, output_tokens: int, cost_usd: float) -> None:
        """Count one more spend into these totals."""
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.cost_usd += cost_usd


@record
class UsageDelta(TokenUsage):
    """What a transcript's records appended since ``cursor`` spent, and their message ids."""

    cursor: int = 0
    message_ids: list[str] = field(default_factory=list)


def _trusted(path: str) -> bool:
    return path.endswith(".jsonl") and os.path.isfile(path) and not os.path.islink(path)


def read_usage(path: str, cursor: int, seen: set[str]) -> UsageDelta | None:
    """Usage appended to a Claude transcript after ``cursor`` (None if unreadable)."""
    if not path or not _trusted(path):
        return None
    try:
        size = os.path.getsize(path)
        if size < cursor:  # replaced or truncated: start over
            cursor = 0
        with open(path, "rb") as fh:
            fh.seek(cursor)
            chunk = fh.read(min(MAX_READ, size - cursor))
    except OSError:
        return None
    end = chunk.rfind(b"\n")
    delta = UsageDelta(cursor=cursor if end < 0 else cursor + end + 1)
    for raw in chunk[: end + 1].splitlines():
        if b'"usage"' not in raw and b"costUSD" not in raw:
            continue
        try:
            record = fastjson.loads(raw)
        except ValueError:
            continue
        _add(delta, record, seen)
    return delta


def _add(delta: UsageDelta, record: object, seen: set[str]) -> None:
    if not isinstance(record, dict) or record.get("type") != "assistant":
        return
    message = record.get("message")
    if not isinstance(message, dict):
        return
    mid = str(message.get("id") or record.get("uuid") or "")
    if mid in seen:
        return
    usage = message.get("usage")
    if isinstance(usage, dict):
        delta.input_tokens += sum(
            _int(usage.get(k))
            for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        delta.output_tokens += _int(usage.get("output_tokens"))
    cost = record.get("costUSD")
    if isinstance(cost, int | float) and not isinstance(cost, bool) and cost > 0:
        delta.cost_usd += float(cost)
    if mid:
        seen.add(mid)
        delta.message_ids.append(mid)


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
