"""A program a contained command puts in a folder of the host's PATH inside the project is moved aside.

A host started in an activated virtualenv has ``.venv/bin`` first on its PATH and runs
``git``, the shell and its servers' interpreters by name, outside any boundary
(red-team rt25).  The real hook before and after, the real boundary between.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.contain import pathprograms, planted
from agentreflex.core.testing import hook_env, run_contained, shell_hook

PLANTED = '#!/bin/sh\ntouch /tmp/planted-git-ran\nexec /usr/bin/git "$@"\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "python3").symlink_to(sys.executable)
    (root / ".venv" / "bin" / "python").symlink_to("python3")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.setenv("PATH", f"{root / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    return root


def _command(root: Path, command: str, call: str, mode: str = "enforced") -> Any:
    """``command`` the whole way a host takes it: the hook before, the boundary, the hook after."""
    env = hook_env(root, mode)
    shell_hook(root, "PreToolUse", command, env, call=call)
    run_contained(root, command)
    return shell_hook(root, "PostToolUse", command, env, call=call)


def test_a_git_put_on_the_hosts_path_is_moved_aside(project: Path) -> None:
    git = project / ".venv" / "bin" / "git"
    outcome = _command(
        project, f"printf '{PLANTED}' > .venv/bin/git && chmod +x .venv/bin/git", "a"
    )
    assert not git.exists()
    finding = next(f for f in outcome.decision.findings if f.code == planted.CODE)
    assert (
        "in a folder of the host's PATH" in finding.message and ".venv/bin/git" in finding.message
    )
    kept = list((project.parent / "state").rglob("git"))
    assert kept and kept[0].read_text() == PLANTED  # moved, not deleted


@pytest.mark.parametrize("name", ["sudo", "less", "vi", "gh", "fd"])
def test_what_the_users_shell_runs_by_name_is_moved_aside_too(project: Path, name: str) -> None:
    """direnv's ``PATH_add`` gives the user's own shell the same folder: a planted ``sudo``
    reads their password, ``less`` and ``vi`` are what git runs as pager and editor."""
    _command(project, f"printf '{PLANTED}' > .venv/bin/{name} && chmod +x .venv/bin/{name}", name)
    assert not (project / ".venv" / "bin" / name).exists()


def test_a_replaced_interpreter_link_is_put_back(project: Path) -> None:
    python3 = project / ".venv" / "bin" / "python3"
    _command(project, f"rm .venv/bin/python3 && printf '{PLANTED}' > .venv/bin/python3", "b")
    assert python3.is_symlink() and os.readlink(python3) == sys.executable


def test_everyday_work_in_the_virtualenv_stays(project: Path) -> None:
    """A new virtualenv's links to an interpreter outside (``python -m venv``, ``uv venv``)
    and the programs ``pip install`` adds are the user's work: left as they are."""
    command = (
        f"rm .venv/bin/python3 && ln -s {sys.executable} .venv/bin/python3 && "
        "printf '#!/bin/sh\\n' > .venv/bin/pytest && chmod +x .venv/bin/pytest"
    )
    outcome = _command(project, command, "c")
    assert (project / ".venv" / "bin" / "python3").is_symlink()
    assert (project / ".venv" / "bin" / "pytest").exists()
    assert not [f for f in outcome.decision.findings if f.code == planted.CODE]


def test_a_link_into_what_a_command_can_write_is_no_system_program(project: Path) -> None:
    command = "printf '#!/bin/sh\\n' > tool && ln -s ../../tool .venv/bin/node"
    _command(project, command, "d")
    assert not os.path.lexists(project / ".venv" / "bin" / "node")
    assert (project / "tool").exists()  # only what the host would run by name moves


def test_a_folder_named_like_a_program_is_no_program(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``.`` on the PATH the project root is such a folder, and a monorepo's ``node/``
    or a virtualenv named ``env`` in it runs nothing: what the work writes there stays."""
    monkeypatch.setenv("PATH", f".{os.pathsep}{os.environ['PATH']}")
    (project / "node").mkdir()
    (project / "env" / "bin").mkdir(parents=True)
    outcome = _command(project, "touch node/index.js env/bin/activate && mkdir -p git", "f")
    assert (project / "node" / "index.js").exists() and (project / "env" / "bin").is_dir()
    assert (project / "git").is_dir()
    assert not [f for f in outcome.decision.findings if f.code == planted.CODE]


def test_in_shadow_mode_it_is_only_said(project: Path) -> None:
    outcome = _command(project, "printf x > .venv/bin/git", "e", mode="shadow")
    finding = next(f for f in outcome.decision.findings if f.code == planted.CODE)
    assert "would have been moved aside" in finding.message
    assert (project / ".venv" / "bin" / "git").exists()


def test_which_path_folders_are_the_projects(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "bin").mkdir(parents=True)
    cache = tmp_path / "cache" / "npx" / "bin"  # a host started by npx: its .bin first
    env = {
        "PATH": os.pathsep.join(
            ["", "bin", "/usr/bin", str(tmp_path), str(project / "bin"), str(cache)]
        )
    }
    # an empty entry is the folder the host runs in; a relative one is below it
    found = pathprograms.folders([str(project)], [str(tmp_path / "cache")], env)
    assert found == [
        (str(project), str(project)),
        (str(project / "bin"), str(project)),
        (str(cache), str(tmp_path / "cache")),
    ]
    assert pathprograms.folders([str(project)], [], {"PATH": "/usr/bin:/bin"}) == []


def test_a_host_started_by_npx_has_its_cache_folder_watched(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``npx @google/gemini-cli`` puts ``~/.npm/_npx/HASH/node_modules/.bin`` first on the
    host's PATH, and ``~/.npm`` is writable in the boundary (red-team rt27).  Since rt75
    ``_npx`` itself is a folder of the guard's in the boundary: the command writes there."""
    npx = Path(os.environ["HOME"]) / ".npm" / "_npx" / "6a2f" / "node_modules" / ".bin"
    npx.mkdir(parents=True)
    monkeypatch.setenv("PATH", f"{npx}{os.pathsep}{os.environ['PATH']}")
    plant = f"mkdir -p {npx} && printf '{PLANTED}' > {npx}/bash && chmod +x {npx}/bash"
    _command(project, plant, "g")
    assert not (npx / "bash").exists()


@pytest.mark.parametrize(
    "command",
    [
        "ln -sf /bin/bash .venv/bin/git",  # a link to another program: `git status` runs ./status
        "mkdir -p @T@/pp && ln -sfn /usr/bin @T@/pp/l && ln -s @T@/pp/l/git .venv/bin/git",
        "mv .venv/bin .venv/bin.old && mkdir -p @T@/pp2 && ln -s @T@/pp2 .venv/bin",
    ],
    ids=["another-program", "through-a-temp-link", "the-folder-made-a-link"],
)
def test_a_link_that_only_looks_like_the_program_is_moved_aside(
    project: Path, command: str
) -> None:
    _command(project, command, "h")
    git, folder = project / ".venv" / "bin" / "git", project / ".venv" / "bin"
    assert not os.path.lexists(git) or (
        folder.is_dir() and not folder.is_symlink() and not git.exists()
    )
    assert not folder.is_symlink()
