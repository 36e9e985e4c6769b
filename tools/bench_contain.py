"""Containment benchmark (issue #28): what running a shell command inside the boundary adds.

Prints, for each engine available on this machine:

* the engine's start-up cost: ``bwrap ... -- /bin/true`` against ``/bin/true``
  alone (process wall time, p50/p95 over N runs taken in turn);
* the added latency per contained command as a host runs it: ``bash -c LINE``
  with the rewritten line against ``bash -c COMMAND`` for everyday commands in
  a fresh repository, p50/p95 of the difference of paired runs: a lone plain
  command (``git status --short``, which bwrap starts itself) and one with an
  operator (``cd . && git status --short``, which keeps a shell inside);
* the hook-side cost of building the rewritten line (policy load + mounts +
  quoting), in-process, p50/p95: as a new hook process has it (``hook_side``)
  and as the warm daemon has it, with what it keeps between calls
  (``daemon_side``);
* the looks before and after each shell command (``looks``, in-process).

Engines: bubblewrap (agentreflex's own, for OpenCode, pi and Hermes).  Landlock
and ``@anthropic-ai/sandbox-runtime`` are not installed by the project (see
SECURITY.md, "Containment: the engine"); when ``srt`` is on PATH it is measured
too, as a comparison.

Usage::

    uv run python tools/bench_contain.py [--runs 200] [--json] [--linked]

``--linked`` makes the project a linked work tree (``git worktree add``), whose
git folders the plan and the looks find through :mod:`.linkedgit`.

Target: at most 5 ms p95 added per contained command.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from agentreflex.core.contain import boundary as contain
from agentreflex.core.contain import policy


def _wall(argv: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _paired(
    base: Callable[[], float], contained: Callable[[], float], runs: int
) -> dict[str, float]:
    added, plain = [], []
    for _ in range(runs):
        b = base()
        c = contained()
        plain.append(b)
        added.append(c - b)
    return {
        "plain_p50_ms": statistics.median(plain),
        "added_p50_ms": statistics.median(added),
        "added_p95_ms": _pct(added, 0.95),
    }


def _hook_side(project: str, runs: int, warm: bool = False) -> dict[str, float]:
    """The rewrite's time in-process: as a new hook process has it (the policy parsed and
    the socket folders listed again), or ``warm`` as the daemon has it (both kept)."""
    times = []
    for _ in range(runs):
        if not warm:
            policy._READ.clear()
            policy._LISTED.clear()
        start = time.perf_counter()
        contain.shell_rewrite("git status", project)
        times.append((time.perf_counter() - start) * 1000)
    return {"rewrite_p50_ms": statistics.median(times), "rewrite_p95_ms": _pct(times, 0.95)}


def _looks(project: str, runs: int) -> dict[str, float]:
    """The looks before and after a command (:mod:`agentreflex.core.contain.planted`), in-process:
    what the hook adds around each contained command besides the rewrite."""
    from agentreflex.core.contain import planted

    times = []
    for _ in range(runs):
        start = time.perf_counter()
        planted._look([project], "claude-code")
        times.append((time.perf_counter() - start) * 1000)
    return {"look_p50_ms": statistics.median(times), "look_p95_ms": _pct(times, 0.95)}


def _linked_project(root: str) -> str:
    """A checkout with a linked work tree (``git worktree add``), the work tree returned."""
    main, project = os.path.join(root, "main"), os.path.join(root, "feat")
    ident = ["-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run(["git", "init", "-q", main], check=True)
    subprocess.run(["git", *ident, "-C", main, "commit", "-q", "--allow-empty", "-m", "b"])
    subprocess.run(["git", "-C", main, "worktree", "add", "-q", "-b", "feat", project], check=True)
    os.makedirs(os.path.join(project, ".agentreflex"))
    return project


def _per_command(command: str, project: str, runs: int) -> dict[str, float]:
    line = contain.rewrite(command, project)
    return _paired(
        lambda: _wall(["bash", "-c", command], project),
        lambda: _wall(["bash", "-c", line], project),
        runs,
    )


def bench_bwrap(project: str, runs: int) -> dict[str, object]:
    engine = contain.engine_path()
    if engine is None:
        return {"engine": "bubblewrap", "available": False, "why": contain.status()[1]}
    true = shutil.which("true") or "/bin/true"
    startup = _paired(
        lambda: _wall([true], project),
        lambda: _wall(contain.run_argv([true], project), project),
        runs,
    )
    per_command = _per_command("git status --short", project, runs)
    compound = _per_command("cd . && git status --short", project, runs)
    planned = contain.plan(project, contain.load_policy()).mounts
    mounts = f"{len(planned)} planned, {len(contain.needed(planned))} bound"
    return {
        "engine": "bubblewrap",
        "available": True,
        "version": subprocess.run(
            [engine, "--version"], capture_output=True, text=True
        ).stdout.strip(),
        "mounts": mounts,
        "startup": startup,
        "per_command": per_command,
        "compound": compound,
        "hook_side": _hook_side(project, runs),
        "daemon_side": _hook_side(project, runs, warm=True),
        "looks": _looks(project, runs),
    }


def bench_srt(project: str, runs: int) -> dict[str, object]:
    srt = shutil.which("srt")
    if srt is None:
        return {
            "engine": "@anthropic-ai/sandbox-runtime",
            "available": False,
            "why": "srt not on PATH",
        }
    return {
        "engine": "@anthropic-ai/sandbox-runtime",
        "available": True,
        "startup": _paired(
            lambda: _wall(["true"], project), lambda: _wall([srt, "true"], project), runs
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--linked", action="store_true", help="the project a linked work tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        project = os.path.join(root, "proj")
        if args.linked:
            project = _linked_project(root)
        else:
            os.makedirs(os.path.join(project, ".agentreflex"))
            subprocess.run(["git", "init", "-q", project], check=True)
        results = [bench_bwrap(project, args.runs), bench_srt(project, min(args.runs, 20))]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"containment benchmark, {args.runs} paired runs, python {sys.version.split()[0]}")
    for result in results:
        print(
            f"\n{result['engine']}: "
            + ("available" if result["available"] else f"not available ({result['why']})")
        )
        for key, value in result.items():
            if isinstance(value, dict):
                shown = ", ".join(f"{k} {v:.2f}" for k, v in value.items())
                print(f"  {key:12} {shown}")
            elif key not in ("engine", "available", "why"):
                print(f"  {key:12} {value}")
    print("\ntarget: added_p95_ms <= 5 per contained command (per_command and compound)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
