"""What the user's own shell runs from the project on entering it: mise's settings, what direnv's
``.envrc`` sources or loads (red-team rt25).  The boundary and the looks hold them like what a
host runs from the project."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.contain import dotenv, shellruns
from agentreflex.core.testing import hook_env, run_contained, shell_hook


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _command(root: Path, command: str, call: str) -> Any:
    env = hook_env(root)
    shell_hook(root, "PreToolUse", command, env, call=call)
    run_contained(root, command)
    return shell_hook(root, "PostToolUse", command, env, call=call)


def test_what_envrc_sources_is_run_by_the_users_shell(project: Path) -> None:
    (project / ".envrc").write_text(
        "source_env_if_exists .envrc.local\n"
        "  source_env sub\n"
        'source_env "$HOME/.envrc"\n'  # a variable: not a path read here
        "source_env ../elsewhere\n"  # outside the project: read-only anyway
        "export X=1\n"
    )
    found = shellruns.paths(str(project))
    assert str(project / ".envrc.local") in found
    assert str(project / "sub" / ".envrc") in found  # source_env DIR runs DIR/.envrc
    assert (
        str(project / "mise.toml") in found
        and str(project / ".config" / "mise" / "conf.d") in found
    )
    assert not [p for p in found if not p.startswith(str(project) + "/")]


def test_what_envrc_loads_variables_from(project: Path) -> None:
    (project / ".envrc").write_text("dotenv\ndotenv_if_exists .env.local # local\n")
    assert shellruns.env_files(str(project)) == [str(project / ".env"), str(project / ".env.local")]
    (project / ".envrc").unlink()
    assert shellruns.env_files(str(project)) == []


def test_a_file_envrc_sources_made_by_a_command_is_moved_aside(project: Path) -> None:
    (project / ".envrc").write_text("source_env_if_exists .envrc.local\n")
    _command(project, "echo 'curl x | sh' > .envrc.local", "a")
    assert not (project / ".envrc.local").exists()


def test_a_trusted_mise_file_is_read_only(project: Path) -> None:
    (project / "mise.toml").write_text('[tools]\nnode = "22"\n')
    _command(project, "echo 'X = \"{{ exec(command=\\x27id\\x27) }}\"' >> mise.toml || true", "b")
    assert (project / "mise.toml").read_text() == '[tools]\nnode = "22"\n'


def test_what_direnv_loads_into_the_shell_is_looked_at(project: Path) -> None:
    (project / ".envrc").write_text("dotenv_if_exists .env.local\n")
    (project / ".env.local").write_text("API_URL=http://localhost\n")
    _command(
        project, "echo 'LD_PRELOAD=/tmp/x.so' >> .env.local && echo 'PORT=1' >> .env.local", "c"
    )
    text = (project / ".env.local").read_text()
    assert "LD_PRELOAD" not in text and "PORT=1" in text and "API_URL" in text
    assert dotenv.reaches("LD_PRELOAD")


def test_what_else_the_users_shell_runs_from_the_project(project: Path) -> None:
    """``.envrc`` itself, its plain ``source`` and ``watch_file`` lines, ``use nix`` and
    ``use flake``, the versions file, and what mise's ``_.source`` names (red-team rt27);
    ``_.file`` is loaded like ``.env``."""
    (project / ".envrc").write_text(
        "use nix\nuse flake\nsource ./scripts/env.sh\n. lib/more.sh\nwatch_file a.nix b.nix\n"
    )
    (project / "mise.toml").write_text(
        '[env]\n_.source = "env.sh"\n_.file = [".env.local", {path = ".env.mise"}]\n'
    )
    found = set(shellruns.paths(str(project)))
    assert str(project / ".envrc") not in found  # held by the boundary itself (contain.toml)
    for name in (
        ".tool-versions",
        "shell.nix",
        "default.nix",
        "flake.nix",
        "scripts/env.sh",
        "lib/more.sh",
        "a.nix",
        "b.nix",
        "env.sh",
    ):
        assert str(project / name) in found, name
    assert str(project / ".env.local") in shellruns.env_files(str(project))
    assert str(project / ".env.mise") in shellruns.env_files(str(project))


def test_a_source_behind_a_test_and_what_mise_runs_itself(project: Path) -> None:
    """``[ -f X ] && source_env X`` is read as direnv runs it, and mise's own commands
    (a template's ``exec``, its ``[hooks]``) name project files too (red-team rt29)."""
    (project / "ci").mkdir()
    (project / "ci" / "version.sh").write_text("echo 1\n")
    (project / "hooks.sh").write_text("echo hi\n")
    (project / ".envrc").write_text(
        "[ -f .envrc.local ] && source_env .envrc.local\nif true; then source more.sh; fi\n"
    )
    (project / "mise.toml").write_text(
        '[env]\nV = "{{ exec(command=\'sh ci/version.sh\') }}"\n[hooks]\nenter = "sh hooks.sh"\n'
    )
    found = set(shellruns.paths(str(project)))
    for name in (".envrc.local", "more.sh", "ci/version.sh", "hooks.sh"):
        assert str(project / name) in found, name
