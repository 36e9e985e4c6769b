"""The warm daemon answers as the hook process would: the gate's side (red-team rt33).

Core's ``packages/core/tests/test_daemon_answers_as_the_hook.py`` shows that a write
through a second name of a tracked file is a recorded change, daemon on or off; here
the gate, installed beside core, holds the prompt's "Do not modify tests" on it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentreflex.core.testing import committed_repository, daemon_env, serve_daemon
from agentreflex.core.testing import daemon_hook as _hook
from agentreflex.core.testing import daemon_shell_call as shell_call


@pytest.fixture()
def daemon(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "home").mkdir(exist_ok=True)
    yield from serve_daemon(tmp_path)


@pytest.mark.parametrize("served", ["on", "off"])
def test_a_test_rewritten_through_a_hard_link_breaks_the_prompts_constraint(
    tmp_path: Path, daemon: Path, served: str
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    committed_repository(root, {"tests/test_login.py": "def test_login():\n    assert check()\n"})
    env = {**daemon_env(tmp_path), "AGENTREFLEX_DAEMON": served}
    prompt = {"session_id": "rt33", "cwd": str(root), "hook_event_name": "UserPromptSubmit"}
    _hook({**prompt, "prompt": "Fix the login bug. Do not modify tests."}, env)
    shell_call(root, "ls", env, "w0")  # the daemon now keeps this repository's status
    shell_call(root, "ln tests/test_login.py .x && echo 'assert True' > .x && rm .x", env, "w1")
    assert "True" in (root / "tests" / "test_login.py").read_text()
    body = {
        "session_id": "rt33",
        "cwd": str(root),
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "w2",
        "permission_mode": "bypassPermissions",
        "hook_event_name": "PreToolUse",
    }
    code, out, err = _hook(body, env)
    assert "tests/test_login.py" in json.dumps(out) + err, (code, out, err)
