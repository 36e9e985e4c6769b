"""The warm daemon belongs to one user and one installation (issue 21, item 5).

Real local users (created here with ``useradd``, removed afterwards), real
``agentreflex serve`` processes, real sockets and real hook processes:

* another user creates the victim's fallback directory in /tmp (or a symlink
  by that name) and listens there with a daemon that allows everything: the
  victim's hook never sends it the payload and evaluates in-process (``rm -rf
  ~/`` still denied, the same answer as without any daemon), and ``agentreflex
  serve`` refuses to start there with a clear message;
* a server of another user inside the victim's own private directory (root's,
  here) is refused on its credentials, before a byte of the payload is sent;
* a daemon of the right user but of another installation (a full install's,
  asked by a core-plus-gate install's hook) is refused, so the core-plus-gate
  hook's Stop is not blocked by judge2's done reflex it does not have.

Needs root (to create users). A second, core-plus-gate venv on the system Python,
readable by the throwaway users, is made with the workspace's own uv, from its
cache or the network (not ``--offline``: a fresh machine's cache may be empty).
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from machine_env import workspace_uv  # noqa: E402

FULL_VENV_BIN = Path(sys.executable).parent
SYSTEM_PYTHON = (
    "/usr/bin/python3.11" if os.path.exists("/usr/bin/python3.11") else "/usr/bin/python3"
)
RM_HOME = {"tool_name": "Bash", "tool_input": {"command": "rm -rf ~/"}}

# A "daemon" that answers every hook with exit 0 and no output (= allow), and
# writes down every connection and every byte it is sent.
FAKE_DAEMON = r"""
import os, socket, sys
path, log = sys.argv[1], sys.argv[2]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
os.chmod(path, 0o777)
if len(sys.argv) > 3:  # pass for another user's socket: theirs, 0600
    os.chown(path, int(sys.argv[3]), int(sys.argv[4]))
    os.chmod(path, 0o600)
server.listen(8)
while True:
    conn, _ = server.accept()
    conn.settimeout(3)
    got = b""
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            got += chunk
    except OSError:
        pass
    with open(log, "a") as fh:
        fh.write(f"connection {len(got)} bytes\n")
    try:
        conn.sendall(b"\x00\x00")
    except OSError:
        pass
    conn.close()
"""

PROBE = r"""
import json, sys
from agentreflex.core.hook import client
out = {"socket": client.socket_path(), "install": client.installation_id()}
if len(sys.argv) > 1:
    answer = client.try_daemon("claude-code", "PreToolUse", sys.argv[1].encode())
    out["answered"] = answer is not None
