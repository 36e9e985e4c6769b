"""judge2, unchanged, pointed at a local laya server by ``JEV_BASE_URL``; doctor sees it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.cli.doctor import diagnose
from agentreflex.core.config.settings import load_config
from agentreflex.core.systemone import signals as s
from agentreflex.core.testing import make_context, pre_tool, stop
from agentreflex.judge2.calibmap import map_for
from agentreflex.judge2.jev import JevBackend
from agentreflex.judge2.judge import make_judge


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    for key in ("JEV_API_KEY", "JEV_MODE", "JEV_MODEL", "JEV_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("AGENTREFLEX_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("AGENTREFLEX_SOCKET", str(tmp_path / "no-daemon.sock"))
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def ask(project: Path, event: Any, battery: str) -> Any:
    config = load_config(str(project))
    judge = make_judge(config)
    assert judge is not None
    ctx = make_context(event, config=config, judge=judge, state_dir=config.state_dir)
    return judge, ctx.judge_answer(battery)


def test_judge2_uses_the_local_server_with_no_key(
    serve: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv = serve()
    monkeypatch.setenv("JEV_BASE_URL", srv.base_url)
    judge, answer = ask(
        project, pre_tool("Bash", {"command": "git reset --hard HEAD~5"}), s.PRE_TOOL
    )
    assert isinstance(judge.backend, JevBackend)
    assert judge.backend.url == srv.base_url + "/v1/systemone"
    assert not answer.degraded, answer.error
    # the engine says 0.92; judge2 serves it through the shipped map for laya-builtin-1
    shipped = map_for("laya-builtin-1")
    assert shipped is not None
    assert answer.probabilities[s.DESTRUCTIVE] == round(shipped.signals[s.DESTRUCTIVE](0.92), 4)
    assert answer.probabilities[s.DESTRUCTIVE] < 0.75  # right 72% of the time on held-out data
    # the engine's 0.05 for secret exposure, through its curve: an honest base rate
    assert answer.probabilities[s.SECRET_EXPOSURE] == round(
        shipped.signals[s.SECRET_EXPOSURE](0.05), 4
    )
    assert answer.probabilities[s.SECRET_EXPOSURE] < 0.05
    unmapped = {k: v for k, v in answer.probabilities.items() if k not in shipped.signals}
    assert unmapped and set(unmapped.values()) <= {0.92, 0.75, 0.5, 0.2, 0.05}  # as served
    assert srv.server.served == 1


def test_completion_battery_with_claim_choices(
    serve: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv = serve()
    monkeypatch.setenv("JEV_BASE_URL", srv.base_url + "/v1/systemone")  # the full path works too
    _, answer = ask(project, stop("Fixed the parser. All tests pass."), s.COMPLETION)
    assert not answer.degraded, answer.error
    assert set(answer.choices["claim_1"]) == {"supported", "contradicted", "insufficient"}
    assert answer.probabilities[s.CLAIMS_UNSUPPORTED] == 0.92  # no test run backs the claim


def test_a_token_protected_server_gets_the_key(
    serve: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv = serve(token="local-token-123456")
    monkeypatch.setenv("JEV_BASE_URL", srv.base_url)
    _, refused = ask(project, pre_tool("Bash", {"command": "ls"}), s.PRE_TOOL)
    assert refused.degraded and "401" in refused.error  # fails open, says why
    monkeypatch.setenv("JEV_API_KEY", "local-token-123456")
    _, answer = ask(project, pre_tool("Bash", {"command": "ls"}), s.PRE_TOOL)
    assert not answer.degraded, answer.error


def test_doctor_names_the_backend_and_its_latency(
    serve: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv = serve()
    monkeypatch.setenv("JEV_BASE_URL", srv.base_url)
    [check] = [c for c in diagnose(str(project))["checks"] if c["check"] == "judge backend"]
    assert check["ok"]
    assert "local builtin engine (laya-builtin-1)" in check["detail"]
    assert " ms" in check["detail"]


def test_doctor_flags_a_local_backend_that_does_not_answer(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("JEV_BASE_URL", f"http://127.0.0.1:{port}")
    report = diagnose(str(project))
    [check] = [c for c in report["checks"] if c["check"] == "judge backend"]
    assert not check["ok"] and "agentreflex laya serve" in check["detail"]
    assert not report["ok"]


def test_doctor_does_not_probe_a_remote_backend(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JEV_API_KEY", "sk-remote-000000000000")
    names = [c["check"] for c in diagnose(str(project))["checks"]]
    assert "judge backend" not in names


def test_doctor_says_how_to_start_the_declared_local_judge(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing listens: doctor's hint is the command the installed package declares."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing answers there
    monkeypatch.setenv("JEV_BASE_URL", f"http://127.0.0.1:{port}")
    [check] = [c for c in diagnose(str(project))["checks"] if c["check"] == "judge backend"]
    assert not check["ok"]
    assert "start it with `agentreflex laya serve`" in check["detail"]
