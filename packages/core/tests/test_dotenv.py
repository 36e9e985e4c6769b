"""A project's .env: what a command added there that changes how programs outside the boundary run.

Gemini CLI 0.61.0, in a trusted folder, reads the first ``.env`` it finds from
the folder it starts in upwards into its own environment (``loadEnvironment``
in its bundle), and the hooks and MCP servers it starts inherit it, outside
any boundary.  The application's own entries stay; so do the user's.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.contain import dotenv, planted
from agentreflex.core.testing import hook_env, run_contained, shell_hook

SECRET = "sk-live-4f1c9e0d"  # an application secret in the file: never written anywhere
USERS = f"# the app\nDATABASE_URL=postgres://localhost/app\nAPI_KEY={SECRET}\nNODE_OPTIONS=--max-old-space-size=4096\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".env").write_text(USERS)
    return root


def _hook(root: Path, kind: str, command: str, mode: str = "enforced", call: str = "c1") -> Any:
    """The call in Gemini CLI's protocol (BeforeTool / AfterTool, run_shell_command)."""
    return shell_hook(root, kind, command, hook_env(root, mode), "gemini", "dotenv", call)


def _step(root: Path, command: str, mode: str = "enforced", call: str = "c1") -> Any:
    _hook(root, "PreToolUse", command, mode, call)
    run_contained(root, command)
    return _hook(root, "PostToolUse", command, mode, call)


ADDED = (
    "printf 'LD_PRELOAD=/tmp/x.so\\nexport BASH_ENV=/tmp/x.sh\\nXDG_CONFIG_HOME: /tmp/cfg\\n"
    'PYTHONPATH="src\\nlib"\\nREDIS_URL=redis://localhost\\n\' >> .env'
)


def test_what_a_command_added_that_runs_programs_is_taken_out_and_the_rest_stays(
    project: Path,
) -> None:
    outcome = _step(project, ADDED)
    text = (project / ".env").read_text()
    assert text == USERS + "REDIS_URL=redis://localhost\n"  # the user's, and the app's new one
    found = [f for f in outcome.decision.findings if f.code == planted.ENV_CODE]
    assert found and all(
        name in found[0].message
        for name in ("LD_PRELOAD", "BASH_ENV", "XDG_CONFIG_HOME", "PYTHONPATH")
    )
    assert "NODE_OPTIONS" not in found[0].message  # the user's own, there before


def test_nothing_of_the_file_is_written_anywhere(project: Path) -> None:
    _step(project, ADDED)
    _step(project, "echo 'NODE_OPTIONS=--require /tmp/x.js' >> .env", call="c2")
    for path in (project.parent / "state").rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace")
    home = Path(os.environ["HOME"])
    for path in home.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path


def test_a_changed_value_is_taken_out_too(project: Path) -> None:
    """The user's NODE_OPTIONS rewritten to load a file: the rewritten line goes."""
    _step(project, "sed -i 's|^NODE_OPTIONS=.*|NODE_OPTIONS=--require /tmp/x.js|' .env")
    assert "NODE_OPTIONS" not in (project / ".env").read_text()
    assert "DATABASE_URL" in (project / ".env").read_text()


def test_a_new_env_file_is_looked_at_and_a_link_is_moved_aside(project: Path) -> None:
    (project / ".env").unlink()
    _step(project, "echo 'GIT_SSH_COMMAND=touch /tmp/x' > .env && echo 'PORT=3000' >> .env")
    assert (project / ".env").read_text() == "PORT=3000\n"
    outcome = _step(
        project,
        "rm .env && echo 'LD_AUDIT=/tmp/a.so' > /tmp/ar-env && ln -s /tmp/ar-env .env",
        call="c2",
    )
    assert not os.path.lexists(project / ".env")
    assert Path("/tmp/ar-env").read_text() == "LD_AUDIT=/tmp/a.so\n"  # never written through
    assert any(f.code == planted.ENV_CODE for f in outcome.decision.findings)
    Path("/tmp/ar-env").unlink()


def test_in_shadow_mode_it_is_only_said(project: Path) -> None:
    outcome = _step(project, "echo 'BASH_ENV=/tmp/x.sh' >> .env", mode="shadow")
    assert "BASH_ENV=/tmp/x.sh" in (project / ".env").read_text()
    assert any(f.code == planted.ENV_CODE for f in outcome.decision.findings)


