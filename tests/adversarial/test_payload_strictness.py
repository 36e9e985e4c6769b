"""The payload cannot talk its way past a hook (issue 21, item 6).

Every case is a real ``agentreflex hook`` process of the full installation in
enforced mode, once evaluated in-process and once answered by a real warm
daemon (``agentreflex serve``): the answers must be the safe ones, and the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

BIN = str(Path(sys.executable).with_name("agentreflex"))
RM_HOME = {"tool_name": "Bash", "tool_input": {"command": "rm -rf ~/"}}


class Hooks:
    def __init__(self, root: Path, daemon: bool) -> None:
        self.root, self.daemon = root, daemon
        self.project = root / "project"
        (self.project / ".git").mkdir(parents=True, exist_ok=True)
        (root / "home").mkdir(exist_ok=True)
        self.serial = 0

    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("REFLEX_", "AGENTREFLEX_", "JEV_"))
        }
        env.update(
            HOME=str(self.root / "home"),
            XDG_CACHE_HOME=str(self.root / "cache"),
            XDG_CONFIG_HOME=str(self.root / "config"),
            REFLEX_MODE="enforced",
            JEV_MODE="mock",
            AGENTREFLEX_STATE_DIR=str(self.root / "state"),
            AGENTREFLEX_SOCKET=str(self.root / "run" / "daemon.sock"),
            AGENTREFLEX_DAEMON="on" if self.daemon else "off",
        )
        return env

    def body(self, event: str, session: str = "strict", **fields: Any) -> dict[str, Any]:
        self.serial += 1
        base = {
            "session_id": session,
            "cwd": str(self.project),
            "hook_event_name": event,
            "tool_use_id": f"toolu_{self.serial}",
        }
        return {**base, **fields}

    def run(self, data: dict[str, Any] | bytes, *args: str) -> subprocess.CompletedProcess[str]:
        raw = data if isinstance(data, bytes) else json.dumps(data).encode()
        done = subprocess.run(
            [BIN, "hook", *args],
            input=raw.decode("utf-8", "replace"),
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=self.project,
        )
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stdout + done.stderr
        return done


@pytest.fixture(params=["in-process", "daemon"])
def hooks(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Hooks]:
    made = Hooks(tmp_path, request.param == "daemon")
    if not made.daemon:
        yield made
        return
    log = tmp_path / "daemon.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [BIN, "serve", "--idle", "60"], env=made.env(), stdout=out, stderr=out
        )
    sock = tmp_path / "run" / "daemon.sock"
    deadline = time.monotonic() + 60
    while not sock.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert sock.exists(), log.read_text()
    probe = "from agentreflex.core.hook.client import try_daemon as t; print(t('claude-code', '', b'{}'))"
    answered = subprocess.run(
        [sys.executable, "-c", probe], env=made.env(), capture_output=True, text=True, check=True
    )
    assert answered.stdout.strip() != "None", "the daemon must really answer these hooks"
    try:
        yield made
    finally:
        proc.terminate()
        proc.wait(10)


def denied(done: subprocess.CompletedProcess[str]) -> str:
    spec = json.loads(done.stdout)["hookSpecificOutput"]
    assert spec["hookEventName"] == "PreToolUse"
    assert spec["permissionDecision"] == "deny", done.stdout
    return str(spec["permissionDecisionReason"])


@pytest.mark.parametrize("said", ["Stop", "PostToolUse", "SessionStart", "NoSuchEvent", None])
def test_a_pre_tool_registration_wins_over_the_payload(said: str | None, hooks: Hooks) -> None:
    body = hooks.body("PreToolUse", **RM_HOME)
    if said is None:
        del body["hook_event_name"]
    else:
        body["hook_event_name"] = said
    done = hooks.run(body, "claude-code", "PreToolUse")
    assert "GATE-RM-ROOT" in denied(done)
    if said is not None:
        assert (
            f"registered for PreToolUse but its payload says hook_event_name='{said}'"
            in done.stderr
        )


def test_a_payload_claiming_a_tool_call_on_a_stop_hook_is_checked_as_one(hooks: Hooks) -> None:
    done = hooks.run(hooks.body("PreToolUse", **RM_HOME), "claude-code", "Stop")
    assert "GATE-RM-ROOT" in denied(done)
    assert "handled as PreToolUse" in done.stderr


@pytest.mark.parametrize(
    ("host", "data"),
    [
        ("codex", b"{not json"),
        ("codex", b""),
        ("codex", b'["PreToolUse"]'),
        ("hermes", b"{not json"),
        ("hermes", b'{"hook_event_name": ["pre_tool_call"]}'),
    ],
)
def test_unreadable_payloads_fail_closed_on_hosts_that_register_without_the_event(
    host: str, data: bytes, hooks: Hooks
) -> None:
    done = hooks.run(data, host)
    answer = json.loads(done.stdout)
    if host == "codex":
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    else:
        assert answer["decision"] == "block"
    assert done.stderr.startswith(f"agentreflex error: bad {host} payload")


def test_an_unreadable_payload_on_a_pre_tool_registration_fails_closed(hooks: Hooks) -> None:
    done = hooks.run(
        b'{"hook_event_name": "PreToolUse", "tool_input": ', "claude-code", "PreToolUse"
    )
    assert "not valid JSON" in denied(done)


TYPES: dict[str, dict[str, Any]] = {
    "command as a list": {"tool_name": "Bash", "tool_input": {"command": ["rm", "-rf", "/"]}},
    "command as an object": {"tool_name": "Bash", "tool_input": {"command": {"argv": "rm -rf /"}}},
    "command as null": {"tool_name": "Bash", "tool_input": {"command": None}},
    "tool_input null": {"tool_name": "Bash", "tool_input": None},
    "tool_input a string": {"tool_name": "Bash", "tool_input": "rm -rf /"},
    "tool_input missing": {"tool_name": "Bash"},
    "file_path as a list": {
        "tool_name": "Write",
        "tool_input": {"file_path": ["/root/.bashrc"], "content": "x"},
    },
    "path as a list (MCP)": {
        "tool_name": "mcp__fs__write_file",
        "tool_input": {"path": ["/root/.bashrc"], "content": "x"},
    },
}


@pytest.mark.parametrize("case", sorted(TYPES))
@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_wrong_types_on_a_proposed_call_fail_closed(case: str, host: str, hooks: Hooks) -> None:
    done = hooks.run(hooks.body("PreToolUse", **TYPES[case]), host, "PreToolUse")
    reason = denied(done)
    assert "tool_input" in reason and "must be" in reason and "failing closed" in reason


def test_hermes_wrong_types_fail_closed(hooks: Hooks) -> None:
    body = hooks.body(
        "pre_tool_call", tool_name="terminal", tool_input={"command": ["rm", "-rf", "/"]}
    )
    answer = json.loads(hooks.run(body, "hermes").stdout)
    assert answer["decision"] == "block" and "must be a string" in answer["reason"]


def test_unknown_extra_fields_are_fine(hooks: Hooks) -> None:
    body = hooks.body(
        "PreToolUse",
        tool_name="Bash",
        tool_input={"command": "ls -la", "description": ["a", "list"], "new_field": None},
        brand_new_top_level={"nested": [1, 2]},
    )
    done = hooks.run(body, "claude-code", "PreToolUse")
    assert "permissionDecision" not in done.stdout


def _edit_then_stop(hooks: Hooks, session: str, active: object) -> str:
    edit = {
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(hooks.project / "app.py"),
            "old_string": "a",
            "new_string": "b",
        },
    }
    hooks.run(hooks.body("PreToolUse", session, **edit), "claude-code", "PreToolUse")
    result = {"tool_response": {"filePath": "app.py", "success": True}}
    hooks.run(hooks.body("PostToolUse", session, **edit, **result), "claude-code", "PostToolUse")
    stop = hooks.body("Stop", session, stop_hook_active=active, last_assistant_message="All fixed.")
    return hooks.run(stop, "claude-code", "Stop").stdout


@pytest.mark.parametrize("active", ["true", 1, {"x": 1}, [True]])
def test_stop_hook_active_counts_only_as_json_true(active: object, hooks: Hooks) -> None:
    out = _edit_then_stop(hooks, f"stop-{json.dumps(active)}", active)
    assert json.loads(out)["decision"] == "block"  # the done reflex is not told to stand down


def test_stop_hook_active_true_still_stands_the_done_reflex_down(hooks: Hooks) -> None:
    """The control: JSON true is what the host sends when it is already re-prompting."""
    assert _edit_then_stop(hooks, "stop-true", True) == ""
