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


def test_a_pre_tool_call_does_not_import_what_only_rare_branches_need() -> None:
    # posttool: post-tool events only; ledger: only when a project budget is set.
    code = (
        "import sys, json; import agentreflex.runaway.reflex; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('agentreflex.runaway'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    assert "agentreflex.runaway.reflex" in loaded
    assert not loaded & {"agentreflex.runaway.posttool", "agentreflex.runaway.ledger"}, loaded
