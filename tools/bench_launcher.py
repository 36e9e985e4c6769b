"""What the Claude Code plugin's launcher costs once the plugin has set itself up.

Sets the plugin up in a temporary ``CLAUDE_PLUGIN_DATA`` (or uses ``--data``), then
times, in turn, a PreToolUse ``ls`` hook call through ``bin/agentreflex-hook`` (which
finds the environment by the bundle id), the same call to the environment's
``agentreflex hook`` directly, the launcher with ``AGENTREFLEX_BIN`` (no search),
and a bare ``python -c pass`` of that environment. Prints medians and p90s.

Usage::

    uv run python tools/bench_launcher.py [--runs 60] [--data DIR]
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

from agentreflex.core.install.launcher import launch_argv

REPO = Path(__file__).resolve().parent.parent
PLUGIN = REPO / "plugins" / "claude-code"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--data", help="a CLAUDE_PLUGIN_DATA already set up (default: set one up)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-launcher-"))
    data = Path(args.data) if args.data else scratch / "data"
    bootstrap = PLUGIN / "bundle" / "bootstrap.py"
    subprocess.run([sys.executable, str(bootstrap), "setup", "--data", str(data)], check=True)
    ident = (PLUGIN / "bundle" / "id").read_text().strip()
    env_bin = data / "envs" / ident / "bin"
    project = scratch / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    payload = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "session_id": "bench",
            "cwd": str(project),
        }
    ).encode()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(scratch),
        "AGENTREFLEX_DAEMON": "off",
        "CLAUDE_PLUGIN_DATA": str(data),
        "LANG": "C.UTF-8",
    }
    launcher = [str(PLUGIN / "bin" / "agentreflex-hook"), "--fail-closed", "claude-code"]
    cases: dict[str, tuple[list[str], dict[str, str]]] = {
        "launcher (finds its env)": ([*launcher, "PreToolUse"], env),
        "launcher, AGENTREFLEX_BIN": (
            [*launcher, "PreToolUse"],
            {**env, "AGENTREFLEX_BIN": str(env_bin / "agentreflex")},
        ),
        "agentreflex hook, direct": (  # as `agentreflex install` writes it
            [*launch_argv(str(env_bin / "agentreflex")), "hook", "claude-code", "PreToolUse"],
            env,
        ),
        "python -c pass": ([str(env_bin / "python"), "-c", "pass"], env),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, (argv, case_env) in cases.items():
            started = time.perf_counter()
            done = subprocess.run(
                argv, input=payload, env=case_env, cwd=project, capture_output=True
            )
            times[name].append(time.perf_counter() - started)
            if done.returncode != 0:
                print(f"{name} failed: {done.stderr.decode()}", file=sys.stderr)
                return 1
    load = os.getloadavg()[0]
    print(f"{args.runs} runs each, load average {load:.1f}")
    for name, values in times.items():
        values.sort()
        p90 = values[int(len(values) * 0.9)]
        print(
            f"{name:28s} median {statistics.median(values) * 1000:6.1f} ms   p90 {p90 * 1000:6.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
