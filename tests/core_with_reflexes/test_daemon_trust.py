"""The warm daemon with a reflex slow enough to outwait: an event is recorded once.

Moved from ``packages/core/tests/test_daemon_trust.py`` (real ``agentreflex serve``
processes on real sockets, the real thin client in a fresh interpreter); core alone
evaluates a call faster than the client gives up, so the premise needs the gate.
"""

from __future__ import annotations

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
