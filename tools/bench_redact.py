"""Time core's redaction on typical tool outputs, in fresh processes.

Why: every hook redacts what it logs, so a change to the rule set must not
slow the common case down, where a text holds no secret and (thanks to the
rules' hint words) compiles no pattern.  This is the before/after figure
for such changes.

The outputs are built deterministically from this checkout's gate and
judge2 sources and tests (code, listings, test logs, JSON tool calls; never
core's own redaction files, so editing those does not change the input),
with one in fifty holding a planted secret.  Each run is a new process:
``warm`` is the process CPU time of redacting all of them, ``cold`` the CPU
time of a process that imports ``redact`` and redacts one output (what a
hook pays).  The minimum of the runs is printed: the machine is shared.

    uv run --frozen python tools/bench_redact.py [--outputs 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("packages/gate/src", "packages/gate/tests", "packages/judge2/src")

_PLANTED = (
    "export GITHUB_TOKEN=ghp_aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zaB3dE",
    "curl -H 'Authorization: Bearer aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z' https://api.example",
    "DATABASE_URL=postgres://app:s3cr3t-Passw0rd@db:5432/app",
)


def outputs(count: int, seed: int = 11) -> list[str]:
    """``count`` tool outputs of 40 to 2,000 characters, the same on every run."""
    rng = random.Random(seed)
    files = sorted(p for d in SOURCES for p in (ROOT / d).rglob("*.py"))
    texts = [p.read_text() for p in files]
    out: list[str] = []
    while len(out) < count:
        text = rng.choice(texts)
        size = rng.choice((40, 120, 400, 800, 2000))
        start = rng.randrange(max(1, len(text) - size))
        chunk = text[start : start + size]
        shape = rng.randrange(4)
        if shape == 1:
            chunk = json.dumps({"tool_input": {"command": chunk[:200]}, "cwd": "/home/dev/p"})
        elif shape == 2:
            chunk = "\n".join(f"{i:>4} | {line}" for i, line in enumerate(chunk.splitlines()))
        if rng.randrange(50) == 0:
            chunk += "\n" + rng.choice(_PLANTED)
        out.append(chunk)
    return out


def _child(mode: str, count: int) -> None:
    import time

    texts = outputs(count)
    t0 = time.process_time()
    from agentreflex.core.redaction.redact import redact

    for text in texts if mode == "warm" else texts[:1]:
        redact(text)
    print(time.process_time() - t0)


def _run(mode: str, count: int) -> float:
    done = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--outputs", str(count)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", choices=("warm", "cold"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child, args.outputs)
        return 0
    warm = min(_run("warm", args.outputs) for _ in range(args.runs))
    cold = min(_run("cold", args.outputs) for _ in range(args.runs * 4))
    print(f"warm: {args.outputs} outputs in {warm * 1000:.0f} ms CPU (min of {args.runs})")
    print(f"cold: import + one output {cold * 1000:.2f} ms CPU (min of {args.runs * 4})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
