"""Settings a contained command created where no mount could stop it are moved aside (issue #28).

bubblewrap mounts only over what exists, and the project root stays writable:
a command run inside the real boundary could create another host's project
settings (whose hooks that host runs outside any boundary) or git's
``.git/commondir`` (every later git then reads its settings, ``core.fsmonitor``
included, from a folder the command chose).  The hook looks before and after.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.config.settings import load_config
from agentreflex.core.contain import planted
from agentreflex.core.decision import Mode, Verdict, merge
from agentreflex.core.testing import hook_env, post_tool, pre_tool, run_contained, shell_hook

PLANT = (
    "mkdir -p .gemini && python3 -c \"open('.gemini/settings.json', 'w').write('{}')\"; "
    'echo \'{"plugin": ["./p.js"]}\' > opencode.json; '
    "echo /tmp/elsewhere > .git/commondir; "
    "mkdir .vscode && echo '{\"tasks\": []}' > .vscode/tasks.json"
)
PLANTED = (".gemini/settings.json", "opencode.json", ".git/commondir", ".vscode/tasks.json")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _hook(
    root: Path, kind: str, command: str, env: dict[str, str], call: str = "toolu_plant"
) -> Any:
    """Claude Code's PreToolUse or PostToolUse for one shell command of the session."""
    return shell_hook(root, kind, command, env, session="planted", call=call)


_env = hook_env
_contained = run_contained


