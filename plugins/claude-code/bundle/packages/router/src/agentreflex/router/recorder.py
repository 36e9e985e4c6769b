"""``serve --record DIR``: keep request bodies so a decision can be explained later.

Why: "why did this request go there?" is best answered on the request itself
(``agentreflex routing explain DIR/FILE``), and ``/status`` names each
request's file. Off by default: a body holds the user's code and whatever the
agent read. Every string is redacted with core's one rule set before it is
written; files are the user's only (0600 in a 0700 folder) and only the newest
``keep`` are kept. Headers, and so keys, are never written.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from agentreflex.core.redaction.redact import redact_obj

KEEP = 500


class Recorder:
    def __init__(self, folder: Path, keep: int = KEEP) -> None:
        self.folder = folder
        self.keep = keep
        self._lock = threading.Lock()
        self._count = 0
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)

    def save(self, path: str, api: str, body: dict[str, Any]) -> str | None:
        """Write one request; its file name, or None when it could not be written."""
        with self._lock:
            self._count += 1
            name = f"{time.time_ns()}-{self._count:06d}.json"
        data = json.dumps({"path": path, "api": api, "body": redact_obj(body)}).encode()
        target = self.folder / name
        temporary = target.with_suffix(".tmp")
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
            os.replace(temporary, target)
        except OSError:  # recording is a convenience: a full disk never fails a request
            with contextlib.suppress(OSError):
                temporary.unlink()
            return None
        self._prune()
        return name

    def _prune(self) -> None:
        with self._lock:
            files = sorted(self.folder.glob("*.json"))
            for old in files[: max(0, len(files) - self.keep)]:
                with contextlib.suppress(OSError):
                    old.unlink()
