"""Forged session state through real hook processes: the done reflex is never fooled.

Each case runs a session the way Claude Code would (real ``agentreflex hook
claude-code EVENT`` processes, JSON on stdin, a temp git project, temp HOME
and XDG dirs, enforced mode): the agent edits a file, then tampers with its
own session log or snapshot the way its tools can (``echo >>``, rewriting a
file, copying or replaying a genuine line, deleting, truncating, chmod 000),
then stops.  The stop must be blocked, and the tampering must be reported.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

AGENTREFLEX = str(Path(sys.executable).with_name("agentreflex"))
SESSION = "sess-forge"


class Project:
    """A git project and the hook processes of one or more Claude Code sessions in it."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        root.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "AGENTREFLEX_DAEMON": "off",
            "REFLEX_MODE": "enforced",
            # Claude Code reports the session's project to every hook: only that moves a
            # session to another project (hook/sessionproject.py)
            "CLAUDE_PROJECT_DIR": str(root),
        }
        self.calls = 0

    def hook(self, event: str, session: str = SESSION, **fields: Any) -> dict[str, Any]:
        payload = {
            "session_id": session,
            "transcript_path": str(self.root / "no-transcript.jsonl"),
            "cwd": str(self.root),
            "hook_event_name": event,
            **fields,
        }
        done = subprocess.run(
            [AGENTREFLEX, "hook", "claude-code", event],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.root,
            timeout=60,
            check=False,
        )
        assert "Traceback" not in done.stderr, done.stderr
        out = json.loads(done.stdout) if done.stdout.strip() else {}
        return {"json": out, "stderr": done.stderr, "code": done.returncode}

    def tool(
        self, name: str, tool_input: dict[str, Any], response: Any, session: str = SESSION
    ) -> None:
        self.calls += 1
        tid = f"toolu_{self.calls:03d}"
        common = {"tool_name": name, "tool_input": tool_input, "tool_use_id": tid}
        pre = self.hook("PreToolUse", session, **common)
        assert "deny" not in json.dumps(pre["json"]), pre
        self.hook("PostToolUse", session, tool_response=response, **common)

    def edit(self, session: str = SESSION) -> None:
        self.hook("UserPromptSubmit", session, prompt="add a feature function to src/feature.py")
        path = str(self.root / "src" / "feature.py")
        self.tool(
            "Write",
            {"file_path": path, "content": "def feature():\n    return 42\n"},
            {"filePath": path, "type": "create"},
            session,
        )

    def run_tests(self, session: str = SESSION) -> None:
        response = {"stdout": "....\n4 passed in 0.02s\n", "stderr": "", "interrupted": False}
        self.tool("Bash", {"command": "pytest -q"}, response, session)

    def stop(self, session: str = SESSION) -> dict[str, Any]:
        return self.hook(
            "Stop",
            session,
            stop_hook_active=False,
            last_message="Done: added feature() and the tests pass.",
        )

    def log(self, session: str = SESSION) -> Path:
        return self.root / ".agentreflex" / "sessions" / f"{session}.jsonl"

    def snapshot(self, session: str = SESSION) -> Path:
        return self.root / ".agentreflex" / "sessions" / f"{session}.state.json"

    def reflex_log(self) -> str:
        path = self.root / ".agentreflex" / "reflex.log"
        return path.read_text() if path.exists() else ""

    def status(self) -> str:
        done = subprocess.run(
            [AGENTREFLEX, "status", "--cwd", str(self.root)],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=60,
            check=False,
        )
        return done.stdout + done.stderr


def blocked(reply: dict[str, Any]) -> bool:
    return reply["json"].get("decision") == "block" or reply["code"] == 2


def reason(reply: dict[str, Any]) -> str:
    return str(reply["json"].get("reason", "")) + reply["stderr"]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "proj", tmp_path / "home")


def passing_line(n: int) -> str:
    """A record as a forger writes it: the right shape for `pytest` passing, any MAC it likes."""
    rec = {
        "ts": 1e9,
        "kind": "post_tool",
        "host": "claude-code",
        "tool": {
            "name": "Bash",
            "kind": "shell",
            "id": "toolu_999",
            "summary": "Bash: pytest -q",
            "fp": "0",
            "paths": [],
            "verification": True,
            "mutation": False,
        },
        "result": {
            "outcome": "success",
            "exit": 0,
            "sig": "",
            "digest": "0",
            "head": "4 passed",
            "interrupted": False,
        },
        "n": n,
    }
    return json.dumps(rec, separators=(",", ":"))


def shell(cmd: str, cwd: Path) -> None:
    subprocess.run(["sh", "-c", cmd], cwd=cwd, check=True)


def assert_reported(project: Project, code: str) -> None:
    assert code in project.reflex_log(), project.reflex_log()
    assert code in project.status()


# --------------------------------------------------------------- baseline


