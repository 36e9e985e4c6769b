"""``agentreflex export --otlp URL``: recorded decisions and findings to an OTLP collector.

One-shot and cold: reads the state store (``history``), sends every decision
and non-ALLOW finding as OpenTelemetry log records, waits for them to be sent
or dropped, and prints the counters.  ``--status`` prints the daemon's live
export counters instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

EXIT_USAGE = 64
EXIT_UNAVAILABLE = 69
EXIT_CONFIG = 78


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="agentreflex export",
        description="Send recorded decisions and findings as OpenTelemetry log records (OTLP/HTTP).",
    )
    p.add_argument("--otlp", default="", help="collector URL (default: [export] otlp in config)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--session", default="", help="only this session id")
    which.add_argument("--since", default="", help="events from DATE on (2026-12-01, 7d, 24h)")
    p.add_argument("--cwd", default=os.getcwd(), help="the project (default: here)")
    p.add_argument("--state-dir", default="", help="read this state dir instead of the project's")
    p.add_argument("--status", action="store_true", help="the daemon's live export counters")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for sending")
    return p


def main(argv: list[str]) -> int:
    ns = _parser().parse_args(argv)
    if ns.status:
        return _status()
    from agentreflex.core.config.settings import ConfigError, load_config
    from agentreflex.core.otlp.sink import ExportUnavailable, check_available, check_url
    from agentreflex.core.report.command import BadDate, parse_since

    try:
        config = load_config(os.path.abspath(ns.cwd))
    except ConfigError as exc:
        print(f"agentreflex export: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    url = ns.otlp or str(config.section("export").get("otlp", ""))
    try:
        if not url:
            raise ValueError("give --otlp URL or set [export] otlp = URL in your user config")
        url = check_url(url)
        since = parse_since(ns.since) if ns.since else 0.0
        check_available()
    except (ValueError, BadDate) as exc:
        print(f"agentreflex export: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ExportUnavailable as exc:
        print(f"agentreflex export: {exc}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    state_dir = os.path.abspath(ns.state_dir) if ns.state_dir else config.state_dir
    return send(url, state_dir, ns.session, since, ns.timeout)


def send(url: str, state_dir: str, session: str, since: float, timeout: float) -> int:
    from agentreflex.core.otlp.records import log_items
    from agentreflex.core.otlp.sink import OtlpSink
    from agentreflex.core.state.history import decisions, load_histories

    items = [
        item
        for h in load_histories(state_dir, session=session, since=since)
        for rec in decisions(h)
        for item in log_items(rec, h.session_id, h.host)
    ]
    sink = OtlpSink(url, max_queue=max(1, len(items)))
    sink.offer(items)
    sink.flush(timeout)
    sink.close()
    counts = sink.counters()
    print(
        f"sent {counts['sent']} log record(s) to {url}; dropped {counts['dropped_failed']} "
        f"after {counts['retries']} retr(ies), {counts['dropped_full']} on a full queue"
    )
    return 0 if counts["sent"] == len(items) else 1


def _status() -> int:
    from agentreflex.core.otlp.live import counters_path

    path = counters_path()
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        print("no live export yet (set [export] otlp = URL in your user config)")
        return 1
    print(json.dumps(data, indent=2))
    return 0
