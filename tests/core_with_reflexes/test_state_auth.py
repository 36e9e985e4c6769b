"""Tamper-evident session state with the done reflex (judge2) installed: a stop needs the history.

Moved from ``packages/core/tests/test_state_auth.py``: the done reflex declares that a
stop needs the session's history, so a lost key or log fails the stop closed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentreflex.core.state.store import SessionStore
from agentreflex.core.state.userdirs import key_path
from agentreflex.core.testing import project_hook as _hook


def test_an_unreadable_key_fails_the_stop_closed(tmp_path: Path) -> None:
    _hook(tmp_path, "UserPromptSubmit", prompt="hi")
    os.unlink(key_path())
    os.mkdir(key_path())  # unreadable as a key, even for root
    from agentreflex.core.state import auth

    auth._KEYS.clear()  # a new hook process would not have it cached
    stdout, stderr = _hook(tmp_path, "Stop", stop_hook_active=False)
    assert json.loads(stdout)["decision"] == "block"
    assert "state key" in json.loads(stdout)["reason"] + stderr
    stdout, _ = _hook(tmp_path, "UserPromptSubmit", prompt="hi again")
    assert "block" not in stdout  # judgment elsewhere fails open


def test_a_deleted_log_blocks_the_stop_until_acknowledged(tmp_path: Path) -> None:
    _hook(tmp_path, "UserPromptSubmit", prompt="hi")
    store = SessionStore(str(tmp_path / "proj" / ".agentreflex"), "s-hook")
    os.unlink(store.log_path)
    stdout, _ = _hook(tmp_path, "Stop", stop_hook_active=True)
    reply = json.loads(stdout)
    assert reply["decision"] == "block", stdout
    assert "agentreflex state acknowledge --session s-hook" in reply["reason"]
    assert "CORE-STATE-LOST" in (tmp_path / "proj" / ".agentreflex" / "reflex.log").read_text()
    store.acknowledge()
    stdout, _ = _hook(tmp_path, "Stop", stop_hook_active=False)
    assert "block" not in stdout
