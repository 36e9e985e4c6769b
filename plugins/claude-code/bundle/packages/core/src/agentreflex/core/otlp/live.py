"""The daemon's live export: each decision it answered, offered after the reply went out.

What is sent is read from the session's log (``history.read_new``), from
where the previous look stopped: the decision the daemon just recorded, and
any a hook recorded by itself in between (the daemon was busy, or the hook
gave up waiting), each record once.

Where decisions go is the user's choice: ``[export] otlp = URL`` in the
user's config.  A project's config may not set or change it unless the user
approved that file (``agentreflex trust``): ``export`` is a section compared
"same" by the trust rule, so an unapproved change is withheld like any other.
The endpoint is looked up per project (cached a few seconds) and each
endpoint gets one :class:`~agentreflex.core.otlp.sink.OtlpSink`; counters go
to the user's state dir for ``agentreflex export --status``.  Nothing here
may raise into the daemon, and nothing here runs in a hook process.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time

from agentreflex.core.otlp.records import AttributeValue, log_items
from agentreflex.core.state.history import Tail, read_new

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from agentreflex.core.config.settings import Config
    from agentreflex.core.hook.runtime import HookOutcome
    from agentreflex.core.otlp.sink import OtlpSink

CONFIG_SECONDS = 5.0  # how long a project's endpoint is remembered
COUNTERS_FILE = "otlp-export.json"
DEFAULT_QUEUE = 4096  # log records waiting to be sent; more are dropped and counted
QUEUE_RANGE = (1, 1_000_000)

CLOSE_SECONDS = 3.0  # a closing daemon waits this long per endpoint; the rest is counted dropped
INTAKE = 1024  # outcomes waiting for the export thread; more are dropped and counted

_LOCK = threading.Lock()
_SINKS: dict[str, OtlpSink] = {}
_URLS: dict[str, tuple[float, str, int]] = {}
_SETTINGS: dict[str, dict[str, AttributeValue]] = {}
_STATE_DIRS: dict[str, str] = {}
_TAILS: dict[tuple[str, str], Tail] = {}  # (state dir, session) -> where its log was read to
MAX_TAILS = 1000  # sessions followed at once; the oldest is forgotten first
_INTAKE: queue.Queue[tuple[HookOutcome | None, dict[str, str]]] = queue.Queue(maxsize=INTAKE)
_DROPPED = [0]  # outcomes dropped at the intake (the export thread fell behind)
_WORKER: threading.Thread | None = None


def counters_path(env: Mapping[str, str] | None = None) -> str:
    from agentreflex.core.state.userdirs import user_state_dir

    return os.path.join(user_state_dir(env), COUNTERS_FILE)


def endpoint(cwd: str, env: Mapping[str, str]) -> tuple[str, int]:
    """The OTLP endpoint for ``cwd`` ("" when none) and its queue size, remembered a few seconds.

    ``[export] otlp`` and ``queue`` come from the user's config, or from a
    project config the user approved; an unapproved project value is withheld
    by ``load_config`` (the section is compared "same").
    """
    now = time.monotonic()
    with _LOCK:
        cached = _URLS.get(cwd)
    if cached and cached[0] > now:
        return cached[1], cached[2]
    from agentreflex.core.config.settings import load_config

    config = load_config(cwd, env, bad_project_file="ignore")
    section = config.section("export")
    url = section.get("otlp", "")
    url = url if isinstance(url, str) and _valid(url) else ""  # `config check` says why
    size = section.get("queue", DEFAULT_QUEUE)
    if not isinstance(size, int) or not QUEUE_RANGE[0] <= size <= QUEUE_RANGE[1]:
        size = DEFAULT_QUEUE
    with _LOCK:
        _URLS[cwd] = (now + CONFIG_SECONDS, url, size)
        _SETTINGS[cwd] = settings_attributes(config)
        _STATE_DIRS[cwd] = config.state_dir
    return url, size


def settings_attributes(config: Config) -> dict[str, AttributeValue]:
    """How the project was protected when it decided: the mode, and what was switched off.

    What a security lead asks of a team's telemetry: which machines run in
    shadow mode, and which reflexes someone turned off (``*``: all of them).
    """
    off = list(config.disabled_reflexes) if config.reflexes_enabled else ["*"]
    return {
        "agentreflex.mode": config.mode.value,
        "agentreflex.profile": config.profile,
        "agentreflex.disabled_reflexes": off,
        "agentreflex.config_withheld": len(config.untrusted),
    }


def _valid(url: str) -> bool:
    from agentreflex.core.otlp.sink import check_url

    try:
        check_url(url)
    except ValueError:
        return False
    return True


def offer(outcome: HookOutcome, env: Mapping[str, str]) -> None:
    """Hand the decision of ``outcome`` to the export thread; never waits, never raises.

    Called on the daemon's connection thread after the reply went out: it
    only puts the outcome in a bounded queue (full: dropped and counted), so
    the next hook's request does not share the thread with config lookups,
    redaction or I/O.  A project known to have no endpoint costs a dict lookup.
    """
    event = outcome.event
    if event is None or outcome.decision is None:
        return
    with _LOCK:
        cached = _URLS.get(event.cwd)
    if cached and cached[0] > time.monotonic() and not cached[1]:
        return
    try:
        _INTAKE.put_nowait((outcome, dict(env)))
    except queue.Full:
        with _LOCK:
            _DROPPED[0] += 1
        return
    _start()


def _start() -> None:
    global _WORKER
    with _LOCK:
        if _WORKER is None:
            _WORKER = threading.Thread(target=_work, name="otlp-intake", daemon=True)
            _WORKER.start()


def _work() -> None:
    while True:
        outcome, env = _INTAKE.get()
        if outcome is None:
            return
        with contextlib.suppress(Exception):  # a bad record or config must not end the thread
            forward(outcome, env)


def forward(outcome: HookOutcome, env: Mapping[str, str]) -> None:
    """Build the log records of ``outcome`` and offer them to its project's endpoint."""
    event, decision = outcome.event, outcome.decision
    if event is None or decision is None:
        return
    url, size = endpoint(event.cwd, env)
    if not url:
        return
    with _LOCK:
        extra = _SETTINGS.get(event.cwd, {})
        state_dir = _STATE_DIRS.get(event.cwd, "")
    found = _recorded(state_dir, event.session_id, env) if state_dir else None
    if found is None:  # the log could not be read: the decision as the daemon made it
        from agentreflex.core.state.store import make_record

        found = [make_record(event, decision, [], None)]
    items = [item for rec in found for item in log_items(rec, event.session_id, event.host)]
    for item in items:
        item.attributes.update(extra)
    target = sink(url, env, size)
    target.offer(items)
    target.report()


