"""How the guard's ``full`` backfill behaves on a large Codex rollout (memory, time).

Writes a synthetic rollout of ``--mb`` megabytes (default 100) under a
temporary ``CODEX_HOME/sessions``, shaped like a real one: mostly tool output
and messages, with a visible reasoning summary every ~20 KB.  Then reads it
with the shared transcript engine in ``full`` mode (summaries streamed to a
counting sink, as the engine does), once under ``tracemalloc`` for the peak of
Python allocations and once without it for the wall time, and finally times
one steady-state read after a small append.

    uv run --frozen python tools/guard_history_benchmark.py --mb 100 --json

A performance figure lives here, never in a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import tracemalloc
from typing import Any

from agentreflex.guard.codex_rollout import ADAPTER
from agentreflex.guard.report import new_report
from agentreflex.guard.transcript import read_new

SID = "01a2363a-2a26-70a3-a7ca-4e058db94d8a"


def write_history(path: str, megabytes: int) -> int:
    """A rollout of about ``megabytes`` MB; returns how many summaries it holds."""
    tool_output = {
        "type": "response_item",
        "payload": {"type": "function_call_output", "call_id": "c", "output": "o" * 19_000},
    }
    meta = {"type": "session_meta", "payload": {"id": SID, "originator": "codex_exec"}}
    count = 0
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(meta) + "\n")
        while fh.tell() < megabytes * 1024 * 1024:
            count += 1
            summary = {
                "type": "response_item",
                "payload": {
                    "type": "reasoning",
                    "summary": [
                        {"type": "summary_text", "text": f"**Step {count}**\n\nReading the files."}
                    ],
                },
            }
            fh.write(json.dumps(summary) + "\n" + json.dumps(tool_output) + "\n")
    return count


def full_read(path: str, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    ing: dict[str, Any] = new_report("s", "codex", 0.0)["reasoning_summary_ingestion"]
    ing.update(backfill_mode="full", backfill_limit=20)
    seen = [0]

    def sink(_text: str) -> None:
        seen[0] += 1

    batch = read_new(ing, SID, path, env, ADAPTER, sink)
    if batch.error:
        raise SystemExit(f"read failed: {batch.error}")
    return seen[0], ing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as home:
        day = os.path.join(home, "sessions", "2026", "01", "01")
        os.makedirs(day)
        path = os.path.join(day, f"rollout-2026-01-01T00-00-00-{SID}.jsonl")
        written = write_history(path, args.mb)
        env = {"CODEX_HOME": home}
        tracemalloc.start()
        counted, _ = full_read(path, env)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        started = time.perf_counter()
        counted2, ing = full_read(path, env)
        full_s = time.perf_counter() - started
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"type": "event_msg", "payload": {"type": "x"}}) + "\n")
        started = time.perf_counter()
        batch = read_new(ing, SID, path, env, ADAPTER)
        follow_ms = (time.perf_counter() - started) * 1000
        result = {
            "history_bytes": os.path.getsize(path),
            "summaries": written,
            "summaries_read": counted,
            "complete": ing["complete"],
            "full_read_s": round(full_s, 2),
            "full_read_mb_per_s": round(args.mb / full_s, 1),
            "peak_python_alloc_mib": round(peak / 1024 / 1024, 2),
            "steady_state_read_ms": round(follow_ms, 3),
        }
        ok = counted == written == counted2 and ing["complete"] and not batch.texts
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:>24}: {value}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
