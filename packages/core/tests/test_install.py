"""``agentreflex install`` / ``uninstall`` on real settings files, and the hooks they write
run as real shell commands calling the real ``agentreflex`` script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.cli.commands import dispatch
from agentreflex.core.install import claude_code
from agentreflex.core.install.launcher import launch

SCRIPT = Path(sys.prefix) / "bin" / "agentreflex"
LAUNCH = launch(str(SCRIPT))  # the script through its own Python, isolated
CLAUDE_EVENTS = set(claude_code.EVENTS)

ORIGINAL = {
    "model": "opus",
    "env": {"FOO": "bar"},
    "permissions": {"allow": ["Bash(ls:*)"], "deny": ["Read(./secrets/**)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-guard --strict"}]}
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
}


@pytest.fixture()
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    claude = tmp_path / "claude-config"
    codex = tmp_path / "codex-home"
    state = tmp_path / "home" / ".local" / "state"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return {"claude": claude, "codex": codex, "state": state}


def write_json(path: Path, obj: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(obj, indent=2) + "\n"
    path.write_text(text)
    return text


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = dispatch(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".*.bak"))


def our_commands(settings: dict[str, Any], host: str = "claude-code") -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for event, groups in settings.get("hooks", {}).items():
        for group in groups:
            for handler in group["hooks"]:
                if f" hook {host} " in handler["command"] + " ":
                    found.setdefault(event, []).append(handler["command"])
    return found


# ------------------------------------------------------------ claude-code: merge


def test_install_merges_without_touching_other_keys_or_hooks(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    settings = homes["claude"] / "settings.json"
    original = write_json(settings, ORIGINAL)
    code, out, _ = run(["install", "claude-code"], capsys)
    assert code == 0
    after = json.loads(settings.read_text())
    for key in ("model", "env", "permissions"):
        assert after[key] == ORIGINAL[key]
    assert after["hooks"]["Notification"] == ORIGINAL["hooks"]["Notification"]
    assert after["hooks"]["PreToolUse"][0] == ORIGINAL["hooks"]["PreToolUse"][0]
    ours = our_commands(after)
    assert set(ours) == CLAUDE_EVENTS
    for event, commands in ours.items():
        assert len(commands) == 1
        assert commands[0].startswith(f"{LAUNCH} hook claude-code {event}")
    matchers = {e: g[-1].get("matcher") for e, g in after["hooks"].items() if e in CLAUDE_EVENTS}
    assert matchers["PreToolUse"] == matchers["PostToolUse"] == "*"
    assert matchers["Stop"] is None
    # the old file was kept, byte for byte
    [backup] = backups(settings)
    assert backup.read_text() == original
    assert "wired claude-code hooks" in out and str(backup) in out


def test_second_install_changes_nothing(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    settings = homes["claude"] / "settings.json"
    write_json(settings, ORIGINAL)
    assert run(["install", "claude-code", "--statusline"], capsys)[0] == 0
    first = settings.read_bytes()
    stat = settings.stat()
    code, out, _ = run(["install", "claude-code", "--statusline"], capsys)
    assert code == 0
    assert settings.read_bytes() == first
    assert settings.stat().st_mtime_ns == stat.st_mtime_ns  # not even rewritten
    assert len(backups(settings)) == 1
    assert "already up to date" in out


def test_install_replaces_a_stale_entry_from_another_installation(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    settings = homes["claude"] / "settings.json"
    stale = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": "/old/venv/bin/agentreflex hook claude-code Stop",
                        },
                        {"type": "command", "command": "keep-me"},
                    ]
                }
            ]
        }
    }
    write_json(settings, stale)
    assert run(["install", "claude-code"], capsys)[0] == 0
    after = json.loads(settings.read_text())
    stop = after["hooks"]["Stop"]
    assert stop[0]["hooks"] == [{"type": "command", "command": "keep-me"}]
    assert "/old/venv" not in settings.read_text()
    assert our_commands(after)["Stop"] == [f"{LAUNCH} hook claude-code Stop"]


def test_dry_run_prints_a_diff_and_writes_nothing(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    settings = homes["claude"] / "settings.json"
    original = write_json(settings, ORIGINAL)
    code, out, _ = run(["install", "claude-code", "--dry-run", "--sandbox"], capsys)
    assert code == 0
    assert out.startswith(f"--- {settings}\n+++ {settings}\n@@ ")
    assert f'+            "command": "{LAUNCH} hook claude-code Stop"' in out
    assert '+    "enabled": true' in out
    assert "dry run" in out
    assert settings.read_text() == original
    assert backups(settings) == []
    assert not (homes["state"] / "agentreflex" / "installs.json").exists()


def test_dry_run_of_a_new_file_diffs_against_dev_null(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    code, out, _ = run(
        ["install", "claude-code", "--project", "--project-dir", str(project), "--dry-run"], capsys
    )
    assert code == 0
    assert out.startswith(f"--- /dev/null\n+++ {project}/.claude/settings.json\n")
    assert not (project / ".claude").exists()


# ------------------------------------------------------------ uninstall


def test_uninstall_restores_the_original_settings(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    settings = homes["claude"] / "settings.json"
    original = write_json(settings, ORIGINAL)
    assert run(["install", "claude-code", "--statusline", "--sandbox"], capsys)[0] == 0
    assert json.loads(settings.read_text()) != ORIGINAL
    code, out, _ = run(["uninstall", "claude-code"], capsys)
    assert code == 0
    assert json.loads(settings.read_text()) == ORIGINAL
    assert settings.read_text() == original  # written the way it was (2-space JSON)
    assert "removed agentreflex's claude-code entries" in out
    assert len(backups(settings)) == 2  # one per change
    # and a second uninstall has nothing left to do
    code, out, _ = run(["uninstall", "claude-code"], capsys)
    assert code == 0 and "already up to date" in out


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_uninstall_gives_back_the_users_own_layout(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str], eol: str
) -> None:
    """A settings file the user wrote by hand (one line per hook, tabs, CRLF line ends):
    install must rewrite it, but uninstall, when nothing else changed, puts back the
    very text the user had, not the same settings in another layout."""
    settings = homes["claude"] / "settings.json"
    settings.parent.mkdir(parents=True)
    text = eol.join(
        [
            "{",
            '\t"model": "opus",',
            '\t"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]},',
            '\t"sandbox": {"filesystem": {"denyWrite": ["/etc"]}}',
            "}",
            "",
        ]
    )
    settings.write_bytes(text.encode())
    assert run(["install", "claude-code", "--sandbox", "--statusline"], capsys)[0] == 0
    assert run(["install", "claude-code", "--sandbox"], capsys)[0] == 0
    assert settings.read_bytes() != text.encode()
    assert backups(settings)[0].read_bytes() == text.encode()  # the backup is byte for byte
    assert run(["uninstall", "claude-code"], capsys)[0] == 0
    assert settings.read_bytes() == text.encode()


def test_an_install_cut_short_after_the_write_is_still_undone(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash (Ctrl-C, a kill, power) right after install wrote settings.json: what it
    set there besides hooks (the sandbox block, deny rules) was recorded only after the
    write, so uninstall could not take it back out.  Now the record comes first."""
    from agentreflex.core.install import command

    settings = homes["claude"] / "settings.json"
    write_json(settings, ORIGINAL)
    real = command.apply

    def write_then_die(change: Any) -> Any:
        real(change)
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "apply", write_then_die)
    with pytest.raises(KeyboardInterrupt):
        run(["install", "claude-code", "--sandbox"], capsys)
    assert json.loads(settings.read_text())["sandbox"]["enabled"] is True  # it was written
    monkeypatch.setattr(command, "apply", real)
    assert run(["uninstall", "claude-code"], capsys)[0] == 0
    assert json.loads(settings.read_text()) == ORIGINAL