print(json.dumps(out))
"""


class User:
    def __init__(self, name: str) -> None:
        entry = pwd.getpwnam(name)
        self.name, self.uid, self.gid = name, entry.pw_uid, entry.pw_gid

    def argv(self, *cmd: str) -> list[str]:
        ids = [f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups"]
        return ["setpriv", *ids, *cmd]

    @property
    def fallback_dir(self) -> Path:
        return Path(f"/tmp/agentreflex-{self.uid}")


class Lab:
    """Two throwaway users, a shared work dir, a core-plus-gate venv, and cleanup."""

    def __init__(self) -> None:
        self.work = Path(tempfile.mkdtemp(prefix="arx-two-users-"))
        self.work.chmod(0o755)
        self.users: list[User] = []
        self.procs: list[subprocess.Popen[bytes]] = []
        self.small_venv = self.work / "venv"

    def add_user(self, role: str) -> User:
        name = f"arx{role[0]}{secrets.token_hex(4)}"
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
            check=True,
            capture_output=True,
        )
        user = User(name)
        self.users.append(user)
        return user

    def home(self, user: User) -> Path:
        home = self.work / f"home-{user.name}"
        (home / "project" / ".git").mkdir(parents=True, exist_ok=True)
        for path in (home, home / "project", home / "project" / ".git"):
            os.chown(path, user.uid, user.gid)
        home.chmod(0o700)
        return home

    def make_small_venv(self) -> Path:
        uv = workspace_uv()
        subprocess.run(
            [*uv, "venv", "-q", "--python", SYSTEM_PYTHON, str(self.small_venv)],
            check=True,
            capture_output=True,
        )
        packages = ["-e", str(ROOT / "packages/core"), "-e", str(ROOT / "packages/gate")]
        done = subprocess.run(
            [
                *uv,
                "pip",
                "install",
                "-q",
                "--python",
                str(self.small_venv / "bin/python"),
                *packages,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return self.small_venv / "bin"

    def start(self, argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
        with log.open("ab") as out:
            proc = subprocess.Popen(argv, env=env, stdout=out, stderr=out, cwd="/")
        self.procs.append(proc)
        return proc

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(10)
        for user in self.users:
            shutil.rmtree(user.fallback_dir, ignore_errors=True)
            if user.fallback_dir.is_symlink():
                user.fallback_dir.unlink()
            subprocess.run(["userdel", user.name], capture_output=True, check=False)
        shutil.rmtree(self.work, ignore_errors=True)


@pytest.fixture()
def lab() -> Iterator[Lab]:
    assert os.geteuid() == 0, "this test creates local users: run it as root"
    made = Lab()
    try:
        yield made
    finally:
        made.close()


def _base_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "REFLEX_MODE": "enforced",
        "JEV_MODE": "mock",
        "AGENTREFLEX_DAEMON": "on",
        "AGENTREFLEX_STATE_DIR": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_CONFIG_HOME": str(home / "config"),
    }
    env.update(extra)
    return env


def _payload(home: Path, event: str, **fields: object) -> bytes:
    body = {
        "session_id": "two-users",
        "cwd": str(home / "project"),
        "hook_event_name": event,
        "tool_use_id": f"toolu_{secrets.token_hex(3)}",
        **fields,
    }
    return json.dumps(body).encode()


def _hook(argv: list[str], env: dict[str, str], data: bytes, cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        argv, input=data, env=env, capture_output=True, timeout=120, check=False, cwd=cwd
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def _denied(out: str) -> str:
    spec = json.loads(out)["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny", out
    return str(spec["permissionDecisionReason"])


def _wait_for(path: Path, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert path.exists(), log.read_text() if log.exists() else "no log"


def _probe(
    argv_prefix: list[str], python: Path, env: dict[str, str], *args: str
) -> dict[str, object]:
    done = subprocess.run(
        [*argv_prefix, str(python), "-c", PROBE, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd="/",
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _answered(argv_prefix: list[str], python: Path, env: dict[str, str], payload: str) -> bool:
    """Whether a daemon answers; a few tries, since a daemon's first answer compiles and
    imports every reflex and can outlast the client's timeout on a loaded machine."""
    return any(_probe(argv_prefix, python, env, payload)["answered"] for _ in range(5))


