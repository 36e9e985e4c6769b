"""A/B: does the OTLP export slow a hook down when the collector is healthy, failing, down or slow?

With ``tools/bench_hook.py``'s realistic PreToolUse calls (a git project, a
new everyday command each time, a growing transcript), one warm daemon per
variant, each with its own temporary HOME whose user config says where to
export (``[export] otlp = URL``):

* ``off``   no export configured (the baseline);
* ``ok``    a healthy collector on 127.0.0.1 (tools/otlp_collector.py);
* ``fail``  a collector answering HTTP 500 to everything;
* ``down``  a port nobody listens on;
* ``slow``  a collector that answers after 5 s.

Hook runs are taken in turn across the variants, the order rotated each
round, so that a drift in the machine's load lands on all of them.  Prints the median and p95 wall time of
a hook call per variant, its ratio to ``off``, and the daemon's export
counters (sent, dropped after retries, dropped on a full queue).

Usage::

    uv run python tools/bench_export.py [--runs 40] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hook import Session, agentreflex_bin, percentile, time_runs
from otlp_collector import Collector

VARIANTS = ("off", "ok", "fail", "down", "slow")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Variant:
    """One HOME, project, daemon and (maybe) collector."""

    def __init__(self, name: str, work: str, url: str) -> None:
        self.name = name
        root = os.path.join(work, name)
        os.makedirs(root, mode=0o700)  # the daemon serves only from a private directory
        self.session = Session(root)
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENTREFLEX_"))
        }
        self.env.update(
            HOME=root,
            XDG_CACHE_HOME=os.path.join(root, "cache"),
            XDG_CONFIG_HOME=os.path.join(root, "config"),
            XDG_STATE_HOME=os.path.join(root, "state"),
            CLAUDE_CONFIG_DIR=os.path.join(root, "claude"),
            JEV_MODE="off",
            AGENTREFLEX_SOCKET=os.path.join(root, "daemon.sock"),
        )
        config = Path(root, "config", "agentreflex", "config.toml")
        config.parent.mkdir(parents=True)
        config.write_text(f'[export]\notlp = "{url}"\n' if url else "")
        self.counters = Path(root, "state", "agentreflex", "otlp-export.json")
        self.daemon: subprocess.Popen[bytes] | None = None
        self.times: list[float] = []

    def start(self) -> None:
        self.daemon = subprocess.Popen(
            [agentreflex_bin(), "serve", "--idle", "600"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
        )
        deadline = time.monotonic() + 30
        while not os.path.exists(self.env["AGENTREFLEX_SOCKET"]):
            if time.monotonic() > deadline or self.daemon.poll() is not None:
                raise RuntimeError(f"the {self.name} variant's daemon did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.terminate()
            self.daemon.wait(60)

    def read_counters(self) -> dict[str, object]:
        try:
            return dict(json.loads(self.counters.read_text()))
        except (OSError, ValueError):
            return {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="agentreflex-bench-export-")
    with ExitStack() as stack:
        ok = stack.enter_context(Collector("ok"))
        fail = stack.enter_context(Collector("fail"))
        slow = stack.enter_context(Collector("slow", delay=5.0))
        urls = {
            "off": "",
            "ok": ok.url,
            "fail": fail.url,
            "down": f"http://127.0.0.1:{_free_port()}",
            "slow": slow.url,
        }
        variants = [Variant(name, work, urls[name]) for name in VARIANTS]
        for v in variants:
            v.start()
            stack.callback(v.stop)
        hook = [agentreflex_bin(), "hook", "claude-code", "PreToolUse"]
        for v in variants:  # warm each daemon and the OS caches
            time_runs(hook, 3, v.session, v.env)
        for i in range(args.runs):  # in turn, the order rotated each round (no position effect)
            for v in variants[i % len(variants) :] + variants[: i % len(variants)]:
                v.times += time_runs(hook, 1, v.session, v.env)[0]
        _settle(variants[1:], 90.0)
        result = _result(variants, args.runs, len(ok.records))
    shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"machine: {result['machine']}, PreToolUse via a warm daemon, {args.runs} runs each")
    for name, row in result["variants"].items():
        print(
            f"export {name:<5} median {row['median_ms']:6.1f} ms  p95 {row['p95_ms']:6.1f} ms  "
            f"({row['ratio_to_off']:.2f}x off)  counters {row['counters']}"
        )
    print(f"the healthy collector received {result['ok_collector_records']} log record(s)")
    return 0


def _settle(variants: list[Variant], seconds: float) -> None:
    """Wait until each exporter has sent or dropped everything it took in (or time is up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        counts = [v.read_counters() for v in variants]
        if all(_done(c) for c in counts):
            return
        time.sleep(0.5)


def _done(c: dict[str, object]) -> bool:
    queued, sent, failed = (int(str(c.get(k, 0))) for k in ("queued", "sent", "dropped_failed"))
    return bool(c) and sent + failed >= queued


def _result(variants: list[Variant], runs: int, ok_records: int) -> dict[str, object]:
    base = statistics.median(variants[0].times)
    rows = {}
    for v in variants:
        counters = {k: c for k, c in v.read_counters().items() if k not in ("url", "updated")}
        rows[v.name] = {
            "median_ms": statistics.median(v.times) * 1000,
            "p95_ms": percentile(v.times, 0.95) * 1000,
            "ratio_to_off": statistics.median(v.times) / base,
            "counters": counters,
        }
    return {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "runs": runs,
        "variants": rows,
        "ok_collector_records": ok_records,
    }


if __name__ == "__main__":
    sys.exit(main())