def test_uninstall_does_not_bring_back_an_old_value_that_only_compares_equal(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The backup is put back only when it holds exactly what is left: a value the user
    changed since from 1 to true (equal in Python, not to the host) stays as changed."""
    settings = homes["claude"] / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"spinnerTipsEnabled": 1}\n')
    assert run(["install", "claude-code"], capsys)[0] == 0
    data = json.loads(settings.read_text())
    data["spinnerTipsEnabled"] = True
    settings.write_text(json.dumps(data))
    assert run(["uninstall", "claude-code"], capsys)[0] == 0
    assert json.loads(settings.read_text()) == {"spinnerTipsEnabled": True}
    assert "true" in settings.read_text()


def test_uninstall_keeps_what_the_user_had_set_before_install(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    settings = homes["claude"] / "settings.json"
    mine = {
        "sandbox": {"enabled": False, "filesystem": {"denyWrite": ["/etc"]}},
        "permissions": {"deny": ["Edit(//etc/**)"]},
    }
    write_json(settings, mine)
    assert run(["install", "claude-code", "--sandbox"], capsys)[0] == 0
    installed = json.loads(settings.read_text())
    assert installed["sandbox"]["enabled"] is True
    assert installed["sandbox"]["filesystem"]["denyWrite"][0] == "/etc"
    assert run(["uninstall", "claude-code"], capsys)[0] == 0
    assert json.loads(settings.read_text()) == mine


def test_uninstall_of_a_file_install_created_removes_it(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    args = ["--project", "--project-dir", str(project)]
    assert run(["install", "claude-code", *args, "--sandbox"], capsys)[0] == 0
    settings = project / ".claude" / "settings.json"
    assert settings.is_file()
    assert run(["uninstall", "claude-code", *args], capsys)[0] == 0
    assert not settings.exists()


def test_uninstall_leaves_a_file_without_our_entries_alone(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    settings = homes["claude"] / "settings.json"
    original = write_json(settings, ORIGINAL)
    code, out, _ = run(["uninstall", "claude-code"], capsys)
    assert code == 0 and "already up to date" in out
    assert settings.read_text() == original and backups(settings) == []


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_a_settings_file_that_is_a_link_stays_one(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    """Dotfiles managed by stow (or chezmoi's symlink mode, home-manager): the host's
    settings file is a link into the user's dotfiles repository.  Install and uninstall
    change the file the link names; before, the atomic rename put a plain file in the
    link's place, the repository never saw the change, and uninstall left it there."""
    name = "settings.json" if host == "claude-code" else "config.toml"
    folder = homes["claude"] if host == "claude-code" else homes["codex"]
    dotfiles = tmp_path / "dotfiles" / host
    dotfiles.mkdir(parents=True)
    target = dotfiles / name
    original = json.dumps(ORIGINAL, indent=2) + "\n" if host == "claude-code" else 'model = "o3"\n'
    target.write_text(original)
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / name
    link.symlink_to(os.path.relpath(target, folder))
    pointed = os.readlink(link)
    assert run(["install", host, "--sandbox"], capsys)[0] == 0
    assert link.is_symlink() and os.readlink(link) == pointed
    assert target.read_text() != original
    assert run(["uninstall", host], capsys)[0] == 0
    assert link.is_symlink() and os.readlink(link) == pointed
    assert target.read_text() == original


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_a_settings_link_to_a_file_not_there_yet_stays_a_link(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    """A dotfiles link whose file the user has not made yet (stow links a package's files,
    and the host makes its settings on first use): install makes the file the link names,
    in its dotfiles folder, and uninstall takes that file away again; before, install put a
    plain file in the link's place, and the link was gone for good."""
    name = "settings.json" if host == "claude-code" else "config.toml"
    folder = homes["claude"] if host == "claude-code" else homes["codex"]
    dotfiles = tmp_path / "dotfiles" / host
    dotfiles.mkdir(parents=True)
    target = dotfiles / name
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / name
    link.symlink_to(os.path.relpath(target, folder))
    pointed = os.readlink(link)
    assert run(["install", host], capsys)[0] == 0
    assert link.is_symlink() and os.readlink(link) == pointed
    assert "agentreflex" in target.read_text()
    assert run(["uninstall", host], capsys)[0] == 0
    assert link.is_symlink() and os.readlink(link) == pointed
    assert not target.exists()  # as it was


def test_a_link_to_a_file_of_another_name_not_there_is_not_followed(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a link to a file of the same name is a dotfiles link: one to a missing
    ``.bashrc`` is replaced, as a link to a present one is, and nothing is made there."""
    folder = homes["claude"]
    folder.mkdir(parents=True, exist_ok=True)
    elsewhere = tmp_path / "dotfiles" / ".bashrc"
    elsewhere.parent.mkdir(parents=True)
    (folder / "settings.json").symlink_to(elsewhere)
    assert run(["install", "claude-code"], capsys)[0] == 0
    assert not elsewhere.exists()
    assert "agentreflex" in (folder / "settings.json").read_text()


# ------------------------------------------------------------ malformed input


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"model": "opus",,}', "not valid JSON (line 1, column 18"),
        ("[1, 2]", "holds a JSON list, not an object"),
        ('{"hooks": []}', '"hooks" is not an object'),
        ('{"hooks": {"Stop": {}}}', '"hooks.Stop" is not a list'),
        ('{"sandbox": true}', '"sandbox" is not an object'),
    ],
)
@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_malformed_settings_are_refused_and_nothing_is_written(
    homes: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    text: str,
    expected: str,
    command: str,
) -> None:
    settings = homes["claude"] / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(text)
    args = [command, "claude-code"] + (["--sandbox"] if command == "install" else [])
    code, _, err = run(args, capsys)
    if command == "uninstall" and "sandbox" in text:
        assert code == 0  # uninstall never touches "sandbox" without a record of adding it
        return
    assert code == 1
    assert expected in err and str(settings) in err
    assert "nothing was written" in err and "Traceback" not in err
    assert settings.read_text() == text
    assert backups(settings) == []


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_a_read_only_settings_file_is_refused_and_nothing_is_written(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """A settings file the user made read-only (chmod a-w: "don't touch") was replaced
    anyway: the atomic rename only needs the folder writable, and the new file got the
    old mode back.  Now install and uninstall refuse it, say why, and write nothing."""
    settings = homes["claude"] / "settings.json"
    write_json(settings, ORIGINAL)
    if command == "uninstall":
        assert run(["install", "claude-code"], capsys)[0] == 0
        for backup in backups(settings):
            backup.unlink()
    text = settings.read_text()
    settings.chmod(0o444)
    code, _, err = run(
        [command, "claude-code", "--sandbox"][: 3 if command == "install" else 2], capsys
    )
    assert code == 1 and "read-only" in err and str(settings) in err
    assert "nothing was written" in err
    assert settings.read_text() == text and backups(settings) == []
    assert settings.stat().st_mode & 0o777 == 0o444


# ------------------------------------------------------------ other hosts


def test_codex_hooks_json(homes: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    config = homes["codex"] / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('# my codex\nmodel = "o4"\n[[hooks.Stop]]\nmatcher = ""\n')
    code, out, _ = run(["install", "codex"], capsys)
    assert code == 0
    hooks = json.loads((homes["codex"] / "hooks.json").read_text())
    ours = our_commands(hooks, "codex")
    assert set(ours) == {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SubagentStop",
        "PreCompact",
    }
    assert ours["PreToolUse"] == [f"{LAUNCH} hook codex PreToolUse"]
    assert "hooks trusted in" in out  # Codex skips untrusted hooks: install records the trust
    assert "also defines [hooks]" in out
    assert config.read_text().startswith('# my codex\nmodel = "o4"\n[[hooks.Stop]]\n')
    assert run(["uninstall", "codex"], capsys)[0] == 0
    assert not (homes["codex"] / "hooks.json").exists()


def test_codex_refuses_claude_only_options(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["install", "codex", "--statusline"], capsys)
    assert code == 1 and "for claude-code, not codex" in err
    assert not homes["codex"].exists()


def test_unknown_host(homes: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["uninstall", "cursor"], capsys)
    assert code == 1 and "unknown host 'cursor'" in err


# ------------------------------------------------------------ sandbox


def test_sandbox_makes_the_guards_files_read_only(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    code, out, _ = run(
        ["install", "claude-code", "--project", "--project-dir", str(project), "--sandbox"], capsys
    )
    assert code == 0
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    sandbox = settings["sandbox"]
    assert sandbox["enabled"] is True and sandbox["allowUnsandboxedCommands"] is False
    deny_write = sandbox["filesystem"]["denyWrite"]
    home = Path(os.environ["HOME"])
    for path in (
        project / ".agentreflex",
        project / ".claude" / "settings.json",
        homes["claude"] / "settings.json",
        home / ".config" / "agentreflex",
        homes["state"] / "agentreflex",
        homes["codex"],
    ):
        assert str(path) in deny_write
    assert f"Edit(/{project}/.agentreflex/**)" in settings["permissions"]["deny"]
    assert f"Edit(/{homes['claude']}/settings.json)" in settings["permissions"]["deny"]
    assert (project / ".agentreflex").is_dir()  # made so there is a folder to bind read-only
    assert oct((project / ".agentreflex").stat().st_mode & 0o777) == "0o700"
    assert "sandbox: Bash commands now run in Claude Code's OS sandbox" in out


def test_sandbox_protects_what_a_linked_settings_file_names(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A host settings file that is a link into a dotfiles checkout: the OS sandbox lists
    paths, and a write to the file the link names (in a dotfiles repository the agent
    works in, say) is not a write to the link's path.  install --sandbox lists the file
    the link leads to as well, for Claude Code's sandbox and Codex's profile alike."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "claude-settings.json").write_text("{}\n")
    homes["claude"].mkdir(parents=True)
    (homes["claude"] / "settings.json").symlink_to(dotfiles / "claude-settings.json")
    project = tmp_path / "proj"
    project.mkdir()
    args = ["--project", "--project-dir", str(project), "--sandbox"]
    assert run(["install", "claude-code", *args], capsys)[0] == 0
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    deny_write = settings["sandbox"]["filesystem"]["denyWrite"]
    assert str(homes["claude"] / "settings.json") in deny_write
    assert str(dotfiles / "claude-settings.json") in deny_write
    assert f"Edit(/{dotfiles}/claude-settings.json)" in settings["permissions"]["deny"]
    assert run(["install", "codex", *args], capsys)[0] == 0
    profile = (project / ".codex" / "config.toml").read_text()
    assert f'{json.dumps(str(dotfiles / "claude-settings.json"))} = "read"' in profile


def test_user_level_sandbox_leaves_per_project_paths_to_project_installs(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    code, out, _ = run(
        ["install", "claude-code", "--project-dir", str(project), "--sandbox"], capsys
    )
    assert code == 0
    deny_write = json.loads((homes["claude"] / "settings.json").read_text())["sandbox"][
        "filesystem"
    ]["denyWrite"]
    assert str(homes["claude"] / "settings.json") in deny_write
    assert not [p for p in deny_write if p.startswith(str(project) + "/")]
    assert "--project --sandbox" in out


def test_sandbox_install_refuses_cache_variables_that_stand_for_home(
    homes: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """red-team rt90: the writable list is worked out from the environment ``install`` runs
    in and written for every later session, so a cache variable set then to ``/``, home,
    above it, the project's parent, a relative path, a link to home or ``//home`` would
    have made all of it writable for good.  None reaches ``allowWrite``; each is named in
    the install's notes, and a variable naming a cache folder of its own still counts."""
    home = Path(os.environ["HOME"])
    project = tmp_path / "work" / "proj"
    project.mkdir(parents=True)
    (tmp_path / "to-home").symlink_to(home)
    hostile = {
        "npm_config_cache": "/",
        "NPM_CONFIG_CACHE": "rel/npm",  # npm reads either case
        "PRE_COMMIT_HOME": "//" + str(home).lstrip("/"),
        "GOCACHE": str(home),
        "PIP_CACHE_DIR": str(home.parent),
        "UV_CACHE_DIR": str(project.parent),
        "XDG_CACHE_HOME": str(tmp_path / "to-home"),
    }
    for name, value in hostile.items():
        monkeypatch.setenv(name, value)
    code, out, _ = run(
        ["install", "claude-code", "--project", "--project-dir", str(project), "--sandbox"], capsys
    )
    assert code == 0
    allow = json.loads((project / ".claude" / "settings.json").read_text())["sandbox"][
        "filesystem"
    ]["allowWrite"]
    for path in allow:
        real = os.path.realpath(path)
        assert not any(
            str(root) == real or str(root).startswith(real.rstrip("/") + "/")
            for root in (home, project)
        ), path
        assert os.path.isabs(path) and not path.startswith("//"), path
    assert str(home / ".npm" / "_npx") in allow  # the tools' own places stay
    for name, value in hostile.items():
        assert f"sandbox: {name}={value} " in out, name
    assert "is home or a folder above it" in out and "is not an absolute path" in out
    assert "is the project or a folder above it" in out


def test_sandbox_install_refuses_cache_variables_at_folders_that_run_later(
    homes: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """red-team rt92: a cache variable set (by a project's ``.envrc``, a dotenv) to a
    sensitive folder inside home (``~/.ssh``, ``~/.local/bin`` on PATH, ``~/.config``,
    ``~/.gnupg``, ``~/bin``, ``~/.claude``) was written into ``allowWrite`` for every later
    session.  None is; each is named with why, and an ordinary cache still counts."""
    home = Path(os.environ["HOME"])
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setenv("PATH", f"{home}/.local/bin:{home}/.npm-global/bin:/usr/bin:/bin")
    hostile = {
        "PRE_COMMIT_HOME": str(home / ".ssh"),
        "NPM_CONFIG_CACHE": str(home / ".local" / "bin"),
        "GOCACHE": str(home / ".config"),
        "PIP_CACHE_DIR": str(home / ".gnupg"),
        "UV_CACHE_DIR": str(home / ".npm-global"),  # above a folder on PATH
        "npm_config_cache": str(home / ".claude" / "hooks"),
    }
    for name, value in hostile.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    code, out, _ = run(
        ["install", "claude-code", "--project", "--project-dir", str(project), "--sandbox"], capsys
    )
    assert code == 0
    allow = json.loads((project / ".claude" / "settings.json").read_text())["sandbox"][
        "filesystem"
    ]["allowWrite"]
    for path in allow:
        for value in hostile.values():
            assert not (path + "/").startswith(value + "/"), (path, value)
            assert not (value + "/").startswith(path + "/"), (path, value)
    assert str(tmp_path / "xdg" / "pre-commit") in allow  # an ordinary cache base still moves
    for name, value in hostile.items():
        assert f"sandbox: {name}={value} " in out, name
    assert "on the PATH" in out and "runs from later" in out


# ------------------------------------------------------------ the written hooks run


def hook_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTREFLEX_")}
    env.update(AGENTREFLEX_DAEMON="off", AGENTREFLEX_SOCKET=str(tmp_path / "no.sock"))
    env.pop("PYTHONWARNINGS", None)
    return env


def test_the_written_pre_tool_command_runs_agentreflex_and_fails_closed(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".agentreflex").mkdir()
    (project / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
    assert (
        run(["install", "claude-code", "--project", "--project-dir", str(project)], capsys)[0] == 0
    )
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    [command] = our_commands(settings)["PreToolUse"]
    payload = {
        "session_id": "install-test",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "t1",
    }
    ran = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=hook_env(tmp_path),
        cwd=project,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert b"Traceback" not in ran.stderr
    assert (project / ".agentreflex" / "sessions" / "install-test.jsonl").is_file()
    # the same command with the script gone: exit 2 (Claude Code blocks) with a reason
    broken = command.replace(str(SCRIPT), str(tmp_path / "gone" / "agentreflex"))
    ran = subprocess.run(
        ["sh", "-c", broken],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=hook_env(tmp_path),
        timeout=60,
        check=False,
    )
    assert ran.returncode == 2
    assert b"failed or is missing; blocking this tool call" in ran.stderr


# ------------------------------------------------------------ doctor, per host


def doctor(project: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = dispatch(["doctor", "--json", "--cwd", str(project)])
    report = json.loads(capsys.readouterr().out)
    return code, {c["check"]: c for c in report["checks"]}


def test_doctor_shows_where_each_host_is_wired_and_the_binary(
    homes: dict[str, Path], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, checks = doctor(project, capsys)
    assert checks["host claude-code"]["ok"] is True
    assert checks["host claude-code"]["detail"].startswith("not wired (run `agentreflex install")
    assert run(["install", "claude-code"], capsys)[0] == 0
    _, checks = doctor(project, capsys)
    claude = checks["host claude-code"]
    assert claude["ok"] is True, claude
    settings = homes["claude"] / "settings.json"
    assert f"wired: {settings} (8 events)" in claude["detail"]
    assert f"hooks call {SCRIPT} (ok)" in claude["detail"]
    assert "no hook seen in this project yet" in claude["detail"]
    assert checks["host codex"]["detail"].startswith("not wired")
    # the existing checks are still there
    assert {"interpreter", "config", "state dir", "daemon", "commands"} <= set(checks)


def test_doctor_says_what_to_do_about_a_missing_binary(
    homes: dict[str, Path], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = "/nowhere/venv/bin/agentreflex"
    hooks = {
        e: [{"hooks": [{"type": "command", "command": f"{gone} hook claude-code {e}"}]}]
        for e in CLAUDE_EVENTS
    }
    write_json(project / ".claude" / "settings.json", {"hooks": hooks})
    code, checks = doctor(project, capsys)
    claude = checks["host claude-code"]
    assert code == 1 and claude["ok"] is False
    assert f"{gone} (MISSING)" in claude["detail"]
    assert (
        "to fix: the hooks call a missing agentreflex: run `agentreflex install" in claude["detail"]
    )


def test_a_hook_program_the_agents_commands_can_rewrite_is_called_out(
    homes: dict[str, Path], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--bin`` naming a script in the project (or another folder a contained command may
    write): every hook would run whatever a command wrote there, outside any boundary.
    Install warns, and doctor reports it as a problem to fix."""
    script = project / "tools" / "agentreflex"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    args = ["claude-code", "--project", "--project-dir", str(project), "--bin", str(script)]
    code, out, _ = run(["install", *args], capsys)
    assert code == 0 and f"warning: {script}" in out and "can rewrite" in out
    code, checks = doctor(project, capsys)
    claude = checks["host claude-code"]
    assert claude["ok"] is False and f"{script} can be rewritten" in claude["detail"]
    # this installation's own script is protected by the boundary: nothing said
    assert run(["install", "claude-code", "--project", "--project-dir", str(project)], capsys)[1]
    _, checks = doctor(project, capsys)
    assert "can be rewritten" not in checks["host claude-code"]["detail"]


@pytest.mark.parametrize("where", [".claude/settings.local.json", ".claude/settings.json"])
def test_doctor_says_when_a_settings_file_turns_every_hook_off(
    homes: dict[str, Path], project: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """``disableAllHooks: true`` in a project's settings file (one the agent can write with
    Claude's own file tools) and Claude Code runs none of the hooks the user's settings
    wire; doctor said "wired" and ok.  A file above it that says false wins, as in Claude."""
    assert run(["install", "claude-code"], capsys)[0] == 0
    assert doctor(project, capsys)[1]["host claude-code"]["ok"] is True
    off = project / where
    write_json(off, {"disableAllHooks": True})
    claude = doctor(project, capsys)[1]["host claude-code"]
    assert claude["ok"] is False and f"disableAllHooks in {off}" in claude["detail"]
    if where.endswith("settings.json"):
        write_json(project / ".claude" / "settings.local.json", {"disableAllHooks": False})
        assert doctor(project, capsys)[1]["host claude-code"]["ok"] is True


@pytest.mark.parametrize("key", ["hooks", "codex_hooks"])
def test_doctor_says_when_a_codex_config_turns_hooks_off(
    homes: dict[str, Path], project: Path, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    """``[features] hooks = false`` (or the older ``codex_hooks``) in a trusted project's
    .codex/config.toml, layered over the user's, and Codex runs no hooks at all: doctor
    said wired and ok.  A project that turns it back on over the user's false is fine."""
    assert run(["install", "codex"], capsys)[0] == 0
    assert doctor(project, capsys)[1]["host codex"]["ok"] is True
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(f"[features]\n{key} = false\n")
    codex = doctor(project, capsys)[1]["host codex"]
    assert codex["ok"] is False and f"features.{key} = false in {config}" in codex["detail"]


def test_doctor_asks_for_a_new_install_when_the_hooks_start_python_bare(
    homes: dict[str, Path], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Entries an older agentreflex wrote run the script itself: PYTHONPATH would count."""
    hooks = {
        e: [{"hooks": [{"type": "command", "command": f"{SCRIPT} hook claude-code {e}"}]}]
        for e in CLAUDE_EVENTS
    }
    write_json(homes["claude"] / "settings.json", {"hooks": hooks})
    code, checks = doctor(project, capsys)
    claude = checks["host claude-code"]
    assert code == 1 and claude["ok"] is False
    assert (
        "without -E -P" in claude["detail"]
        and "agentreflex install claude-code" in claude["detail"]
    )
    assert run(["install", "claude-code"], capsys)[0] == 0  # replaces them: one entry per event
    _, checks = doctor(project, capsys)
    assert checks["host claude-code"]["ok"] is True, checks["host claude-code"]
    written = json.loads((homes["claude"] / "settings.json").read_text())
    assert all(len(groups) == 1 for groups in written["hooks"].values())


def test_doctor_reports_missing_events_and_malformed_settings(
    homes: dict[str, Path], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    only_stop = {
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": f"{SCRIPT} hook claude-code Stop"}]}]
        }
    }
    write_json(homes["claude"] / "settings.json", only_stop)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text("{oops")
    code, checks = doctor(project, capsys)
    claude = checks["host claude-code"]
    assert code == 1 and claude["ok"] is False
    assert "lacks PostToolUse, PostToolUseFailure, PreCompact, PreToolUse" in claude["detail"]
    assert "settings.local.json is not valid JSON" in claude["detail"]


def test_doctor_shows_the_plugin_and_the_last_hook(
    homes: dict[str, Path], project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_json(
        homes["claude"] / "settings.json", {"enabledPlugins": {"agentreflex@agentreflex": True}}
    )
    payload = {
        "session_id": "doctor-s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "t1",
    }
    done = subprocess.run(
        [str(SCRIPT), "hook", "claude-code", "PreToolUse"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=hook_env(tmp_path),
        cwd=project,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    _, checks = doctor(project, capsys)
    detail = checks["host claude-code"]["detail"]
    assert "wired: the agentreflex plugin (enabled in" in detail
    assert "last hook here " in detail and " ms)" in detail


def test_local_scope_writes_the_untracked_settings(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    args = ["--local", "--project-dir", str(project)]
    code, out, _ = run(["install", "claude-code", *args], capsys)
    assert code == 0
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert set(our_commands(local)) == CLAUDE_EVENTS
    assert not (project / ".claude" / "settings.json").exists()
    assert "teammates" not in out  # that warning is for the committed file only
    code, _, err = run(["install", "codex", *args], capsys)
    assert code == 1 and "no untracked project layer" in err


def test_project_install_warns_about_committed_paths_and_double_hooks(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    write_json(
        project / ".claude" / "settings.json", {"enabledPlugins": {"agentreflex@agentreflex": True}}
    )
    code, out, _ = run(
        ["install", "claude-code", "--project", "--project-dir", str(project)], capsys
    )
    assert code == 0
    assert "teammates may not have" in out
    assert "every hook would run twice" in out


# ------------------------------------------------------------ codex --sandbox

CODEX_TOML = '# my codex config\nmodel = "o4"  # keep me\n\n[features]\nhooks = true\n'


def test_codex_sandbox_profile_keeps_comments_and_comes_back_out(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import tomllib

    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text("{}\n")
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_TOML)
    args = ["--project", "--project-dir", str(project)]
    code, out, _ = run(["install", "codex", *args, "--sandbox"], capsys)
    assert code == 0
    text = config.read_text()
    assert '# my codex config\nmodel = "o4"  # keep me\n' in text  # comments kept
    data = tomllib.loads(text)
    assert data["default_permissions"] == "agentreflex"
    assert data["features"] == {"hooks": True}
    profile = data["permissions"]["agentreflex"]
    assert profile["extends"] == ":workspace"
    listed = profile["filesystem"]
    assert listed[str(project / ".agentreflex")] == "read"
    assert listed[str(project / ".claude" / "settings.json")] == "read"
    assert str(project / "opencode.json") not in listed  # absent paths are not listed
    from agentreflex.core.state.userdirs import key_path

    # the per-user key, made by install, is hidden from commands ("deny"), never read-only
    assert listed[key_path()] == "deny" and os.path.isfile(key_path())
    # no repository here, so no .git entry; the folder holding a read-only file is
    # listed writable, so Codex mounts it and it can't be renamed (a new settings.json)
    assert {p for p, a in listed.items() if a == "write"} == {str(project / ".claude")}
    assert profile["network"] == {"enabled": True}  # a dev server and installs still work
    assert (project / ".agentreflex").is_dir()
    assert "permissions profile 'agentreflex'" in out
    # idempotent: hooks.json, this config.toml and the user's (its trust block) alike
    code, out, _ = run(["install", "codex", *args, "--sandbox"], capsys)
    assert code == 0 and out.count("already up to date") == 3
    # uninstall: the file as it was, byte for byte
    assert run(["uninstall", "codex", *args], capsys)[0] == 0
    assert config.read_text() == CODEX_TOML
    assert not (project / ".codex" / "hooks.json").exists()


def test_codex_sandbox_lets_git_commit_but_not_git_config_or_hooks(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import subprocess
    import tomllib

    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    args = ["--project", "--project-dir", str(project), "--sandbox"]
    assert run(["install", "codex", *args], capsys)[0] == 0
    data = tomllib.loads((project / ".codex" / "config.toml").read_text())
    listed = data["permissions"]["agentreflex"]["filesystem"]
    git = project / ".git"
    assert listed[str(git)] == "write"
    assert listed[str(git / "config")] == listed[str(git / "hooks")] == "read"


def test_codex_sandbox_denies_the_servers_that_would_run_a_command_outside(
    homes: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Codex 0.169's sandbox let a command ask the user's tmux server to run another one,
    outside it (the real host, ``integration-tests/test_codex_sandbox.py``); a denied tmux
    folder can't be reached.  Only a folder that exists is listed: Codex leaves an empty
    file at a missing denied path, and tmux could then never make its folder there."""
    import tomllib

    monkeypatch.setenv("TMUX_TMPDIR", str(tmp_path / "tmux-tmp"))
    tmux_dir = tmp_path / "tmux-tmp" / f"tmux-{os.getuid()}"
    emacs_dir = tmp_path / "run" / "emacs"  # no emacs server here: not listed
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    tmux_dir.mkdir(parents=True)
    project = tmp_path / "proj"
    project.mkdir()
    args = ["--project", "--project-dir", str(project), "--sandbox"]
    assert run(["install", "codex", *args], capsys)[0] == 0
    data = tomllib.loads((project / ".codex" / "config.toml").read_text())
    listed = data["permissions"]["agentreflex"]["filesystem"]
    assert listed[str(tmux_dir)] == "deny"
    assert str(emacs_dir) not in listed
    # the user lets their tmux through: no longer denied
    from agentreflex.core.contain import boundary

    user_policy = Path(boundary.user_policy_path())
    user_policy.parent.mkdir(parents=True, exist_ok=True)
    user_policy.write_text('reach = ["{tmux}"]\n')
    assert run(["uninstall", "codex", *args[:-1]], capsys)[0] == 0
    assert run(["install", "codex", *args], capsys)[0] == 0
    data = tomllib.loads((project / ".codex" / "config.toml").read_text())
    listed = data["permissions"]["agentreflex"]["filesystem"]
    assert str(tmp_path / "tmux-tmp" / f"tmux-{os.getuid()}") not in listed


def test_codex_sandbox_in_a_new_config_is_removed_with_it(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert run(["install", "codex", "--project-dir", str(project), "--sandbox"], capsys)[0] == 0
    assert (homes["codex"] / "config.toml").is_file()
    assert run(["uninstall", "codex", "--project-dir", str(project)], capsys)[0] == 0
    assert not (homes["codex"] / "config.toml").exists()


def test_a_project_codex_sandbox_install_is_complete_the_first_time(
    homes: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a project with no ``.codex/`` yet, the first ``install codex --project --sandbox``
    makes it (hooks.json, config.toml) but listed only paths that existed before, so the
    profile left out the folder holding itself, and a second install changed the file."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    args = ["codex", "--project", "--project-dir", str(project), "--sandbox"]
    assert run(["install", *args], capsys)[0] == 0
    config = project / ".codex" / "config.toml"
    assert f'{json.dumps(str(project / ".codex"))} = "read"' in config.read_text()
    first = config.read_bytes()
    code, out, _ = run(["install", *args], capsys)
    assert code == 0 and config.read_bytes() == first
    assert f"{config}: already up to date" in out


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('default_permissions = "mine"\n', "already sets default_permissions = 'mine'"),
        ("[permissions.agentreflex]\nx = 1\n", "already has a [permissions.agentreflex]"),
        ("model = \n", "is not valid TOML"),
    ],
)
def test_codex_sandbox_refuses_and_writes_nothing(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str], toml: str, expected: str
) -> None:
    config = homes["codex"] / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(toml)
    code, _, err = run(["install", "codex", "--sandbox"], capsys)
    assert code == 1 and expected in err
    assert config.read_text() == toml
    assert not (homes["codex"] / "hooks.json").exists()
    assert backups(config) == []


def test_doctor_shows_the_sandbox(
    homes: dict[str, Path], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--project", "--project-dir", str(project), "--sandbox"]
    assert run(["install", "claude-code", *args], capsys)[0] == 0
    assert run(["install", "codex", *args], capsys)[0] == 0
    _, checks = doctor(project, capsys)
    claude = checks["host claude-code"]["detail"]
    codex = checks["host codex"]["detail"]
    assert (
        f"OS sandbox keeps agentreflex's files read-only ({project}/.claude/settings.json)"
        in claude
    )
    assert f"OS sandbox keeps agentreflex's files read-only ({project}/.codex/config.toml)" in codex


def test_install_compiles_the_installations_bytecode(
    homes: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentreflex.core.state import userdirs

    installed = tmp_path / "site" / "agentreflex"
    installed.mkdir(parents=True)
    (installed / "mod.py").write_text("X = 1\n")
    monkeypatch.setattr(userdirs, "installed_paths", lambda: (str(installed),))
    code, out, _ = run(["install", "claude-code"], capsys)
    assert code == 0
    assert list((installed / "__pycache__").glob("mod.*.pyc"))
    assert "compiled the bytecode of 1 installed folder(s)" in out


def test_install_gives_the_hooks_linked_code_its_own_copy(
    homes: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """uv hard-links its cache into the environment; install copies the hook's files apart
    then, so the first contained command does not wait for it (and a cache write after the
    install no longer reaches the hook's code)."""
    from agentreflex.core.contain import ownlinks
    from agentreflex.core.state import userdirs

    installed = tmp_path / "site" / "agentreflex"
    installed.mkdir(parents=True)
    cache = tmp_path / "uv-cache" / "mod.py"
    cache.parent.mkdir()
    cache.write_text("X = 1\n")
    os.link(cache, installed / "mod.py")
    monkeypatch.setattr(userdirs, "installed_paths", lambda: (str(installed),))
    monkeypatch.setattr(ownlinks, "roots", lambda: [str(installed)])
    stamp = tmp_path / "stamp.json"
    monkeypatch.setattr(ownlinks, "_records", lambda state: [str(stamp)])
    code, out, _ = run(["install", "claude-code"], capsys)
    assert code == 0
    assert (installed / "mod.py").stat().st_nlink == 1
    cache.write_text("X = 2\n")
    assert (installed / "mod.py").read_text() == "X = 1\n"
    assert "gave 1 hard-linked file(s) of the hook's code their own copy" in out
    assert stamp.exists()  # the first contained command finds the walk done


# ------------------------------------------------------------ the config the hooks will read


def test_install_reports_a_broken_config_the_hooks_will_read(
    homes: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".agentreflex").mkdir()
    (project / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n\nprofile = "loud"\n')
    monkeypatch.chdir(project)
    code, out, _ = run(["install", "claude-code", "--project"], capsys)
    assert code == 0  # the hooks are wired all the same: they report the problem themselves
    assert "config problem" in out
    assert "config.toml:3:" in out and "profile" in out


def test_install_with_valid_config_reports_no_problem(
    homes: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    code, out, _ = run(["install", "claude-code", "--project"], capsys)
    assert code == 0
    assert "config problem" not in out


def test_adding_nothing_leaves_no_empty_objects_behind() -> None:
    """Install adds each list's new items; with none new (an empty list of folders to
    hold, say), the objects it made on the way to the list were left in the user's
    settings as ``"filesystem": {}``, which no uninstall record named."""
    from agentreflex.core.install import manifest

    settings: dict[str, Any] = {"sandbox": {"enabled": True}}
    log: list[manifest.Record] = []
    manifest.add_items(settings, ["sandbox", "filesystem", "denyRead"], [], log)
    manifest.add_items(settings, ["permissions", "deny"], [], log)
    assert settings == {"sandbox": {"enabled": True}}
    assert log == []
    manifest.add_items(settings, ["sandbox", "filesystem", "denyRead"], ["~/.ssh"], log)
    assert settings["sandbox"]["filesystem"] == {"denyRead": ["~/.ssh"]}
    manifest.undo(settings, log)
    assert settings == {"sandbox": {"enabled": True}}
