"""The daemon's local judge when it cannot start: never an exception, always a word in the log.

(A judge that starts and answers is tested with the real laya server in
``packages/laya/tests/test_autostart.py``.)
"""

from __future__ import annotations

import socket
import subprocess
from typing import Any

import pytest
from agentreflex.core import registry
from agentreflex.core.hook import localjudge
from agentreflex.core.util.ownpython import ISOLATED


@pytest.fixture()
def declared(monkeypatch: pytest.MonkeyPatch) -> None:
    """A package declaring a local judge (core alone has none): the rows the registry keeps."""
    table = registry.flatten([])
    table[registry.LOCAL_JUDGES] = [["demo", "demo serve"]]
    monkeypatch.setattr(registry, "_MEMO", table)


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _wanted(url: str) -> dict[str, str]:
    return {"JEV_BASE_URL": url, localjudge.AUTOSTART: "1"}


def test_nothing_answers_on_a_closed_port() -> None:
    assert localjudge.answers(_closed_port_url()) is False


def test_without_a_declared_local_judge_none_is_started(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(registry, "_MEMO", registry.flatten([]))
    assert localjudge.start(_wanted(_closed_port_url())) is None
    assert "no installed package serves a local judge" in capsys.readouterr().err


def test_the_declared_subcommand_is_what_starts(
    declared: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argvs: list[list[str]] = []
    real_popen = subprocess.Popen

    def exits(argv: list[str], **_: Any) -> subprocess.Popen[bytes]:
        argvs.append(argv)
        return real_popen(["sh", "-c", "exit 3"])

    monkeypatch.setattr(localjudge.subprocess, "Popen", exits)
    url = _closed_port_url()
    assert localjudge.start(_wanted(url)) is None
    host, port = localjudge.host_port(url)
    assert argvs[0][1:] == [
        *ISOLATED,  # deaf to PYTHONPATH and the cwd, as every Python of ours outside
        "-m",
        "agentreflex.core.cli",
        "demo",
        "serve",
        "--host",
        host,
        "--port",
        str(port),
    ]
    assert "the local judge (agentreflex demo serve) exited (3)" in capsys.readouterr().err


def test_a_server_that_cannot_be_started_is_reported(
    declared: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(*_: Any, **__: Any) -> None:
        raise OSError("no such interpreter")

    monkeypatch.setattr(localjudge.subprocess, "Popen", refuse)
    assert localjudge.start(_wanted(_closed_port_url())) is None
    assert "cannot start the local judge: no such interpreter" in capsys.readouterr().err


def test_a_server_that_never_answers_is_stopped_and_reported(
    declared: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def silent(*_: Any, **__: Any) -> subprocess.Popen[bytes]:
        # ignores SIGTERM too: stop() must fall back to SIGKILL
        proc = real_popen(["sh", "-c", "trap '' TERM; sleep 30"])
        started.append(proc)
        return proc

    monkeypatch.setattr(localjudge.subprocess, "Popen", silent)
    monkeypatch.setattr(localjudge, "START_SECONDS", 0.3)
    monkeypatch.setattr(localjudge, "STOP_SECONDS", 0.3)
    url = _closed_port_url()
    assert localjudge.start(_wanted(url)) is None
    assert f"did not answer at {url}" in capsys.readouterr().err
    assert started and started[0].poll() is not None  # it was stopped, by SIGKILL
