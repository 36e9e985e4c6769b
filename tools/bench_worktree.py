"""Work-tree observation and snapshot cost (issue 29).

Prints, for generated git repositories of 1k, 10k and 100k files:

* fingerprint-and-diff cost per tool call, p50/p95 over N calls: "cold"
  finds the repository (two git processes: config for the filter overrides,
  rev-parse) then runs ``git status`` and diffs, as a hook process without
  the daemon pays it; "warm" reuses the found repository; "daemon" is what
  the warm daemon pays: the repository and the status listing kept between
  calls (``worktree/watch.py``: the found repository kept while its config
  is unchanged, inotify on the work tree's directories, the index parsed
  once), the look-up included: an edit to a tracked file each call (answered
  from the index), and a new file each call (git asked about that path);
* PreToolUse + PostToolUse of a shell call through core's pipeline in process
  (as the daemon runs it; reflex plug-ins as installed), observation on and
  off: the hot-path price of the feature (an edit between calls, so a new
  snapshot each call: the worst case);
* snapshot cost against the size of the uncommitted work (1, 10 and 50 MB
  spread over 100 changed files in the 10k repository), given the status
  the fingerprint just read (as the hook calls it), and the cost of a
  snapshot answered by the previous one (same fingerprint).

Targets (issue 29), daemon warm: fingerprint <= 5 ms p95 on 10k files;
snapshot of 10 MB of changes <= 50 ms.  The machine is shared: print the
load average beside the figures.

Usage::

    uv run python tools/bench_worktree.py [--runs 30] [--sizes 1000,10000,100000] [--submodule]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from agentreflex.core.worktree import observe, snapshot, watch

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@example.invalid",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@example.invalid",
}


def make_repo(root: str, files: int, submodule: bool = False) -> None:
    os.makedirs(root)
    for i in range(files):
        d = os.path.join(root, f"d{i // 500}", f"s{i // 50 % 10}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i}.py"), "w") as fh:
            fh.write(f"x = {i}\n")
    subprocess.run(
        "git init -q && git add -A && git commit -qm init && git status -s >/dev/null",
        shell=True,
        cwd=root,
        env=ENV,
        check=True,
    )
    if submodule:  # one checked-out submodule of 50 files: each call asks its own git
        lib = root + "-lib"
        make_repo(lib, 50)
        subprocess.run(
            "git -c protocol.file.allow=always submodule add -q ../"
            + os.path.basename(lib)
            + " lib && git commit -qm lib",
            shell=True,
            cwd=root,
            env=ENV,
            check=True,
        )


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def fingerprint_cost(
    root: str, runs: int
) -> tuple[list[float], list[float], list[float], list[float]]:
    cold: list[float] = []
    warm: list[float] = []
    daemon: list[float] = []
    created: list[float] = []  # the daemon, a new file each call (git asked about that path)
    repo = observe.find_repo(root)
    assert repo is not None
    previous = observe.fingerprint(repo) or {}
    for i in range(runs):
        with open(os.path.join(root, "d0", "s0", "f0.py"), "w") as fh:
            fh.write(f"x = {i}\n")  # one edit per call, as a tool call makes
        t = time.perf_counter()
        found = observe.find_repo(root)
        assert found is not None
        fp = observe.fingerprint(found) or {}
        observe.diff(previous, fp)
        cold.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        fp = observe.fingerprint(repo) or {}
        observe.diff(previous, fp)
        warm.append((time.perf_counter() - t) * 1000)
        previous = fp
    watch.enable()
    try:
        watch.find_repo(root)  # the daemon's first call: sets up the watches
        observe.fingerprint(repo)
        for i in range(runs):
            with open(os.path.join(root, "d0", "s0", "f0.py"), "w") as fh:
                fh.write(f"x = {i + runs}\n")
            t = time.perf_counter()
            found = observe.find_repo(root)
            assert found is not None
            fp = observe.fingerprint(found) or {}
            observe.diff(previous, fp)
            daemon.append((time.perf_counter() - t) * 1000)
            git_view = observe.status_entries(repo)  # not timed: git's own answer
            assert {p: e[0] for p, e in fp.items()} == git_view, "the cache disagrees with git"
            previous = fp
        for i in range(runs):
            with open(os.path.join(root, "d1", "s1", f"new{i}.py"), "w") as fh:
                fh.write("new = 1\n")
            t = time.perf_counter()
            found = observe.find_repo(root)
            assert found is not None
            fp = observe.fingerprint(found) or {}
            observe.diff(previous, fp)
            created.append((time.perf_counter() - t) * 1000)
            git_view = observe.status_entries(repo)
            assert {p: e[0] for p, e in fp.items()} == git_view, "the cache disagrees with git"
            previous = fp
        for i in range(runs):
            os.unlink(os.path.join(root, "d1", "s1", f"new{i}.py"))
    finally:
        watch.enable(False)
    return cold, warm, daemon, created


def snapshot_cost(root: str, megabytes: int, runs: int) -> tuple[list[float], float]:
    repo = observe.find_repo(root)
    assert repo is not None
    per_file = megabytes * (1 << 20) // 100
    times: list[float] = []
    for r in range(runs):
        for i in range(100):
            path = os.path.join(root, f"d{i % 20}", "s1", f"big{i}.bin")
            with open(path, "wb") as fh:
                fh.write(os.urandom(per_file // 2) + bytes([r]) * (per_file - per_file // 2))
        # as the hook calls it: with the status its fingerprint just read (timed above)
        entries = observe.status_entries(repo)
        t = time.perf_counter()
        snap = snapshot.take(repo, "bench", "bench", max_bytes=1 << 34, entries=entries)
        times.append((time.perf_counter() - t) * 1000)
        assert snap is not None and snap.tree
    snapshot.take(repo, "bench", "bench", max_bytes=1 << 34, fingerprint="same")
    t = time.perf_counter()
    snapshot.take(repo, "bench", "bench", max_bytes=1 << 34, fingerprint="same")
    dedup = (time.perf_counter() - t) * 1000
    shutil.rmtree(snapshot.store_dir(repo))
    return times, dedup


def hook_cost(root: str, runs: int) -> tuple[list[float], list[float], list[float]]:
    """PreToolUse + PostToolUse of one shell call through core's pipeline, in process
    (as the daemon runs it), with the work-tree observation on and off."""
    import json

    from agentreflex.core.hook import runtime
    from agentreflex.core.worktree import hook

    env = {"HOME": root, "AGENTREFLEX_STATE_DIR": os.path.join(root, "..", "state-" + str(runs))}
    real = hook.around_tool
    on: list[float] = []
    cached: list[float] = []
    off: list[float] = []
    for i in range(runs):
        for label, times in (("on", on), ("cached", cached), ("off", off)):
            hook.around_tool = real if label != "off" else (lambda *a, **k: None)
            watch._enabled = label == "cached"  # paused, not closed: the cache stays
            with open(os.path.join(root, "d0", "s0", "f1.py"), "w") as fh:
                fh.write(f"y = {i}\n")  # the agent edited a file since the last call
            body = {
                "session_id": "bench",
                "cwd": root,
                "tool_name": "Bash",
                "tool_input": {"command": f"sed -i s/x/y/ d0/s0/f{i % 40}.py"},
                "tool_use_id": f"{label}{i}",
            }
            t = time.perf_counter()
            for kind in ("PreToolUse", "PostToolUse"):
                payload = {**body, "hook_event_name": kind}
                if kind == "PostToolUse":
                    payload["tool_response"] = {"stdout": "", "stderr": "", "exit_code": 0}
                runtime.run_hook("claude-code", json.dumps(payload).encode(), env)
            times.append((time.perf_counter() - t) * 1000)
    hook.around_tool = real
    watch.enable(False)
    return on, cached, off


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--submodule", action="store_true", help="each repository with one submodule")
    ns = ap.parse_args()
    base = tempfile.mkdtemp(prefix="bench-worktree-")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores (shared machine)")
    try:
        for n in (int(s) for s in ns.sizes.split(",")):
            root = os.path.join(base, f"r{n}")
            t = time.perf_counter()
            make_repo(root, n, ns.submodule)
            made = time.perf_counter() - t
            cold, warm, daemon, created = fingerprint_cost(root, ns.runs)
            print(
                f"{n:>7} files (made in {made:.1f}s): fingerprint+diff cold p50 "
                f"{statistics.median(cold):.1f} ms p95 {pct(cold, 0.95):.1f} ms; "
                f"warm p50 {statistics.median(warm):.1f} ms p95 {pct(warm, 0.95):.1f} ms; "
                f"daemon (cache kept) p50 {statistics.median(daemon):.2f} ms "
                f"p95 {pct(daemon, 0.95):.2f} ms; daemon, a new file each call p50 "
                f"{statistics.median(created):.1f} ms p95 {pct(created, 0.95):.1f} ms"
            )
            on, cached, off = hook_cost(root, ns.runs)
            print(
                f"        hook pre+post per shell call, in process: observation on p50 "
                f"{statistics.median(on):.1f} ms p95 {pct(on, 0.95):.1f} ms; on with the "
                f"daemon's cache p50 {statistics.median(cached):.1f} ms p95 "
                f"{pct(cached, 0.95):.1f} ms; off p50 "
                f"{statistics.median(off):.1f} ms p95 {pct(off, 0.95):.1f} ms"
            )
            if n == 10000:
                for mb in (1, 10, 50):
                    times, dedup = snapshot_cost(root, mb, max(3, ns.runs // 5))
                    print(
                        f"        snapshot of {mb:>2} MB changed (100 files): p50 "
                        f"{statistics.median(times):.1f} ms max {max(times):.1f} ms; "
                        f"answered by the previous: {dedup:.1f} ms"
                    )
            shutil.rmtree(root)
        print(f"load average {os.getloadavg()[0]:.2f} after the run")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