def test_everyday_work_on_the_env_file_is_left_alone(project: Path) -> None:
    outcome = _step(project, "cp .env .env.bak && echo 'FEATURE_X=1' >> .env && sort -o .env .env")
    assert not [f for f in outcome.decision.findings if f.code == planted.ENV_CODE]
    assert "FEATURE_X=1" in (project / ".env").read_text()


@pytest.mark.parametrize(
    ("name", "reaches"),
    [
        ("LD_PRELOAD", True),
        ("BASH_ENV", True),
        ("PYTHONSTARTUP", True),
        ("npm_config_script_shell", True),
        ("XDG_STATE_HOME", True),
        ("AGENTREFLEX_STATE_DIR", True),
        ("GIT_CONFIG_GLOBAL", True),
        ("PATH", True),
        ("TMUX_TMPDIR", True),  # the hook reads it to keep tmux's socket out of reach
        ("DBUS_SESSION_BUS_ADDRESS", True),
        ("GEMINI_WRITE_SYSTEM_MD", True),  # Gemini CLI writes its prompt to that path
        ("AWS_CONFIG_FILE", True),  # credential_process runs a program
        ("HTTPS_PROXY", True),
        ("OPENSSL_CONF", True),  # a providers section's module is loaded (red-team rt25)
        ("VIRTUAL_ENV", True),  # uv runs its interpreter
        ("CONDA_PREFIX", True),
        ("RUSTC_WRAPPER", True),
        ("GOFLAGS", True),  # -toolexec
        ("MAKEFILES", True),
        # where a tool outside takes what it runs (contain.toml's {env:NAME}, red-team rt84):
        # a Playwright MCP server starts the browser it finds there, gopls links go's cache
        ("PLAYWRIGHT_BROWSERS_PATH", True),
        ("GOCACHE", True),
        ("PRE_COMMIT_HOME", True),
        ("GEMINI_API_KEY", False),
        ("DATABASE_URL", False),
        ("NEXT_PUBLIC_API", False),
        ("PORT", False),
    ],
)
def test_which_variables_reach_a_program(name: str, reaches: bool) -> None:
    assert dotenv.reaches(name) is reaches


