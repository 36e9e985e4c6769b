"""The trust record and the config it gates: a project file weakens nothing the user did not approve.

The tests that need a sibling reflex package run where it is installed:
``tests/core_with_reflexes/test_trust.py``.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.cli.commands import dispatch
from agentreflex.core.config import trust
from agentreflex.core.config.settings import (
    JudgeSettings,
    is_loopback_url,
    load_config,
)
from agentreflex.core.decision import Mode
from agentreflex.core.state.userdirs import trust_record_path, user_state_dir
from agentreflex.core.testing import check_withheld_until_approved
from agentreflex.core.testing import project_config as _write
from agentreflex.core.testing import user_config as _user
from agentreflex.core.testing import user_dirs_env as _env


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    return _env(tmp_path / "home")


# --- the record ------------------------------------------------------------


def test_approve_keys_by_real_path_and_hash_with_private_files(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    conf = _write(project, 'profile = "off"\n')
    alias = tmp_path / "alias"
    alias.symlink_to(project)
    approval = trust.approve(str(alias / ".agentreflex" / "config.toml"), env)
    assert approval.path == os.path.realpath(conf)
    record = json.loads(Path(trust_record_path(env)).read_text())
    entry = record["approvals"][os.path.realpath(conf)]
    import hashlib

    assert entry["sha256"] == hashlib.sha256(conf.read_bytes()).hexdigest()
    state = Path(user_state_dir(env))
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_IMODE(Path(trust_record_path(env)).stat().st_mode) == 0o600
    copy = Path(trust.approved_copy_path(entry["sha256"], env))
    assert copy.read_bytes() == conf.read_bytes()
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert not str(state).startswith(str(project))  # outside the project


def test_lookup_exact_bytes_and_the_previous_content(project: Path, env: dict[str, str]) -> None:
    conf = _write(project, 'profile = "lean"\n')
    trust.approve(str(conf), env)
    assert trust.lookup(str(conf), conf.read_bytes(), env).approved
    found = trust.lookup(str(conf), b'profile = "lean" \n', env)  # one byte more
    assert not found.approved
    assert found.previous == b'profile = "lean"\n'


def test_a_tampered_copy_is_not_believed(project: Path, env: dict[str, str]) -> None:
    conf = _write(project, "[loop]\nhard_repeat_count = 5\n")
    sha = trust.approve(str(conf), env).sha256
    Path(trust.approved_copy_path(sha, env)).write_text("[loop]\nhard_repeat_count = 50\n")
    conf.write_text("[loop]\nhard_repeat_count = 40\n")
    found = trust.lookup(str(conf), conf.read_bytes(), env)
    assert found.previous is None and "does not match its recorded hash" in found.problem
    cfg = load_config(str(project), env)
    assert cfg.hard_loop_repeat_count == 3  # the defaults, not the forged copy's 50
    assert any("does not match" in line for line in cfg.untrusted)


@pytest.mark.parametrize(
    "garbage", [b"{not json", b"[]", b'{"approvals": 3}', b"\xff\xfe", b"null"]
)
def test_a_corrupt_record_approves_nothing_and_never_crashes(
    project: Path, env: dict[str, str], garbage: bytes
) -> None:
    conf = _write(project, 'profile = "off"\n')
    trust.approve(str(conf), env)
    Path(trust_record_path(env)).write_bytes(garbage)
    approvals, problem = trust.read_record(env)
    assert approvals == {} and "corrupt" in problem
    cfg = load_config(str(project), env)
    assert cfg.profile == "balanced" and cfg.reflexes_enabled
    assert any("corrupt" in line for line in cfg.untrusted)
    # approving again works, and the damaged record is kept aside for the user
    trust.approve(str(conf), env)
    assert load_config(str(project), env).profile == "off"
    assert list(Path(trust_record_path(env)).parent.glob("trust.json.corrupt-*"))


def test_an_unreadable_record_approves_nothing(project: Path, env: dict[str, str]) -> None:
    conf = _write(project, 'profile = "off"\n')
    trust.approve(str(conf), env)
    record = Path(trust_record_path(env))
    record.unlink()
    record.mkdir()  # reading it fails with an OSError, as an unreadable file would
    approvals, problem = trust.read_record(env)
    assert approvals == {} and "unreadable" in problem
    assert load_config(str(project), env).profile == "balanced"


def test_writing_never_loses_other_entries(tmp_path: Path, env: dict[str, str]) -> None:
    record = Path(trust_record_path(env))
    record.parent.mkdir(parents=True)
    odd = {"sha256": "not-a-hash", "from": "a newer version"}
    record.write_text(json.dumps({"version": 1, "approvals": {"/elsewhere/x.toml": odd}}))
    files = []
    for i in range(6):
        proj = tmp_path / f"p{i}"
        files.append(_write(proj, f"[loop]\nhard_repeat_count = {4 + i}\n"))
    # approved concurrently from separate processes, as parallel shells would
    code = (
        "import sys; from agentreflex.core.config import trust;"
        f"env = {env!r}; trust.approve(sys.argv[1], env)"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(f)]) for f in files]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    table = json.loads(record.read_text())["approvals"]
    assert table["/elsewhere/x.toml"] == odd  # kept as it was
    assert {os.path.realpath(f) for f in files} <= set(table)
    trust.revoke(str(files[0]), env)
    table = json.loads(record.read_text())["approvals"]
    assert os.path.realpath(files[0]) not in table and len(table) == 6


def test_a_file_changed_after_it_was_shown_is_not_approved(
    project: Path, env: dict[str, str]
) -> None:
    conf = _write(project, 'profile = "lean"\n')
    shown = trust.current_sha(str(conf))
    conf.write_text('profile = "off"\n')  # an agent racing the user
    with pytest.raises(trust.ContentChanged):
        trust.approve(str(conf), env, expected_sha256=shown)
    assert trust.list_approvals(env) == ([], "")


def test_revoke_removes_the_entry_and_an_unshared_copy(tmp_path: Path, env: dict[str, str]) -> None:
    a = _write(tmp_path / "a", 'profile = "lean"\n')
    b = _write(tmp_path / "b", 'profile = "lean"\n')
    sha = trust.approve(str(a), env).sha256
    trust.approve(str(b), env)
    copy = Path(trust.approved_copy_path(sha, env))
    assert trust.revoke(str(a), env) == sha
    assert copy.exists()  # still b's approved content
    assert trust.revoke(str(b), env) == sha
    assert not copy.exists()
    assert trust.revoke(str(b), env) is None
    assert load_config(str(tmp_path / "b"), env).profile == "balanced"


# --- the config it gates -----------------------------------------------------


def test_a_stricter_approved_content_cannot_be_dropped(project: Path, env: dict[str, str]) -> None:
    """The approved content tightened (mode enforced): rewriting the file without it weakens."""
    conf = _write(project, 'mode = "enforced"\n[hook]\nfloor_budget_ms = 100\n')
    trust.approve(str(conf), env)
    conf.write_text("# nothing to see here\n")
    cfg = load_config(str(project), env)
    assert cfg.enforced and cfg.floor_budget_ms == 100
    assert cfg.untrusted == [
        f"{conf}: mode = 'shadow' withheld; 'enforced' applies",
        f"{conf}: floor_budget_ms = 200 withheld; 100 applies",
    ]


def test_tightening_applies_without_approval_and_never_writes_the_record(
    project: Path, env: dict[str, str]
) -> None:
    _write(
        project,
        'mode = "enforced"\nprofile = "thorough"\n[thresholds]\ndestructive_block = 0.5\n'
        "goal_alignment_warn = 0.3\n[loop]\nhard_repeat_count = 2\n",
    )
    cfg = load_config(str(project), env)
    assert cfg.mode is Mode.ENFORCED and cfg.profile == "thorough"
    assert cfg.threshold("destructive_block") == 0.5
    assert cfg.threshold("goal_alignment_warn") == 0.3
    assert cfg.hard_loop_repeat_count == 2
    assert cfg.untrusted == [] and cfg.pending_config == ""
    assert not os.path.exists(user_state_dir(env))


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        ('mode = "shadow"\n', "mode", "enforced"),
        ('profile = "off"\n', "reflexes_enabled", True),
        ('profile = "lean"\n', "judge.mode", "auto"),
        ('disabled_reflexes = ["gate"]\n', "disabled_reflexes", ()),
        ("[thresholds]\ndestructive_block = 0.99\n", "thresholds.destructive_block", 0.75),
        ("[thresholds]\ngoal_alignment_warn = 0.0\n", "thresholds.goal_alignment_warn", 0.2),
        ("[loop]\nhard_repeat_count = 50\n", "hard_loop_repeat_count", 3),
        ('[judge]\nmode = "off"\n', "judge.mode", "auto"),
        ('[judge]\nbase_url = "https://evil.example"\n', "judge.base_url", None),
        ('state_dir = "/tmp/elsewhere"\n', "state_dir", None),
    ],
)
def test_each_weakening_is_withheld_until_approved(
    project: Path, env: dict[str, str], text: str, field: str, expected: Any
) -> None:
    check_withheld_until_approved(project, env, text, field, expected)


def test_the_last_approved_content_is_the_baseline(project: Path, env: dict[str, str]) -> None:
    conf = _write(project, "[loop]\nhard_repeat_count = 6\n")
    trust.approve(str(conf), env)
    assert load_config(str(project), env).hard_loop_repeat_count == 6
    conf.write_text("[loop]\nhard_repeat_count = 9\n")  # one byte: weaker than approved
    cfg = load_config(str(project), env)
    assert cfg.hard_loop_repeat_count == 6
    assert cfg.untrusted == [f"{conf}: hard_loop_repeat_count = 9 withheld; 6 applies"]
    conf.write_text("[loop]\nhard_repeat_count = 4\n")  # stricter than approved: applies
    cfg = load_config(str(project), env)
    assert cfg.hard_loop_repeat_count == 4 and cfg.untrusted == []


def test_user_config_and_environment_outrank_an_unapproved_project(
    project: Path, env: dict[str, str]
) -> None:
    _user(env, 'mode = "enforced"\n[thresholds]\ndestructive_block = 0.6\n')
    _write(project, 'mode = "shadow"\n[thresholds]\ndestructive_block = 0.7\n')
    cfg = load_config(str(project), env)
    assert cfg.mode is Mode.ENFORCED and cfg.threshold("destructive_block") == 0.6
    cfg = load_config(str(project), {**env, "REFLEX_MODE": "enforced"})
    assert cfg.mode is Mode.ENFORCED


def test_disabled_reflexes_keep_only_what_both_switch_off(
    project: Path, env: dict[str, str]
) -> None:
    conf = _write(project, 'disabled_reflexes = ["guard"]\n')
    trust.approve(str(conf), env)
    conf.write_text('disabled_reflexes = ["guard", "gate"]\n')
    cfg = load_config(str(project), env)
    assert cfg.disabled_reflexes == ("guard",)
    assert cfg.untrusted == [
        f"{conf}: disabled_reflexes [gate] not switched off (needs your approval)"
    ]


# --- the judge's key ---------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8080", True),
        ("http://127.1.2.3/v1", True),
        ("http://localhost:9", True),
        ("http://LOCALHOST.", True),
        ("http://[::1]:8080/v1/systemone", True),
        ("http://user:pw@127.0.0.1:1", True),
        ("https://api.typesafe.ai", False),
        ("http://127.0.0.1.evil.example", False),
        ("http://localhost.evil.example:80", False),
        ("http://128.0.0.1", False),
        ("http://evil.example/?x=127.0.0.1", False),
        ("http://127.0.0.1@evil.example", False),
        ("not a url", False),
    ],
)
def test_loopback(url: str, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback


def test_the_key_goes_only_where_the_user_sent_it() -> None:
    sent = JudgeSettings(api_key="k", base_url="https://evil.example", base_url_trusted=False)
    assert sent.request_key == "" and not sent.has_key and sent.offline
    ours = JudgeSettings(api_key="k", base_url="https://api.typesafe.ai")
    assert ours.request_key == "k" and not ours.offline
    local = JudgeSettings(base_url="http://127.0.0.1:9")
    assert local.request_key == "" and local.local and not local.offline  # needs no key


def test_project_base_url_gets_the_key_only_once_approved(
    project: Path, env: dict[str, str]
) -> None:
    keyed = {**env, "JEV_API_KEY": "sekrit"}
    conf = _write(project, '[judge]\nbase_url = "https://evil.example"\n')
    cfg = load_config(str(project), keyed)
    assert cfg.judge.base_url == "https://api.typesafe.ai" and cfg.judge.request_key == "sekrit"
    trust.approve(str(conf), env)
    cfg = load_config(str(project), keyed)
    assert cfg.judge.base_url == "https://evil.example"
    assert cfg.judge.base_url_source == str(conf) and cfg.judge.request_key == "sekrit"


def test_a_project_repeating_the_users_url_does_not_lose_the_key(
    project: Path, env: dict[str, str]
) -> None:
    _user(env, '[judge]\nbase_url = "http://127.0.0.1:9"\n')
    _write(project, '[judge]\nbase_url = "http://127.0.0.1:9"\nmode = "off"\n')
    cfg = load_config(str(project), {**env, "JEV_API_KEY": "k"})
    assert cfg.judge.mode == "auto" and cfg.judge.request_key == "k"


# --- the command, doctor, status and the panel ---------------------------------


def test_trust_command_shows_approves_lists_and_revokes(
    project: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    conf = _write(project, 'profile = "off"\n')
    assert dispatch(["trust", "--show"]) == 0
    assert "never approved" in capsys.readouterr().out
    assert dispatch(["trust"]) == 0
    out = capsys.readouterr().out
    assert "weakens protection" in out and "profile = 'off' withheld" in out
    assert load_config(str(project), env).profile == "off"
    assert dispatch(["trust"]) == 0
    assert "already approved" in capsys.readouterr().out
    assert dispatch(["trust", "--show"]) == 0
    assert "current content approved" in capsys.readouterr().out
    conf.write_text('profile = "off" \n')
    assert dispatch(["trust", "--show"]) == 0
    assert "changed since" in capsys.readouterr().out
    assert dispatch(["trust", "--revoke"]) == 0
    assert "revoked" in capsys.readouterr().out
    assert load_config(str(project), env).profile == "balanced"
    assert dispatch(["trust", str(project / "missing.toml")]) == 1
    conf.write_text('mode = "enforcd"\n')
    assert dispatch(["trust"]) == 1  # a bad file is not approved
    assert "fix the file first" in capsys.readouterr().err


def test_doctor_and_status_say_what_is_withheld(
    project: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    conf = _write(project, 'profile = "off"\n')
    assert dispatch(["doctor", "--cwd", str(project), "--json"]) == 0
    checks = {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert (
        str(conf) in checks["trust"]["detail"] and "agentreflex trust" in checks["trust"]["detail"]
    )
    assert dispatch(["status", "--cwd", str(project)]) == 0
    out = capsys.readouterr().out
    assert "waits for your approval" in out and "profile = 'off' withheld" in out
    trust.approve(str(conf), env)
    assert dispatch(["status", "--cwd", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["trust"]["withheld"] == []


def test_the_panel_is_logged_once_per_session_and_content(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    from agentreflex.core.hook.runtime import run_hook

    state = tmp_path / "state"
    hook_env = {**env, "AGENTREFLEX_STATE_DIR": str(state), "PWD": str(project)}
    conf = _write(project, 'profile = "off"\n')

    def hook(session: str) -> str:
        data = {
            "session_id": session,
            "hook_event_name": "PreToolUse",
            "cwd": str(project),
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
        }
        return run_hook("claude-code", json.dumps(data).encode(), hook_env).reply.stderr

    assert "not approved" in hook("s1")
    assert "not approved" not in hook("s1")
    assert "not approved" in hook("s2")
    conf.write_text('profile = "lean"\n')
    assert "not approved" in hook("s1")  # new content, new notice
    log = (state / "reflex.log").read_text()
    assert log.count("PROJECT CONFIG NOT APPROVED") == 3
    assert "profile = 'lean' withheld" in log


# --- the hot path -------------------------------------------------------------

_NOT_ON_THE_HOT_PATH = ("json", "typing", "dataclasses", "pathlib", "hashlib", "tomllib")


@pytest.mark.parametrize("approved", [False, True])
def test_a_hook_with_a_weakening_config_stays_light(
    project: Path, env: dict[str, str], tmp_path: Path, approved: bool
) -> None:
    """Reading the trust record costs no heavy import, approved or not (second call: cached TOML)."""
    conf = _write(project, 'profile = "lean"\n[loop]\nhard_repeat_count = 7\n')
    if approved:
        trust.approve(str(conf), env)
    else:  # a previous approval, so the approved copy is parsed too
        conf.write_text("[loop]\nhard_repeat_count = 5\n")
        trust.approve(str(conf), env)
        conf.write_text('profile = "lean"\n[loop]\nhard_repeat_count = 7\n')
    probe = (
        "import sys; from agentreflex.core.config.settings import load_config;"
        f"c = load_config({str(project)!r}, {env!r});"
        "print(c.hard_loop_repeat_count,"
        f" [m for m in {_NOT_ON_THE_HOT_PATH!r} if m in sys.modules], sep='|');"
        "print(*c.untrusted, sep='\\n')"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
        ).stdout.splitlines()
        for _ in range(2)
    ]
    assert runs[1][0] == ("7|[]" if approved else "5|[]")
    withheld = " ".join(runs[1][1:])
    if approved:
        assert withheld == ""
    else:  # lean weakens core's profile, judge, allow_undoable and loop count (and the
        # sections of the reflex packages installed: tests/core_with_reflexes)
        for key in ("profile", "judge.mode", "worktree_allow_undoable", "hard_loop_repeat_count"):
            assert f": {key} = " in withheld, withheld


# --- a broken project file is no way to fail open --------------------------------


class _StopBlocker:
    """A Stop reflex that blocks (as the done reflex does on an unverified claim)."""

    name = "stopper"
    floor = False

    def __init__(self) -> None:
        from agentreflex.core.events import EventKind

        self.events = frozenset({EventKind.STOP})

    def evaluate(self, ctx: Any) -> list[Any]:
        from agentreflex.core.decision import Finding, Verdict

        return [Finding(reflex=self.name, code="TEST-STOP", verdict=Verdict.BLOCK, message="no")]


@pytest.mark.parametrize("garbage", ['mode = "enforcd"\n', "mode = 1\n", "not toml [[[\n"])
def test_a_broken_project_file_does_not_let_a_stop_through(
    project: Path, env: dict[str, str], tmp_path: Path, garbage: str
) -> None:
    from agentreflex.core.hook.runtime import Plugins, run_hook

    _user(env, 'mode = "enforced"\n')
    conf = _write(project, garbage)
    hook_env = {**env, "AGENTREFLEX_STATE_DIR": str(tmp_path / "state")}
    data = {
        "session_id": "s-bad",
        "hook_event_name": "Stop",
        "cwd": str(project),
        "stop_hook_active": False,
        "last_assistant_message": "Done. All tests pass.",
    }
    outcome = run_hook(
        "claude-code",
        json.dumps(data).encode(),
        hook_env,
        plugins=Plugins(reflexes=[_StopBlocker()]),
    )
    assert json.loads(outcome.reply.stdout)["decision"] == "block"
    assert "not approved" in outcome.reply.stderr
    cfg = load_config(str(project), env, bad_project_file="ignore")
    assert cfg.enforced and cfg.pending_config == str(conf)
    assert "ignored until it is fixed" in cfg.untrusted[0]
    with pytest.raises(Exception, match=str(conf)):
        load_config(str(project), env)  # commands still show the error