def test_genuine_passing_tests_let_the_stop_through(project: Project) -> None:
    project.edit()
    (project.root / "tests").mkdir()
    (project.root / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
    real = subprocess.run(  # a real pytest run, its real output recorded by PostToolUse
        command.split(),
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**project.env, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert real.returncode == 0 and "1 passed" in real.stdout, real.stdout + real.stderr
    response = {"stdout": real.stdout, "stderr": real.stderr, "interrupted": False}
    project.tool("Bash", {"command": command}, response)
    reply = project.stop()
    assert not blocked(reply), reply
    assert "CORE-STATE" not in project.reflex_log() + project.status() + reply["stderr"]


def test_without_tests_the_stop_is_blocked(project: Project) -> None:
    project.edit()
    assert blocked(project.stop())


# --------------------------------------------------------------- forging routes


def test_an_appended_line_without_a_valid_mac(project: Project) -> None:
    project.edit()
    line = passing_line(5)[:-1] + ',"mac":"' + "ab" * 32 + '"}'
    shell(f"echo '{passing_line(5)}' >> {project.log()}", project.root)  # no MAC
    shell(f"echo '{line}' >> {project.log()}", project.root)  # a made-up MAC
    reply = project.stop()
    assert blocked(reply), reply
    assert_reported(project, "CORE-STATE-FORGED")


def test_a_rewritten_snapshot(project: Project) -> None:
    project.edit()
    snap = json.loads(project.snapshot().read_text())
    counters = snap["state"]["counters"]
    counters.update(last_verification_ok=True, last_verification_seq=99)
    action = dict(
        snap["state"]["actions"][-1],
        verification=True,
        mutation=False,
        outcome="success",
        seq=99,
        summary="Bash: pytest -q",
    )
    snap["state"]["verifications"] = [action]
    snap["cursor"] = project.log().stat().st_size
    project.snapshot().write_text(json.dumps(snap))
    reply = project.stop()
    assert blocked(reply), reply
    assert_reported(project, "CORE-STATE-SNAPSHOT")


def _passing_record(project: Project, session: str = SESSION) -> str:
    """The genuine line that recorded `pytest` passing (sequence number 5 in these sessions)."""
    for line in project.log(session).read_text().splitlines():
        rec = json.loads(line)
        if rec["kind"] == "post_tool" and rec["tool"]["verification"]:
            assert rec["n"] == 5
            return line
    raise AssertionError("no passing record")


def _four_records(project: Project) -> None:
    """Our session: an edit (3 records) and a prompt, so the next sequence number is 5."""
    project.edit()
    project.hook("UserPromptSubmit", prompt="and make it fast")
    assert len(project.log().read_text().splitlines()) == 4


def test_a_record_copied_from_another_session(project: Project) -> None:
    project.edit(session="sess-other")
    project.run_tests(session="sess-other")
    _four_records(project)
    with project.log().open("a") as fh:  # the right sequence number, another session's MAC
        fh.write(_passing_record(project, "sess-other") + "\n")
    reply = project.stop()
    assert blocked(reply), reply
    assert_reported(project, "CORE-STATE-FORGED")


def test_a_record_copied_from_another_project(project: Project, tmp_path: Path) -> None:
    other = Project(tmp_path / "other", tmp_path / "home")
    other.edit()
    other.run_tests()  # the same session id, the same user key, another project
    _four_records(project)
    with project.log().open("a") as fh:
        fh.write(_passing_record(other) + "\n")
    reply = project.stop()
    assert blocked(reply), reply
    assert_reported(project, "CORE-STATE-FORGED")


def test_a_replayed_line(project: Project) -> None:
    project.hook("UserPromptSubmit", prompt="check then add a feature")
    project.run_tests()  # a genuine pass, before the change
    passing = project.log().read_text().splitlines()[-1]
    project.edit()
    with project.log().open("a") as fh:
        fh.write(passing + "\n")  # replayed after the change
    reply = project.stop()
    assert blocked(reply), reply
    assert_reported(project, "CORE-STATE-REPLAYED")


@pytest.mark.parametrize(
    "route",
    [
        pytest.param("rm -f {log}", id="delete-log"),
        pytest.param("rm -rf .agentreflex", id="delete-state-dir"),
        pytest.param(": > {log}", id="truncate"),
        pytest.param("sed -i '$d' {log} && rm -f {snap}", id="drop-last-line"),
        pytest.param("chmod 000 {log}", id="chmod-000"),
    ],
)
def test_lost_history_fails_the_stop_closed(project: Project, route: str) -> None:
    project.edit()
    project.run_tests()
    project.edit()  # a change after the pass: a stop needs evidence again
    shell(route.format(log=project.log(), snap=project.snapshot()), project.root)
    reply = project.stop()
    assert blocked(reply), reply
    text = reason(reply)
    assert "CORE-STATE-LOST" in project.reflex_log() or "cannot confirm" in text
    assert "agentreflex state acknowledge --session " + SESSION in text
    doctor = subprocess.run(
        [AGENTREFLEX, "doctor", "--cwd", str(project.root)],
        capture_output=True,
        text=True,
        env=project.env,
        timeout=120,
        check=False,
    )
    assert doctor.returncode == 1 and "HISTORY LOST" in doctor.stdout, doctor.stdout
    # still blocked on the next stop, even with the host's stop_hook_active set
    again = project.hook("Stop", stop_hook_active=True, last_message="done")
    assert blocked(again)
    # the agent cannot acknowledge it through its tools (no terminal)
    by_agent = subprocess.run(
        [AGENTREFLEX, "state", "acknowledge", "--session", SESSION, "--cwd", str(project.root)],
        capture_output=True,
        text=True,
        env=project.env,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert by_agent.returncode == 2 and "terminal" in by_agent.stderr
    assert blocked(project.stop())
    # the user acknowledges at a terminal: the stop is judged on what is left again
    assert acknowledge_at_terminal(project) == 0
    project.run_tests()
    assert not blocked(project.stop())


def acknowledge_at_terminal(project: Project) -> int:
    """Run `agentreflex state acknowledge` on a pseudo-terminal and answer "yes"."""
    import pty

    primary, secondary = pty.openpty()
    proc = subprocess.Popen(
        [AGENTREFLEX, "state", "acknowledge", "--session", SESSION, "--cwd", str(project.root)],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=project.env,
    )
    os.close(secondary)
    os.write(primary, b"yes\n")
    output = b""
    with contextlib.suppress(OSError):  # EIO once the child has gone
        while chunk := os.read(primary, 4096):
            output += chunk
    os.close(primary)
    code = proc.wait(timeout=60)
    assert b"acknowledged" in output, output
    return code
