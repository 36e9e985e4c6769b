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


def test_the_server_runs_in_process_until_sigterm(capsys: pytest.CaptureFixture[str]) -> None:
    """``_run`` as ``main`` drives it: prints where it listens, answers, stops on SIGTERM."""
    import asyncio

    from agentreflex.laya.cli import _run
    from agentreflex.laya.engine import make_engine
    from agentreflex.laya.server import Server, ServerConfig

    server = Server(make_engine("builtin"), ServerConfig(port=0))
    seen: list[str] = []

    async def drive() -> int:
        task = asyncio.create_task(_run(server))
        for _ in range(200):
            await asyncio.sleep(0.02)
            seen.append(capsys.readouterr().out)
            if " on http://" in "".join(seen):
                break
        base = "".join(seen).rsplit(" on ", 1)[1].strip().removesuffix("/v1/systemone")
        async with httpx.AsyncClient() as client:
            status = (await client.get(base + "/healthz", timeout=5)).status_code
        os.kill(os.getpid(), signal.SIGTERM)  # the handler _run installed sets its stop event
        await asyncio.wait_for(task, 10)
        return status

    assert asyncio.run(drive()) == 200
    assert "builtin engine (laya-builtin-1), asyncio loop" in "".join(seen)


def test_the_token_comes_from_a_file_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentreflex.laya.cli import read_token

    token = tmp_path / "token"
    token.write_text("  s3cret-token\n")
    assert read_token(str(token)) == "s3cret-token"
    monkeypatch.setenv("AGENTREFLEX_LAYA_TOKEN", " from-env ")
    assert read_token(None) == "from-env"
    token.write_bytes(b"\xff\xfe")
    with pytest.raises(UsageError, match="cannot read the token file"):
        read_token(str(token))


def test_limits_out_of_range_and_unexpected_errors_are_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentreflex.laya import cli

    assert main(["serve", "--max-concurrent", "0"]) == 2
    assert "--max-concurrent >= 1" in capsys.readouterr().err

    def broken(args: object) -> int:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(cli, "_serve", broken)
    assert main(["serve"]) == 2
    assert capsys.readouterr().err == "agentreflex laya: RuntimeError: disk on fire\n"

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_serve", interrupted)
    assert main(["serve"]) == 0  # Ctrl-C is a normal way to stop a server
