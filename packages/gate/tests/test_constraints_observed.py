"""'Do not modify tests' sees a change the work tree shows after the fact.

The real pipeline (core and the gate) around real commands in a scratch git
repository: a script that rewrote a test passes by its words, the
observation records it, and the next step is stopped once with the undo hint.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.hook.runtime import load_plugins, run_hook


def _hook(root: Path, kind: str, body: dict[str, Any], tool_id: str) -> Any:
    payload = {
        "session_id": "constraint-observed",
        "cwd": str(root),
        "hook_event_name": kind,
        "tool_use_id": tool_id,
        **body,
    }
    env = {
        "HOME": str(root.parent),
        "REFLEX_MODE": "enforced",
        "AGENTREFLEX_STATE_DIR": str(root.parent / "state"),
    }
    plugins = load_plugins()
    return run_hook("claude-code", json.dumps(payload).encode(), env, plugins=plugins)


def _bash(root: Path, command: str, tool_id: str) -> Any:
    body = {"tool_name": "Bash", "tool_input": {"command": command}}
    pre = _hook(root, "PreToolUse", body, tool_id)
    if pre.decision.verdict.value in ("BLOCK", "ASK_USER"):
        return pre
    subprocess.run(command, shell=True, cwd=root, check=True, capture_output=True)
    post = {**body, "tool_response": {"stdout": "", "stderr": "", "exit_code": 0}}
    _hook(root, "PostToolUse", post, tool_id)
    return pre


def test_a_test_rewritten_by_a_script_stops_the_next_step_with_the_undo_hint(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_x.py").write_text("assert 1 == 1\n")
    (root / "x.py").write_text("x = 1\n")
    (root / "tidy.py").write_text(  # what it does is not in the command's words
        "import pathlib\np = pathlib.Path(open('todo.txt').read().strip())\n"
        "p.write_text('assert True\\n')\n"
    )
    (root / "todo.txt").write_text("tests/test_x.py\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid"}
    env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t.invalid")
    subprocess.run("git init -q && git add -A && git commit -qm i", shell=True, cwd=root, env=env)
    _hook(root, "UserPromptSubmit", {"prompt": "fix x.py. Do not modify the tests."}, "p")
    assert _bash(root, "python3 tidy.py", "t1").decision.verdict.value == "ALLOW"
    assert (root / "tests" / "test_x.py").read_text() == "assert True\n"
    nxt = _bash(root, "ls", "t2")
    assert nxt.decision.verdict.value in ("BLOCK", "ASK_USER")
    message = " ".join(f.message for f in nxt.decision.findings)
    assert "tests/test_x.py" in message and "agentreflex undo 1 tests/test_x.py" in message
    # stopped once: the step after that goes on
    assert _bash(root, "ls -a", "t3").decision.verdict.value == "ALLOW"
    # and the offered undo puts the test back
    from agentreflex.core.worktree.undocmd import main as undo

    assert undo(["1", "tests/test_x.py", "--cwd", str(root)]) == 0
    assert (root / "tests" / "test_x.py").read_text() == "assert 1 == 1\n"


PATCH = "--- a/tests/test_x.py\n+++ b/tests/test_x.py\n@@ -1 +1 @@\n-assert 1 == 1\n+assert True\n"
# (command, how it is seen): "words" stopped before it runs, "after" run for real,
# then the next step stopped from the work tree's changes (the path is not in its words)
EDITORS = [
    ("sed -E -i 's/(1) == 1/\\1 == 2/' tests/test_x.py", "words"),
    ("perl -pi -e 's/1 == 1/2 == 2/' tests/test_x.py", "words"),
    ("python3 -c \"open('tests/test_x.py', 'w').write('assert True\\n')\"", "words"),
    ("xargs sed -E -i 's/(1) == 1/\\1 == 2/' < todo.txt", "after"),
    # the project's todo.txt is read for the $(cat ...), as a script a command runs is
    ("perl -pi -e 's/1 == 1/2 == 2/' $(cat todo.txt)", "words"),
    ("python3 -c \"p = open('todo.txt').read().strip(); open(p, 'w').write('x')\"", "after"),
    ("git apply fix.diff", "after"),
    ("patch -s -p1 < fix.diff", "after"),
    ("dd if=/dev/zero of=tests/test_x.py bs=4 count=1 status=none", "after"),
]


@pytest.mark.parametrize(("command", "seen"), EDITORS)
def test_every_way_of_editing_a_test_is_seen(tmp_path: Path, command: str, seen: str) -> None:
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_x.py").write_text("assert 1 == 1\n")
    (root / "x.py").write_text("x = 1\n")
    (root / "fix.diff").write_text(PATCH)
    (root / "todo.txt").write_text("tests/test_x.py\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid"}
    env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t.invalid")
    subprocess.run("git init -q && git add -A && git commit -qm i", shell=True, cwd=root, env=env)
    _hook(root, "UserPromptSubmit", {"prompt": "fix x.py. Do not modify the tests."}, "p")
    first = _bash(root, command, "t1")
    codes = {f.code for f in first.decision.findings}
    if seen == "words":
        assert first.decision.verdict.value in ("BLOCK", "ASK_USER") and "GATE-CONSTRAINT" in codes
        return
    assert first.decision.verdict.value == "ALLOW", codes
    assert (root / "tests" / "test_x.py").read_text() != "assert 1 == 1\n"  # it ran
    nxt = _bash(root, "ls", "t2")
    assert nxt.decision.verdict.value in ("BLOCK", "ASK_USER")
    message = " ".join(f.message for f in nxt.decision.findings)
    assert "tests/test_x.py" in message and "agentreflex undo 1 tests/test_x.py" in message
    from agentreflex.core.worktree.undocmd import main as undo

    assert undo(["1", "tests/test_x.py", "--cwd", str(root)]) == 0
    assert (root / "tests" / "test_x.py").read_text() == "assert 1 == 1\n"
