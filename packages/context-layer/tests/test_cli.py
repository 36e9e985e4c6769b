"""``agentreflex context ...`` in process: prune and shorten, and their bad input."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest
from agentreflex.context_layer import cli

sys.path.insert(0, os.path.dirname(__file__))
from logs import pytest_log
from test_prune import session


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_help_and_unknown_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["context"]) == 2
    assert cli.main(["--help"]) == 0
    assert cli.main(["nope"]) == 2
    assert "unknown command" in capsys.readouterr().err


def test_prune_with_a_budget(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, json.dumps({"type": "context", "messages": session()}).encode())
    assert cli.main(["prune", "--budget", "100"]) == 0
    assert "superseded" in capsys.readouterr().out
    assert cli.main(["prune", "--budget", "lots"]) == 2
    _stdin(monkeypatch, b"\xff\xfe")
    assert cli.main(["prune"]) == 0
    assert capsys.readouterr().out.strip() == "{}"


def test_shorten_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "run.log"
    log.write_text(pytest_log())
    state = tmp_path / "state"
    assert cli.main(["shorten", str(log), "--state-dir", str(state)]) == 0
    assert "E       assert 3 == 4" in capsys.readouterr().out
    assert cli.main(["shorten", str(tmp_path / "missing.log"), "--state-dir", str(state)]) == 1
    assert cli.main(["shorten"]) == 2


def test_prune_refuses_an_oversized_event_and_a_budget_without_a_value(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad input gets a safe answer: nothing pruned, the reason on stderr, exit 0."""
    _stdin(monkeypatch, b"{" + b" " * cli.MAX_STDIN + b"}")
    assert cli.main(["prune"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == "{}" and f"more than {cli.MAX_STDIN} bytes" in captured.err
    _stdin(monkeypatch, json.dumps({"type": "context", "messages": session()}).encode())
    assert cli.main(["prune", "--budget"]) == 0  # no value: the default budget
    assert json.loads(capsys.readouterr().out) != {}
