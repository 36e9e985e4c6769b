"""The warm daemon with a reflex slow enough to outwait: an event is recorded once.

Moved from ``packages/core/tests/test_daemon_trust.py`` (real ``agentreflex serve``
processes on real sockets, the real thin client in a fresh interpreter); core alone
evaluates a call faster than the client gives up, so the premise needs the gate.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

BIN = str(Path(sys.executable).with_name("agentreflex"))


PROBE = r"""
import json, sys, time
from agentreflex.core.hook.client import try_daemon
start = time.monotonic()
answer = try_daemon("claude-code", "PreToolUse", sys.stdin.buffer.read(), float(sys.argv[1]))
print(json.dumps({"answered": answer is not None, "seconds": time.monotonic() - start}))
"""


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENTREFLEX_"))}
    env.update(
        HOME=str(tmp / "home"),
        XDG_CACHE_HOME=str(tmp / "cache"),
        XDG_CONFIG_HOME=str(tmp / "config"),
        REFLEX_MODE="enforced",
        JEV_MODE="off",
        AGENTREFLEX_STATE_DIR=str(tmp / "state"),
        AGENTREFLEX_SOCKET=str(tmp / "run" / "daemon.sock"),
        AGENTREFLEX_DAEMON="on",
    )
    return env


@pytest.fixture()
def daemon(tmp_path: Path) -> Iterator[Path]:
    # The first enforced shell command after an install gives each hard-linked file of the
    # hook's code a copy of its own (contain/ownlinks.py): that walk takes seconds and
    # changes the folders' times, so a daemon started before it is another installation
    # to the clients after it.  Done here first, as any earlier hook in the run would have.
    from agentreflex.core.contain import ownlinks

    ownlinks.separate(str(tmp_path / "state"))
    log = tmp_path / "daemon.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [BIN, "serve", "--idle", "60"], env=_env(tmp_path), stdout=out, stderr=out
        )
    sock = tmp_path / "run" / "daemon.sock"
    deadline = time.monotonic() + 60
    while not sock.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert sock.exists(), log.read_text()
    yield sock
    proc.terminate()
    proc.wait(10)
    assert "Traceback" not in log.read_text()


def _payload(tmp: Path, tool_use_id: str, command: str = "ls -la") -> bytes:
    project = tmp / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    body = {
        "session_id": "trust",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": tool_use_id,
    }
    return json.dumps(body).encode()


def _probe(tmp: Path, data: bytes, timeout: float = 5.0) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(timeout)],
        input=data,
        env=_env(tmp),
        capture_output=True,
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _recorded(tmp: Path, tool_use_id: str) -> bool:
    """Is the event in the session store (the log the reflexes fold their history from)?"""
    state = tmp / "state" / "sessions"
    return any(
        tool_use_id in path.read_text(errors="replace")
        for path in state.rglob("*")
        if path.is_file()
    )


def test_an_event_is_recorded_once_when_the_client_gives_up(tmp_path: Path, daemon: Path) -> None:
    """A client that timed out evaluates (and records) the event itself: the daemon must not."""
    # the premise needs a reflex slower than the client's 10 ms: core alone evaluates a
    # call in less (no reflexes), so the daemon would record before the client gives up
    slow = " && ".join(f"echo {i} > out{i}.txt" for i in range(8000))  # takes the daemon a while
    gave_up = _probe(tmp_path, _payload(tmp_path, "toolu_gave_up", slow), timeout=0.01)
    assert gave_up["answered"] is False
    waited = _probe(tmp_path, _payload(tmp_path, "toolu_waited", slow))
    assert waited["answered"] is True
    assert _recorded(tmp_path, "toolu_waited")  # the control: a waiting client's event is kept
    time.sleep(1.0)
    assert not _recorded(tmp_path, "toolu_gave_up")
