"""The warm daemon decides exactly as the one-shot hook process does.

A real daemon process is started on a private socket; one scripted session is
sent through real ``agentreflex hook`` processes twice, once answered by the
daemon and once evaluated in-process (AGENTREFLEX_DAEMON=off), each with its
own state dir.  Every answer must be identical.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SESSION = [
    {"hook_event_name": "SessionStart", "source": "startup"},
    {"hook_event_name": "UserPromptSubmit", "prompt": "Fix the login bug. Do not modify tests."},
    {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls -la"}},
    {
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": "{cwd}/tests/test_login.py",
            "old_string": "a",
            "new_string": "b",
        },
    },
    {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf ~/"}},
    {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "npm run build"},
    },
    {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "npm run build"},
        "tool_response": {"stdout": "", "stderr": "Error: bcrypt not found", "exit_code": 1},
    },
    {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "npm run build"},
    },
    {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "npm run build"},
        "tool_response": {"stdout": "", "stderr": "Error: bcrypt not found", "exit_code": 1},
    },
    {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "npm run build"},
    },
    {"hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "Done."},
    {"hook_event_name": "Stop", "stop_hook_active": True, "last_assistant_message": "Done."},
]


def _payloads(cwd: str) -> list[bytes]:
    out = []
    for i, item in enumerate(SESSION):
        payload = json.loads(json.dumps(item).replace("{cwd}", cwd))
        payload.update({"session_id": "daemon-parity", "cwd": cwd, "tool_use_id": f"toolu_{i}"})
        out.append(json.dumps(payload).encode())
    return out


def _binary() -> str:
    return str(Path(sys.executable).with_name("agentreflex"))


def _env(tmp: Path, state: str, daemon: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENTREFLEX_"))}
    env.update(
        {
            "HOME": str(tmp / "home"),
            "XDG_CACHE_HOME": str(tmp / "cache"),
            "XDG_CONFIG_HOME": str(tmp / "config"),
            "REFLEX_MODE": "enforced",
            "JEV_MODE": "mock",
            "AGENTREFLEX_STATE_DIR": str(tmp / state),
            "AGENTREFLEX_SOCKET": str(tmp / "run" / "daemon.sock"),
            "AGENTREFLEX_DAEMON": "on" if daemon else "off",
        }
    )
    return env


@pytest.fixture()
def daemon(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    (tmp_path / "home").mkdir(exist_ok=True)
    env = _env(tmp_path, "unused", True)
    log = tmp_path / "daemon.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [_binary(), "serve", "--idle", "60"], env=env, stdout=out, stderr=out
        )
    sock = tmp_path / "run" / "daemon.sock"
    deadline = time.monotonic() + 30
    while not sock.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert sock.exists(), log.read_text()
    yield proc
    proc.terminate()
    proc.wait(10)


def _run(payload: bytes, env: dict[str, str]) -> tuple[int, str, str]:
    done = subprocess.run(
        [_binary(), "hook", "claude-code"],
        input=payload,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def test_daemon_and_in_process_give_identical_answers(
    tmp_path: Path, daemon: subprocess.Popen[bytes]
) -> None:
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    payloads = _payloads(str(project))
    warm = [_run(p, _env(tmp_path, "state-daemon", True)) for p in payloads]
    cold = [_run(p, _env(tmp_path, "state-cold", False)) for p in payloads]
    assert [w[:2] for w in warm] == [c[:2] for c in cold]
    assert "Traceback" not in "".join(w[2] + c[2] for w, c in zip(warm, cold, strict=True))
    # the daemon really answered: its state dir was written by the daemon process
    assert (tmp_path / "state-daemon" / "sessions").is_dir()
    sock = tmp_path / "run" / "daemon.sock"
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700


def test_a_socket_readable_by_others_is_never_trusted(tmp_path: Path) -> None:
    """The thin client refuses a socket with group/other permissions and evaluates itself."""
    run = tmp_path / "run"
    run.mkdir()
    fake = run / "daemon.sock"
    fake.write_bytes(b"")
    fake.chmod(0o666)
    env = _env(tmp_path, "state", True)
    (tmp_path / "home").mkdir(exist_ok=True)
    project = tmp_path / "p"
    project.mkdir()
    code, _out, err = _run(_payloads(str(project))[2], env)
    assert code == 0
    assert "Traceback" not in err
    assert (tmp_path / "state" / "sessions").is_dir()  # evaluated in-process


def test_only_one_daemon_serves_a_socket(tmp_path: Path, daemon: subprocess.Popen[bytes]) -> None:
    env = _env(tmp_path, "unused", True)
    second = subprocess.run(
        [_binary(), "serve", "--idle", "5"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert second.returncode == 1
    assert "already running" in second.stderr
    assert daemon.poll() is None


def test_a_daemon_whose_code_changed_steps_aside(
    tmp_path: Path, daemon: subprocess.Popen[bytes]
) -> None:
    """After an upgrade or an edit, the old daemon never answers with old code."""
    import agentreflex.core.decision as loaded

    module = Path(loaded.__file__ or "")
    before = module.stat()
    try:
        os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        project = tmp_path / "project"
        project.mkdir()
        code, _out, err = _run(_payloads(str(project))[2], _env(tmp_path, "state", True))
        assert code == 0 and "Traceback" not in err
        assert (tmp_path / "state" / "sessions").is_dir()  # answered in-process
        daemon.wait(10)  # and the stale daemon exited by itself
    finally:
        os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_the_daemon_keeps_state_where_the_client_keeps_it(
    tmp_path: Path, daemon: subprocess.Popen[bytes]
) -> None:
    # the trust record, the key and the anchors live in the client's XDG_STATE_HOME:
    # a daemon reading its own would authenticate with another key
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    env = dict(_env(tmp_path, "state-daemon", True), XDG_STATE_HOME=str(tmp_path / "xstate"))
    code, _, err = _run(_payloads(str(project))[0], env)
    assert code == 0, err
    assert (tmp_path / "state-daemon" / "sessions").is_dir()  # the daemon answered

    def session_anchors(state_home: Path) -> list[str]:
        folder = state_home / "agentreflex" / "anchors"  # file-* are seals the warm-up wrote
        return [p.name for p in folder.glob("*") if not p.name.startswith("file-")]

    assert (tmp_path / "xstate" / "agentreflex" / "key").is_file()
    assert session_anchors(tmp_path / "xstate")
    assert not session_anchors(tmp_path / "home" / ".local" / "state")


def test_the_daemons_work_tree_cache_records_what_the_hook_process_records(
    tmp_path: Path, daemon: subprocess.Popen[bytes]
) -> None:
    """Real commands in two identical repositories: one observed through the daemon
    (which keeps each repository's status between calls, worktree/watch.py), one by
    hook processes; the changes each session recorded must be the same, and undo works."""
    from agentreflex.core.state.store import SessionStore
    from agentreflex.core.worktree import undocmd

    commands = [
        "echo 'y = 2' >> src/a.py",
        "sed -i 's/1/3/' src/a.py",
        "echo new > src/new.py && mkdir -p docs/deep && echo d > docs/deep/d.md",
        "git add -A",
        "echo more >> src/new.py",
        "rm -rf src",
    ]
    git_env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid"}
    git_env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t.invalid")
    recorded = []
    for label, on in (("warm", True), ("cold", False)):
        root = tmp_path / label / "proj"
        (root / "src").mkdir(parents=True)
        (root / "src" / "a.py").write_text("x = 1\n")
        subprocess.run(
            "git init -q && git add -A && git commit -qm i",
            shell=True,
            cwd=root,
            env=git_env,
            check=True,
        )
        env = _env(tmp_path, f"state-{label}", on)
        for i, command in enumerate(commands):
            body = {
                # a session each: a session's calls from outside its project (the other
                # repository) are not observed there (red-team rt31)
                "session_id": f"wt-{label}",
                "cwd": str(root),
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "tool_use_id": f"t{i}",
            }
            pre = {**body, "hook_event_name": "PreToolUse"}
            assert _run(json.dumps(pre).encode(), env)[0] in (0, 2)
            subprocess.run(command, shell=True, cwd=root, env=git_env, check=True)
            post = {
                **body,
                "hook_event_name": "PostToolUse",
                "tool_response": {"stdout": "", "stderr": "", "exit_code": 0},
            }
            assert _run(json.dumps(post).encode(), env)[0] == 0
        state, _ = SessionStore(str(tmp_path / f"state-{label}"), f"wt-{label}").load()
        recorded.append(state.notes.get("worktree_changes"))
        if on and sys.platform.startswith("linux"):  # the daemon watched the work tree
            fds = Path(f"/proc/{daemon.pid}/fd")
            links = [os.readlink(fd) for fd in fds.iterdir() if fd.is_symlink()]
            assert "anon_inode:inotify" in links
        assert undocmd.main([str(len(commands)), "--cwd", str(root)]) == 0
        assert (root / "src" / "new.py").read_text() == "new\nmore\n"
    assert recorded[0] == recorded[1] and len(recorded[0]) == len(commands)
