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
    for reflex in ("by gate", "by runaway", "by done", "by guard"):
        assert reflex in out
    panels = log.read_text()
    for code in ("GATE-CONSTRAINT", "RUNAWAY-LOOP-EXACT", "DONE-", "RG-COMPLETION-AHEAD-001"):
        assert code in panels
    assert "Traceback" not in out + done.stderr
