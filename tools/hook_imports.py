"""What one hook call loads: the modules it imports and the regexes it compiles.

A hook is a new process per tool call, so every module a hook imports and every
pattern it compiles is paid on every call. This runs one hook call in-process
and lists what it cost, to find what to make lazy::

    uv run python tools/hook_imports.py [--event PreToolUse] [--command 'git status']

The call is the next one of the benchmark's realistic session (tools/bench_hook.py).

The guard against regressions is ``tests/test_hot_path_imports.py``; this
tool is for looking.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import time

from bench_hook import Session, as_event

STDLIB_AT_START = set(sys.modules)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--event", default="PreToolUse")
    parser.add_argument("--command", default="", help="default: the session's next everyday one")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="agentreflex-imports-")
    session = Session(
        work
    )  # the benchmark's realistic session: a git project, a growing transcript
    os.environ.update(
        {
            "HOME": work,
            "XDG_CACHE_HOME": os.path.join(work, "cache"),
            "CLAUDE_CONFIG_DIR": os.path.join(work, "claude"),
            "JEV_MODE": "off",
            "AGENTREFLEX_DAEMON": "off",
        }
    )
    # earlier calls of the session, as a real hook call has behind it (and the entry-point cache)
    hook = [sys.executable, "-m", "agentreflex.core.cli", "hook", "claude-code", "PreToolUse"]
    for _ in range(3):
        subprocess.run(hook, input=session.next_payload(), capture_output=True, check=False)
    body = as_event(session.next_payload(), args.event, args.command)
    compiles: collections.Counter[str] = collections.Counter()
    original = re._compile  # type: ignore[attr-defined]

    def counting(pattern: object, flags: int) -> object:
        frame = sys._getframe(1)
        while frame.f_back and frame.f_code.co_filename.endswith(("re/__init__.py", "lazyre.py")):
            frame = frame.f_back
        if not isinstance(pattern, re.Pattern) and (pattern, flags) not in seen:
            seen.add((pattern, flags))
            compiles[frame.f_code.co_filename.split("site-packages/")[-1]] += 1
        return original(pattern, flags)

    seen: set[tuple[object, int]] = set()
    re._compile = counting  # type: ignore[attr-defined]
    before = set(sys.modules)
    sys.argv = ["agentreflex", "hook", "claude-code", args.event]
    sys.stdin = io.TextIOWrapper(io.BytesIO(body))
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # the hook writes to its buffer
    real_stdout, sys.stdout = sys.stdout, out
    start = time.perf_counter()
    from agentreflex.core.cli import main as cli_main

    with contextlib.suppress(SystemExit):
        cli_main(["hook", "claude-code", args.event])
    elapsed = time.perf_counter() - start
    sys.stdout = real_stdout
    loaded = sorted(set(sys.modules) - before)
    ours = [m for m in loaded if m.startswith("agentreflex")]
    others = [m for m in loaded if not m.startswith("agentreflex")]
    out.flush()
    answer = out.buffer.getvalue().decode("utf-8", "replace").strip()  # type: ignore[attr-defined]
    print(f"in-process call: {elapsed * 1000:.1f} ms; answer: {answer[:200]}")
    print(f"\n{len(ours)} agentreflex modules:\n  " + " ".join(ours))
    print(f"\n{len(others)} other modules:\n  " + " ".join(others))
    print(f"\n{sum(compiles.values())} regexes compiled:")
    for where, count in compiles.most_common():
        print(f"  {count:4d}  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