def test_a_variable_the_users_own_policy_reads_reaches_a_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """red-team rt84: a user's ``{env:NAME}`` entry (~/.config/agentreflex/contain.toml) says
    NAME puts a folder a program outside runs from: a ``.env`` line setting it, in any case,
    is taken out as the built-in policy's are."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / "config" / "agentreflex").mkdir(parents=True)
    assert not dotenv.reaches("MY_TOOL_HOME")
    (tmp_path / "config" / "agentreflex" / "contain.toml").write_text(
        'read_only = ["{env:my_tool_home}/*"]\n'
    )
    assert dotenv.reaches("MY_TOOL_HOME") and dotenv.reaches("My_Tool_Home")


@pytest.mark.parametrize("line", ["PLAYWRIGHT_BROWSERS_PATH=/tmp/pw", "GOCACHE=/tmp/gc"])
def test_a_moved_cache_a_command_added_is_taken_out(project: Path, line: str) -> None:
    """red-team rt84: Gemini CLI reads the project's ``.env`` into its own environment, and
    its MCP servers inherit it: a browsers folder or a go cache the command filled under
    /tmp, named there, would be what a Playwright MCP server or gopls runs, outside."""
    _step(project, f"echo {line} >> .env")
    assert (project / ".env").read_text() == USERS


def test_entries_are_read_as_the_dotenv_package_reads_them(tmp_path: Path) -> None:
    """Quoted values over several lines, `export`, `KEY: value`, comments."""
    text = (
        'A="one\nLD_PRELOAD=/tmp/hidden.so\n"\n'
        "export BASH_ENV=/tmp/b # note\n"
        "PYTHONHOME: /tmp/h\n"
        "# LD_AUDIT=/tmp/commented\n"
    )
    names = [e[0] for e in dotenv._entries(text)]
    assert names == ["BASH_ENV", "PYTHONHOME"]  # the quoted line is A's value, not an entry


def test_a_line_ended_as_javascript_ends_one_is_read(project: Path) -> None:
    """JavaScript's ``^`` and ``$`` also end a line at U+2028: the dotenv package reads
    ``LD_PRELOAD`` after ``PORT="3000"`` here, where a Python-only reading saw nothing."""
    line_ends = ("\\xe2\\x80\\xa8", "\\xe2\\x80\\xa9")  # U+2028, U+2029 in UTF-8
    added = 'PORT="3000"{}LD_PRELOAD=/tmp/x.so{}XDG_CONFIG_HOME=/tmp/c\\n'.format(*line_ends)
    outcome = _step(project, f"printf '{added}' >> .env")
    assert any(f.code == planted.ENV_CODE for f in outcome.decision.findings)
    kept = (project / ".env").read_text()
    assert "LD_PRELOAD" not in kept and "XDG_CONFIG_HOME" not in kept
    assert 'PORT="3000"' in kept and "API_KEY=" in kept


def test_a_file_padded_past_what_is_read_is_moved_aside(project: Path) -> None:
    """Gemini CLI reads a .env of any size: one grown past the look's limit can't be vouched
    for, so it goes aside, kept whole."""
    grow = "{ printf '# '; head -c 2000000 /dev/zero | tr '\\0' x; printf '\\nLD_PRELOAD=/tmp/x.so\\n'; }"
    outcome = _step(project, f"{grow} >> .env")
    assert not (project / ".env").exists()
    moved = list((project.parent / "state" / "planted").rglob(".env"))
    assert len(moved) == 1 and moved[0].read_text().startswith(USERS)  # nothing is lost
    assert any(f.code == planted.ENV_CODE for f in outcome.decision.findings)


def test_gemini_clis_own_env_file_is_looked_at_under_another_host(project: Path) -> None:
    """Gemini CLI reads ``.gemini/.env`` before ``.env``; under another host ``.gemini``
    is no held folder, so a command there can make one."""
    command = "mkdir -p .gemini && printf 'LD_PRELOAD=/tmp/x.so\\nPORT=1\\n' > .gemini/.env"
    env = hook_env(project)
    shell_hook(project, "PreToolUse", command, env, session="other-host")
    run_contained(project, command)
    outcome = shell_hook(project, "PostToolUse", command, env, session="other-host")
    assert any(f.code == planted.ENV_CODE for f in outcome.decision.findings)
    assert (project / ".gemini" / ".env").read_text() == "PORT=1\n"


@pytest.mark.parametrize("where", ["web", "apps/api", "web/.gemini"])
def test_a_env_file_below_the_root_is_looked_at_too(project: Path, where: str) -> None:
    """Gemini CLI started in a monorepo's package reads that folder's ``.gemini/.env`` or
    ``.env`` first (``findEnvFile`` walks up from where it starts: a red-team pass)."""
    command = f"mkdir -p {where} && printf 'PORT=3000\\nLD_PRELOAD=/tmp/x.so\\n' > {where}/.env"
    outcome = _step(project, command)
    assert (project / where / ".env").read_text() == "PORT=3000\n"
    found = [f for f in outcome.decision.findings if f.code == planted.ENV_CODE]
    assert found and "LD_PRELOAD" in found[0].message


@pytest.mark.parametrize("where", [".env", "web/.env"])
def test_a_virtualenv_named_env_is_no_settings_file(project: Path, where: str) -> None:
    """``python -m venv .env`` is common: Gemini CLI fails to read a folder, and nothing of
    a virtualenv is moved."""
    (project / ".env").unlink()
    outcome = _step(project, f"mkdir -p {where}/bin && echo home > {where}/pyvenv.cfg")
    assert (project / where / "pyvenv.cfg").read_text() == "home\n"
    assert planted.ENV_CODE not in {f.code for f in outcome.decision.findings}


def test_a_cache_a_projects_settings_moved_is_held_not_set_aside(tmp_path: Path) -> None:
    """red-team rt84: a project's ``.claude/settings.json`` ``env`` is set aside when it
    changes what agentreflex reads (``XDG_CONFIG_HOME``), but a cache variable the policy
    reads stays: Claude Code gives it to the programs it starts outside (its MCP servers),
    so the boundary must hold that folder, not plan as if it were unset."""
    import json

    from agentreflex.core.hook.runtime import host_set_env
    from agentreflex.core.hosts import get_adapter

    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    given = {"GOCACHE": "/tmp/gc", "XDG_CONFIG_HOME": "/tmp/cfg"}
    (project / ".claude" / "settings.json").write_text(json.dumps({"env": given}))
    env, set_aside = host_set_env(get_adapter("claude-code"), str(project), {"HOME": "/h", **given})
    assert env.get("GOCACHE") == "/tmp/gc"
    assert "XDG_CONFIG_HOME" not in env and set_aside