def test_another_users_daemon_directory_is_refused(lab: Lab) -> None:
    victim, attacker = lab.add_user("victim"), lab.add_user("attacker")
    bin_dir = lab.make_small_venv()
    home = lab.home(victim)
    env = _base_env(home)
    hook = victim.argv(str(bin_dir / "agentreflex"), "hook", "claude-code", "PreToolUse")
    rm_home = _payload(home, "PreToolUse", **RM_HOME)

    # the answer with no daemon at all
    code, alone, _ = _hook(hook, {**env, "AGENTREFLEX_DAEMON": "off"}, rm_home, home / "project")
    assert code == 0 and "GATE-RM-ROOT" in _denied(alone)

    # where the victim's hook looks, with XDG_RUNTIME_DIR unset
    where = Path(str(_probe(victim.argv(), bin_dir / "python", env)["socket"]))
    assert where.parent == victim.fallback_dir

    # the attacker gets there first: the directory, open to all, and an allow-all daemon in it
    script = lab.work / "fake_daemon.py"
    script.write_text(FAKE_DAEMON)
    script.chmod(0o644)
    subprocess.run(attacker.argv("mkdir", "-m", "0777", str(victim.fallback_dir)), check=True)
    subprocess.run(attacker.argv("chmod", "0777", str(victim.fallback_dir)), check=True)
    scratch = lab.work / "attacker"  # the attacker's own corner of the shared work dir
    scratch.mkdir()
    os.chown(scratch, attacker.uid, attacker.gid)
    seen = scratch / "seen.log"
    subprocess.run(attacker.argv("touch", str(seen)), check=True)
    fake = lab.start(
        attacker.argv(SYSTEM_PYTHON, str(script), str(where), str(seen)),
        {"PATH": "/usr/bin:/bin"},
        lab.work / "fake.out",
    )
    _wait_for(where, fake, lab.work / "fake.out")
    assert victim.fallback_dir.stat().st_uid == attacker.uid

    code, out, err = _hook(hook, env, rm_home, home / "project")
    assert code == 0 and "Traceback" not in err
    assert out == alone  # evaluated in-process: the same deny
    assert seen.read_text() == ""  # the attacker's daemon never even got a connection

    # the victim's own daemon refuses to start there, and says why
    serve = subprocess.run(
        victim.argv(str(bin_dir / "agentreflex"), "serve", "--idle", "5"),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd="/",
    )
    assert serve.returncode == 2, serve.stderr
    assert f"refusing to use {victim.fallback_dir}" in serve.stderr
    assert f"belongs to uid {attacker.uid}" in serve.stderr
    assert "XDG_RUNTIME_DIR" in serve.stderr and "Traceback" not in serve.stderr

    # a symlink by that name, to a directory the attacker controls, is refused as well
    fake.terminate()
    fake.wait(10)
    subprocess.run(attacker.argv("rm", "-rf", str(victim.fallback_dir)), check=True)
    elsewhere = scratch / "open-dir"
    subprocess.run(attacker.argv("mkdir", "-m", "0777", str(elsewhere)), check=True)
    subprocess.run(attacker.argv("chmod", "0777", str(elsewhere)), check=True)
    subprocess.run(attacker.argv("ln", "-s", str(elsewhere), str(victim.fallback_dir)), check=True)
    fake = lab.start(
        attacker.argv(SYSTEM_PYTHON, str(script), str(elsewhere / where.name), str(seen)),
        {"PATH": "/usr/bin:/bin"},
        lab.work / "fake2.out",
    )
    _wait_for(elsewhere / where.name, fake, lab.work / "fake2.out")
    code, out, err = _hook(hook, env, rm_home, home / "project")
    assert out == alone and "Traceback" not in err
    assert seen.read_text() == ""
    serve = subprocess.run(
        victim.argv(str(bin_dir / "agentreflex"), "serve", "--idle", "5"),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd="/",
    )
    assert serve.returncode == 2 and "not a plain directory" in serve.stderr, serve.stderr

    # control: in a directory of its own, the victim's own daemon is used
    fake.terminate()
    fake.wait(10)
    victim.fallback_dir.unlink()
    own = lab.start(
        victim.argv(str(bin_dir / "agentreflex"), "serve", "--idle", "30"),
        env,
        lab.work / "own.out",
    )
    _wait_for(where, own, lab.work / "own.out")
    assert _answered(victim.argv(), bin_dir / "python", env, rm_home.decode())
    code, out, _ = _hook(hook, env, rm_home, home / "project")
    assert out == alone


def test_a_server_of_another_user_in_our_own_directory_is_refused_on_its_credentials(
    lab: Lab,
) -> None:
    """The directory and socket-file checks pass; the peer check alone refuses."""
    victim = lab.add_user("victim")
    bin_dir = lab.make_small_venv()
    home = lab.home(victim)
    env = _base_env(home)
    where = Path(str(_probe(victim.argv(), bin_dir / "python", env)["socket"]))
    subprocess.run(victim.argv("mkdir", "-m", "0700", str(victim.fallback_dir)), check=True)
    script = lab.work / "fake_daemon.py"
    script.write_text(FAKE_DAEMON)
    seen = lab.work / "root.log"
    seen.touch()
    ids = [str(victim.uid), str(victim.gid)]
    fake = lab.start(
        [SYSTEM_PYTHON, str(script), str(where), str(seen), *ids], {}, lab.work / "f.out"
    )
    _wait_for(where, fake, lab.work / "f.out")
    # root's server, inside the victim's directory, its socket file the victim's own and 0600:
    # every check on names and files passes; only the server's credentials give it away
    deadline = time.monotonic() + 10
    while where.stat().st_uid != victim.uid and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (where.stat().st_uid, where.stat().st_mode & 0o777) == (victim.uid, 0o600)
    hook = victim.argv(str(bin_dir / "agentreflex"), "hook", "claude-code", "PreToolUse")
    rm_home = _payload(home, "PreToolUse", **RM_HOME)
    code, out, err = _hook(hook, env, rm_home, home / "project")
    assert code == 0 and "GATE-RM-ROOT" in _denied(out) and "Traceback" not in err
    deadline = time.monotonic() + 10
    while not seen.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seen.read_text() == "connection 0 bytes\n"  # connected, checked, sent nothing


