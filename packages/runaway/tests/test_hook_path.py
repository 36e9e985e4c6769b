"""The reflex runs inside short-lived hook processes: it may import only the stdlib."""

from __future__ import annotations

import json
import subprocess
import sys


def test_importing_the_reflex_pulls_in_nothing_but_the_stdlib_and_agentreflex() -> None:
    # what the import adds: what the interpreter's own start loaded (a distribution's
    # sitecustomize, Debian's apport hook) is the machine's, not the reflex's
    code = (
        "import sys, json; before = set(sys.modules); import agentreflex.runaway.reflex; "
        "print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - before})))"
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


_EVERYDAY_PROBE = """
import json, sys
from agentreflex.core.testing import make_context, post_tool, pre_tool
from agentreflex.runaway.reflex import RunawayReflex
loaded = lambda: sorted(m for m in sys.modules if m.startswith("agentreflex.runaway"))
seen = {"import": loaded()}
for command in ("ls -la", "git status", "npm test", "cat README.md", "rm -rf build"):
    ctx = make_context(pre_tool("Bash", {"command": command}, cwd="/tmp"))
    assert RunawayReflex().evaluate(ctx) == []
seen["pre"] = loaded()
ctx = make_context(post_tool("Bash", {"command": "ls -la"}, True, output="ok", cwd="/tmp"))
assert RunawayReflex().evaluate(ctx) == []
seen["post"] = loaded()
print(json.dumps(seen))
"""


def test_everyday_calls_import_no_messages_or_memory() -> None:
    # Finding texts (messages) and warning/breaker notes (memory) are only needed
    # once something fires: an ordinary call, with the default settings, never.
    out = subprocess.run(
        [sys.executable, "-c", _EVERYDAY_PROBE], capture_output=True, text=True, check=True
    )
    seen = json.loads(out.stdout)
    package = "agentreflex.runaway"
    needed = {"budgets", "calls", "fuzzy", "history", "plugin", "policy", "reflex", "repeats"}
    needed.add("settings")  # its keys declared in plugin (core reads that before a tool call)
    assert set(seen["import"]) == {package} | {f"{package}.{m}" for m in needed}
    assert seen["pre"] == seen["import"]
    assert set(seen["post"]) - set(seen["pre"]) == {f"{package}.posttool"}
