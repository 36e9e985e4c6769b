"""What one tool-call check costs the OpenCode / pi shims, through the daemon and without.

The pi shim (the OpenCode one shares its transport) is installed in a temporary
folder the way ``agentreflex install`` lays it out, and a Node script times
``--runs`` ``tool_call`` checks of an everyday ``bash`` command in an enforced
project: first with ``AGENTREFLEX_DAEMON=off`` (one ``agentreflex hook pi``
process per call), then against a warm daemon (``agentreflex serve`` on a
private socket).  Prints the median and p90 of each, in milliseconds.

Usage::

    uv run python tools/bench_js_shims.py [--runs 30] [--json]

Needs ``node`` on PATH.  No target is set by the issue; the plugin READMEs quote
the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHIMS = REPO / "packages" / "core" / "src" / "agentreflex" / "core" / "install" / "js_plugins"
SCRIPT = Path(sys.prefix) / "bin" / "agentreflex"

NODE = """
import mod from "./index.js";
const h = {};
mod({ on: (n, f) => { h[n] = f; } });
const runs = Number(process.argv[2]), times = [];
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  const out = await h.tool_call({ toolName: "bash", toolCallId: "c" + i, input: { command: "ls -la src" } },
    { cwd: process.env.BENCH_PROJECT });
  if (out !== undefined) throw new Error("blocked: " + JSON.stringify(out));
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ median_ms: times[runs >> 1], p90_ms: times[Math.floor(runs * 0.9)] }));
"""


def measure(folder: Path, env: dict[str, str], runs: int) -> dict[str, float]:
    done = subprocess.run(
        ["node", "bench.mjs", str(runs)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return {k: round(v, 1) for k, v in result.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if shutil.which("node") is None:
        print("node is needed", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-js-") as tmp:
        root = Path(tmp)
        folder = root / "pkg"
        folder.mkdir()
        shutil.copy(SHIMS / "pi.js", folder / "index.js")
        shutil.copy(SHIMS / "transport.js", folder / "transport.js")
        (folder / "package.json").write_text('{"type": "module"}')
        (folder / "bench.mjs").write_text(NODE)
        record = {"binary": str(SCRIPT), "python": sys.executable, "host": "pi"}
        (folder / "agentreflex.json").write_text(json.dumps(record))
        project = root / "project"
        (project / ".agentreflex").mkdir(parents=True)
        (project / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
        run_dir = root / "run"
        run_dir.mkdir(mode=0o700)
        env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTREFLEX_")}
        env.update(HOME=str(root / "home"), BENCH_PROJECT=str(project))
        env["AGENTREFLEX_STATE_DIR"] = str(root / "state")
        results = {"subprocess": measure(folder, {**env, "AGENTREFLEX_DAEMON": "off"}, args.runs)}
        socket = run_dir / "daemon.sock"
        warm = {**env, "AGENTREFLEX_DAEMON": "on", "AGENTREFLEX_SOCKET": str(socket)}
        daemon = subprocess.Popen(
            [sys.executable, str(SCRIPT), "serve"],
            env=warm,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 30
            while not socket.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            results["daemon"] = measure(folder, warm, args.runs)
        finally:
            daemon.terminate()
            daemon.wait(timeout=10)
    if args.json:
        print(json.dumps(results))
    else:
        for name, figures in results.items():
            print(f"{name:10} median {figures['median_ms']} ms  p90 {figures['p90_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
