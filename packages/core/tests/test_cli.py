"""The real ``agentreflex`` CLI, as a subprocess (hook path) and in-process (cold commands).

Subprocesses run the workspace venv with every installed package, so their
assertions are about the contract (exit code, stdout shape, one-line errors,
no traceback), not about which reflexes fire.  Exact core-alone decisions are
checked in-process with no plug-ins loaded.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.cli.commands import dispatch
from agentreflex.core.hook import runtime
from agentreflex.core.hook.runtime import MAX_PAYLOAD_BYTES, run_hook

HEAVY = ("pydantic", "httpx", "aiohttp", "rich", "matplotlib")


def claude(event: str = "PreToolUse", cwd: str = "/tmp", **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "session_id": "cli-sess",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event,
    }
    if event in ("PreToolUse", "PostToolUse"):
        base.update({"tool_name": "Bash", "tool_input": {"command": "ls -la"}, "tool_use_id": "t"})
    base.update(fields)
    return base


def run_cli(
    args: list[str],
    env: dict[str, str],
    data: bytes = b"",
    cwd: Path | None = None,
    extra: list[str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, *(extra or []), "-m", "agentreflex.core.cli", *args],
        input=data,
        capture_output=True,
        env=env,
        cwd=str(cwd) if cwd else None,
        timeout=120,
        check=False,
    )


def check_hook_contract(proc: subprocess.CompletedProcess[bytes], expect_deny: bool) -> str:
    """Exit 0, a valid Claude answer on stdout, agentreflex lines on stderr, no traceback."""
    out = proc.stdout.decode("utf-8")
    err = proc.stderr.decode("utf-8")
    assert proc.returncode == 0, err
    assert "Traceback" not in out and "Traceback" not in err
    for line in err.splitlines():
        assert line.startswith("agentreflex"), err
    if expect_deny:
        spec = json.loads(out)["hookSpecificOutput"]
        assert spec["hookEventName"] == "PreToolUse"
        assert spec["permissionDecision"] == "deny"
        assert spec["permissionDecisionReason"]
    elif out:
        answer = json.loads(out)
        assert isinstance(answer, dict)
        assert "decision" not in answer
        assert answer.get("hookSpecificOutput", {}).get("permissionDecision") in (None, "allow")
    return err


BAD: dict[str, bytes] = {
    "malformed json": b'{"hook_event_name": "PreToolUse", "tool_name": "Bash",',
    "wrong host": json.dumps(
        {
            "hook_event_name": "pre_tool_call",
            "tool_name": "terminal",
            "tool_input": {"command": "rm -rf /"},
            "session_id": "s",
            "cwd": "/w",
            "extra": {},
        }
    ).encode(),
    "missing fields": json.dumps({"session_id": "s", "cwd": "/tmp"}).encode(),
    "over 10 MiB": json.dumps(
        {**claude(), "tool_input": {"command": "echo " + "a" * (MAX_PAYLOAD_BYTES + 1)}}
    ).encode(),
    "invalid utf-8": b'{"hook_event_name": "PreToolUse", "tool_name": "Bash\xff\xfe"}',
    "empty stdin": b"",
    "json array": json.dumps([claude()]).encode(),
}


# A payload naming another host's event on a PreToolUse registration is not bad
# input: the registration wins and it is evaluated as PreToolUse (test_payload_strictness).
HINTED = [(case, hint) for case in sorted(BAD) for hint in ([], ["PreToolUse"])]
HINTED.remove(("wrong host", ["PreToolUse"]))


@pytest.mark.parametrize(("case", "hint"), HINTED)
def test_hook_bad_input(case: str, hint: list[str], cli_env: dict[str, str], project: Path) -> None:
    proc = run_cli(["hook", "claude-code", *hint], cli_env, BAD[case], cwd=project)
    err = check_hook_contract(proc, expect_deny=bool(hint))
    assert err.count("\n") == 1 and err.startswith("agentreflex error: bad claude-code payload")


def test_hook_unknown_fields(cli_env: dict[str, str], project: Path) -> None:
    data = claude(cwd=str(project), future={"x": [1, 2]}, tool_input={"command": "ls", "new": 1})
    proc = run_cli(["hook", "claude-code"], cli_env, json.dumps(data).encode(), cwd=project)
    check_hook_contract(proc, expect_deny=False)
    state = Path(cli_env["AGENTREFLEX_STATE_DIR"]) / "sessions" / "cli-sess.jsonl"
    assert len(state.read_text().splitlines()) == 1


def test_hook_exit_skips_teardown_but_loses_nothing(cli_env: dict[str, str], project: Path) -> None:
    """Without coverage running, a hook ends with os._exit: the answer and the state are whole."""
    env = {k: v for k, v in cli_env.items() if not k.startswith(("COV_CORE", "COVERAGE"))}
    code = (
        "import runpy, sys; sys.argv = ['agentreflex', 'hook', 'claude-code', 'PreToolUse'];"
        "assert 'coverage' not in sys.modules;"
        "import atexit; atexit.register(lambda: sys.stderr.write('agentreflex teardown ran\\n'));"
        "runpy.run_module('agentreflex.core.cli', run_name='__main__')"
    )
    for n in range(3):
        data = claude(
            cwd=str(project), tool_use_id=f"toolu_{n}", tool_input={"command": "ls " * 5000}
        )
        proc = subprocess.run(
            [sys.executable, "-c", code],
            input=json.dumps(data).encode(),
            capture_output=True,
            env=env,
            cwd=str(project),
            timeout=120,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        assert "teardown ran" not in proc.stderr.decode()  # os._exit: no teardown
    state = Path(cli_env["AGENTREFLEX_STATE_DIR"]) / "sessions" / "cli-sess.jsonl"
    assert len(state.read_text().splitlines()) == 3
    bad = run_cli(["hook", "claude-code", "PreToolUse"], env, b"{not json", cwd=project)
    assert json.loads(bad.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert bad.stderr.decode().startswith("agentreflex error: bad claude-code payload")


def test_hook_state_dir_is_a_file(tmp_path: Path, cli_env: dict[str, str], project: Path) -> None:
    blocker = tmp_path / "plain-file"
    blocker.write_text("keep me")
    for state in (blocker, blocker / "state"):
        env = {**cli_env, "AGENTREFLEX_STATE_DIR": str(state)}
        for hint in ([], ["PreToolUse"]):
            data = json.dumps(claude(cwd=str(project))).encode()
            proc = run_cli(["hook", "claude-code", *hint], env, data, cwd=project)
            err = check_hook_contract(proc, expect_deny=False)
            assert "state" in err
    assert blocker.read_text() == "keep me"


@contextlib.contextmanager
def read_only_dir(path: Path) -> Iterator[Path]:
    """A directory nobody can create entries in, even root (chattr +i when root)."""
    path.mkdir()
    if os.geteuid() != 0:
        path.chmod(0o555)
        try:
            yield path
        finally:
            path.chmod(0o755)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)], check=False).returncode:
        # no way to make a directory read-only for root here: a file is just as unwritable
        yield Path(path / "missing-parent-file")
        return
    try:
        yield path
    finally:
        subprocess.run([chattr, "-i", str(path)], check=True)


def test_hook_state_dir_under_a_read_only_dir(
    tmp_path: Path, cli_env: dict[str, str], project: Path
) -> None:
    with read_only_dir(tmp_path / "ro") as ro:
        env = {**cli_env, "AGENTREFLEX_STATE_DIR": str(ro / "state")}
        for event in ("PreToolUse", "Stop", "UserPromptSubmit"):
            data = json.dumps(claude(event, cwd=str(project), prompt="hi")).encode()
            proc = run_cli(["hook", "claude-code", event], env, data, cwd=project)
            err = check_hook_contract(proc, expect_deny=False)
            assert "state" in err
        assert not (ro / "state").exists()


def test_hook_unwritable_state_fails_open_on_a_stop_even_when_enforced(
    tmp_path: Path, cli_env: dict[str, str], project: Path
) -> None:
    """Without its history a completion check can only guess: our failure must not block."""
    blocker = tmp_path / "plain-file"
    blocker.write_text("")
    env = {**cli_env, "AGENTREFLEX_STATE_DIR": str(blocker / "state"), "REFLEX_MODE": "enforced"}
    data = claude(
        "Stop",
        cwd=str(project),
        stop_hook_active=False,
        last_assistant_message="Done, all tests pass.",
    )
    proc = run_cli(["hook", "claude-code", "Stop"], env, json.dumps(data).encode(), cwd=project)
    err = check_hook_contract(proc, expect_deny=False)
    assert "state" in err


def test_hook_usage(cli_env: dict[str, str]) -> None:
    assert run_cli(["hook", "--help"], cli_env).returncode == 0
    proc = run_cli(["hook"], cli_env)
    assert proc.returncode == 2
    assert b"usage: agentreflex hook HOST" in proc.stdout


def test_hook_unknown_host(cli_env: dict[str, str]) -> None:
    proc = run_cli(["hook", "cursor"], cli_env, json.dumps(claude()).encode())
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert proc.stderr.decode().count("\n") == 1
    assert b"Traceback" not in proc.stderr


def test_hook_imports_no_heavy_modules(cli_env: dict[str, str], project: Path) -> None:
    data = json.dumps(claude(cwd=str(project), tool_input={"command": "git status"})).encode()
    env = {**cli_env, "AGENTREFLEX_DAEMON": "off"}
    proc = run_cli(["hook", "claude-code"], env, data, cwd=project, extra=["-X", "importtime"])
    assert proc.returncode == 0
    imported = set()
    for line in proc.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                imported.add(name)
    assert "agentreflex.core.hook.runtime" in imported  # the log is real
    heavy = sorted(n for n in imported if n.split(".")[0] in HEAVY)
    assert heavy == [], f"the hook path imported {heavy}"


# -------------------------------------------------------------- replay


def _session_file(tmp_path: Path, project: Path) -> Path:
    lines = [
        json.dumps(claude("SessionStart", cwd=str(project), source="startup")),
        json.dumps(claude("UserPromptSubmit", cwd=str(project), prompt="list the files")),
        "",
        json.dumps(claude(cwd=str(project))),
        json.dumps(
            claude(
                "PostToolUse",
                cwd=str(project),
                tool_response={"stdout": "a\nb", "stderr": "", "interrupted": False},
            )
        ),
        "{this line is broken",
        json.dumps(
            claude(
                "Stop", cwd=str(project), stop_hook_active=False, last_assistant_message="Listed."
            )
        ),
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_replay_prints_one_json_line_per_event(
    tmp_path: Path, cli_env: dict[str, str], project: Path
) -> None:
    path = _session_file(tmp_path, project)
    state = tmp_path / "replay-state"
    proc = run_cli(
        [
            "replay",
            str(path),
            "--host",
            "claude-code",
            "--mode",
            "enforced",
            "--state-dir",
            str(state),
        ],
        cli_env,
        cwd=project,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    rows = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert [r["line"] for r in rows] == [1, 2, 4, 5, 6, 7]
    assert [r.get("event") for r in rows] == [
        "session_start",
        "user_prompt",
        "pre_tool",
        "post_tool",
        None,
        "stop",
    ]
    for row in rows:
        assert row["exit_code"] == 0
        if row["line"] == 6:
            assert row["decision"] is None and "not valid JSON" in row["error"]
        else:
            assert row["decision"] in ("ALLOW", "WARN", "ASK_USER", "BLOCK")
            assert row["mode"] == "enforced"
            assert isinstance(row["findings"], list)
    assert rows[2]["tool"] == "Bash: ls -la"
    log = state / "sessions" / "cli-sess.jsonl"
    assert len(log.read_text().splitlines()) == 5


def test_replay_in_process_core_alone(
    tmp_path: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _session_file(tmp_path, project)
    state = tmp_path / "st"
    code = dispatch(["replay", str(path), "--mode", "shadow", "--state-dir", str(state)])
    assert code == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 6
    for row in rows:
        if row["decision"] is not None:
            assert (row["decision"], row["proposed"], row["mode"]) == ("ALLOW", "ALLOW", "shadow")
            assert row["stdout"] == ""


def test_replay_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert dispatch(["replay", str(tmp_path / "nope.jsonl")]) == 66
    assert "cannot read" in capsys.readouterr().err


# ------------------------------------------------------- redact / status


def test_redact_command(cli_env: dict[str, str]) -> None:
    token = "ghp_" + "Qw3Er5Ty7Ui9" * 3
    data = f"export GITHUB_TOKEN={token}\nmkdir -p build\n\xff".encode("utf-8", "surrogateescape")
    data = data.replace(b"\xc3\xbf", b"\xff")  # an invalid UTF-8 byte at the end
    proc = run_cli(["redact"], cli_env, data)
    assert proc.returncode == 0
    out = proc.stdout.decode()
    assert token not in out
    assert out.startswith("export GITHUB_TOKEN=[REDACTED]\nmkdir -p build\n")


def test_status_json_after_a_few_events(
    project: Path, hook_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    env = {k: v for k, v in hook_env.items() if k != "AGENTREFLEX_STATE_DIR"}
    env["REFLEX_MODE"] = "enforced"
    for event in ("SessionStart", "UserPromptSubmit", "PreToolUse", "Stop"):
        data = json.dumps(claude(event, cwd=str(project), prompt="x")).encode()
        assert run_hook("claude-code", data, env).reply.exit_code == 0
    assert dispatch(["status", "--json", "--cwd", str(project)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["project"] == str(project)
    assert report["state_dir"] == str(project / ".agentreflex")
    assert report["mode"] == "shadow"  # status reads the environment, not the hook's
    assert report["profile"] == "balanced"
    [session] = report["sessions"]
    assert (session["session"], session["host"]) == ("cli-sess", "claude-code")
    assert (session["events"], session["tool_calls"], session["blocked"]) == (4, 1, 0)
    assert report["latency_ms"]["samples"] == 4
    assert report["latency_ms"]["p50"] is not None
    assert report["latency_ms"]["p95"] >= report["latency_ms"]["p50"]
    assert isinstance(report["packages"], dict)
    assert dispatch(["status", "--cwd", str(project)]) == 0
    text = capsys.readouterr().out
    assert "cli-sess" in text and "4 events" in text


def test_status_with_a_corrupt_snapshot(
    project: Path, hook_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = project / ".agentreflex" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "bad.state.json").write_text("{nope")
    assert dispatch(["status", "--json", "--cwd", str(project)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["sessions"][0]["error"] == "unreadable snapshot"
    assert report["latency_ms"] == {"p50": None, "p95": None, "samples": 0}


# ------------------------------------------------------- doctor / check


def test_doctor_json_shape(cli_env: dict[str, str], project: Path) -> None:
    proc = run_cli(["doctor", "--json", "--cwd", str(project)], cli_env, cwd=project)
    report = json.loads(proc.stdout)
    assert set(report) == {"ok", "checks"}
    assert isinstance(report["ok"], bool)
    assert proc.returncode == (0 if report["ok"] else 1)
    names = [c["check"] for c in report["checks"]]
    for expected in (
        "interpreter",
        "reflexes",
        "judge",
        "config",
        "state dir",
        "daemon",
        "commands",
    ):
        assert expected in names
    for check in report["checks"]:
        assert set(check) == {"check", "ok", "detail"}
        assert isinstance(check["ok"], bool) and isinstance(check["detail"], str)
    assert report["ok"] == all(c["ok"] for c in report["checks"])
    assert b"Traceback" not in proc.stderr


def test_doctor_reports_a_bad_config(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runtime, "load_plugins", lambda refresh=False: runtime.Plugins())
    (project / ".agentreflex").mkdir()
    (project / ".agentreflex" / "config.toml").write_text('mode = "enforcd"\n')
    assert dispatch(["doctor", "--json", "--cwd", str(project)]) == 1
    report = json.loads(capsys.readouterr().out)
    config = next(c for c in report["checks"] if c["check"] == "config")
    assert not config["ok"] and "enforcd" in config["detail"]
    reflexes = next(c for c in report["checks"] if c["check"] == "reflexes")
    assert "none installed" in reflexes["detail"]


def test_check_json_core_alone(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runtime.set_plugins(runtime.Plugins())
    code = dispatch(["check", "--json", "--cwd", str(project), "--", "ls"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decision"] == "ALLOW"
    assert out["reflexes"] == []
    for key in ("decision", "reflex", "reason", "signals"):
        assert key in out
    assert (out["reflex"], out["reason"], out["signals"]) == (None, "", {})


def test_check_text_core_alone(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert dispatch(["check", "--cwd", str(project), "--", "rm", "-rf", "~/"]) == 0
    assert "no reflex package is installed" in capsys.readouterr().out


def test_check_without_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert dispatch(["check", "--"]) == 64
    assert "give a command" in capsys.readouterr().err


def test_check_json_subprocess(cli_env: dict[str, str], project: Path) -> None:
    proc = run_cli(["check", "--json", "--cwd", str(project), "--", "ls"], cli_env, cwd=project)
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert out["decision"] == "ALLOW"
    assert isinstance(out["reflexes"], list)


def test_no_arguments_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert dispatch([]) == 0
    assert "usage: agentreflex" in capsys.readouterr().out


def test_help_names_every_host_install_wires(capsys: pytest.CaptureFixture[str]) -> None:
    from agentreflex.core.install.command import installers

    with pytest.raises(SystemExit):
        dispatch(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"wire a host's hooks ({', '.join(installers())})" in text
    assert len(installers()) >= 5
