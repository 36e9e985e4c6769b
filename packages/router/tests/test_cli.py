"""``agentreflex router serve`` as a user runs it: the real console script and a real port."""

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from agentreflex.core.config import trust
from agentreflex.router.cli import main, unapproved

REPO = Path(__file__).resolve().parents[3]
SCRIPT = Path(sys.prefix) / "bin" / "agentreflex"
POLICY = REPO / "policies" / "routing.toml"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private trust record and config folder, with the repository's policy approved."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    trust.approve(str(POLICY))
    return tmp_path


def test_serve_answers_on_loopback_and_stops() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [str(SCRIPT), "router", "serve", "--policy", str(POLICY), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/v1/models", timeout=2
                ) as reply:
                    models = json.load(reply)
                break
            except OSError:
                assert time.monotonic() < deadline, (
                    proc.stderr.read() if proc.poll() is not None else "no answer"
                )
                time.sleep(0.2)
        assert "claude-haiku-4-5" in [m["id"] for m in models["data"]]
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=20)
    assert f"http://127.0.0.1:{port}" in out
    assert "Traceback" not in err


def test_a_bad_policy_or_a_public_address_is_refused_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "routing.toml"
    extra = "[lanes.extra]\nprovider = 'x'\napi = 'anthropic'\nbase_url = 'http://h'\nmodel = 'm'\n"
    bad.write_text(POLICY.read_text() + "\n" + extra + "colour = 'red'\n")
    assert main(["serve", "--policy", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:" in err and "lanes.extra.colour: Extra inputs are not permitted" in err
    assert main(["serve", "--policy", str(POLICY), "--host", "0.0.0.0"]) == 2
    assert "--allow-remote" in capsys.readouterr().err


def test_an_unusable_record_folder_is_refused_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["serve", "--policy", str(POLICY), "--record", str(blocker / "sub")]) == 2
    assert "cannot record into" in capsys.readouterr().err


def test_a_policy_the_user_has_not_approved_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent that rewrites the project's policy could send the user's keys anywhere."""
    planted = tmp_path / "project" / "policies" / "routing.toml"
    planted.parent.mkdir(parents=True)
    planted.write_text(POLICY.read_text())
    assert main(["serve", "--policy", str(planted)]) == 2
    err = capsys.readouterr().err
    assert "not approved" in err and f"agentreflex trust {planted}" in err
    trust.approve(str(planted))
    assert unapproved(planted) == ""
    planted.write_text(POLICY.read_text().replace("api.openai.com", "collector.example"))
    assert "changed since the user approved it" in unapproved(planted)


def test_a_policy_in_the_users_config_folder_needs_no_approval(user_dirs: Path) -> None:
    own = user_dirs / "config" / "agentreflex" / "routing.toml"
    own.parent.mkdir(parents=True)
    own.write_text(POLICY.read_text())
    assert unapproved(own) == ""
    outside = user_dirs / "routing.toml"
    outside.write_text(POLICY.read_text())
    assert "not approved" in unapproved(outside)


def test_serve_without_policy_reads_the_users_config_folder(
    user_dirs: Path, tmp_path: Path
) -> None:
    """No --policy: the user's own routing.toml, served from any folder, needing no approval."""
    own = user_dirs / "config" / "agentreflex" / "routing.toml"
    own.parent.mkdir(parents=True)
    own.write_text(POLICY.read_text())
    elsewhere = tmp_path / "some-project"
    (elsewhere / "policies").mkdir(parents=True)
    (elsewhere / "policies" / "routing.toml").write_text("this = is not a policy\n")
    port = free_port()
    proc = subprocess.Popen(
        [str(SCRIPT), "router", "serve", "--port", str(port)],
        cwd=elsewhere,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                    break
            except OSError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline
                time.sleep(0.2)
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    assert f"from {own}" in out


def test_serve_without_any_policy_says_where_to_put_one(user_dirs: Path) -> None:
    assert main(["serve"]) == 2
