"""The OpenCode and pi shims' own tests (node's test runner), from the README's test command.

``.ci/run`` runs ``node --test`` directly; this runs the same suites from pytest, with
the harness' Node (the system's, else one from PyPI) and this environment's
``agentreflex`` script, so ``uv run pytest`` covers the JavaScript too.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from hostharness.claude import AGENTREFLEX_SCRIPT, node_dir

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parent.parent


def test_node_suites_of_both_shims_pass(agentreflex_script: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTREFLEX_")}
    env["AGENTREFLEX_TEST_BIN"] = str(AGENTREFLEX_SCRIPT)
    env["PATH"] = f"{node_dir()}:{env.get('PATH', '/usr/bin:/bin')}"
    done = subprocess.run(
        ["node", "--test", "plugins/opencode/test", "plugins/pi/test"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    passed = re.search(r"^# pass (\d+)$", done.stdout, re.M)
    assert passed and int(passed.group(1)) >= 20 and "# fail 0" in done.stdout, done.stdout[-2000:]
