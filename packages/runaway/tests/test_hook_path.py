"""The reflex runs inside short-lived hook processes: it may import only the stdlib."""

from __future__ import annotations

import json
import subprocess
import sys


def test_importing_the_reflex_pulls_in_nothing_but_the_stdlib_and_agentreflex() -> None:
    code = (
        "import sys, json; import agentreflex.runaway.reflex; "
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = set(json.loads(out.stdout))
    foreign = {m for m in modules if m not in sys.stdlib_module_names and not m.startswith("_")}
    assert foreign <= {"agentreflex"}, foreign
