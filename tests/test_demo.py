"""`agentreflex demo` is the main job: it must run offline and every beat must fire."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_demo_runs_offline_and_every_reflex_fires_as_scripted(tmp_path: Path) -> None:
    binary = Path(sys.executable).with_name("agentreflex")
    log = tmp_path / "panels.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "JEV_"))}
    done = subprocess.run(
        [str(binary), "demo", "--log", str(log)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "0 beats not as scripted" in out
    # which reflex blocks each beat is seed 001's script; core's demo names no package,
    # so the summary's "by <reflex>" is checked here, beat by beat
    blocked_by = {
        "Editing the test file": "gate",
        "Same strategy a third time": "runaway",
        "A destructive shortcut": "gate",
        "Stopping without running the tests": "done",
        "Claiming completion with the check open": "guard",
    }
    summary = out.split("── summary", 1)[1]
    for title, reflex in blocked_by.items():
        [line] = [row for row in summary.splitlines() if title in row]
        assert "BLOCK" in line and f"by {reflex}" in line.split("BLOCK", 1)[1], line
    panels = log.read_text()
    for code in ("GATE-CONSTRAINT", "RUNAWAY-LOOP-EXACT", "DONE-", "RG-COMPLETION-AHEAD-001"):
        assert code in panels
    assert "Traceback" not in out + done.stderr
