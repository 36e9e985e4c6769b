"""The warm daemon starts ``agentreflex laya serve`` on demand: real daemon, real server."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentreflex.core.hook import localjudge


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(check: object, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.2)
    return False


@pytest.fixture
def daemon_env(tmp_path: Path) -> dict[str, str]:
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    return {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "AGENTREFLEX_SOCKET": str(run / "daemon.sock"),
    }


def start_daemon(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """The daemon as ``agentreflex serve`` runs it; what it says goes to ``log``."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "agentreflex.core.cli", "serve", "--idle", "60"],
            cwd="/",
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
        )


@pytest.fixture
def stopped() -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def test_the_daemon_starts_the_local_judge_and_stops_it_with_itself(
    daemon_env: dict[str, str], stopped: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    env = {**daemon_env, "JEV_BASE_URL": url, localjudge.AUTOSTART: "1"}
    log = tmp_path / "daemon.log"
    daemon = start_daemon(env, log)
    stopped.append(daemon)
    started = f"local judge started at {url}"
    assert wait_for(lambda: started in log.read_text()), log.read_text()
    assert localjudge.answers(url)
    daemon.send_signal(signal.SIGTERM)
    assert daemon.wait(timeout=30) == 0
    assert "Traceback" not in log.read_text()
    assert not localjudge.answers(url), "the judge outlived the daemon"


def test_a_daemon_stopped_while_its_judge_starts_leaves_no_judge_behind(
    daemon_env: dict[str, str], stopped: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    """SIGTERM as soon as the judge answers, maybe before the daemon saw it: both go."""
    url = f"http://127.0.0.1:{free_port()}"
    env = {**daemon_env, "JEV_BASE_URL": url, localjudge.AUTOSTART: "1"}
    log = tmp_path / "daemon.log"
    daemon = start_daemon(env, log)
    stopped.append(daemon)
    assert wait_for(lambda: localjudge.answers(url), seconds=30)
    daemon.send_signal(signal.SIGTERM)
    assert daemon.wait(timeout=30) == 0, log.read_text()
    assert wait_for(lambda: not localjudge.answers(url), seconds=10), "an orphaned judge"
    assert "Traceback" not in log.read_text()


def test_without_the_users_say_so_no_judge_is_started(
    daemon_env: dict[str, str], stopped: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    daemon = start_daemon({**daemon_env, "JEV_BASE_URL": url}, tmp_path / "daemon.log")
    stopped.append(daemon)
    socket_file = Path(daemon_env["AGENTREFLEX_SOCKET"])
    assert wait_for(socket_file.exists), "the daemon never listened"
    assert not localjudge.answers(url)
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(timeout=30)


@pytest.mark.parametrize(
    ("env", "wanted"),
    [
        ({"AGENTREFLEX_LAYA_AUTOSTART": "1", "JEV_BASE_URL": "http://127.0.0.1:9"}, True),
        ({"AGENTREFLEX_LAYA_AUTOSTART": "yes", "JEV_BASE_URL": "http://[::1]:9/v1"}, True),
        ({"AGENTREFLEX_LAYA_AUTOSTART": "1", "JEV_BASE_URL": "https://api.example.com"}, False),
        ({"AGENTREFLEX_LAYA_AUTOSTART": "0", "JEV_BASE_URL": "http://127.0.0.1:9"}, False),
        ({"AGENTREFLEX_LAYA_AUTOSTART": "1"}, False),
    ],
)
def test_only_a_loopback_judge_the_user_asked_for_is_started(
    env: dict[str, str], wanted: bool
) -> None:
    assert bool(localjudge.wanted(env)) is wanted


def test_addresses_are_read_as_host_and_port() -> None:
    assert localjudge.host_port("http://127.0.0.1:8787") == ("127.0.0.1", 8787)
    assert localjudge.host_port("http://[::1]:9000/v1") == ("::1", 9000)
    assert localjudge.host_port("http://localhost") == ("localhost", 80)


def test_start_uses_a_judge_that_already_answers_and_stops_only_its_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    env = {"JEV_BASE_URL": url, localjudge.AUTOSTART: "1"}
    own = localjudge.start(env)
    assert own is not None and localjudge.answers(url)
    assert f"local judge started at {url}" in capsys.readouterr().err
    assert localjudge.start(env) is None  # one answers already: used as it is
    localjudge.stop(own)
    assert own.poll() is not None and not localjudge.answers(url)
    localjudge.stop(own)  # stopping twice is harmless
    localjudge.stop(None)


def test_a_judge_that_cannot_serve_there_is_reported_not_raised(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as taken:  # the port is bound, not listening: laya cannot serve
        taken.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{taken.getsockname()[1]}"
        assert localjudge.start({"JEV_BASE_URL": url, localjudge.AUTOSTART: "1"}) is None
    assert "the local judge (agentreflex laya serve) exited (" in capsys.readouterr().err
