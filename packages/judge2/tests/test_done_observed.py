"""The done reflex knows edits from the work tree, not from a command's words.

Real commands in a scratch git repository, through core's real hook
pipeline (pre-tool, the command, post-tool): the session's state then holds
what changed, and the done reflex holds a stop with no test run after it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from agentreflex.core.decision import Verdict
from agentreflex.core.hook.runtime import Plugins, run_hook
from agentreflex.core.state.store import SessionStore
from agentreflex.core.testing import make_context, stop
from agentreflex.judge2.done.reflex import DoneReflex

EDITS = [
    "sed -E -i 's/(x)/\\1y/' src/mod.py",
    "perl -pi -e 's/x/z/' src/mod.py",
    "python3 -c \"open('src/mod.py', 'a').write('w = 2\\n')\"",
    "dd if=/dev/zero of=src/mod.py bs=2 count=1 status=none",
    "git apply fix.diff",
    "patch -s -p1 < fix.diff",
]


def _hook(root: Path, state: Path, kind: str, command: str) -> None:
    payload = {
        "session_id": "done-observed",
        "cwd": str(root),
        "hook_event_name": kind,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "t1",
        "tool_response": {"stdout": "", "stderr": "", "exit_code": 0},
    }
    env = {"HOME": str(root.parent), "AGENTREFLEX_STATE_DIR": str(state)}
    run_hook("claude-code", json.dumps(payload).encode(), env, plugins=Plugins())


@pytest.mark.parametrize("command", EDITS)
def test_an_edit_no_word_shows_holds_the_stop_without_a_test_run(
    tmp_path: Path, command: str
) -> None:
    root, state = tmp_path / "proj", tmp_path / "state"
    (root / "src").mkdir(parents=True)
    (root / "src" / "mod.py").write_text("x = 1\n")
    (root / "fix.diff").write_text(
        "--- a/src/mod.py\n+++ b/src/mod.py\n@@ -1 +1 @@\n-x = 1\n+x = 3\n"
    )
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid"}
    env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t.invalid")
    subprocess.run("git init -q && git add -A && git commit -qm i", shell=True, cwd=root, env=env)
    _hook(root, state, "PreToolUse", command)
    subprocess.run(command, shell=True, cwd=root, check=True, capture_output=True)
    _hook(root, state, "PostToolUse", command)
    session, _ = SessionStore(str(state), "done-observed").load()
    assert session.actions[-1].paths == ["src/mod.py"]
    [finding] = DoneReflex().evaluate(make_context(stop("Done."), state=session))
    assert finding.verdict is Verdict.BLOCK and finding.code == "DONE-UNVERIFIED"
    assert "src/mod.py" in finding.message
