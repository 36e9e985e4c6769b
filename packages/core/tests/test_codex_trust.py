"""``agentreflex install codex`` records Codex's own hook trust; ``doctor`` reports it.

The golden hashes below were reported by the real Codex 0.169.0 (``codex
app-server``, ``hooks/list``, ``currentHash``) for these handlers; the
integration test ``integration-tests/test_codex_host.py`` checks every hash of
a real install against Codex again and that the hooks then run.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.cli.commands import dispatch
from agentreflex.core.install import codex_trust

SCRIPT = Path(sys.prefix) / "bin" / "agentreflex"
ECHO = {"type": "command", "command": "echo hi", "timeout": 30}


@pytest.fixture()
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return home


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    (path / ".git").mkdir(parents=True)
    return path


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = dispatch(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def state_table(config: Path) -> dict[str, Any]:
    return codex_trust.states(config.read_text())


def codex_check(project: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    dispatch(["doctor", "--json", "--cwd", str(project)])
    report = json.loads(capsys.readouterr().out)
    checks: dict[str, Any] = {c["check"]: c for c in report["checks"]}
    return dict(checks["host codex"])


def test_hash_matches_what_codex_0_169_reports() -> None:
    assert codex_trust.handler_hash("PreToolUse", "*", ECHO) == (
        "sha256:6e4e918f0015bc3f3fac7864fd00f035ac12d2ba415b6dcdc80415135dbf4c44"
    )
    assert codex_trust.handler_hash("Stop", None, ECHO) == (
        "sha256:90fbfd513a94547d730a1340e0f075543d8dee965aef652211b6882e121d64f7"
    )
    # Stop ignores its matcher, a missing timeout is Codex's 600 s default
    assert codex_trust.handler_hash("Stop", "x", ECHO) == codex_trust.handler_hash(
        "Stop", None, ECHO
    )
    assert codex_trust.handler_hash("PreToolUse", "*", {**ECHO, "timeout": None}) == (
        codex_trust.handler_hash("PreToolUse", "*", {**ECHO, "timeout": 600})
    )


def test_only_our_handlers_get_keys_with_their_positions() -> None:
    ours = {"type": "command", "command": f"{SCRIPT} hook codex PreToolUse", "timeout": 30}
    settings = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [ECHO]},
                {"matcher": "*", "hooks": [ECHO, ours]},
            ],
            "Notification": [{"hooks": [ours]}],  # not a Codex event: nothing to trust
        }
    }
    entries = codex_trust.our_entries("/h/hooks.json", settings, "codex")
    assert list(entries) == ["/h/hooks.json:pre_tool_use:1:1"]
    assert entries["/h/hooks.json:pre_tool_use:1:1"] == codex_trust.handler_hash(
        "PreToolUse", "*", ours
    )


def test_install_trusts_our_hooks_keeps_the_users_config_and_uninstall_removes_it(
    codex_home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = codex_home / "config.toml"
    codex_home.mkdir()
    config.write_text('# my codex\nmodel = "o4"\n')
    code, out, _ = run(["install", "codex", "--project-dir", str(project)], capsys)
    assert code == 0
    assert "hooks trusted in" in out and "NEXT STEP" not in out
    hooks_path = codex_home / "hooks.json"
    entries = codex_trust.our_entries(str(hooks_path), json.loads(hooks_path.read_text()), "codex")
    assert len(entries) == 7
    table = state_table(config)
    assert {k: v["trusted_hash"] for k, v in table.items()} == entries
    assert config.read_text().startswith('# my codex\nmodel = "o4"\n')
    assert tomllib.loads(config.read_text())["model"] == "o4"
    check = codex_check(project, capsys)
    assert check["ok"] is True, check
    assert "Codex will run all 7" in check["detail"]
    # a second install changes nothing
    assert "config.toml: already up to date" in run(["install", "codex"], capsys)[1]
    assert run(["uninstall", "codex"], capsys)[0] == 0
    assert config.read_text() == '# my codex\nmodel = "o4"\n'


def test_install_into_a_fresh_home_creates_the_config_and_uninstall_deletes_it(
    codex_home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["install", "codex", "--project-dir", str(project)], capsys)[0] == 0
    assert len(state_table(codex_home / "config.toml")) == 7
    assert run(["uninstall", "codex", "--project-dir", str(project)], capsys)[0] == 0
    assert not (codex_home / "config.toml").exists()


def test_project_hooks_are_trusted_in_the_users_config(
    codex_home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--project", "--project-dir", str(project)]
    assert run(["install", "codex", *args], capsys)[0] == 0
    table = state_table(codex_home / "config.toml")
    hooks_path = project / ".codex" / "hooks.json"
    assert all(k.startswith(f"{hooks_path}:") for k in table) and len(table) == 7
    assert not (project / ".codex" / "config.toml").exists()  # a project cannot trust itself
    assert run(["uninstall", "codex", *args], capsys)[0] == 0
    assert not (codex_home / "config.toml").exists()


def test_doctor_reports_untrusted_modified_and_disabled_hooks(
    codex_home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["install", "codex", "--project-dir", str(project)], capsys)[0] == 0
    config = codex_home / "config.toml"
    keys = sorted(state_table(config))
    text = codex_trust.strip_block(config.read_text(), str(codex_home / "hooks.json"))
    # the user disabled one in /hooks, another was trusted at an older definition
    stop = next(k for k in keys if ":stop:" in k)
    pre = next(k for k in keys if ":pre_tool_use:" in k)
    text += f'[hooks.state."{stop}"]\nenabled = false\n'
    text += f'[hooks.state."{pre}"]\ntrusted_hash = "sha256:old"\n'
    config.write_text(text)
    check = codex_check(project, capsys)
    assert check["ok"] is False
    detail = check["detail"]
    assert "DISABLED: stop" in detail and "MODIFIED: pre_tool_use" in detail
    assert "UNTRUSTED: post_tool_use" in detail and "/hooks" in detail
    # install leaves the user's own entries alone and says to use /hooks for them
    code, out, _ = run(["install", "codex", "--project-dir", str(project)], capsys)
    assert code == 0 and "NEXT STEP" in out and "/hooks" in out
    table = state_table(config)
    assert table[stop] == {"enabled": False} and table[pre] == {"trusted_hash": "sha256:old"}
    assert codex_trust.status(pre, "sha256:new", table) == "modified"
    assert len(table) == 7


def test_invalid_config_toml_is_not_touched_and_the_user_is_told_to_use_hooks(
    codex_home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    codex_home.mkdir()
    config = codex_home / "config.toml"
    config.write_text("model = \n")
    code, out, _ = run(["install", "codex", "--project-dir", str(project)], capsys)
    assert code == 0
    assert "is not valid TOML" in out and "/hooks" in out
    assert config.read_text() == "model = \n"
    assert codex_check(project, capsys)["ok"] is False


def test_doctor_says_project_hooks_need_a_trusted_project(
    codex_home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["install", "codex", "--project", "--project-dir", str(project)], capsys)[0] == 0
    check = codex_check(project, capsys)
    assert check["ok"] is False and "is not a trusted project" in check["detail"], check
    config = codex_home / "config.toml"
    config.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n' + config.read_text())
    assert codex_check(project, capsys)["ok"] is True
    config.write_text(config.read_text().replace('"trusted"', '"untrusted"', 1))
    assert codex_check(project, capsys)["ok"] is False


def test_user_sandbox_profile_and_trust_share_one_config_and_both_come_back_out(
    codex_home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--project-dir", str(project)]
    assert run(["install", "codex", "--sandbox", *args], capsys)[0] == 0
    config = codex_home / "config.toml"
    data = tomllib.loads(config.read_text())
    assert data["default_permissions"] == "agentreflex" and len(data["hooks"]["state"]) == 7
    assert codex_check(project, capsys)["ok"] is True
    assert run(["uninstall", "codex", *args], capsys)[0] == 0
    assert not config.exists()  # install created it; nothing of the user's was in it