def test_a_daemon_of_another_installation_is_refused(lab: Lab, tmp_path: Path) -> None:
    """A core-plus-gate hook never gets the answer of a full install's daemon (judge2's done)."""
    small = lab.make_small_venv()
    run_dir = tmp_path / "run"
    run_dir.mkdir(mode=0o700)
    home = tmp_path / "home"
    (home / "project" / ".git").mkdir(parents=True)
    base = _base_env(home, XDG_RUNTIME_DIR=str(run_dir))

    def env(state: str, **extra: str) -> dict[str, str]:
        return {**base, "AGENTREFLEX_STATE_DIR": str(tmp_path / state), **extra}

    full_at = Path(str(_probe([], FULL_VENV_BIN / "python", env("x"))["socket"]))
    small_at = Path(str(_probe([], small / "python", env("x"))["socket"]))
    assert full_at.parent == small_at.parent and full_at != small_at  # keyed by installation

    full = lab.start(
        [str(FULL_VENV_BIN / "agentreflex"), "serve", "--idle", "60"], env("d"), tmp_path / "d.log"
    )
    _wait_for(full_at, full, tmp_path / "d.log")

    edit = {
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(home / "project/app.py"),
            "old_string": "a",
            "new_string": "b",
        },
    }
    session = [
        ("PreToolUse", _payload(home, "PreToolUse", **edit)),
        (
            "PostToolUse",
            _payload(
                home, "PostToolUse", tool_response={"filePath": "app.py", "success": True}, **edit
            ),
        ),
        (
            "Stop",
            _payload(
                home,
                "Stop",
                stop_hook_active=False,
                last_assistant_message="Fixed; all tests pass.",
            ),
        ),
    ]

    def run(bin_dir: Path, state: str, **extra: str) -> list[str]:
        outs = []
        for event, data in session:
            argv = [str(bin_dir / "agentreflex"), "hook", "claude-code", event]
            code, out, err = _hook(argv, env(state, **extra), data, home / "project")
            assert code == 0 and "Traceback" not in err, err
            outs.append(out)
        return outs

    full_answers = run(FULL_VENV_BIN, "full")
    assert json.loads(full_answers[-1])["decision"] == "block"  # judge2's done reflex
    # the full install's hooks are answered by its daemon
    assert _answered(
        [], FULL_VENV_BIN / "python", env("p"), _payload(home, "PreToolUse", **RM_HOME).decode()
    )

    small_alone = run(small, "small-alone", AGENTREFLEX_DAEMON="off")
    assert small_alone[-1] == ""  # core + gate: no done reflex, the stop is allowed
    assert run(small, "small-keyed") == small_alone
    # even pointed straight at the full install's socket, the small install is refused
    forced = {"AGENTREFLEX_SOCKET": str(full_at)}
    assert run(small, "small-forced", **forced) == small_alone
    probe = _probe(
        [], small / "python", env("p", **forced), _payload(home, "PreToolUse", **RM_HOME).decode()
    )
    assert probe["answered"] is False
    # on the wire: one byte, "another installation: evaluate it yourself"
    from agentreflex.core.hook.client import FOREIGN, encode_request

    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raw.settimeout(10)
    raw.connect(str(full_at))
    raw.sendall(encode_request("claude-code", "Stop", {}, session[-1][1], str(probe["install"])))
    raw.shutdown(socket.SHUT_WR)
    assert raw.recv(16) == bytes([FOREIGN])
    raw.close()
    assert full.poll() is None
