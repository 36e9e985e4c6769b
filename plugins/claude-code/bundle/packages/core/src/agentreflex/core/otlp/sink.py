"""A bounded, non-blocking queue in front of the OpenTelemetry SDK's OTLP/HTTP log exporter.

Why our own queue and worker rather than the SDK's batch processor: the
caller (the daemon, right after answering a hook) must never wait, and what
is lost must be counted where a user can read it.  :meth:`OtlpSink.offer`
only ever does ``put_nowait``: a full queue drops the item and counts it.
One worker thread sends batches with the official exporter
(``opentelemetry-exporter-otlp-proto-http``) and retries a failed batch with
exponential back-off; a batch still failing after the last try is dropped
and counted.  The SDK is imported by the worker, never by a hook.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import threading
import time

from agentreflex.core.otlp.records import LogItem, resource_attributes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

INSTALL_HINT = (
    "OTLP export needs the OpenTelemetry SDK and exporter, which are not installed. "
    "Install them with: pip install 'agentreflex-core[otlp]' "
    "(or uv pip install 'agentreflex-core[otlp]')"
)
SCOPE = "agentreflex.core.otlp"
REPORT_SECONDS = 0.5  # counters are handed on at most this often (each batch forces it)


class ExportUnavailable(ImportError):
    """The OpenTelemetry packages are missing: the message says how to install them."""


def check_available() -> None:
    """Raise :class:`ExportUnavailable` (with the install hint) when the SDK is missing."""
    try:
        import opentelemetry.exporter.otlp.proto.http._log_exporter
        import opentelemetry.sdk._logs  # noqa: F401
    except ImportError as exc:
        raise ExportUnavailable(INSTALL_HINT) from exc


def check_url(url: str) -> str:
    """An OTLP/HTTP logs endpoint: http(s), with ``/v1/logs`` added to a bare collector URL."""
    from urllib.parse import urlsplit

    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http(s) URL of an OTLP collector")
    if parts.username or parts.password:
        raise ValueError("put credentials in OTEL_EXPORTER_OTLP_HEADERS, not in the URL")
    path = parts.path.rstrip("/")
    return url.strip() if path.endswith("/v1/logs") else url.strip().rstrip("/") + "/v1/logs"


class OtlpSink:
    """Send :class:`LogItem` batches to one endpoint, counting everything dropped."""

    def __init__(
        self,
        url: str,
        max_queue: int = 4096,
        batch_size: int = 256,
        interval: float = 1.0,
        retries: int = 3,
        backoff: float = 0.5,
        timeout: float = 3.0,
        version: str = "",
        on_change: Callable[[dict[str, int]], None] | None = None,
    ) -> None:
        self.url = check_url(url)
        self._queue: queue.Queue[LogItem] = queue.Queue(maxsize=max_queue)
        self._batch_size = batch_size
        self._interval = interval
        self._retries = retries
        self._backoff = backoff
        self._timeout = timeout
        self._version = version
        self._on_change = on_change
        self._lock = threading.Lock()
        self._counts = {"queued": 0, "sent": 0, "dropped_full": 0, "dropped_failed": 0}
        self._counts["retries"] = 0
        self._dirty = False
        self._reported = 0.0
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None

    # ---------------------------------------------------------------- caller side

    def offer(self, items: Sequence[LogItem]) -> int:
        """Queue ``items`` without ever waiting; returns how many were dropped (queue full)."""
        dropped = 0
        for item in items:
            try:
                self._queue.put_nowait(item)
                self._idle.clear()
            except queue.Full:
                dropped += 1
        self._count(queued=len(items) - dropped, dropped_full=dropped)
        self._start()
        return dropped

    def counters(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until everything queued was sent or dropped (for the one-shot command)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._queue.empty() and self._idle.is_set():
                return True
            time.sleep(0.02)
        return False

    def close(self, timeout: float | None = None) -> None:
        """Stop: what is queued gets one try each (no back-off); what is left after
        ``timeout`` seconds is counted as dropped, so the daemon exits promptly."""
        self._stop.set()
        if self._thread is not None:
            wait = self._timeout * (self._retries + 1) + 1 if timeout is None else timeout
            self._thread.join(timeout=wait)
        left = 0
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
            left += 1
        if left:
            self._count(dropped_failed=left)
        self.report(force=True)

    def _count(self, **deltas: int) -> None:
        with self._lock:
            for key, value in deltas.items():
                self._counts[key] += value
            self._dirty = True

    def report(self, force: bool = False) -> None:
        """Hand changed counters to ``on_change``, at most every REPORT_SECONDS unless forced.

        Called by the worker after each batch and when idle, and by whoever
        offers (the daemon's export thread), so the counters stay current even
        while the worker waits on a slow collector; never by :meth:`offer`.
        """
        now = time.monotonic()
        with self._lock:
            if not self._dirty or (not force and now - self._reported < REPORT_SECONDS):
                return
            self._dirty, self._reported = False, now
            snapshot = dict(self._counts)
        if self._on_change is not None:
            with contextlib.suppress(Exception):
                self._on_change(snapshot)

    def _start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="otlp-export", daemon=True)
                self._thread.start()

    # ---------------------------------------------------------------- worker side

    def _run(self) -> None:
        exporter = None
        with contextlib.suppress(ImportError):  # counted: every batch is dropped as failed
            exporter = self._exporter()
        while not (self._stop.is_set() and self._queue.empty()):
            batch = self._take()
            if not batch:
                self.report()
                self._idle.set()
                continue
            if exporter is None or not self._send(exporter, batch):
                self._count(dropped_failed=len(batch))
            else:
                self._count(sent=len(batch))
            self.report(force=True)
            if self._queue.empty():
                self._idle.set()
        if exporter is not None:
            with contextlib.suppress(Exception):
                exporter.shutdown()

    def _take(self) -> list[LogItem]:
        """Up to one batch: waits at most ``interval`` for the first item, then takes what is there."""
        try:
            batch = [self._queue.get(timeout=self._interval)]
        except queue.Empty:
            return []
        while len(batch) < self._batch_size:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def _send(self, exporter: Any, batch: list[LogItem]) -> bool:
        from opentelemetry.sdk._logs.export import LogRecordExportResult

        records = self._records(batch)
        for attempt in range(self._retries + 1):
            try:
                if exporter.export(records) is LogRecordExportResult.SUCCESS:
                    return True
            except Exception:  # a broken collector must not end the worker
                pass
            if attempt == self._retries or self._stop.wait(self._backoff * 2**attempt):
                return False
            self._count(retries=1)
        return False

    def _exporter(self) -> Any:
        check_available()
        if not self._version:
            from importlib.metadata import PackageNotFoundError, version

            with contextlib.suppress(PackageNotFoundError):
                self._version = version("agentreflex-core")
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter

        return OTLPLogExporter(endpoint=self.url, timeout=self._timeout)

    def _records(self, batch: list[LogItem]) -> list[Any]:
        from opentelemetry._logs import LogRecord, SeverityNumber
        from opentelemetry.sdk._logs import ReadableLogRecord
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.util.instrumentation import InstrumentationScope

        resource = Resource.create(resource_attributes(self._version))
        scope = InstrumentationScope(SCOPE, self._version or None)
        observed = time.time_ns()
        return [
            ReadableLogRecord(
                log_record=LogRecord(
                    timestamp=item.time_ns,
                    observed_timestamp=observed,
                    severity_number=SeverityNumber(item.severity_number),
                    severity_text=item.severity_text,
                    body=item.body,
                    attributes=item.attributes,
                    event_name=item.event_name,
                ),
                resource=resource,
                instrumentation_scope=scope,
            )
            for item in batch
        ]


def write_counters(path: str, counters: dict[str, int], url: str) -> None:
    """The daemon's export counters, where ``agentreflex export --status`` reads them."""
    data = json.dumps({"url": url, "updated": round(time.time(), 3), **counters})
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(data)
    os.replace(tmp, path)
