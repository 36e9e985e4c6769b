"""The warm daemon with a reflex slow enough to outwait: an event is recorded once.

Moved from ``packages/core/tests/test_daemon_trust.py`` (real ``agentreflex serve``
processes on real sockets, the real thin client in a fresh interpreter); core alone
evaluates a call faster than the client gives up, so the premise needs the gate.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentreflex.core.testing import AGENTREFLEX_BIN, serve_daemon
from agentreflex.core.testing import daemon_env as _env
from agentreflex.core.testing import daemon_payload as _payload
from agentreflex.core.testing import daemon_probe as _probe
from agentreflex.core.testing import daemon_recorded as _recorded
from agentreflex.core.util.fsutil import call_record_path


@pytest.fixture()
def daemon(tmp_path: Path) -> Iterator[Path]:
    yield from serve_daemon(tmp_path)  # the hook's code already separated (conftest)


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


def _looked(tmp: Path, tool_use_id: str) -> bool:
    """Did a hook take the work tree's look before the call (its fingerprint, kept for after)?"""
    return os.path.exists(call_record_path(str(tmp / "state" / "worktree"), "trust", tool_use_id))


def _stopped(tmp: Path) -> None:
    """SIGTERM the daemon and wait for it to go: it first lets the requests in flight finish."""
    pid_file = tmp / "run" / "daemon.sock.pid"
    os.kill(int(pid_file.read_text()), signal.SIGTERM)
    deadline = time.monotonic() + 60
    while pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pid_file.exists()


def test_the_daemon_leaves_the_looks_to_a_client_that_gave_up(tmp_path: Path, daemon: Path) -> None:
    """A client that stopped waiting evaluates the call itself, looks included: the daemon
    taking them too (planted settings, the work tree's fingerprint and snapshot, seconds
    for a large command) only competed with it for the CPU (rt74)."""
    subprocess.run(["git", "init", "-q", str(tmp_path / "project")], check=True)
    slow = " && ".join(f"echo {i} > out{i}.txt" for i in range(8000))  # asks; ~1 s to evaluate
    waited = _probe(tmp_path, _payload(tmp_path, "toolu_waited", slow), timeout=120)
    assert waited["answered"] is True
    assert _looked(tmp_path, "toolu_waited")  # the control: the look leaves its fingerprint
    gave_up = _probe(tmp_path, _payload(tmp_path, "toolu_gave_up", slow), timeout=0.01)
    assert gave_up["answered"] is False
    _stopped(tmp_path)  # the request in flight is finished by now
    assert not _looked(tmp_path, "toolu_gave_up")
    assert not _recorded(tmp_path, "toolu_gave_up")


def test_the_thin_client_gives_the_gates_answer(tmp_path: Path, daemon: Path) -> None:
    """What the daemon answered reaches the host as the hook's own answer would: the
    client never loaded the hook runtime, and the gate's refusal is in its output."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", AGENTREFLEX_BIN, "hook", "claude-code", "PreToolUse"],
        input=_payload(tmp_path, "toolu_thin", "rm -rf ~/"),
        env=_env(tmp_path),
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert b"agentreflex.core.hook.runtime" not in done.stderr  # the daemon answered
    assert b"GATE-RM-ROOT" in done.stdout
