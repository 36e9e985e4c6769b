"""``agentreflex report [--session ID|--since DATE] [-o FILE]``: argument handling and output.

Cold path only: imported when the command runs, never by a hook.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from datetime import UTC, datetime

DEFAULT_OUTPUT = "agentreflex-report.html"
EXIT_USAGE = 64
EXIT_UNAVAILABLE = 69
EXIT_CONFIG = 78
_RELATIVE = re.compile(r"^(\d+)([mhdw])$")
_UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class BadDate(ValueError):
    """``--since`` is neither an ISO date/time nor a span like ``7d``."""


def parse_since(text: str, now: float | None = None) -> float:
    """Epoch seconds from ``2026-12-01``, ``2026-12-01T09:30`` (UTC unless zoned) or ``7d``."""
    text = text.strip()
    span = _RELATIVE.match(text)
    if span:
        return (time.time() if now is None else now) - int(span[1]) * _UNIT_SECONDS[span[2]]
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise BadDate(
            f"--since {text!r}: give a date (2026-12-01), a date and time "
            "(2026-12-01T09:30, UTC unless it has an offset) or a span (30m, 24h, 7d, 2w)"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="agentreflex report",
        description="One static HTML file: timelines, blocks and asks, shadow mode, latency, "
        "the judge's calibration. No server, no network.",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument("--session", default="", help="only this session id")
    which.add_argument("--since", default="", help="events from DATE on (2026-12-01, 7d, 24h)")
    p.add_argument("-o", "--output", default=DEFAULT_OUTPUT, help=f"default: {DEFAULT_OUTPUT}")
    p.add_argument("--cwd", default=os.getcwd(), help="the project (default: here)")
    p.add_argument("--state-dir", default="", help="read this state dir instead of the project's")
    p.add_argument("--labels", default="", help="labelled judge answers (JSONL) for calibration")
    return p


def main(argv: list[str]) -> int:
    ns = _parser().parse_args(argv)
    try:
        since = parse_since(ns.since) if ns.since else 0.0
    except BadDate as exc:
        print(f"agentreflex report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from agentreflex.core.config.settings import ConfigError
    from agentreflex.core.report.charts import ChartsUnavailable

    try:
        text, count = build(ns.cwd, ns.state_dir, ns.session, since, ns.labels)
    except ChartsUnavailable as exc:
        print(f"agentreflex report: {exc}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except ConfigError as exc:  # the project's config names the state dir
        print(f"agentreflex report: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    if ns.session and count == 0:
        print(f"agentreflex report: no session {ns.session!r} recorded", file=sys.stderr)
        return 1
    try:
        write_private(ns.output, text)
    except OSError as exc:
        print(f"agentreflex report: cannot write {ns.output}: {exc.strerror}", file=sys.stderr)
        return 73
    print(f"wrote {ns.output} ({count} session(s))")
    return 0


def build(cwd: str, state_dir: str, session: str, since: float, labels: str) -> tuple[str, int]:
    """The report's HTML and how many sessions it covers."""
    from agentreflex.core.config.settings import load_config
    from agentreflex.core.report.collect import collect
    from agentreflex.core.report.page import render
    from agentreflex.core.state.history import load_histories

    directory = os.path.abspath(state_dir) if state_dir else load_config(cwd).state_dir
    histories = load_histories(directory, session=session, since=since)
    histories = [h for h in histories if h.records or h.unverified]
    data = collect(histories, directory, labels, only_sessions=bool(session))
    return render(data), len(histories)


def write_private(path: str, text: str) -> None:
    """Write owner-only (the report names commands and paths of the project)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