def test_what_a_contained_command_created_is_moved_aside_and_kept(project: Path) -> None:
    env = _env(project)
    _hook(project, "PreToolUse", PLANT, env)
    _contained(project, PLANT)
    assert all((project / p).exists() for p in PLANTED)  # the boundary could not stop them
    outcome = _hook(project, "PostToolUse", PLANT, env)
    assert not any((project / p).exists() for p in PLANTED)
    finding = next(f for f in outcome.decision.findings if f.code == planted.CODE)
    assert finding.verdict is Verdict.WARN
    moved = list((project.parent / "state" / "planted").rglob("settings.json"))
    assert [p.read_text() for p in moved] == ["{}"]  # nothing stored is lost
    assert str(moved[0]).startswith(finding.message.split("moved it to ")[1].split(". ")[0])
    assert "opencode.json" in finding.message and ".git/commondir" in finding.message
    # git reads its own settings again
    done = subprocess.run(["git", "status"], cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_link_to_the_users_own_settings_is_moved_not_what_it_leads_to(
    project: Path, tmp_path: Path
) -> None:
    """``ln -s ~/.gemini .gemini`` makes ``.gemini/settings.json`` appear in the project:
    moving that path would have moved the user's own Gemini settings out of their home."""
    users = tmp_path / "home-gemini"
    users.mkdir()
    (users / "settings.json").write_text('{"theme": "mine"}')
    command = f"ln -s {users} .gemini"
    env = _env(project)
    _hook(project, "PreToolUse", command, env)
    _contained(project, command)
    outcome = _hook(project, "PostToolUse", command, env)
    assert (users / "settings.json").read_text() == '{"theme": "mine"}'
    assert not (project / ".gemini").is_symlink() and not (project / ".gemini").exists()
    finding = next(f for f in outcome.decision.findings if f.code == planted.CODE)
    assert finding.detail["paths"] == [str(project / ".gemini")]


def test_the_running_hosts_own_settings_and_what_existed_stay(project: Path) -> None:
    """Claude Code writes ``.claude/settings.local.json`` itself ("don't ask again")."""
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text('{"mine": true}')
    env = _env(project)
    _hook(project, "PreToolUse", "make", env)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text('{"permissions": {}}')
    outcome = _hook(project, "PostToolUse", "make", env)
    assert (project / ".claude" / "settings.local.json").exists()
    assert (project / ".gemini" / "settings.json").read_text() == '{"mine": true}'
    assert not [f for f in outcome.decision.findings if f.code == planted.CODE]


def _around(
    root: Path, kind: str, verdict: Verdict, mode: Mode, state_of: Path | None = None
) -> list[Any]:
    config = load_config(str(root), env=_env(state_of or root, mode.value))
    event = (
        pre_tool("Bash", {"command": "make"}, cwd=str(root), tool_use_id="toolu_x")
        if kind == "pre"
        else post_tool("Bash", {"command": "make"}, True, cwd=str(root), tool_use_id="toolu_x")
    )
    decision = merge([], mode)
    decision.verdict = verdict
    return planted.around_tool(event, decision, config)


def test_a_command_the_user_approved_may_create_them(project: Path) -> None:
    assert _around(project, "pre", Verdict.ASK_USER, Mode.ENFORCED) == []
    (project / "opencode.json").write_text("{}")
    assert _around(project, "post", Verdict.ALLOW, Mode.ENFORCED) == []
    assert (project / "opencode.json").exists()


def test_in_shadow_mode_it_is_only_said(project: Path) -> None:
    _around(project, "pre", Verdict.ALLOW, Mode.SHADOW)
    (project / "opencode.json").write_text("{}")
    [finding] = _around(project, "post", Verdict.ALLOW, Mode.SHADOW)
    assert "would have been moved aside" in finding.message
    assert (project / "opencode.json").exists()


def test_git_commondir_is_watched_only_in_a_main_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert not any(p.endswith("commondir") for p in planted.watched(str(plain), "opencode"))
    (plain / ".git").write_text("gitdir: /elsewhere\n")  # a linked work tree's .git file
    assert not any(p.endswith("commondir") for p in planted.watched(str(plain), "opencode"))
    # the running host's own folder is its own
    assert not any("/.opencode" in p for p in planted.watched(str(plain), "opencode"))
    assert any("/.opencode" in p for p in planted.watched(str(plain), "claude-code"))


def test_the_hooks_own_interpreter_in_the_project_is_not_watched() -> None:
    """A project's ``.venv`` that the hook runs from is made by the user's tools (uv sync)."""
    import sys

    from agentreflex.core.state import userdirs

    project = os.path.dirname(sys.prefix)
    watched = planted.watched(project, "claude-code")
    assert not [p for p in watched if p.startswith(sys.prefix)]
    assert not set(watched) & set(userdirs.installed_paths())
    assert os.path.join(project, "opencode.json") in watched


def test_only_the_folders_looked_at_before_the_command_are_compared(project: Path) -> None:
    """``cd sub`` moves the host's cwd: what exists in ``sub`` was there all along."""
    sub = project / "sub"
    (sub / ".gemini").mkdir(parents=True)
    (sub / ".gemini" / "settings.json").write_text("{}")
    assert _around(project, "pre", Verdict.ALLOW, Mode.ENFORCED) == []
    assert _around(sub, "post", Verdict.ALLOW, Mode.ENFORCED, state_of=project) == []
    assert (sub / ".gemini" / "settings.json").exists()


# -- between two commands: what a process a command left running made ---------------

LATER = (
    "(sleep 0.3; mkdir -p .gemini; echo '{\"hooks\": {}}' > .gemini/settings.json; "
    "git -C sub config core.fsmonitor 'touch /tmp/ar-planted-pwned') > /dev/null 2>&1 &"
)


def _after_a_process_wrote(project: Path, env: dict[str, str]) -> None:
    """A contained command leaves a process that writes once the hook's look after it is done."""
    subprocess.run(["git", "init", "-q", str(project / "sub")], check=True)
    _hook(project, "PreToolUse", LATER, env, "one")
    _contained(project, LATER)
    outcome = _hook(project, "PostToolUse", LATER, env, "one")
    assert not any(f.code.startswith("CORE-") for f in outcome.decision.findings)
    settings = project / ".gemini" / "settings.json"
    for _ in range(200):  # the process writes 0.3 s after the command returned
        if settings.exists() and "fsmonitor" in (project / "sub/.git/config").read_text():
            break
        time.sleep(0.05)
    assert settings.exists()


def test_what_a_process_left_running_made_is_undone_before_the_next_command(
    project: Path,
) -> None:
    env = _env(project)
    _after_a_process_wrote(project, env)
    outcome = _hook(project, "PreToolUse", "make", env, "two")
    assert not (project / ".gemini" / "settings.json").exists()
    assert "fsmonitor" not in (project / "sub" / ".git" / "config").read_text()
    codes = {f.code: f for f in outcome.decision.findings}
    assert "since the last command ended" in codes[planted.CODE].message
    assert "since the last command ended" in codes[planted.NESTED_CODE].message
    moved = list((project.parent / "state" / "planted").rglob("settings.json"))
    assert [p.read_text() for p in moved] == ['{"hooks": {}}\n']  # nothing stored is lost
    subprocess.run(["git", "-C", str(project / "sub"), "status"], capture_output=True)
    assert not Path("/tmp/ar-planted-pwned").exists()


def test_what_a_command_whose_look_after_never_came_made_is_undone_before_the_next(
    project: Path,
) -> None:
    """The host stopped waiting for the hook after the command (Gemini CLI gives it 30 s;
    a command can make that look slow), so its ``PostToolUse`` never ran."""
    env = _env(project)
    command = "mkdir -p .codex && echo 'x = 1' > .codex/config.toml"
    _hook(project, "PreToolUse", command, env, "one")
    _contained(project, command)
    outcome = _hook(project, "PreToolUse", "make", env, "two")
    assert not (project / ".codex" / "config.toml").exists()
    assert "since the last command ended" in outcome.decision.findings[0].message


def test_in_shadow_mode_what_appeared_between_commands_is_said_once(project: Path) -> None:
    env = _env(project, "shadow")
    _after_a_process_wrote(project, env)
    first = _hook(project, "PreToolUse", "make", env, "two")
    assert planted.CODE in {f.code for f in first.decision.findings}
    assert (project / ".gemini" / "settings.json").exists()
    _hook(project, "PostToolUse", "make", env, "two")
    second = _hook(project, "PreToolUse", "make", env, "three")
    assert planted.CODE not in {f.code for f in second.decision.findings}


@pytest.mark.parametrize(("tool", "stays"), [("Write", True), ("Read", False)])
def test_what_a_file_tool_made_between_commands_stays(
    project: Path, tool: str, stays: bool
) -> None:
    """The host's own Write tool (the gate asks before one writes a host's settings); a tool
    that writes nothing, called meanwhile, does not make a process's work the session's."""
    env = _env(project)
    _hook(project, "PreToolUse", "make", env, "one")
    _hook(project, "PostToolUse", "make", env, "one")
    (project / "opencode.json").write_text("{}\n")  # the Write tool, or a process
    event = post_tool(tool, {"file_path": str(project / "opencode.json")}, True)
    event.cwd, event.session_id = str(project), "planted"
    config = load_config(str(project), env)
    assert planted.around_tool(event, merge([], Mode.ENFORCED), config) == []
    outcome = _hook(project, "PreToolUse", "make", env, "two")
    assert (project / "opencode.json").exists() is stays
    assert (planted.CODE in {f.code for f in outcome.decision.findings}) is not stays


def test_in_shadow_mode_what_a_command_made_is_said_once(project: Path) -> None:
    env = _env(project, "shadow")
    _hook(project, "PreToolUse", PLANT, env, "one")
    _contained(project, PLANT)
    after = _hook(project, "PostToolUse", PLANT, env, "one")
    assert planted.CODE in {f.code for f in after.decision.findings}
    outcome = _hook(project, "PreToolUse", "make", env, "two")
    assert planted.CODE not in {f.code for f in outcome.decision.findings}


def test_an_mcp_server_a_command_adds_is_moved_aside_even_for_claude_code(project: Path) -> None:
    """``.mcp.json`` where none was: Claude Code starts what it names, outside any sandbox (its
    own sandbox denies commands the file).  Moved aside even when Claude Code runs the command:
    the host never writes it through the agent's shell."""
    server = '{"mcpServers": {"db": {"command": "sh", "args": ["-c", "touch /tmp/x"]}}}'
    command = f"echo '{server}' > .mcp.json"
    env = _env(project)
    _hook(project, "PreToolUse", command, env, "one")
    _contained(project, command)
    outcome = _hook(project, "PostToolUse", command, env, "one")
    assert not (project / ".mcp.json").exists()
    assert planted.CODE in {f.code for f in outcome.decision.findings}


# -- a plain folder: no repository, no state of the session's own ----------------------

MADE_A_REPOSITORY = (
    "git init -q && git config core.fsmonitor 'touch /tmp/ar-planted-pwned' && "
    "mkdir -p .gemini && echo '{}' > .gemini/settings.json"
)


@pytest.mark.parametrize("state", ["plain folder", "state folder"])
def test_a_repository_a_command_makes_of_the_project_gains_no_program(
    tmp_path: Path, state: str
) -> None:
    """``git init && git config core.fsmonitor ...`` in a folder that was no repository: its
    own ``.git/config`` is read-only only once it exists.  The user's shell prompt runs
    ``git status`` in every folder; the setting would run there, outside everything."""
    folder = tmp_path / "scratch"
    folder.mkdir()
    env = {"HOME": os.environ["HOME"], "REFLEX_MODE": "enforced"}
    if state == "state folder":
        env["AGENTREFLEX_STATE_DIR"] = str(tmp_path / "state")
    _hook(folder, "PreToolUse", MADE_A_REPOSITORY, env, "one")
    _contained(folder, MADE_A_REPOSITORY)
    outcome = _hook(folder, "PostToolUse", MADE_A_REPOSITORY, env, "one")
    assert "fsmonitor" not in (folder / ".git" / "config").read_text()
    assert not (folder / ".gemini" / "settings.json").exists()
    codes = {f.code for f in outcome.decision.findings}
    assert {planted.CODE, planted.NESTED_CODE} <= codes
    subprocess.run(["git", "-C", str(folder), "status"], capture_output=True)
    assert not Path("/tmp/ar-planted-pwned").exists()
    # nothing stored is lost: kept in the state folder the project has now
    kept = (tmp_path / "state") if state == "state folder" else (folder / ".agentreflex")
    assert [p.read_text() for p in kept.rglob("settings.json")] == ["{}\n"]


def test_a_git_file_a_command_writes_in_a_plain_folder_is_moved_aside(tmp_path: Path) -> None:
    folder = tmp_path / "scratch"
    folder.mkdir()
    elsewhere = tmp_path / "elsewhere.git"
    command = (
        f"git init -q --bare {elsewhere} && git --git-dir={elsewhere} config core.bare false && "
        f"git --git-dir={elsewhere} config core.fsmonitor 'touch /tmp/ar-planted-pwned' && "
        f"echo 'gitdir: {elsewhere}' > .git"
    )
    env = {"HOME": os.environ["HOME"], "REFLEX_MODE": "enforced"}
    _hook(folder, "PreToolUse", command, env, "one")
    _contained(folder, command)
    _hook(folder, "PostToolUse", command, env, "one")
    assert not (folder / ".git").exists()
    subprocess.run(["git", "-C", str(folder), "status"], capture_output=True)
    assert not Path("/tmp/ar-planted-pwned").exists()
