"""Seed 001's loop demo, offline: replay a scripted Claude Code session and show the panels.

    uv run --frozen python tools/runaway_demo.py [--mode shadow|enforced] [--all-reflexes]

A buggy strategy fails twice, the third identical attempt is blocked by the
LOOP REFLEX, and a different fix then goes through.  The session is
``packages/runaway/tests/sessions/seed_demo.jsonl`` run through
``agentreflex replay`` in a temporary, non-git project with the judge off.
By default only the runaway reflex is installed, so the output shows exactly
what it decided.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import tempfile
from pathlib import Path

SESSION = Path(__file__).resolve().parent.parent / "packages/runaway/tests/sessions/seed_demo.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("shadow", "enforced"), default="enforced")
    parser.add_argument("--all-reflexes", action="store_true", help="every installed reflex")
    ns = parser.parse_args()
    from agentreflex.core import cli
    from agentreflex.core.hook import runtime
    from agentreflex.runaway.reflex import RunawayReflex

    if not ns.all_reflexes:
        runtime.set_plugins(runtime.Plugins(reflexes=[RunawayReflex()]))
    with tempfile.TemporaryDirectory(prefix="runaway-demo-") as tmp:
        project, state = Path(tmp, "project"), Path(tmp, "state")
        project.mkdir()
        script = Path(tmp, "session.jsonl")
        script.write_text(SESSION.read_text().replace("${CWD}", str(project)))
        os.environ.update({"HOME": tmp, "JEV_MODE": "off"})
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            cli.main(["replay", str(script), "--mode", ns.mode, "--state-dir", str(state)])
        for line in out.getvalue().splitlines():
            row = json.loads(line)
            print(
                f"{row['line']:>3} {row.get('event', '?'):<18} {row.get('label', '-'):<12} "
                f"{row.get('tool', '')}"
            )
        print()
        print((state / "reflex.log").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
