"""A small file cache of judge answers, shared by every hook process.

Each hook call is a new process on most hosts, so the cache lives on disk
under ``<state_dir>/judge-cache``: one JSON file per key, where the key is a
hash of model, state text and questions (any change in any of them is a
miss).  Entries expire after ``ttl_s``; when more than ``max_entries`` exist
the oldest are removed.  Writes are atomic (temp file, fsync, replace), and
any I/O problem is a miss, never an error: the cache can only save time.

Only valid, non-degraded answers are stored; they hold probabilities, never
the state text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import time

from agentreflex.core.util.fsutil import atomic_write_bytes
from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from agentreflex.core.systemone.wire import Question

DIRNAME = "judge-cache"
DEFAULT_TTL_S = 600.0
DEFAULT_MAX_ENTRIES = 256
_SUFFIX = ".json"


def cache_key(model: str, state: str, questions: Mapping[str, Question]) -> str:
    """sha256 of the canonical JSON of model, state and questions."""
    blob = json.dumps([model, state, questions], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@record(frozen=True)
class CachedAnswer:
    probabilities: dict[str, float]
    choices: dict[str, dict[str, float]]
    model: str


class FileCache:
    """TTL- and size-bounded answers on disk.  ``clock`` is injectable for tests."""

    def __init__(
        self,
        directory: str,
        ttl_s: float = DEFAULT_TTL_S,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.directory = directory
        self.ttl_s = ttl_s
        self.max_entries = max(1, max_entries)
        self._clock = clock

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, key + _SUFFIX)

    def get(self, key: str) -> CachedAnswer | None:
        """The stored answer, or ``None`` when absent, expired or unreadable."""
        path = self._path(key)
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
            return _decode(data, self._clock(), self.ttl_s)
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def put(self, key: str, answer: CachedAnswer) -> None:
        """Store atomically, then trim to ``max_entries``.  Failures are ignored."""
        data = {
            "ts": self._clock(),
            "model": answer.model,
            "probabilities": answer.probabilities,
            "choices": answer.choices,
        }
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            atomic_write_bytes(self._path(key), json.dumps(data, sort_keys=True).encode())
            self._trim(keep=self._path(key))
        except OSError:
            return

    def _trim(self, keep: str) -> None:
        entries: list[tuple[int, str]] = []
        with os.scandir(self.directory) as it:
            for entry in it:
                if entry.name.endswith(_SUFFIX) and entry.path != keep:
                    with contextlib.suppress(OSError):
                        entries.append((entry.stat().st_mtime_ns, entry.path))
        excess = len(entries) + 1 - self.max_entries
        if excess <= 0:
            return
        for _, path in sorted(entries)[:excess]:
            with contextlib.suppress(OSError):
                os.unlink(path)

    def __len__(self) -> int:
        try:
            return sum(1 for n in os.listdir(self.directory) if n.endswith(_SUFFIX))
        except OSError:
            return 0


def _decode(data: Any, now: float, ttl_s: float) -> CachedAnswer | None:
    ts = float(data["ts"])
    if not math.isfinite(ts) or now - ts > ttl_s or ts - now > ttl_s:
        return None
    probs = {str(k): _prob(v) for k, v in dict(data["probabilities"]).items()}
    choices = {
        str(q): {str(k): _prob(v) for k, v in dict(dist).items()}
        for q, dist in dict(data.get("choices", {})).items()
    }
    return CachedAnswer(probabilities=probs, choices=choices, model=str(data.get("model", "")))


def _prob(value: Any) -> float:
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ValueError("cached probability out of range")
    return number
