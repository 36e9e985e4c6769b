"""State-store benchmark: a hook call must not get slower as a session grows.

Builds one session to 10 events and another to 10,000 events (through the
real store, so snapshots and cursors are real), then times whole hook
processes (``agentreflex hook claude-code``) appending to each, and prints
the medians and their ratio.  Target (issue 2): ratio <= 1.2.

Usage::

    uv run python tools/bench_store.py [--runs 30] [--events 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def payload(session: str, cwd: str, i: int) -> dict[str, object]:
    return {
        "session_id": session,
        "cwd": cwd,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_use_id": f"toolu_{i}",
        "tool_input": {"command": f"pytest tests/test_{i % 50}.py -q"},
        "tool_response": {"stdout": f"{i % 7} passed", "stderr": "", "interrupted": False},
    }


def grow(state_dir: str, session: str, cwd: str, events: int) -> None:
    """Append ``events`` records in-process, then fold once (the snapshot is real)."""
    from agentreflex.core.hosts.claude_code import ClaudeCodeAdapter
    from agentreflex.core.state.store import SessionStore, make_record

    store = SessionStore(state_dir, session)
    os.makedirs(os.path.dirname(store.log_path), exist_ok=True)
    adapter = ClaudeCodeAdapter()
    with open(store.log_path, "a", encoding="utf-8") as fh:
        for i in range(events):
            event = adapter.parse(payload(session, cwd, i))
            fh.write(json.dumps(make_record(event, None, [], None)) + "\n")
    store.load()


def time_hook(session: str, cwd: str, env: dict[str, str], runs: int) -> list[float]:
    binary = str(Path(sys.executable).with_name("agentreflex"))
    out: list[float] = []
    for i in range(runs):
        data = json.dumps(payload(session, cwd, 100_000 + i)).encode()
        start = time.perf_counter()
        subprocess.run(
            [binary, "hook", "claude-code"],
            input=data,
            env=env,
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        out.append(time.perf_counter() - start)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--events", type=int, default=10_000)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="agentreflex-store-bench-")
    state_dir = os.path.join(work, "state")
    env = dict(
        os.environ,
        HOME=work,
        XDG_CACHE_HOME=os.path.join(work, "cache"),
        AGENTREFLEX_STATE_DIR=state_dir,
        AGENTREFLEX_DAEMON="off",
        JEV_MODE="off",
    )
    grow(state_dir, "small", work, 10)
    grow(state_dir, "large", work, args.events)
    time_hook("small", work, env, 3)
    small, large = [], []
    for _ in range(args.runs):  # interleave so machine drift hits both equally
        small.extend(time_hook("small", work, env, 1))
        large.extend(time_hook("large", work, env, 1))
    ms, ml = statistics.median(small) * 1000, statistics.median(large) * 1000
    print(f"hook at event ~10:      {ms:6.1f} ms (median of {args.runs})")
    print(f"hook at event ~{args.events}: {ml:6.1f} ms (median of {args.runs})")
    print(f"ratio large/small:      {ml / ms:6.2f} (target <= 1.2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