def _recorded(
    state_dir: str, session_id: str, env: Mapping[str, str]
) -> list[dict[str, Any]] | None:
    """The session's records since the last look: this decision, and any a hook made by itself.

    A hook that evaluated in-process (the daemon was busy, or it gave up
    waiting) recorded its decision in the log too; reading the log from where
    the last look stopped sends those as well, each record once.
    """
    key = (state_dir, session_id)
    with _LOCK:
        tail = _TAILS.pop(key, None) or Tail()
        _TAILS[key] = tail  # most recently used last
        while len(_TAILS) > MAX_TAILS:
            _TAILS.pop(next(iter(_TAILS)))
    return read_new(state_dir, session_id, tail, env)


def sink(url: str, env: Mapping[str, str], size: int = DEFAULT_QUEUE) -> OtlpSink:
    from agentreflex.core.otlp.sink import OtlpSink, write_counters

    path = counters_path(env)
    with _LOCK:
        found = _SINKS.get(url)
        if found is None:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            found = _SINKS[url] = OtlpSink(
                url,
                max_queue=size,
                on_change=lambda counts: write_counters(
                    path, counts | {"dropped_intake": _DROPPED[0]}, url
                ),
            )
        return found


def close_all() -> None:
    """Send what is queued (bounded by each sink's retries) before the daemon exits."""
    global _WORKER
    if _WORKER is not None:
        with contextlib.suppress(queue.Full):
            _INTAKE.put((None, {}), timeout=1.0)
        _WORKER.join(timeout=5.0)
        _WORKER = None
    with _LOCK:
        sinks = list(_SINKS.values())
        _SINKS.clear()
    for s in sinks:
        s.close(timeout=CLOSE_SECONDS)
