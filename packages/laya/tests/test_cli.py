"""``agentreflex laya serve`` as a user runs it: a real process, real signals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from agentreflex.laya.cli import UsageError, main, run_loop


def spawn(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    cmd = [str(Path(sys.executable).parent / "agentreflex"), "laya", "serve", "--port", "0", *args]
    return subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize(
    ("args", "loop"),
    [
        ((), "uvloop" if sys.platform != "win32" else "asyncio loop"),
        (("--loop", "asyncio"), "asyncio loop"),
    ],
)
def test_serve_starts_answers_and_stops_on_sigterm(args: tuple[str, ...], loop: str) -> None:
    proc = spawn(*args)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f"builtin engine (laya-builtin-1), {loop}, on http://127.0.0.1:" in line
        base = line.rsplit(" on ", 1)[1].strip().removesuffix("/v1/systemone")
        assert httpx.get(base + "/healthz", timeout=5).json()["status"] == "ok"
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert "Traceback" not in err


def test_asking_for_uvloop_where_it_is_missing_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop now raises ImportError
    ran: list[str] = []

    async def body() -> None:
        ran.append("asyncio")

    with pytest.raises(UsageError, match="uvloop is not installed"):
        run_loop("uvloop", body())
    run_loop("auto", body())  # auto falls back to asyncio's own loop
    assert ran == ["asyncio"]


def test_non_loopback_without_token_is_refused() -> None:
    env = {k: v for k, v in os.environ.items() if k != "AGENTREFLEX_LAYA_TOKEN"}
    proc = spawn("--host", "0.0.0.0", env=env)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 2
    assert "not loopback and no token" in err and "Traceback" not in err


def test_bad_arguments_are_one_line(tmp_path: Path, capsys: object) -> None:
    assert main(["serve", "--engine", "model"]) == 2
    assert main(["serve", "--port", "70000"]) == 2
    assert main(["serve", "--token-file", str(tmp_path / "missing")]) == 2
    assert main(["bogus"]) == 2
    out = capsys.readouterr()  # type: ignore[attr-defined]
    assert "needs --model PATH" in out.err
    assert "cannot read the token file" in out.err
    assert "Traceback" not in out.err
